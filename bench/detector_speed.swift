// Times the detector alone (no file reading): 10 M synthetic samples at 200 Hz, walking and standing in turn.
// Built by bench/run.sh with `swiftc -O` together with Sources/StepDetection/*.swift.
import Foundation

let count = 10_000_000
var times = [Int64](repeating: 0, count: count)
var xs = [Double](repeating: 0, count: count), ys = xs, zs = xs
var seed: UInt64 = 42
func noise() -> Double {
    seed = seed &* 6364136223846793005 &+ 1442695040888963407
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
var best = Double.infinity
var steps = 0
for _ in 0..<3 {
    var detector = StepDetector()
    let start = DispatchTime.now().uptimeNanoseconds
    for i in 0..<count {
        detector.push(timeNs: times[i], x: xs[i], y: ys[i], z: zs[i]) { _ in }
    }
    detector.finish { _ in }
    let ns = Double(DispatchTime.now().uptimeNanoseconds - start)
    best = min(best, ns / Double(count))
    steps = detector.counters.steps
}
print(String(format: "detector alone: %.2f ns/sample (best of 3, %d samples, %d steps)", best, count, steps))
