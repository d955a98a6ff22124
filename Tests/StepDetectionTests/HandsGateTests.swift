import Foundation
import TestSupport
import Testing

@testable import StepDetection

/// Issue #47 (h47clap): clapping repeats as gait does (the repeat gate passes it) and puts enough energy along gravity
/// for the share gate, but what lies along gravity is mostly the projection of one tilted line (own share 0.17; gait's
/// 5th percentile 0.25) and its motion across gravity repeats each clap instead of reversing half a stride later
/// (`armSwing` −0.12; gait's −0.07). The hands gate keeps a run lacking both from becoming walking on the trees alone.
@Suite struct HandsGateTests {
    typealias Sample = SyntheticMotion.Sample

    /// `seconds` at 50 Hz of hands clapping twice a second along a line `tilt`° from gravity (2.5 m/s²) with a motion
    /// along gravity of its own, a quarter period apart (`own` m/s², which the line does not predict): at 60° and 1.2,
    /// a share along gravity of 0.39 (over the share gate) and an own share of 0.19 (over the own-share gate).
    static func clapping(seconds: Double = 60, own: Double = 1.2, tilt: Double = 60) -> [Sample] {
        let (c, s) = (cos(tilt * .pi / 180), sin(tilt * .pi / 180))
        let up = AlongOwnShareTests.up
        let line = (s + c * up.0, c * up.1, c * up.2)
        return AlongOwnShareTests.samples(seconds: seconds) { t in
            let a = 2.5 * sin(2 * .pi * 2 * t)
            let b = own * cos(2 * .pi * 2 * t)
            return (a * line.0 + b * up.0, a * line.1 + b * up.1, a * line.2 + b * up.2)
        }
    }

    /// The shipped gates around trees that say 0.95 to every window, with the hands gate on (standard) or off.
    static func parameters(handsGate: Bool) -> DetectorParameters {
        var p = DetectorParameters.standard(treesSaying: 3)
        if !handsGate { p.recognizer.handsMaxOwnShare = 0 }
        return p
    }

    @Test func clappingThatNeitherPushesAlongGravityNorAlternatesIsNotWalkingButAWalkIs() {
        let clapping = Self.clapping()
        let f = AxisFeatureTests.lastWindow(clapping)
        #expect(f.alongShare > 0.35 && f.alongOwnShare > 0.18, "\(f.alongShare) \(f.alongOwnShare)")
        #expect(f.alongOwnShare < DetectorParameters.standard.recognizer.handsMaxOwnShare + 0.02)
        #expect(f.armSwing < -0.3 && f.rStride > 0.9, "arm swing \(f.armSwing), r_stride \(f.rStride)")
        let off = SyntheticMotion.count(clapping, parameters: Self.parameters(handsGate: false)).steps
        #expect(off >= 110, "\(off)")
        let gated = SyntheticMotion.count(clapping, parameters: Self.parameters(handsGate: true)).steps
        #expect(gated == 0, "\(gated)")
        // A walk pushes along gravity and its arm swings: it counts with the gate (1.8 steps/s for 60 s).
        let walk = AlongOwnShareTests.walk(seconds: 60)
        let walked = SyntheticMotion.count(walk, parameters: Self.parameters(handsGate: true)).steps
        #expect(abs(walked - 108) <= 5, "\(walked)")
        // Without axes nothing says where the motion lies: |a| is left to the trees.
        let magnitudeOnly = SyntheticMotion.count(
            clapping, magnitudeOnly: true, parameters: Self.parameters(handsGate: true)
        ).steps
        let magnitudeOnlyOff = SyntheticMotion.count(
            clapping, magnitudeOnly: true, parameters: Self.parameters(handsGate: false)
        ).steps
        #expect(magnitudeOnly == magnitudeOnlyOff, "\(magnitudeOnly) vs \(magnitudeOnlyOff)")
    }

    @Test func eitherAnOwnPushAlongGravityOrAnAlternatingArmOpensIt() {
        var p = DetectorParameters.standard
        p.recognizer.handsMaxOwnShare = 0.2
        p.recognizer.handsMaxArmSwing = -0.1
        var f = WindowFeatures()
        f.hasAxes = true
        (f.alongOwnShare, f.armSwing) = (0.1, -0.5)
        let d = StepDetector(parameters: p)
        #expect(d.handMotionFactor(f) == 0)
        (f.alongOwnShare, f.armSwing) = (0.26, -0.5)
        #expect(d.handMotionFactor(f) == 1)
        (f.alongOwnShare, f.armSwing) = (0.1, -0.04)
        #expect(d.handMotionFactor(f) == 1)
        (f.alongOwnShare, f.armSwing) = (0.2, -0.5)
        #expect(abs(d.handMotionFactor(f) - 0.5) < 1e-9)
        f.hasAxes = false
        (f.alongOwnShare, f.armSwing) = (0.1, -0.5)
        #expect(d.handMotionFactor(f) == 1)
    }

    @Test func parametersSavedBeforeTheGateDecodeWithItOff() throws {
        #expect(WalkingModel.trained.handsMaxOwnShare > 0)
        let old = try SavedJSON.recognizerSavedBefore(["handsMaxOwnShare", "handsMaxArmSwing"])
        #expect(old.handsMaxOwnShare == 0)
        var p = DetectorParameters.standard
        p.recognizer = old
        var f = WindowFeatures()
        (f.hasAxes, f.alongOwnShare, f.armSwing) = (true, 0.1, -0.5)
        #expect(StepDetector(parameters: p).handMotionFactor(f) == 1)
    }
}
