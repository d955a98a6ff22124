import StepDetection

/// Axivity / OpenMovement CSV (omconvert, OmGui): `YYYY-MM-DD hh:mm:ss.fff,x,y,z` in g, no header (an optional
/// `Time,Accel-X (g),...` row is skipped). The times are the device's local wall time, read as UTC.
struct AxivityFormat: LineParser {
    static let format = InputFormat(
        name: "axivity", kind: .acceleration,
        about: "Axivity/omconvert CSV: YYYY-MM-DD hh:mm:ss.fff,x,y,z in g (local time read as UTC)",
        sniff: { s in
            if s.first.lowercased().hasPrefix("time,accel-x") { return 90 }
            let f = s.first.split(separator: ",")
            guard f.count >= 4, TimeParsing.parseDateTime(f[0]) != nil,
                f[1...3].allSatisfy({ Sniff.isNumber($0) })
            else { return 0 }
            return 90
        },
        parser: AxivityFormat.self)

    var firstNs: Int64?

    init(path: String, options: ReadOptions) throws {}

    mutating func parse(
        _ line: UnsafeBufferPointer<UInt8>, number: Int, options: ReadOptions,
        _ emit: (InputItem) -> Void
    ) throws -> String? {
        let f = Fields.split(line, ",")
        if firstNs == nil && f.first?.lowercased().hasPrefix("time") == true { return nil }  // header row
        guard f.count >= 4 else { return "expected time,x,y,z, found \(f.count) fields" }
        guard let t0 = TimeParsing.parseDateTime(f[0])?.ns else { return "time is not YYYY-MM-DD hh:mm:ss.fff" }
        guard let x = Fields.double(f[1]), let y = Fields.double(f[2]), let z = Fields.double(f[3]) else {
            return "x, y or z is not a number"
        }
        if firstNs == nil { firstNs = t0 }
        var t = t0
        if let start = options.startNs, let f0 = firstNs { t = start &+ (t0 &- f0) }
        let g = standardGravity
        emit(.sample(AccelerationSample(timeNs: t, x: x * g, y: y * g, z: z * g)))
        return nil
    }

    func describe(_ summary: inout ReadSummary) {
        summary.unit = .g
        summary.absoluteTime = true
    }
}
