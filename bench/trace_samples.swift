// What bench/bout_trace.swift and bench/fold_trace.swift share: a recording read as `count` reads it. Compiled
// with either (bench/bout_misses.py, bench/fold_paths.py), beside Sources/StepDetection.
import Foundation
import WallTimeCore

func seconds(_ ns: Int64) -> Double { Double(ns) * 1e-9 }

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
