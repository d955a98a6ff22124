import Foundation
import TestSupport
import Testing

@testable import StepDetection

/// Issue #47: a hand moving to and fro along one line tilted from gravity (clapping, brushing teeth) puts part of its
/// energy along gravity, but none of its own: the motion across gravity predicts all of it. Walking's push along
/// gravity is its own motion.
@Suite struct AlongOwnShareTests {
    typealias Sample = SyntheticMotion.Sample

    static let up = (0.0, 0.6, 0.8)
    /// A unit vector 50° from `up`: cos² 50° = 0.41 of a motion along it lies along gravity.
    static let tilted = (0.766, 0.6 * 0.643, 0.8 * 0.643)

    /// `seconds` at 50 Hz with gravity along `up`: `motion(t)` (m/s²) as a vector, with noise of 0.05 m/s².
    static func samples(seconds: Double = 30, _ motion: (Double) -> (Double, Double, Double)) -> [Sample] {
        SyntheticMotion.at50Hz(count: Int(seconds * 50)) { t in
            let m = motion(t)
            return (standardGravity * up.0 + m.0, standardGravity * up.1 + m.1, standardGravity * up.2 + m.2)
        }
    }

    /// Hands moving along the tilted line at 2 Hz, 2.5 m/s² (smooth, as a sine: the trees alone cannot tell it from
    /// a step).
    static func handsOnALine(seconds: Double = 30) -> [Sample] {
        samples(seconds: seconds) { t in
            let a = 2.5 * sin(2 * .pi * 2 * t)
            return (a * tilted.0, a * tilted.1, a * tilted.2)
        }
    }

    /// A walk at 1.8 steps/s: the body's push along gravity at the step rate (2 m/s²), the arm's swing across it at
    /// the stride rate (1.5 m/s²).
    static func walk(seconds: Double = 30) -> [Sample] {
        samples(seconds: seconds) { t in
            let v = 2 * sin(2 * .pi * 1.8 * t)
            let s = 1.5 * sin(2 * .pi * 0.9 * t)
            return (v * up.0 + s, v * up.1, v * up.2)
        }
    }

    @Test func aHandOnATiltedLineHasAShareAlongGravityButNoneOfItsOwn() {
        let hands = AxisFeatureTests.lastWindow(Self.handsOnALine())
        #expect(hands.hasAxes && hands.alongShare > 0.35, "\(hands.alongShare)")  // the share gate lets it pass
        #expect(hands.alongOwnShare < 0.03, "\(hands.alongOwnShare)")
        // However the watch is turned, and on a cheap sensor (6 bits over ±2 g).
        let turned = AxisFeatureTests.lastWindow(AxisFeatureTests.rotated(Self.handsOnALine()))
        #expect(abs(turned.alongOwnShare - hands.alongOwnShare) < 1e-6)
        let cheap = AxisFeatureTests.lastWindow(AxisFeatureTests.degraded(Self.handsOnALine(), bits: 6, range: 2))
        #expect(cheap.alongOwnShare < 0.06, "\(cheap.alongOwnShare)")
    }

    @Test func aLineNearGravityKeepsItsExcessAlongGravityAsItsOwn() {
        // 15° from gravity: cos² 15° = 0.93 along it, cos 30° = 0.87 of its own (a body's bounce through a held arm).
        let nearUp = (0.259, 0.6 * 0.966, 0.8 * 0.966)
        let line = AxisFeatureTests.lastWindow(
            Self.samples { t in
                let a = 2.5 * sin(2 * .pi * 2 * t)
                return (a * nearUp.0, a * nearUp.1, a * nearUp.2)
            })
        #expect(line.alongShare > 0.9, "\(line.alongShare)")
        #expect(abs(line.alongOwnShare - 0.866) < 0.05, "\(line.alongOwnShare)")
    }

