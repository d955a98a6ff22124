import Foundation
import TestSupport
import Testing

@testable import StepDetection

/// Issue #47: a body stepping at a steady stride along gravity is walking even when the trees, trained on swinging
/// wrists, say it is not (a runner holding the arm still, a phone in a back pocket).
@Suite struct SteadyStrideTests {
    typealias Sample = SyntheticMotion.Sample

    /// Trees that never say walking: only the steady-stride path can accept a window.
    static let neverWalking = WalkingTrees.constant(logOdds: -5)

    static func parameters(steadyStride: Double) -> DetectorParameters {
        var p = DetectorParameters()
        p.recognizer = RecognizerParameters(model: neverWalking, enter: 0.7, stay: 0.1, minAlongShare: 0.3)
        p.steadyStride = steadyStride
        // Without the held-arm path: these motions carry a sway a stride long beside their line, which it takes;
        // nor the carried-arm path, which takes a motion repeating at the stride and jolting each step (acc46).
        p.heldArmSway = 2
        p.carriedArmStride = 2
        return p
    }

    /// 40 s at 50 Hz: gravity along a tilted `up`, a 2 Hz motion of `amplitude` m/s² along `direction` and the
    /// body's sway a stride long (1 Hz, 0.5 m/s², across gravity).
    static func motion(along direction: (Double, Double, Double), amplitude: Double) -> [Sample] {
        let up = (0.0, 0.6, 0.8)
        return SyntheticMotion.at50Hz(count: 2000) { t in
            let a = amplitude * sin(2 * .pi * 2 * t)
            let sway = 0.5 * sin(2 * .pi * t)
            return (
                standardGravity * up.0 + a * direction.0 + sway, standardGravity * up.1 + a * direction.1,
                standardGravity * up.2 + a * direction.2
            )
        }
    }

    @Test func stepsAlongGravityAtASteadyStrideCountWhateverTheTreesSay() {
        let steps = Self.motion(along: (0.0, 0.6, 0.8), amplitude: 2)
        let counted = SyntheticMotion.count(steps, parameters: Self.parameters(steadyStride: 0.8)).steps
        #expect((76...80).contains(counted), "\(counted) of 80")
        // Off (as above 1), the trees refuse every step.
        #expect(SyntheticMotion.count(steps, parameters: Self.parameters(steadyStride: 2)).steps == 0)
        // Without axes the share along gravity is unknown: no path.
        #expect(
            SyntheticMotion.count(steps, magnitudeOnly: true, parameters: Self.parameters(steadyStride: 0.8)).steps == 0
        )
    }

    @Test func aSteadyRhythmAcrossGravityIsNotWalking() {
        // Hands at work at the same rate: the motion mostly across gravity (a share along it of about 0.1), |a| still
        // swinging enough for the rhythm to find every stroke.
        let hands = Self.motion(along: (0.95, 0.18, 0.24), amplitude: 5)
        var rhythmOnly = Self.parameters(steadyStride: 0.8)
        rhythmOnly.recognizer.enabled = false
        #expect(SyntheticMotion.count(hands, parameters: rhythmOnly).steps >= 70)
        #expect(SyntheticMotion.count(hands, parameters: Self.parameters(steadyStride: 0.8)).steps == 0)
    }
}
