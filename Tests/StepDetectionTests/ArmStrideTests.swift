import Foundation
import Testing

@testable import StepDetection

/// Issue #47 (h47stride36): a wrist whose |a| swings once a stride (Bangle.js 100_4, 100_7) shows a short walk's
/// first peaks a stride apart, and the rhythm used to lock there. The arm swings across gravity once per such
/// interval, so the bout is halved; a walk seen step by step swings its arm over two of its intervals and is not.
@Suite struct ArmStrideTests {
    typealias Sample = SyntheticMotion.Sample

    /// Rest, then `steps` steps `interval` s apart from 10 s on, then rest (50 Hz, gravity along `SyntheticMotion.up`).
    /// Along gravity the motion is `alongCycle` (a cosine at `1 / alongPeriod` Hz, peaking on the first step) plus a
    /// faint bounce at the steps; across gravity the arm swings at `1 / armPeriod` Hz.
    static func walk(steps: Int, interval: Double, alongPeriod: Double, armPeriod: Double) -> [Sample] {
        let (start, duration) = (10.0, Double(steps) * interval)
        return SyntheticMotion.at50Hz(count: Int((2 * start + duration) * 50)) { t in
            let moving = t >= start - interval / 2 && t < start + duration - interval / 2
            let s = t - start
            let along = moving ? 3 * cos(2 * .pi * s / alongPeriod) + 0.1 * cos(2 * .pi * s / interval) : 0
            let arm = moving ? 1.5 * sin(2 * .pi * s / armPeriod) : 0
            let g = standardGravity + along
            let (up, across) = (SyntheticMotion.up, SyntheticMotion.across)
            return (g * up.0 + arm * across.0, g * up.1 + arm * across.1, g * up.2 + arm * across.2)
        }
    }

    /// The shipped rules around trees that say walking, so that the rhythm decides the count, without the arm stride
    /// read when a short bout ends (BoutEndArmStrideTests).
    static func parameters(armStrideSeconds: Double) -> DetectorParameters {
        var p = DetectorParameters.standard(treesSaying: 3)
        p.armStrideSeconds = armStrideSeconds
        p.boutEndArmAlong = 2
        return p
    }

    @Test func aShortWalkSeenOnceAStrideCountsItsSteps() {
        // 12 steps at 2 a second; |a| and the motion along gravity peak once a stride (1 s), the arm swings once a
        // stride: the peaks are every other step.
        let samples = Self.walk(steps: 12, interval: 0.5, alongPeriod: 1, armPeriod: 1)
        let standard = DetectorParameters.standard.armStrideSeconds
        let counted = SyntheticMotion.count(samples, parameters: Self.parameters(armStrideSeconds: standard)).steps
        #expect(counted >= 11 && counted <= 12, "\(counted)")
        let off = SyntheticMotion.count(samples, parameters: Self.parameters(armStrideSeconds: 0)).steps
        #expect(off <= 6, "\(off)")
    }

    @Test func aSlowWalkSeenStepByStepIsNotHalved() {
        // 12 steps a second apart, each its own peak along gravity; the arm swings once a stride (2 s).
        let samples = Self.walk(steps: 12, interval: 1, alongPeriod: 1, armPeriod: 2)
        let standard = DetectorParameters.standard.armStrideSeconds
        let counted = SyntheticMotion.count(samples, parameters: Self.parameters(armStrideSeconds: standard)).steps
        let off = SyntheticMotion.count(samples, parameters: Self.parameters(armStrideSeconds: 0)).steps
        #expect(counted == off && counted <= 12, "\(counted), off \(off)")
    }

    @Test func theArmSwingIsReadAtHalfTheInterval() {
        // The newest ticks over the walk (it ends at 30 s).
        let walking = { (s: Sample) in s.timeNs < 28_000_000_000 }
        let stride = AxisFeatureTests.recognizer(
            Self.walk(steps: 40, interval: 0.5, alongPeriod: 1, armPeriod: 1).filter(walking))
        let r = stride.armRepeats(interval: 1, ticks: 64)
        #expect(r.acrossHalf < -0.9 && r.along > 0.9, "\(r)")
        let slow = AxisFeatureTests.recognizer(
            Self.walk(steps: 20, interval: 1, alongPeriod: 1, armPeriod: 2).filter(walking))
        let s = slow.armRepeats(interval: 1, ticks: 64)
        #expect(s.acrossHalf > -0.2 && s.along > 0.9, "\(s)")
    }

    @Test func resumingAroundTheHalvingEqualsOnePass() throws {
        // The walk (10-16 s of 26 s) is confirmed and halved within its first seconds: cuts before, at and after it.
        let samples = Self.walk(steps: 12, interval: 0.5, alongPeriod: 1, armPeriod: 1)
        let parameters = Self.parameters(armStrideSeconds: DetectorParameters.standard.armStrideSeconds)
        for fraction in stride(from: 0.36, through: 0.64, by: 0.02) {
            try SyntheticMotion.expectResumingEqualsOnePass(samples, at: fraction, parameters: parameters)
        }
    }

    @Test func parametersSavedBeforeTheArmStrideDecodeWithItsStandardValue() throws {
        let old = try SavedJSON.parameterSavedBeforeItExisted("armStrideSeconds", \.armStrideSeconds, marker: 2)
        #expect(old == DetectorParameters.standard.armStrideSeconds)
    }
}
