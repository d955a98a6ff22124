import Foundation
import TestSupport
import Testing

@testable import StepDetection

/// Issue #47 (h47cheap): a cheap sensor's rounding, read from the data, taken out of how well |a| repeats a stride later
/// where the held-arm path reads it (a hand on a stepper's handles swings |a| by about two 6-bit steps).
@Suite struct SensorRoundingTests {
    /// DSADS person 5 on a stepper, hands on its handles (arm unit, 25 Hz, 90 s), committed in `fixtures/activities`.
    static func stepper() throws -> [SyntheticMotion.Sample] {
        SyntheticMotion.samples(
            try SharedData.numbers(atPath: SharedData.fixture("activities/dsads_p5_stepper_90s.csv")))
    }

    static func sixBit(_ samples: [SyntheticMotion.Sample]) -> [SyntheticMotion.Sample] {
        AxisFeatureTests.degraded(samples, bits: 6, range: 1.5)
    }

    @Test func theRoundingStepIsReadFromTheTicksAxisSums() throws {
        let stepper = try Self.stepper()
        let step = AxisFeatureTests.recognizer(Self.sixBit(stepper)).rounding.step
        #expect(abs(step - 3 * standardGravity / 64) < 1e-9, "\(step)")
        // The recording as DSADS wrote it (four decimals): a step whose noise is nothing beside a motion's.
        let fine = AxisFeatureTests.recognizer(stepper).rounding
        #expect(fine.step > 0 && fine.step < 0.01, "\(fine.step)")
        #expect(fine.tickVariance(alpha: 0.5) < 1e-5)
        // Magnitude alone has no axis sums: no step, no correction.
        #expect(SensorRounding().tickVariance(alpha: 0.5) == 0)
    }

    @Test(arguments: [0.1, 0.5, 0.9])
    func theTickVarianceIsTheRoundingsWhiteNoiseThroughTheTwoPoleLowPass(alpha: Double) {
        var rounding = SensorRounding()
        rounding.step = 0.46
        var random = SeededRandom(seed: 47)
        var (s1, s2, sum, sumSquares) = (0.0, 0.0, 0.0, 0.0)
        let n = 200_000
        for i in 0..<(n + 1000) {
            StepDetector.lowPass(&s1, &s2, Double.random(in: -0.23...0.23, using: &random), alpha)
            if i >= 1000 { (sum, sumSquares) = (sum + s2, sumSquares + s2 * s2) }
        }
        let measured = sumSquares / Double(n) - (sum / Double(n)) * (sum / Double(n))
        let expected = rounding.tickVariance(alpha: alpha)
        #expect(abs(measured - expected) < 0.05 * expected, "\(measured) against \(expected)")
    }

    @Test func aSixBitCopyOfAStepperWithHandsOnItsHandlesCountsItsSteps() throws {
        let stepper = try Self.stepper()
        let counted = SyntheticMotion.count(stepper).steps
        #expect(counted >= 45, "\(counted)")
        // The rounding diluted r_stride under the held-arm bar: 0 steps before.
        let cheap = SyntheticMotion.count(Self.sixBit(stepper)).steps
        #expect(cheap * 3 >= counted * 2, "\(cheap) of \(counted)")
    }

    @Test func withoutRoundingLeavesAWindowThatIsMostlyRoundingAsItIs() {
        #expect(0.7.withoutRounding(windowVariance: 0.05, rounding: 0.01) == 0.7 * 0.05 / 0.04)
        #expect(0.7.withoutRounding(windowVariance: 0.05, rounding: 0.03) == 0.7)
        #expect(0.9.withoutRounding(windowVariance: 0.05, rounding: 0.02) == 1)
        #expect(0.7.withoutRounding(windowVariance: 0.05, rounding: 0) == 0.7)
    }

    @Test func aStateSavedBeforeTheRoundingStepResumesAndReadsItAgain() throws {
        let cheap = Self.sixBit(try Self.stepper())
        let run = try SyntheticMotion.expectResumingEqualsOnePass(cheap, at: 0.5)
        let saved = try JSONDecoder().decode(StepDetector.self, from: run.saved)
        #expect(saved.recognizer.rounding.step > 0)
        let older = try SavedJSON.decode(
            StepDetector.self, from: try SavedJSON.object(run.saved), removing: ["recognizer.rounding"])
        #expect(older.recognizer.rounding == SensorRounding())
        #expect(older.counters == saved.counters)
    }
}
