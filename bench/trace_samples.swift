// A recording's samples as `steptweet count` reads a `t_ms,x,y,z` or `t_ms,magnitude` CSV (median |a| under 3.5: g), for
// the tracers built beside Sources/StepDetection (`bout_trace.swift`, `h47start_refused_starts.swift`): compiled into
// the same module with them.
import Foundation

func readSamples(_ path: String) -> (times: [Int64], values: [[Double]]) {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { fatalError("cannot read \(path)") }
    var times: [Int64] = []
    var values: [[Double]] = []
    for line in text.split(separator: "\n").dropFirst() {
        let fields = line.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard fields.count >= 2 else { continue }
        times.append(Int64((fields[0] * 1e6).rounded()))
        values.append(Array(fields.dropFirst()))
    }
    let magnitudes = values.map { v in v.map { $0 * $0 }.reduce(0, +).squareRoot() }.sorted()
    let scale = magnitudes.isEmpty || magnitudes[magnitudes.count / 2] >= 3.5 ? 1.0 : standardGravity
    return (times, values.map { $0.map { $0 * scale } })
}
