// What bench/bout_trace.swift and bench/fold_trace.swift share: a recording read as `count` reads it, and the
// command line. Compiled with either (bench/bout_misses.py, bench/fold_paths.py), beside Sources/StepDetection.
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

/// `STEPTWEET_TRACE_MAGNITUDE=1`: every sample as |a| alone, as `eval --magnitude-only` pushes it.
let magnitudeOnly = ProcessInfo.processInfo.environment["STEPTWEET_TRACE_MAGNITUDE"] == "1"

/// Pushes one sample of `readSamples` as `count` does: three axes, or |a| (with `magnitudeOnly`, always |a|).
func pushSample(_ detector: inout StepDetector, _ t: Int64, _ v: [Double], _ emit: (DetectorEvent) -> Void) {
    if v.count >= 3 && magnitudeOnly {
        detector.push(timeNs: t, magnitude: (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).squareRoot(), emit)
    } else if v.count >= 3 {
        detector.push(timeNs: t, x: v[0], y: v[1], z: v[2], emit)
    } else {
        detector.push(timeNs: t, magnitude: abs(v[0]), emit)
    }
}

/// The command line of a trace: `NAME PARAMETERS.json FILE...`; one JSON line per file (`trace`'s) on standard output.
func traceFiles<T: Encodable>(usage: String, _ trace: (String, DetectorParameters) -> T) throws {
    let arguments = CommandLine.arguments
    guard arguments.count >= 3 else { fatalError("usage: \(usage) PARAMETERS.json FILE...") }
    let parameters: DetectorParameters
    do {
        parameters = try JSONDecoder().decode(
            DetectorParameters.self, from: Data(contentsOf: URL(fileURLWithPath: arguments[1])))
    } catch {
        fatalError("\(arguments[1]): \(error)")
    }
    let encoder = JSONEncoder()
    for path in arguments.dropFirst(2) {
        let line = try encoder.encode(trace(path, parameters))
        FileHandle.standardOutput.write(line + Data("\n".utf8))
    }
}
