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

/// `slow` keeps the recognizer's gates on the axes around trees that say the same to every window (issue #47,
/// h47slow): the trees refuse a slow walk's |a|, the gates judge how the motion lies along gravity, not how fast.
@Suite struct SlowSensitivityGateTests {
    /// The slow set before h47slow: the rhythm alone.
    static let rhythmOnly: DetectorParameters = {
        var p = DetectorParameters.slowWalking
        p.recognizer.enabled = false
        return p
    }()

    /// 40 steps 1.5 s apart (40 a minute), one impact each, as |a|.
    static let slowWalk = SlowWristWalk(rate: 25, steps: 40, interval: 1.5, doubled: 0..<0)

    /// The same |a| with the motion along gravity: the body's rise and fall.
    static func alongGravity(_ magnitudes: [(timeNs: Int64, magnitude: Double)]) -> [SyntheticMotion.Sample] {
        let up = SyntheticMotion.up
        return magnitudes.map { ($0.timeNs, up.0 * $0.magnitude, up.1 * $0.magnitude, up.2 * $0.magnitude) }
    }

    @Test func aSlowWalkWithAxesCountsAndTheSameRhythmAcrossGravityDoesNot() {
        let samples = Self.slowWalk.samples()
        let walk = SyntheticMotion.count(Self.alongGravity(samples), parameters: .slowWalking).steps
        #expect(walk * 4 >= 40 * 3 && walk <= 42, "counted \(walk) of 40")
        // A hand's motion across gravity changes |a| only at second order: 8 m/s² of it swings |a| by about 2.9.
        var hand = Self.slowWalk
        hand.amplitude = 8
        let hands = SyntheticMotion.acrossGravity(hand.samples())
        #expect(SyntheticMotion.count(hands, parameters: Self.rhythmOnly).steps >= 30, "the rhythm alone counts it")
        #expect(SyntheticMotion.count(hands, parameters: .slowWalking).steps == 0)
    }

    @Test(arguments: [12.5, 25])
    func aSlowWalkAsMagnitudeOnlyStillCounts(rate: Double) {
        // No axes, no gate: the rhythm decides, as it did.
        var walk = Self.slowWalk
        walk.rate = rate
        let slow = detect(walk.samples(), parameters: .slowWalking).detector.counters.steps
        #expect(slow * 4 >= 40 * 3 && slow <= 42, "counted \(slow) of 40 at \(rate) Hz")
    }

    @Test func clappingCountsFarLessThanWithTheRhythmAlone() throws {
        let clapping = try SyntheticMotion.clapping()
        let before = SyntheticMotion.count(clapping, parameters: Self.rhythmOnly).steps
        let slow = SyntheticMotion.count(clapping, parameters: .slowWalking).steps
        #expect(before >= 100, "the rhythm alone: \(before)")
        #expect(slow * 4 <= before, "slow \(slow), the rhythm alone \(before)")
    }

    @Test func theSlowSetKeepsTheStandardGatesAndDecodes() throws {
        let slow = DetectorParameters.slowWalking
        var gates = slow.recognizer
        gates.model = DetectorParameters.standard.recognizer.model
        #expect(slow.recognizer.enabled && gates == DetectorParameters.standard.recognizer)
        #expect(slow.recognizer.model.leaves.isEmpty)
        let decoded = try SavedJSON.decode(
            DetectorParameters.self, from: SavedJSON.object(encoding: slow), removing: [])
        #expect(decoded == slow)
    }
}
