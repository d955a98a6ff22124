// The detector's output on each recording given, to the bit: FNV-1a over every event (step times, bouts, refused steps,
// each window's probability and every feature's bits), pushed one by one with all axis features and in runs of 4096
// as `count` pushes a CSV. One line per file: path, then per pass the fingerprint, the events and the steps. Built by
// bench/detector_fingerprint.sh beside Sources/StepDetection and bench/trace_samples.swift.
import Foundation
import WallTimeCore

/// FNV-1a over 64-bit words, byte by byte.
struct Fingerprint {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    var events = 0

    mutating func add(_ words: UInt64...) {
        for word in words {
            var x = word
            for _ in 0..<8 {
                hash = (hash ^ (x & 0xff)) &* 0x100_0000_01b3
                x >>= 8
            }
        }
    }

    mutating func add(_ event: DetectorEvent) {
        events += 1
        switch event {
        case .step(let t):
            add(1, UInt64(bitPattern: t.nanosecondsSinceEpoch))
        case .boutStarted(let t):
            add(2, UInt64(bitPattern: t.nanosecondsSinceEpoch))
        case .decision(let d, let f):
            add(3, UInt64(bitPattern: d.start.nanosecondsSinceEpoch), d.probability.bitPattern)
            f.withValues { for v in $0 { add(v.bitPattern) } }
            // Kept even where `values` gives NaN (a window without axes).
            add(f.armSwing.bitPattern, f.bodySway.bitPattern, f.alongStep.bitPattern)
        default:
            add(4)
            for byte in String(describing: event).utf8 { add(UInt64(byte)) }
        }
    }

    var line: String { "\(String(hash, radix: 16)) \(events)" }
}

for path in CommandLine.arguments.dropFirst() {
    let (times, values) = readSamples(path)
    var one = Fingerprint()
    var single = StepDetector(parameters: .standard, axisFeatures: true)
    for i in 0..<times.count { pushSample(&single, times[i], values[i]) { one.add($0) } }
    single.finish { one.add($0) }
    var runs = Fingerprint()
    var batched = StepDetector(parameters: .standard)
    let samples = (0..<times.count).map { i -> AccelerationSample in
        let (t, v) = (Instant(nanosecondsSinceEpoch: times[i]), values[i])
        return v.count >= 3
            ? AccelerationSample(time: t, x: v[0], y: v[1], z: v[2])
            : AccelerationSample(time: t, x: abs(v[0]), y: 0, z: 0)
    }
    samples.withUnsafeBufferPointer { all in
        for from in stride(from: 0, to: all.count, by: 4096) {
            batched.push(UnsafeBufferPointer(rebasing: all[from..<min(from + 4096, all.count)])) { runs.add($0) }
        }
    }
    batched.finish { runs.add($0) }
    print("\(path) \(one.line) \(single.counters.steps) \(runs.line) \(batched.counters.steps)")
}
