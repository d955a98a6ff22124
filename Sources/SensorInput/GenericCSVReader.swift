import StepDetection

/// Reader for CSV files with a header row naming a time column (`t_ms`, `t_s`, `time`, `timestamp`, with units in the
/// name or in brackets) and either `x,y,z` or `magnitude` columns. Delimiter `,`, `;`, tab or spaces. Time in s, ms,
/// µs or ns, relative or since the epoch; values in m/s² or g, told apart from the data (|a| at rest ≈ 9.8 or ≈ 1).
/// When the delimiter is not `,` a decimal comma is accepted too (phyphox "Semicolon, decimal comma" exports).
public enum GenericCSVReader {
    public static let formatName = "generic-csv"

    /// Which columns hold what, found from the header.
    struct Layout {
        var delimiter: UInt8  // 0 = runs of spaces
        var fieldCount: Int
        var time: Int
        var timeUnitNs: Double?  // nil: infer from the data
        var axes: (Int, Int, Int)?
        var magnitude: Int?
        /// The acceleration unit the header states (`[g]`, `(m/s^2)`, `gFx`), nil: told from the data.
        var accelerationUnit: AccelerationUnit?

        /// Columns of the one-pass fast path (comma-separated, three axes or a magnitude), or nil.
        var plainColumns: (time: Int, a: Int, b: Int, c: Int)? {
            guard delimiter == 0x2C else { return nil }
            if let (x, y, z) = axes { return (time, x, y, z) }
            if let m = magnitude { return (time, m, -1, -1) }
            return nil
        }
    }

    /// One comma-separated field of the plainest kind, `-12.345` or `1763686800123456789`, parsed while it
    /// is scanned; `i` moves past the comma. Nil for anything else: the general path then reads the line. The value
    /// is the one `NumberParsing.parseDouble` gives (the same exact mantissa and one correctly rounded division).
    @inline(__always)
    static func plainField(_ p: UnsafePointer<UInt8>, _ i: inout Int, _ end: Int) -> Double? {
        var j = i
        var negative = false
        if j < end && p[j] == 0x2D { negative = true; j += 1 }
        var mantissa: UInt64 = 0
        let digitsStart = j
        while j < end { let d = p[j] &- 0x30; if d > 9 { break }; mantissa = mantissa &* 10 &+ UInt64(d); j += 1 }
        var digits = j - digitsStart
        var fraction = 0
        if j < end && p[j] == 0x2E {
            j += 1
            let fractionStart = j
            while j < end { let d = p[j] &- 0x30; if d > 9 { break }; mantissa = mantissa &* 10 &+ UInt64(d); j += 1 }
            fraction = j - fractionStart
            digits += fraction
        }
        // Up to 15 digits with a fraction (Clinger's exact fast path), or an integer of up to 19 (epoch ns: one
        // correctly rounded conversion); anything longer goes to the general path.
        guard digits > 0, digits <= (fraction > 0 ? 15 : 19), j == end || p[j] == 0x2C else { return nil }
        i = j + 1
        var value = Double(mantissa)
        if fraction > 0 { value /= NumberParsing.exactPowerOfTen(fraction) }
        return negative ? -value : value
    }

    /// A whole comma-separated row in one pass, or nil when any field is not plain (the general path decides).
    @inline(__always)
    static func plainRow(_ p: UnsafePointer<UInt8>, _ count: Int, _ fieldCount: Int,
                         _ columns: (time: Int, a: Int, b: Int, c: Int), _ number: Int) -> Row? {
        var t = 0.0, a = 0.0, b = 0.0, c = 0.0
        var i = 0
        var column = 0
        while column < fieldCount {
            if column == columns.time {
                guard let v = plainField(p, &i, count) else { return nil }
                t = v
            } else if column == columns.a {
                guard let v = plainField(p, &i, count) else { return nil }
                a = v
            } else if column == columns.b {
                guard let v = plainField(p, &i, count) else { return nil }
                b = v
            } else if column == columns.c {
                guard let v = plainField(p, &i, count) else { return nil }
                c = v
            } else {
                while i < count && p[i] != 0x2C { i += 1 }
                i += 1
            }
            column += 1
        }
        guard i == count + 1 else { return nil }  // fewer or more fields than the header: the general path says so
        return (t, a, b, c, number)
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
        for prefix in ["t_", "time_", "timestamp_", "ts_", "t", "time"] where name.hasPrefix(prefix) {
            let rest = String(name.dropFirst(prefix.count))
            if let u = units.first(where: { $0.0 == rest }) { return .some(u.1) }
        }
        return nil
    }

