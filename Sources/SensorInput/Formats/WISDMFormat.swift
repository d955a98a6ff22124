import StepDetection
import WallTime

/// WISDM v1.1 raw: `user,activity,timestamp,x,y,z;` — no header, `;` ends each record, values numerically m/s²
/// ("10 = 1 g"), timestamp in ns (phone uptime, or epoch in some files; ms in some, told from the step between the
/// first two; 0 in a few rows, which are skipped).
struct WISDMFormat: FreshLineParser {
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
    /// ns per timestamp unit: 1 (ns), or 1,000,000 when the first two records are under 10 µs apart (ms).
    var scale: Int64?

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
            let f0 = firstNs ?? ts
            if scale == nil && ts != f0 { scale = abs(ts &- f0) < 10_000 ? 1_000_000 : 1 }
            let (elapsed, overflow) = (ts &- f0).multipliedReportingOverflow(by: scale ?? 1)
            let (time, overflow2) = (!absolute ? options.start?.nanosecondsSinceEpoch ?? f0 : f0)
                .addingReportingOverflow(elapsed)
            guard !overflow, !overflow2 else {
                problem = "timestamp \(ts) is out of range"
                continue
            }
            emit(.sample(AccelerationSample(time: Instant(nanosecondsSinceEpoch: time), x: x, y: y, z: z)))
        }
        return problem
    }

    func describe(_ summary: inout ReadSummary) {
        summary.absoluteTime = absolute
        summary.unit = .metersPerSecondSquared
    }
}
