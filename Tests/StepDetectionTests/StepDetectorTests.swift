import Foundation
import StepDetection
import Testing

/// A synthetic walk: gravity plus a step-frequency bump, sampled at `rate` Hz, `steps` steps `interval` s apart.
func syntheticWalk(rate: Double, steps: Int, interval: Double = 0.5, amplitude: Double = 3, lead: Double = 2)
    -> [(Int64, Double)] {
    let duration = lead * 2 + Double(steps) * interval
    let n = Int(duration * rate)
    return (0..<n).map { i in
        let t = Double(i) / rate
        var a = standardGravity
        let walkT = t - lead
        if walkT >= 0 && walkT < Double(steps) * interval {
            a += amplitude * sin(2 * .pi * walkT / interval - .pi / 2) * 0.5 + amplitude * 0.5
        }
        return (Int64((t * 1e9).rounded()), a)
    }
}

@Suite struct StepDetectorTests {
    @Test(arguments: [12.5, 25, 50, 100, 200, 400])
    func countsSyntheticWalkAtEveryRate(rate: Double) {
        var d = StepDetector()
        for (t, m) in syntheticWalk(rate: rate, steps: 40) { d.push(timeNs: t, magnitude: m) { _ in } }
        d.finish { _ in }
        #expect(abs(d.counters.steps - 40) <= 2, "rate \(rate): \(d.counters.steps)")
    }

    @Test func stationaryDeviceCountsZero() {
        var d = StepDetector()
        for i in 0..<10_000 { d.push(timeNs: Int64(i) * 10_000_000, x: 0.01, y: 0.02, z: standardGravity) { _ in } }
        #expect(d.counters.steps == 0)
    }

    @Test func outOfOrderAndInvalidSamplesAreCounted() {
        var d = StepDetector()
        d.push(timeNs: 100, magnitude: 9.8) { _ in }
        d.push(timeNs: 50, magnitude: 9.8) { _ in }
        d.push(timeNs: 200, magnitude: .nan) { _ in }
        d.push(timeNs: 300, magnitude: .infinity) { _ in }
        #expect(d.counters.accepted == 1)
        #expect(d.counters.outOfOrder == 1)
        #expect(d.counters.invalid == 2)
    }
}
