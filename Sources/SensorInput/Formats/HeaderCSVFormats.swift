/// Formats with a header row naming their columns, all read by the fast `GenericCSVReader` (columns found by name,
/// so Sensor Logger's z,y,x order is handled): generic CSV, Sensor Logger, phyphox, Physics Toolbox.
enum HeaderCSVFormats {
    static func header(_ s: Sniff) -> [String] {
        s.fields(s.first).map { GenericCSVReader.normalize(String($0)).name }
    }

    /// Any delimited file whose first line is a header naming a time column and x,y,z or a magnitude.
    static let generic = InputFormat(
        name: GenericCSVReader.formatName, kind: .acceleration,
        about:
            "CSV with a header: time (s/ms/µs/ns, relative or epoch) and x,y,z or magnitude; , ; tab or spaces; m/s² or g",
        sniff: { s in
            let fields = s.fields(s.first)
            if fields.count >= 2, !fields.allSatisfy({ Sniff.isNumber($0) }) { return 10 }
            // A title line above the header (AndroSensor): the second line names the columns.
            guard s.lines.count >= 2 else { return 0 }
            let second = s.fields(s.lines[1])
            return second.count >= 3 && !second.allSatisfy({ Sniff.isNumber($0) }) ? 5 : 0
        },
        parser: nil)

    /// Sensor Logger (Kelvin Choi): `time,seconds_elapsed,z,y,x`, time in epoch ns, m/s².
    static let sensorLogger = InputFormat(
        name: "sensor-logger", kind: .acceleration,
        about: "Sensor Logger app CSV: time (epoch ns), seconds_elapsed, z, y, x in m/s²",
        sniff: { s in
            let h = header(s)
            return h.count >= 5 && h[0] == "time" && h[1] == "seconds_elapsed" && h.contains("x") && h.contains("z")
                ? 90 : 0
        },
        parser: nil)

    /// phyphox "Raw Data.csv": quoted header `"Time (s)","Acceleration x (m/s^2)",...`.
    static let phyphox = InputFormat(
        name: "phyphox", kind: .acceleration,
        about: "phyphox export: \"Time (s)\", \"Acceleration x (m/s^2)\"... (s since start, m/s²)",
        sniff: { s in
            let first = s.first.lowercased()
            return first.hasPrefix("\"time (s)\"") && first.contains("acceleration") ? 90 : 0
        },
        parser: nil)

    /// Physics Toolbox Sensor Suite: `time,gFx,gFy,gFz,TgF` (g) or `time,ax,ay,az,aT` (m/s²).
    static let physicsToolbox = InputFormat(
        name: "physics-toolbox", kind: .acceleration,
        about: "Physics Toolbox Sensor Suite: time, gFx, gFy, gFz, TgF (g) or time, ax, ay, az, aT",
        sniff: { s in
            let h = header(s)
            guard h.first == "time" else { return 0 }
            return h.contains("gfx") || (h.contains("ax") && h.contains("at")) ? 90 : 0
        },
        parser: nil)
}
