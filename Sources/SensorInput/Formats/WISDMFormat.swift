import StepDetection

/// WISDM v1.1 raw: `user,activity,timestamp,x,y,z;` — no header, `;` ends each record, values numerically m/s²
/// ("10 = 1 g"), timestamp in ns (phone uptime, or epoch in some files; 0 in a few rows, which are skipped).
struct WISDMFormat: LineParser {
    static let format = InputFormat(
        name: "wisdm", kind: .acceleration,
        about: "WISDM raw: user,activity,timestamp(ns),x,y,z; (values m/s², 10 = 1 g)",
        sniff: { s in
            let f = s.first.split(separator: ",", omittingEmptySubsequences: false)
            let line = s.first.reversed().drop { $0 == "," || $0 == " " }  // `;` plus an extra `,` in some lines
            guard f.count >= 6, line.first == ";", Int(f[0]) != nil, !Sniff.isNumber(f[1]) else { return 0 }
            return 90
        },
        parser: WISDMFormat.self)

    var firstNs: Int64?
    var absolute = false

    init(path: String, options: ReadOptions) throws {}

    mutating func parse(
        _ line: UnsafeBufferPointer<UInt8>, number: Int, options: ReadOptions,
        _ emit: (InputItem) -> Void
    ) throws -> String? {
        // Some lines hold two records ("...;33,Jogging,...;"), some have an empty field before the `;`.
        let text = String(decoding: line, as: UTF8.self)
        var problem: String?
        for record in text.split(separator: ";") where !record.allSatisfy({ $0 == " " || $0 == "," }) {
            var f = record.split(separator: ",", omittingEmptySubsequences: false)
            while f.count > 6, f.last?.trimmingPrefixSpaces().isEmpty == true { f.removeLast() }
            guard f.count == 6 else {
                problem = "expected 6 fields (user,activity,timestamp,x,y,z), found \(f.count)"
                continue
            }
            guard let ts = Fields.int(f[2]), ts > 0 else {
                problem = "timestamp is missing or 0"
                continue
            }
            guard let x = Fields.double(f[3]), let y = Fields.double(f[4]), let z = Fields.double(f[5]) else {
                problem = "x, y or z is not a number"
                continue
            }
            if firstNs == nil {
                firstNs = ts
                absolute = ts > 100_000_000_000_000_000
            }
            var t = ts
            if !absolute, let start = options.startNs, let f0 = firstNs { t = start &+ (ts &- f0) }
            emit(.sample(AccelerationSample(timeNs: t, x: x, y: y, z: z)))
        }
        return problem
    }

    func describe(_ summary: inout ReadSummary) {
        summary.absoluteTime = absolute
        summary.unit = .metersPerSecondSquared
    }
}
