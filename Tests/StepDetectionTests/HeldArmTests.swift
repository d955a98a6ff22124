import Foundation
import TestSupport
import Testing

@testable import StepDetection

/// Issue #47: a walk with a hand held on a treadmill's rail (or a stepper's handles) moves the arm along one line
/// tilted from gravity, which the gravity gates refuse as they refuse a clapping hand. The body's sway beside that line
/// (once a stride, while the line's rise and fall comes once a step) is what the clapping hand does not have.
@Suite struct HeldArmTests {
    typealias Sample = SyntheticMotion.Sample

    static let up = (0.0, 0.6, 0.8)
    /// The arm's line, 45° from gravity (a share along gravity of 0.5 with none of its own: the own-share gate refuses
    /// it), and a direction perpendicular to both `up` and the line, for the sway.
    static let line = (0.7071, 0.4243, 0.5657)
    static let side = (0.0, 0.8, -0.6)

    /// 60 s at 50 Hz: a rise and fall of `rise` m/s² along `line` at 1.8 steps a second and, beside it, a sway of `sway`
    /// m/s² a stride long (half the step rate), turned by `turn` (a rotation of the device: the same motion).
    static func walk(
        sway: Double, swayRate: Double = 0.9, rise: Double = 1.6,
        turn: (Double, Double, Double) -> (Double, Double, Double) = {
            ($0, $1, $2)
        }
    ) -> [Sample] {
        SyntheticMotion.at50Hz(count: 3000) { t in
            let rise = rise * sin(2 * .pi * 1.8 * t)
            let beside = sway * sin(2 * .pi * swayRate * t)
            return (
                standardGravity * up.0 + rise * line.0 + beside * side.0,
                standardGravity * up.1 + rise * line.1 + beside * side.1,
                standardGravity * up.2 + rise * line.2 + beside * side.2
            )
        }.map { s in
            let (x, y, z) = turn(s.x, s.y, s.z)
            return (s.timeNs, x, y, z)
        }
    }

    /// Trees that never say walking and the steady-stride path off: only the held-arm path can accept.
    static func parameters(heldArmSway: Double) -> DetectorParameters {
        var p = SteadyStrideTests.parameters(steadyStride: 2)
        p.recognizer.minAlongOwnShare = 0.15
        p.heldArmSway = heldArmSway
        return p
    }

    @Test func aBodysFigureOfEightShowsInBodySwayWhicheverWayTheDeviceIsTurned() {
        let held = AxisFeatureTests.lastWindow(Self.walk(sway: 0.6))
        #expect(held.bodySway > 0.5, "\(held.bodySway)")
        #expect(held.alongOwnShare < 0.1, "\(held.alongOwnShare)")  // the own-share gate alone refuses it
        // Turned 90° about x then 40° about z: the same motion, the same sway.
        let turned = AxisFeatureTests.lastWindow(
            Self.walk(sway: 0.6) { x, y, z in
                let (y1, z1) = (-z, y)
                let (c, s) = (cos(0.7), sin(0.7))
                return (c * x - s * y1, s * x + c * y1, z1)
            })
        #expect(abs(turned.bodySway - held.bodySway) < 1e-6, "\(turned.bodySway) against \(held.bodySway)")
        // The line alone (a clapping hand), and a side motion at the line's own rate (a hand moving on a tilted
        // ellipse, as in brushing): nothing beside the line alternates a stride long.
        #expect(AxisFeatureTests.lastWindow(Self.walk(sway: 0)).bodySway < 0.1)
        #expect(AxisFeatureTests.lastWindow(Self.walk(sway: 0.6, swayRate: 1.8)).bodySway < 0.1)
    }

    @Test func theSwayIsNotMeasuredWhereAbsoluteAccelerationDoesNotRepeatAStrideLater() {
        // Motion without a stride (noise on every axis): the held-arm path is shut by r_stride alone, so the sway (a
        // tenth of the recognizer's instructions per sample) is not measured and reads as none.
        let noise = SyntheticMotion.at50Hz(count: 3000, seed: 7, noise: 1.5) { _ in (0, standardGravity, 0) }
        let window = AxisFeatureTests.lastWindow(noise)
        #expect(window.hasAxes)
        #expect(window.rStride < WalkingRecognizer.swayNeedsStride, "\(window.rStride)")
        #expect(window.bodySway == -1, "\(window.bodySway)")
        // The held walk repeats a stride later, and its sway is measured.
        #expect(AxisFeatureTests.lastWindow(Self.walk(sway: 0.6)).rStride >= WalkingRecognizer.swayNeedsStride)
    }

