import StepDetection

extension GenericCSVReader {
    /// Which columns hold what, found from the header.
    struct Layout: Sendable {
        var delimiter: UInt8  // 0 = runs of spaces
        var fieldCount: Int
        var time: Int
        var timeUnitNs: Double?  // nil: infer from the data
        var axes: (Int, Int, Int)?
        var magnitude: Int?
        /// The acceleration unit the header states (`[g]`, `(m/s^2)`, `gFx`), nil: told from the data.
        var accelerationUnit: AccelerationUnit?
        /// Whether that unit is a text the file wrote (`(m/s^2)`, a units row), which the data may contradict (a file
        /// in g labelled m/s²); not a unit known from the format (Sensor Logger, Physics Toolbox's names).
        var unitStatedInText = false
        /// The zone a date-time time without an offset is read in (`ReadOptions.timeZone`, else the machine's); nil
        /// for UTC.
        var zone: ZoneOffsets?

        /// Columns of the one-pass fast path (comma-separated, three axes or a magnitude), or nil.
        var plainColumns: (time: Int, a: Int, b: Int, c: Int)? {
            guard delimiter == 0x2C else { return nil }
            if let (x, y, z) = axes { return (time, x, y, z) }
            if let m = magnitude { return (time, m, -1, -1) }
            return nil
        }
    }

    static func normalize(_ raw: String) -> (name: String, unit: String?) {
        var s = raw.trimmingCharacters(in: " \t\"'").lowercased()
        var unit: String?
        for (open, close) in [("(", ")"), ("[", "]"), ("{", "}")] {
            if let o = s.firstIndex(of: Character(open)), let c = s[o...].firstIndex(of: Character(close)) {
                unit = String(s[s.index(after: o)..<c]).trimmingCharacters(in: " ")
                s.removeSubrange(o...c)
            }
        }
        return (s.trimmingCharacters(in: " _-"), unit)
    }

    static func timeUnit(name: String, unit: String?) -> Double?? {
        let units: [(String, Double)] = [("ns", 1), ("us", 1e3), ("µs", 1e3), ("ms", 1e6), ("s", 1e9), ("sec", 1e9)]
        if let unit, let u = units.first(where: { $0.0 == unit }) { return .some(u.1) }
        let timeNames = ["t", "time", "timestamp", "ts", "seconds", "elapsed", "seconds_elapsed", "time_since_start"]
        if timeNames.contains(name) { return .some(name == "seconds" || name == "seconds_elapsed" ? 1e9 : nil) }
        // AndroSensor: `Time since start in ms ` (with a trailing space).
        if name.hasPrefix("time since start"), let u = units.first(where: { name.hasSuffix(" in " + $0.0) }) {
            return .some(u.1)
        }
        // MATLAB's `writetable` of a timetable names the time `<Table>_Timestamp` (`Acceleration_Timestamp`).
        if name.hasSuffix("_timestamp") { return .some(nil) }
        for prefix in ["t_", "time_", "timestamp_", "ts_", "t", "time"] where name.hasPrefix(prefix) {
            let rest = String(name.dropFirst(prefix.count))
            if let u = units.first(where: { $0.0 == rest }) { return .some(u.1) }
        }
        return nil
    }

    static func layout(header: [String], delimiter: UInt8, file: String, line: Int = 1) throws -> Layout {
        let cols = header.map(normalize)
        if let s = try ShimmerCSV.layout(cols.map(\.name), delimiter: delimiter, file: file, line: line) { return s }
        var time: Int?
        var timeUnit: Double?
        for (i, c) in cols.enumerated() {
            if let u = self.timeUnit(name: c.name, unit: c.unit) {
                time = i
                timeUnit = u
                break
            }
        }
        guard let time else {
            throw InputError(
                file: file, line: line,
                message:
                    "no time column in the header (expected a column named t_ms, t_s, time or timestamp); found: "
                    + header.map { $0.trimmingCharacters(in: " \"") }.joined(separator: ", "))
        }
        func find(_ names: [String]) -> Int? {
            if let exact = cols.firstIndex(where: { names.contains($0.name) }) { return exact }
            // "Linear Acceleration x", "acc-x", "Accelerometer_X": an acceleration name ending in the axis letter.
            guard let axis = names.first, axis.count == 1 else { return nil }
            return cols.firstIndex { c in
                c.name.contains("acc") && [" ", "_", "-", "."].contains { c.name.hasSuffix($0 + axis) }
            }
        }
        let x = find(["x", "ax", "acc_x", "accel_x", "accx", "acceleration x", "accelerometer x", "gfx"])
        let y = find(["y", "ay", "acc_y", "accel_y", "accy", "acceleration y", "accelerometer y", "gfy"])
        let z = find(["z", "az", "acc_z", "accel_z", "accz", "acceleration z", "accelerometer z", "gfz"])
        let m = find(["magnitude", "mag", "norm", "total", "abs", "absolute acceleration", "|a|", "tgf", "at"])
        var layout = Layout(delimiter: delimiter, fieldCount: header.count, time: time, timeUnitNs: timeUnit)
        if let column = x ?? m {
            let c = cols[column]
            let unit = (c.unit ?? "").replacingOccurrences(of: " ", with: "")
            if let stated = accelerationUnit(unitText(unit)) {
                layout.accelerationUnit = stated
                layout.unitStatedInText = true
            } else if c.name.hasPrefix("gf") {
                layout.accelerationUnit = .g
            } else if c.unit == nil, c.name == "ax" || c.name == "at", cols.contains(where: { $0.name == "at" }) {
                // Physics Toolbox's linear accelerometer (`time,ax,ay,az,aT`) is m/s² without gravity: small
                // values that the data alone would take for g.
                layout.accelerationUnit = .metersPerSecondSquared
            }
        }
        if let x, let y, let z {
            layout.axes = (x, y, z)
        } else if let m {
            layout.magnitude = m
        } else {
            throw InputError(
                file: file, line: line,
                message:
                    "no acceleration columns in the header (expected x, y, z or magnitude); found: "
                    + header.map { $0.trimmingCharacters(in: " \"") }.joined(separator: ", "))
        }
        return layout
    }
}