    @Test func aWalksPushAlongGravityIsItsOwn() {
        let walk = AxisFeatureTests.lastWindow(Self.walk())
        #expect(walk.alongShare > 0.5, "\(walk.alongShare)")
        #expect(walk.alongOwnShare > 0.9 * walk.alongShare, "\(walk.alongOwnShare) of \(walk.alongShare)")
        let turned = AxisFeatureTests.lastWindow(AxisFeatureTests.rotated(Self.walk()))
        #expect(abs(turned.alongOwnShare - walk.alongOwnShare) < 1e-6)
        // Without any motion the share is 0, and without motion along gravity nothing is left to explain.
        let still = AxisFeatureTests.lastWindow(Self.samples { _ in (0, 0, 0) })
        #expect(still.alongOwnShare <= still.alongShare)
    }

    @Test func theShippedDetectorCountsTheWalkButNotTheHandsOnALine() {
        let hands = SyntheticMotion.count(Self.handsOnALine(seconds: 60)).steps
        let walk = SyntheticMotion.count(Self.walk(seconds: 60)).steps
        #expect(hands == 0, "\(hands)")
        #expect(abs(walk - 108) <= 5, "\(walk)")  // 1.8 steps/s for 60 s
        // The share gate alone lets the hands through: the own share is what refuses them (here, and in the hands
        // gate, HandsGateTests).
        var shareOnly = DetectorParameters.standard
        shareOnly.recognizer.minAlongOwnShare = 0
        shareOnly.recognizer.handsMaxOwnShare = 0
        #expect(SyntheticMotion.count(Self.handsOnALine(seconds: 60), parameters: shareOnly).steps > 60)
    }
}

@Suite struct AlongOwnShareGateTests {
    static func window(share: Double, own: Double, swing: Double = -1) -> WindowFeatures {
        var f = GravityGateTests.window(share: share, swing: swing)
        f.alongOwnShare = own
        return f
    }

    static func gate(minAlongOwnShare: Double) -> RecognizerParameters {
        var p = GravityGateTests.gate(armSwingOpens: 0.25)
        p.minAlongOwnShare = minAlongOwnShare
        return p
    }

    @Test func aShareAlongGravityThatIsNotItsOwnIsRefusedUnlessTheArmSwings() {
        let gate = Self.gate(minAlongOwnShare: 0.12)
        let walking = GravityGateTests.walking
        #expect(gate.probability(Self.window(share: 0.4, own: 0.02)) == 0)
        #expect(abs(gate.probability(Self.window(share: 0.4, own: 0.12)) - 0.5 * walking) < 1e-12)
        #expect(gate.probability(Self.window(share: 0.4, own: 0.3)) == walking)
        #expect(gate.probability(Self.window(share: 0.4, own: 0.02, swing: 0.4)) == walking)
        // Off (0, as in parameters saved before it): the share alone decides.
        #expect(Self.gate(minAlongOwnShare: 0).probability(Self.window(share: 0.4, own: 0.02)) == walking)
    }

    @Test func parametersSavedBeforeTheOwnShareDecodeWithItOff() throws {
        #expect(WalkingModel.trained.minAlongOwnShare > 0)
        let old = try SavedJSON.recognizerSavedBefore(["minAlongOwnShare", "turnOpensAlongStep"])
        #expect(old.minAlongOwnShare == 0 && old.turnOpensAlongStep == 2)
    }

    @Test func aTurnRefusedIsOpenedByARhythmAlongGravityWhenAsked() {
        var gate = GravityGateTests.gate(armSwingOpens: 0.25, maxStrideTurn: 0.1)
        var f = GravityGateTests.window(share: 0.6, turn: 0.15)
        f.alongStep = 0.5
        #expect(gate.probability(f) == 0)  // off by default
        gate.turnOpensAlongStep = 0.3
        #expect(gate.probability(f) == GravityGateTests.walking)
        f.alongStep = 0.1
        #expect(gate.probability(f) == 0)
    }
}
