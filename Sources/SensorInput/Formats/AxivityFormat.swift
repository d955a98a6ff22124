import StepDetection
import WallTime

/// Axivity / OpenMovement CSV (omconvert, OmGui): `YYYY-MM-DD hh:mm:ss.fff,x,y,z` in g, no header (an optional
/// `Time,Accel-X (g),...` row is skipped). The times are the device's local wall time, read on the clock of
/// `ReadOptions.timeZone` (`--time-zone`, `text.time_zone`, else the machine's zone) as the generic reader reads
/// them (`LocalClock`).
struct AxivityFormat: FreshLineParser {
    static let format = InputFormat(
        name: "axivity", kind: .acceleration,
        about: "Axivity/omconvert CSV: YYYY-MM-DD hh:mm:ss.fff,x,y,z in g (local time, in --time-zone)",
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
    /// The rows' clock, in the zone or at the offset a GENEActiv header states.
    var clock = LocalClock()

    mutating func parse(
        _ line: UnsafeBufferPointer<UInt8>, number: Int, options: ReadOptions,
        _ emit: (InputItem) -> Void
    ) throws -> String? {
        let f = Fields.split(line, ",")
        if firstNs == nil && f.first?.lowercased().hasPrefix("time") == true { return nil }  // header row
        guard f.count >= 4 else { return "expected time,x,y,z, found \(f.count) fields" }
        guard let parsed = TimeParsing.parseDateTime(f[0]) else { return "time is not YYYY-MM-DD hh:mm:ss.fff" }
        guard let x = Fields.double(f[1]), let y = Fields.double(f[2]), let z = Fields.double(f[3]) else {
            return "x, y or z is not a number"
        }
        let t0 = clock.instantNs(parsed, options: options)
        if firstNs == nil { firstNs = t0 }
        var t = t0
        if let start = options.start?.nanosecondsSinceEpoch, let f0 = firstNs { t = start &+ (t0 &- f0) }
        let g = standardGravity
        emit(.sample(AccelerationSample(time: Instant(nanosecondsSinceEpoch: t), x: x * g, y: y * g, z: z * g)))
        return nil
    }

    func describe(_ summary: inout ReadSummary) {
        summary.unit = .g
        summary.absoluteTime = true
        summary.notes += clock.notes
    }
}
