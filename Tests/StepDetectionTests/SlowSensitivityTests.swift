import Foundation
import StepDetection
import TestSupport
import Testing

/// A slow walk on the wrist as |a|: one half-sine impact (0.2 s wide) per step, `interval` s apart, after `lead` s of
/// standing; the steps in `doubled` show a second impact `echo` s later (`echoFactor` of the first), as the slow wrist
/// walks of ../shared do. Gravity, noise of 0.15 m/s², `rate` Hz.
struct SlowWristWalk {
    var rate = 25.0
    var steps = 40
    var interval = 1.35
    var amplitude = 3.0
    var doubled: Range<Int> = 0..<4
    var echo = 0.65
    var echoFactor = 0.85
    var lead = 3.0
    var seed: UInt64 = 5

    /// Every impact: each step's, and the echo of each doubled one, in seconds.
    var impacts: [(time: Double, height: Double)] {
        var out: [(Double, Double)] = []
        for k in 0..<steps {
            let t = lead + Double(k) * interval
            out.append((t, amplitude))
            if doubled.contains(k) { out.append((t + echo, amplitude * echoFactor)) }
        }
        return out
    }

    func samples() -> [(timeNs: Int64, magnitude: Double)] {
        var random = SeededRandom(seed: seed)
        let impacts = self.impacts
        let end = lead + Double(steps) * interval + 3
        var next = 0
        return (0..<Int(end * rate)).map { i in
            let t = Double(i) / rate
            var a = standardGravity + random.noise(0.15)
            while next < impacts.count && impacts[next].time + 0.1 < t { next += 1 }
            if next < impacts.count, abs(t - impacts[next].time) <= 0.1 {
                a += impacts[next].height * sin(.pi * (t - impacts[next].time + 0.1) / 0.2)
            }
            return (Int64((t * 1e9).rounded()), a)
        }
    }
}

@Suite struct SlowSensitivityTests {
    /// `slowWalking` as it was before `maxMissedStepGap`: a missed step filled in a gap of any length.
    static let fillingAnyGap: DetectorParameters = {
        var p = DetectorParameters.slowWalking
        p.maxMissedStepGap = 0
        return p
    }()

    @Test(arguments: [12.5, 25, 100])
    func aSlowWalkWhoseFirstStepsShowTwoImpactsIsNotCountedTwice(rate: Double) {
        // 40 steps 1.35 s apart (44 a minute); the first four also show a second impact 0.65 s later, so the bout
        // confirms at half a step. Filling every later 1.35 s gap as a missed step would count each step twice.
        let walk = SlowWristWalk(rate: rate)
        let before = detect(walk.samples(), parameters: Self.fillingAnyGap).detector.counters.steps
        #expect(before >= 60, "the mechanism: \(before) of 40 with every gap filled")
        let slow = detect(walk.samples(), parameters: Sensitivity.slow.parameters).detector.counters.steps
        // At most the four echoes on top; at least the slow setting's promise of 75 %.
        #expect(slow * 4 >= 40 * 3 && slow <= 44, "counted \(slow) of 40")
    }

    @Test(arguments: [12.5, 25, 50])
    func aStepTooWeakToSeeIsStillFilledWhenSlow(rate: Double) {
        // 61 steps at 109 a minute whose every fourth step is too weak to see (a wrist whose arm swing dominates):
        // gaps of 1.1 s, within `maxMissedStepGap`, so each still holds a missed step.
        let walk = SyntheticWalk(rate: rate, steps: 61, interval: 0.55, weakEvery: 4)
        let slow = detect(walk.samples(), parameters: Sensitivity.slow.parameters).detector.counters.steps
        #expect(abs(slow - 61) <= 2, "counted \(slow) of 61")
    }

    @Test func theGapBoundIsSlowOnlyAndOlderSetsDecodeWithoutIt() throws {
        #expect(DetectorParameters.standard.maxMissedStepGap == 0)
        #expect(Sensitivity.slow.parameters.maxMissedStepGap > 1 && Sensitivity.slow.parameters.maxMissedStepGap < 1.3)
        // A set saved before the key existed fills any gap, as it did.
        let decoded = try SavedJSON.decode(
            DetectorParameters.self, from: SavedJSON.object(encoding: DetectorParameters.standard),
            removing: ["maxMissedStepGap"])
        #expect(decoded == .standard)
    }
}
