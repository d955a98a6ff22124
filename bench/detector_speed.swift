// Times the detector alone (no file reading): 10 M synthetic samples at 200 Hz, walking and standing in turn.
// Built by bench/run.sh with `swiftc -O` together with Sources/StepDetection/*.swift.
import Foundation
import WallTimeCore

// `--once recognizer|rhythm|recognizer-runs N`: one pass of N samples with one configuration and no timing, for
// `bench/detector_instructions.sh` (callgrind counts the instructions of `runOnce` alone); `-runs`: pushed in runs of
// 4096 samples, as `count` pushes a CSV.
let arguments = CommandLine.arguments
let once: (configuration: String, samples: Int)? = arguments.firstIndex(of: "--once").map { i in
    guard i + 2 < arguments.count, ["recognizer", "rhythm", "recognizer-runs"].contains(arguments[i + 1]),
        let n = Int(arguments[i + 2])
    else { fatalError("usage: --once recognizer|rhythm|recognizer-runs SAMPLES") }
    return (arguments[i + 1], n)
}
let count = once?.samples ?? 10_000_000
var times = [Int64](repeating: 0, count: count)
var xs = [Double](repeating: 0, count: count)
var ys = xs
var zs = xs
var seed: UInt64 = 42
func noise() -> Double {
    seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
    return Double(seed >> 11) / Double(1 << 53) - 0.5
}
for i in 0..<count {
    let t = Double(i) / 200
    times[i] = Int64(i) * 5_000_000 + Int64(noise() * 1_000_000)  // 200 Hz with ±0.5 ms jitter
    let walking = Int(t / 60) % 2 == 0
    let step = walking ? 3 * max(0, sin(2 * Double.pi * t / 0.55)) : 0
    xs[i] = 0.3 + noise() * 0.2
    ys[i] = 1.2 + noise() * 0.2
    zs[i] = standardGravity + step + noise() * 0.3
}
/// The samples as `AccelerationSample`s, for pushing in runs.
func asSamples(_ times: [Int64], _ xs: [Double], _ ys: [Double], _ zs: [Double]) -> [AccelerationSample] {
    (0..<times.count).map {
        AccelerationSample(time: Instant(nanosecondsSinceEpoch: times[$0]), x: xs[$0], y: ys[$0], z: zs[$0])
    }
}
/// Pushes `samples` in runs of 4096, as `count` pushes a CSV's parsed chunks.
@inline(__always)
func pushInRuns(_ samples: [AccelerationSample], into detector: inout StepDetector) {
    samples.withUnsafeBufferPointer { all in
        for from in stride(from: 0, to: all.count, by: 4096) {
            detector.push(UnsafeBufferPointer(rebasing: all[from..<min(from + 4096, all.count)])) { _ in }
        }
    }
}
/// The timed loop, in a function: top-level variables are globals, whose every access pays a dynamic exclusivity
/// check that would be counted as the detector's.
/// `runs`: push the samples in runs of 4096 at once, as `count` does with a CSV's parsed chunks, instead of one by one.
func timeDetector(
    _ times: [Int64], _ xs: [Double], _ ys: [Double], _ zs: [Double], parameters: DetectorParameters,
    runs: Bool = false
) -> (nsPerSample: Double, steps: Int) {
    var best = Double.infinity
    var steps = 0
    let samples = runs ? asSamples(times, xs, ys, zs) : []
    for _ in 0..<3 {
        var detector = StepDetector(parameters: parameters)
        let start = DispatchTime.now().uptimeNanoseconds
        if runs {
            pushInRuns(samples, into: &detector)
        } else {
            for i in 0..<times.count {
                detector.push(time: Instant(nanosecondsSinceEpoch: times[i]), x: xs[i], y: ys[i], z: zs[i]) { _ in }
            }
        }
        detector.finish { _ in }
        let ns = Double(DispatchTime.now().uptimeNanoseconds - start)
        best = min(best, ns / Double(times.count))
        steps = detector.counters.steps
    }
    return (best, steps)
}
@inline(never)
func runOnce(_ times: [Int64], _ xs: [Double], _ ys: [Double], _ zs: [Double], parameters: DetectorParameters) -> Int {
    var detector = StepDetector(parameters: parameters)
    for i in 0..<times.count {
        detector.push(time: Instant(nanosecondsSinceEpoch: times[i]), x: xs[i], y: ys[i], z: zs[i]) { _ in }
    }
    detector.finish { _ in }
    return detector.counters.steps
}
@inline(never)
func runOnce(_ samples: [AccelerationSample], parameters: DetectorParameters) -> Int {
    var detector = StepDetector(parameters: parameters)
    pushInRuns(samples, into: &detector)
    detector.finish { _ in }
    return detector.counters.steps
}
if let once {
    var p = DetectorParameters.standard
    p.recognizer.enabled = once.configuration != "rhythm"
    if once.configuration.hasSuffix("-runs") {
        print("\(runOnce(asSamples(times, xs, ys, zs), parameters: p)) steps")
    } else {
        print("\(runOnce(times, xs, ys, zs, parameters: p)) steps")
    }
    exit(0)
}
let recognizing = timeDetector(times, xs, ys, zs, parameters: .standard)
var rhythmOnly = DetectorParameters.standard
rhythmOnly.recognizer.enabled = false
let rhythm = timeDetector(times, xs, ys, zs, parameters: rhythmOnly)
let inRuns = timeDetector(times, xs, ys, zs, parameters: .standard, runs: true)
let rhythmInRuns = timeDetector(times, xs, ys, zs, parameters: rhythmOnly, runs: true)
print(
    String(
        format:
            "detector alone: %.2f ns/sample with the walking recognizer, %.2f ns/sample rhythm only (best of 3, %d samples, %d and %d steps)",
        recognizing.nsPerSample, rhythm.nsPerSample, count, recognizing.steps, rhythm.steps))
print(
    String(
        format:
            "  in runs of 4096 samples, as count pushes a CSV: %.2f ns/sample with the recognizer, %.2f rhythm only (%d and %d steps)",
        inRuns.nsPerSample, rhythmInRuns.nsPerSample, inRuns.steps, rhythmInRuns.steps))
