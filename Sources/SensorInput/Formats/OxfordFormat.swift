import StepDetection
import WallTime

/// Oxford step-counter data-collection app: no header, CRLF, `ts_ns_since_boot,accuracy,x,y,z` in m/s².
/// Times are since boot; `--start` anchors the first sample to a wall-clock time.
struct OxfordFormat: FreshLineParser {
    static let format = InputFormat(
        name: "oxford", kind: .acceleration,
        about: "Oxford data-logger accelerometer.csv: ts_ns_since_boot,accuracy,x,y,z (no header, m/s²)",
        sniff: { s in
            let f = s.first.split(separator: ",", omittingEmptySubsequences: false)
            guard f.count == 5, f.allSatisfy({ Sniff.isNumber($0) }), Int64(f[0]) != nil, let acc = Int(f[1]),
                (0...3).contains(acc)
            else { return 0 }
            return 80
        },
        parser: OxfordFormat.self)

    var firstNs: Int64?

    mutating func parse(
        _ line: UnsafeBufferPointer<UInt8>, number: Int, options: ReadOptions,
        _ emit: (InputItem) -> Void
    ) throws -> String? {
        let f = Fields.split(line, ",")
        guard f.count == 5 else { return "expected 5 fields (ts,accuracy,x,y,z), found \(f.count)" }
        guard let ts = Fields.int(f[0]) else { return "timestamp is not an integer" }
        guard let x = Fields.double(f[2]), let y = Fields.double(f[3]), let z = Fields.double(f[4]) else {
            return "x, y or z is not a number"
        }
        if firstNs == nil { firstNs = ts }
        var t = ts
        if let start = options.start?.nanosecondsSinceEpoch, let f0 = firstNs { t = start &+ (ts &- f0) }
        emit(.sample(AccelerationSample(time: Instant(nanosecondsSinceEpoch: t), x: x, y: y, z: z)))
        return nil
    }
}