    @Test func aHeldArmWalkCountsAndTheLineAloneDoesNot() {
        let held = Self.walk(sway: 0.6)
        let counted = SyntheticMotion.count(held, parameters: Self.parameters(heldArmSway: 0.15)).steps
        #expect((97...108).contains(counted), "\(counted) of 108")
        // Off (above 1), the gates refuse every step.
        #expect(SyntheticMotion.count(held, parameters: Self.parameters(heldArmSway: 2)).steps == 0)
        // The line alone, with the rhythm finding every stroke, is refused.
        let line = Self.walk(sway: 0)
        var rhythmOnly = Self.parameters(heldArmSway: 0.15)
        rhythmOnly.recognizer.enabled = false
        #expect(SyntheticMotion.count(line, parameters: rhythmOnly).steps >= 95)
        #expect(SyntheticMotion.count(line, parameters: Self.parameters(heldArmSway: 0.15)).steps == 0)
        // Without axes nothing says what moves beside the line.
        #expect(
            SyntheticMotion.count(held, magnitudeOnly: true, parameters: Self.parameters(heldArmSway: 0.15)).steps == 0)
    }

    @Test func aHeldArmWalkWhoseStepsSwingUnderMinSwingCountsOnceAWindowSaysItIsAHeldArm() {
        // A hand on the rail carrying half the rise and fall: |a| swings ~0.8 m/s² a step, under `minSwing` (1.2),
        // over `minSwingInWalk` (0.5). One jolt as the hand takes the rail is the only peak over `minSwing`.
        let held = Self.weakHeldWalk()
        let counted = SyntheticMotion.count(held, parameters: Self.parameters(heldArmSway: 0.15)).steps
        #expect((80...108).contains(counted), "\(counted) of 108")
        // Off (above 1), the rhythm never finds three peaks in a row.
        var off = Self.parameters(heldArmSway: 0.15)
        off.weakPeaksOpenAtPathEvidence = 2
        #expect(SyntheticMotion.count(held, parameters: off).steps == 0)
        // The same weak line without the sway (a hand moving to and fro on a tilted line) opens nothing.
        let line = Self.walk(sway: 0, rise: 0.8)
        #expect(SyntheticMotion.count(line, parameters: Self.parameters(heldArmSway: 0.15)).steps == 0)
    }

    /// The weak held walk of the test above, with its jolt.
    static func weakHeldWalk() -> [Sample] {
        walk(sway: 0.6, rise: 0.8).map { s in
            let jolt = (500_000_000...700_000_000).contains(s.timeNs) ? 3.0 : 0
            return (s.timeNs, s.x, s.y + jolt * up.1, s.z + jolt * up.2)
        }
    }

    @Test(arguments: [0.2, 0.35, 0.5, 0.65, 0.8])
    func resumingWhileWeakPeaksMayOpenABoutEqualsOnePass(fraction: Double) throws {
        let run = try SyntheticMotion.expectResumingEqualsOnePass(
            Self.weakHeldWalk(), at: fraction, parameters: Self.parameters(heldArmSway: 0.15))
        let json = try SavedJSON.object(run.saved)
        // From 21 s on, the latest window is a held arm's: the cut falls where weak peaks may open a bout.
        #expect(fraction < 0.35 || json["weakPeaksOpenBouts"] as? Bool == true, "\(fraction)")
        // A state saved before the flag existed decodes, with weak peaks opening nothing until the next window.
        let saved = try JSONDecoder().decode(StepDetector.self, from: run.saved)
        let older = try SavedJSON.decode(
            StepDetector.self, from: json, removing: ["weakPeaksOpenBouts", "parameters.weakPeaksOpenAtPathEvidence"])
        #expect(older.counters == saved.counters)
        #expect(older.parameters.weakPeaksOpenAtPathEvidence == DetectorParameters.standard.weakPeaksOpenAtPathEvidence)
    }
}