    static func layout(header: [String], delimiter: UInt8, file: String) throws -> Layout {
        let cols = header.map(normalize)
        var time: Int?
        var timeUnit: Double?
        for (i, c) in cols.enumerated() {
            if let u = self.timeUnit(name: c.name, unit: c.unit) { time = i; timeUnit = u; break }
        }
        guard let time else {
            throw InputError(file: file, line: 1, message:
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
            if unit == "g" || c.name.hasPrefix("gf") {
                layout.accelerationUnit = .g
            } else if unit.hasPrefix("m/s") || unit.hasPrefix("ms^-2") || unit.hasPrefix("ms-2") {
                layout.accelerationUnit = .metersPerSecondSquared
            }
        }
        if let x, let y, let z {
            layout.axes = (x, y, z)
        } else if let m {
            layout.magnitude = m
        } else {
            throw InputError(file: file, line: 1, message:
                "no acceleration columns in the header (expected x, y, z or magnitude); found: "
                + header.map { $0.trimmingCharacters(in: " \"") }.joined(separator: ", "))
        }
        return layout
    }

    static func detectDelimiter(_ line: UnsafeBufferPointer<UInt8>) -> UInt8 {
        var counts: [UInt8: Int] = [0x2C: 0, 0x3B: 0, 0x09: 0]
        for b in line where counts[b] != nil { counts[b]! += 1 }
        let best = counts.max { a, b in a.value < b.value || (a.value == b.value && a.key > b.key) }!
        return best.value > 0 ? best.key : 0
    }

    /// Splits `line` into field boundaries, writing at most `limit` (start, end) pairs; returns the field count.
    @inline(__always)
    static func split(_ p: UnsafePointer<UInt8>, _ count: Int, _ delimiter: UInt8,
                      _ starts: UnsafeMutablePointer<Int>, _ ends: UnsafeMutablePointer<Int>, _ limit: Int) -> Int {
        var n = 0
        var i = 0
        if delimiter == 0 {
            while i < count {
                while i < count && (p[i] == 0x20 || p[i] == 0x09) { i += 1 }
                if i >= count { break }
                let s = i
                while i < count && p[i] != 0x20 && p[i] != 0x09 { i += 1 }
                if n < limit { starts[n] = s; ends[n] = i }
                n += 1
            }
            return n
        }
        var s = 0
        while i < count {
            if p[i] == delimiter {
                if n < limit { starts[n] = s; ends[n] = i }
                n += 1
                s = i + 1
            }
            i += 1
        }
        if n < limit { starts[n] = s; ends[n] = count }
        return n + 1
    }

    /// Reads every sample of `path`.
    public static func read(
        path: String,
        options: ReadOptions = ReadOptions(),
        _ sink: (AccelerationSample) -> Void
    ) throws -> ReadSummary {
        try read(path: path, options: options, resume: nil, completeLinesOnly: false, sink).summary
    }

    /// What a later read needs to continue where this one stopped: the header, the units found, the position.
    public struct ResumeState: Sendable, Equatable, Codable {
        var header: String
        var scale: Scale?
        public var offset: Int64
        public var lineNumber: Int
    }

    /// Reads the samples after `resume` (from the start when nil). With `completeLinesOnly` a last line without a
    /// newline is left for the next read (a file another program is still writing).
    public static func read(
        path: String,
        options: ReadOptions,
        resume: ResumeState?,
        completeLinesOnly: Bool,
        formatName: String = GenericCSVReader.formatName,
        source: LineSource = .file,
        _ sink: (AccelerationSample) -> Void
    ) throws -> (summary: ReadSummary, resume: ResumeState?) {
        var summary = ReadSummary(format: formatName)
        var lastNs: Int64? = nil
        var layout: Layout?
        var headerText = resume?.header
        let limit = 64
        let starts = UnsafeMutablePointer<Int>.allocate(capacity: limit)
        let ends = UnsafeMutablePointer<Int>.allocate(capacity: limit)
        defer { starts.deallocate(); ends.deallocate() }
        let lineBase = resume?.lineNumber ?? 0
        var lastLine = lineBase
        var consumedOffset = resume?.offset ?? 0

        func makeLayout(_ p: UnsafePointer<UInt8>, _ count: Int, _ number: Int) throws -> Layout {
            let delimiter = detectDelimiter(UnsafeBufferPointer(start: p, count: count))
            let n = split(p, count, delimiter, starts, ends, limit)
            let header = (0..<min(n, limit)).map {
                String(decoding: UnsafeBufferPointer(start: p + starts[$0], count: ends[$0] - starts[$0]), as: UTF8.self)
            }
            if header.allSatisfy({ NumberParsing.parseDouble(Array($0.utf8), 0, $0.utf8.count) != nil }) {
                throw InputError(file: path, line: number, message:
                    "no header row: the first line is numbers; expected a header naming a time column (t_ms, t_s, time) and x,y,z or magnitude")
            }
            var found = try self.layout(header: header, delimiter: delimiter, file: path)
            if formatName == "sensor-logger" { found.accelerationUnit = .metersPerSecondSquared }  // always m/s²
            return found
        }
        if let h = headerText {
            let bytes = Array(h.utf8)
            layout = try bytes.withUnsafeBufferPointer { try makeLayout($0.baseAddress!, bytes.count, 1) }
        }

        // Units are told from the first samples, so those are held back until they are known.
        var probe = UnitProbe()
        probe.scale = resume?.scale
        var sawAnyLine = resume != nil
        var budget = ByteBudget(options.byteLimit)

        let consumed = try source.forEachLine(path: path, startingAt: resume?.offset ?? 0, progress: options.progress) { line, relative, complete in
            let number = lineBase + relative
            if completeLinesOnly && !complete { return false }
            if !budget.admit(line.count) { return false }
            lastLine = number
            guard let p = line.baseAddress, line.count > 0 else { return true }
            var allBlank = true
            for b in line where b != 0x20 && b != 0x09 { allBlank = false; break }
            if allBlank { return true }
            sawAnyLine = true
            guard let l = layout else {
                layout = try makeLayout(p, line.count, number)
                headerText = String(decoding: line, as: UTF8.self)
                return true
            }
            if let columns = l.plainColumns, let row = plainRow(p, line.count, l.fieldCount, columns, number),
               let scale = probe.scale {
                try deliver(row, scale: scale, &summary, &lastNs, options, path, sink)
                return true
            }
            let n = split(p, line.count, l.delimiter, starts, ends, limit)
            if n < l.fieldCount && !(n == l.fieldCount - 1 && l.delimiter != 0 && p[line.count - 1] == l.delimiter) {
                try summary.skip(InputError(file: path, line: number,
                    message: "expected \(l.fieldCount) fields, found \(n)"), options: options)
                return true
            }
            // A row one field short that ends in the delimiter: the missing fields are empty (never stale bounds).
            var missing = n
            while missing < min(l.fieldCount, limit) { starts[missing] = 0; ends[missing] = 0; missing += 1 }
            // The hot path parses in place; a bad field is described by a cold helper.
            let t = NumberParsing.parseDouble(p, starts[l.time], ends[l.time], decimalComma: l.delimiter != 0x2C)
            let row: Row
            if let (xi, yi, zi) = l.axes {
                let x = NumberParsing.parseDouble(p, starts[xi], ends[xi], decimalComma: l.delimiter != 0x2C)
                let y = NumberParsing.parseDouble(p, starts[yi], ends[yi], decimalComma: l.delimiter != 0x2C)
                let z = NumberParsing.parseDouble(p, starts[zi], ends[zi], decimalComma: l.delimiter != 0x2C)
                guard let t, let x, let y, let z else {
                    let bad = [(t, l.time, "time"), (x, xi, "x"), (y, yi, "y"), (z, zi, "z")].first { $0.0 == nil } ?? (t, l.time, "time")
                    try summary.skip(badField(p, starts[bad.1], ends[bad.1], bad.2, path, number), options: options)
                    return true
                }
                row = (t, x, y, z, number)
            } else if let mi = l.magnitude {
                let m = NumberParsing.parseDouble(p, starts[mi], ends[mi], decimalComma: l.delimiter != 0x2C)
                guard let t, let m else {
                    let (i, name) = t == nil ? (l.time, "time") : (mi, "magnitude")
                    try summary.skip(badField(p, starts[i], ends[i], name, path, number), options: options)
                    return true
                }
                row = (t, m, 0, 0, number)
            } else {
                return true
            }
            if let scale = probe.scale {
                try deliver(row, scale: scale, &summary, &lastNs, options, path, sink)
            } else {
                probe.add(row)
                if probe.isFull {
                    let scale = probe.decide(timeUnitNs: l.timeUnitNs, unit: l.accelerationUnit)
                    for r in probe.rows { try deliver(r, scale: scale, &summary, &lastNs, options, path, sink) }
                    probe.rows.removeAll()
                }
            }
            return true
        }
        consumedOffset = consumed
        guard sawAnyLine else { throw InputError(file: path, message: "file is empty") }
        guard let l = layout, let headerText else {
            if completeLinesOnly { return (summary, nil) }
            throw InputError(file: path, message: "file is empty")
        }
        if probe.scale == nil && !probe.rows.isEmpty {
            let scale = probe.decide(timeUnitNs: l.timeUnitNs, unit: l.accelerationUnit)
            for r in probe.rows { try deliver(r, scale: scale, &summary, &lastNs, options, path, sink) }
        }
        summary.unit = probe.scale?.unit ?? .metersPerSecondSquared
        summary.hasAxes = l.axes != nil
        return (summary, ResumeState(header: headerText, scale: probe.scale, offset: consumedOffset, lineNumber: lastLine))
    }

    /// The error for a field that is not a number.
    @inline(never)
    static func badField(_ p: UnsafePointer<UInt8>, _ start: Int, _ end: Int, _ name: String, _ path: String,
                         _ line: Int) -> InputError {
        let text = String(decoding: UnsafeBufferPointer(start: p + start, count: end - start), as: UTF8.self)
        return InputError(file: path, line: line, message: "\(name) is not a number: '\(text.prefix(40))'")
    }

    /// Time, x, y, z (or magnitude, 0, 0) and line number of one row.
    typealias Row = (Double, Double, Double, Double, Int)

    @inline(__always)
    static func deliver(_ row: Row, scale: Scale, _ summary: inout ReadSummary, _ lastNs: inout Int64?,
                        _ options: ReadOptions, _ path: String, _ sink: (AccelerationSample) -> Void) throws {
        let scaled = (row.0 * scale.timeNs).rounded()
        guard let raw = Int64(exactly: scaled) else {
            try summary.skip(InputError(file: path, line: row.4, message: "time is out of range"), options: options)
            return
        }
        var t = raw
        if !scale.absolute, let start = options.startNs { t &+= start }
        let f = scale.unit == .g ? 9.80665 : 1.0  // standardGravity, inlined for the hot path
        let sample = AccelerationSample(timeNs: t, x: row.1 * f, y: row.2 * f, z: row.3 * f)
        if let problem = SampleCheck.problem(sample, previousNs: lastNs) {
            try summary.skip(InputError(file: path, line: row.4, message: problem), options: options)
            return
        }
        lastNs = t
        sink(sample)
        summary.note(sampleAt: t)
        summary.absoluteTime = scale.absolute || options.startNs != nil
    }

    struct Scale: Sendable, Equatable, Codable {
        var timeNs: Double
        var absolute: Bool
        var unit: AccelerationUnit
    }

    /// Holds the first rows of a file until the time and acceleration units can be told from them.
    struct UnitProbe {
        var rows: [Row] = []
        var scale: Scale?
        var isFull: Bool { rows.count >= 256 }

        mutating func add(_ row: Row) { rows.append(row) }

        mutating func decide(timeUnitNs: Double?, unit stated: AccelerationUnit? = nil) -> Scale {
            let mags = rows.map { ($0.1 * $0.1 + $0.2 * $0.2 + $0.3 * $0.3).squareRoot() }.filter(\.isFinite).sorted()
            let median = mags.isEmpty ? standardGravity : mags[mags.count / 2]
            // Told from the data only when the header does not say: with gravity |a| ≈ 1 g or ≈ 9.8 m/s².
            let unit: AccelerationUnit = stated ?? (median < 3.5 ? .g : .metersPerSecondSquared)
            let first = rows.first?.0 ?? 0
            var unitNs = timeUnitNs
            if unitNs == nil {
                // Epoch magnitudes first, then the typical step between samples for relative times.
                let a = abs(first)
                if a > 1e17 { unitNs = 1 } else if a > 1e14 { unitNs = 1e3 } else if a > 1e11 { unitNs = 1e6 } else if a > 1e8 { unitNs = 1e9 } else {
                    var deltas = zip(rows.dropFirst(), rows).map { $0.0 - $1.0 }.filter { $0 > 0 }
                    deltas.sort()
                    let d = deltas.isEmpty ? 0.01 : deltas[deltas.count / 2]
                    unitNs = d >= 1e4 ? 1 : d >= 10 ? 1e3 : d >= 0.2 ? 1e6 : 1e9
                }
            }
            let absolute = abs(first) * (unitNs ?? 1e9) > 1e17  // after ~1973: a wall-clock time
            let decided = Scale(timeNs: unitNs ?? 1e9, absolute: absolute, unit: unit)
            scale = decided
            return decided
        }
    }
}

extension String {
    func trimmingCharacters(in set: String) -> String {
        var s = Substring(self)
        while let f = s.first, set.contains(f) { s.removeFirst() }
        while let l = s.last, set.contains(l) { s.removeLast() }
        return String(s)
    }
}
