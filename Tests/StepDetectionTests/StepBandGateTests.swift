import Foundation
import Testing

@testable import StepDetection

/// Issue #47 (h47bangle2): a loosely worn watch on a slow walk sways across gravity below the step rate, which drowns
/// the share of the moving energy along gravity; above the stride band its steps' push still lies along gravity. The
/// step-band opening lets the gravity gate pass it, and still refuses a hand moving across gravity.
@Suite struct StepBandGateTests {
    typealias Sample = SyntheticMotion.Sample

    /// The shipped gates around trees that say 0.73 to every window, with the opening at `stepBandOpens`; the
    /// steady-stride and held-arm paths off (a synthetic walk's |a| repeats a stride later as no real loose walk's
    /// does: 150_4's refused windows take neither path).
    static func parameters(stepBandOpens: Double) -> DetectorParameters {
        var p = DetectorParameters.standard(treesSaying: 1.0)
        (p.steadyStride, p.heldArmSway, p.carriedArmStride) = (2, 2, 2)
        p.stepBandOpens = stepBandOpens
        return p
    }

    static func stepBandShare(_ samples: [Sample]) -> Double {
        AxisFeatureTests.recognizer(samples).stepBandShare(ticks: WalkingRecognizer.windowTicks)
    }

    @Test func aLooselyWornSlowWalkCountsAndAHandAcrossGravityDoesNot() {
        let walk = SyntheticMotion.looseSlowWalk()
        let f = AxisFeatureTests.lastWindow(walk)
        // As 150_4's refused stretch: the share gate refuses it, the arm does not swing, the own share and the repeat
        // gate pass it.
        #expect(f.alongShare < 0.25 && f.armSwing < 0.15, "share \(f.alongShare), arm swing \(f.armSwing)")
        #expect(f.alongOwnShare > 0.2 && f.alongStep > 0.3, "own \(f.alongOwnShare), along_step \(f.alongStep)")
        let band = Self.stepBandShare(walk)
        #expect(band > 0.6, "\(band)")
        let standard = DetectorParameters.standard.stepBandOpens
        let opened = SyntheticMotion.count(walk, parameters: Self.parameters(stepBandOpens: standard)).steps
        #expect(abs(opened - 96) <= 6, "\(opened)")  // 1.6 steps/s for 60 s
        let off = SyntheticMotion.count(walk, parameters: Self.parameters(stepBandOpens: 2)).steps
        #expect(off == 0, "\(off)")
        // The same steps' |a| moved across gravity (a hand at work): nothing of it lies along gravity in any band.
        let magnitudes = walk.map { s in (timeNs: s.timeNs, magnitude: (s.x * s.x + s.y * s.y + s.z * s.z).squareRoot())
        }
        let hand = SyntheticMotion.acrossGravity(magnitudes)
        #expect(Self.stepBandShare(hand) < 0.1, "\(Self.stepBandShare(hand))")
        let handSteps = SyntheticMotion.count(hand, parameters: Self.parameters(stepBandOpens: standard)).steps
        #expect(handSteps == 0, "\(handSteps)")
    }

    @Test func parametersSavedBeforeTheOpeningDecodeWithItsStandardValue() throws {
        let old = try SavedJSON.parameterSavedBeforeItExisted("stepBandOpens", \.stepBandOpens, marker: 2)
        #expect(old == DetectorParameters.standard.stepBandOpens)
    }
}
