import Foundation
import Testing

@testable import StepDetection

/// Issue #47 (acc41b): a pottering bout seen once a stride is confirmed while the newest 5.12 s are mostly the pause
/// before it, so the arm stride at confirmation does not halve it; its own seconds, read when it ends uncredited, show
/// the arm reversing across gravity half-way through each interval and the motion along gravity repeating at it.
@Suite struct BoutEndArmStrideTests {
    typealias Sample = SyntheticMotion.Sample

    /// The shipped rules around trees that say walking, without the arm stride at confirmation (a synthetic rest is
    /// perfectly still, so the newest 5.12 s at confirmation would show the stride too); `boutEndArmAlong` above 1
    /// turns the rule off.
    static func parameters(boutEndArmAlong: Double) -> DetectorParameters {
        var p = DetectorParameters.standard(treesSaying: 3)
        p.armStrideSeconds = 0
        p.boutEndArmAlong = boutEndArmAlong
        return p
    }

    static let standardAlong = DetectorParameters.standard.boutEndArmAlong

    @Test func aPotteringBoutSeenOnceAStrideCountsItsSteps() {
        // 8 steps at 2 a second after 10 s of rest; |a| and the motion along gravity peak once a stride (1 s), the arm
        // swings once a stride: four peaks a stride apart.
        let samples = ArmStrideTests.walk(steps: 8, interval: 0.5, alongPeriod: 1, armPeriod: 1)
        let counted = SyntheticMotion.count(samples, parameters: Self.parameters(boutEndArmAlong: Self.standardAlong))
        #expect(counted.steps >= 7 && counted.steps <= 8, "\(counted.steps)")
        let off = SyntheticMotion.count(samples, parameters: Self.parameters(boutEndArmAlong: 2)).steps
        #expect(off <= 4, "\(off)")
    }

    @Test func aShortSlowWalkSeenStepByStepIsNotHalved() {
        // 8 steps a second apart, each its own peak along gravity; the arm swings once a stride (2 s).
        let samples = ArmStrideTests.walk(steps: 8, interval: 1, alongPeriod: 1, armPeriod: 2)
        let counted = SyntheticMotion.count(samples, parameters: Self.parameters(boutEndArmAlong: Self.standardAlong))
        let off = SyntheticMotion.count(samples, parameters: Self.parameters(boutEndArmAlong: 2)).steps
        #expect(counted.steps == off && off <= 8, "\(counted.steps), off \(off)")
    }

    @Test func peaksAStrideApartWhoseArmDoesNotReverseAreNotHalved() {
        // Four peaks a second apart along gravity, but across gravity the motion swings once in two of them: a quarter
        // period at half an interval, not a reversal.
        let samples = ArmStrideTests.walk(steps: 8, interval: 0.5, alongPeriod: 1, armPeriod: 2)
        let counted = SyntheticMotion.count(samples, parameters: Self.parameters(boutEndArmAlong: Self.standardAlong))
        let off = SyntheticMotion.count(samples, parameters: Self.parameters(boutEndArmAlong: 2)).steps
        #expect(counted.steps == off && off <= 4, "\(counted.steps), off \(off)")
    }

    @Test func resumingAroundTheBoutsEndEqualsOnePass() throws {
        // The bout (10-14 s of 24 s) ends about 2.5 s after its last peak: cuts before, at and after it.
        let samples = ArmStrideTests.walk(steps: 8, interval: 0.5, alongPeriod: 1, armPeriod: 1)
        let parameters = Self.parameters(boutEndArmAlong: Self.standardAlong)
        for fraction in stride(from: 0.5, through: 0.8, by: 0.02) {
            try SyntheticMotion.expectResumingEqualsOnePass(samples, at: fraction, parameters: parameters)
        }
    }

    @Test func parametersSavedBeforeTheRuleDecodeWithItsStandardValues() throws {
        let along = try SavedJSON.parameterSavedBeforeItExisted("boutEndArmAlong", \.boutEndArmAlong, marker: 2)
        #expect(along == DetectorParameters.standard.boutEndArmAlong)
        let across = try SavedJSON.parameterSavedBeforeItExisted("boutEndArmAcross", \.boutEndArmAcross, marker: 2)
        #expect(across == DetectorParameters.standard.boutEndArmAcross)
    }
}
