import Foundation
import TestSupport
import Testing

@testable import StepDetection

/// Issue #47, acc46: a hand on a treadmill's rail that the body carries along once a stride (DSADS p3's 15° walks)
/// shows no sway beside a line (the held-arm path's sign): its whole motion repeats at the stride and not at the step,
/// while |a| jolts at each step. A hand moving to and fro repeats at both lags.
@Suite struct CarriedArmTests {
    typealias Sample = SyntheticMotion.Sample

    static let up = (0.0, 0.6, 0.8)
    /// Two directions across gravity (perpendicular to `up` and to each other).
    static let across1 = (1.0, 0.0, 0.0)
    static let across2 = (0.0, 0.8, -0.6)

    /// 60 s at 50 Hz at 1.3 steps a second: the arm carried to and fro across gravity once a stride (`carried` m/s²,
    /// 0.65 Hz) and each step's jolt (`jolt` m/s², 1.3 Hz) along gravity and, half as much, across it beside the
    /// stride's line: half-way through the stride the first is reversed and the second repeats.
    static func walk(carried: Double = 1.5, jolt: Double = 1.2) -> [Sample] {
        SyntheticMotion.at50Hz(count: 3000) { t in
            let a = carried * sin(2 * .pi * 0.65 * t)
            let j = jolt * sin(2 * .pi * 1.3 * t)
            return (
                standardGravity * up.0 + a * across1.0 + 0.5 * j * across2.0 + j * up.0,
                standardGravity * up.1 + a * across1.1 + 0.5 * j * across2.1 + j * up.1,
                standardGravity * up.2 + a * across1.2 + 0.5 * j * across2.2 + j * up.2
            )
        }
    }

    /// Trees that never say walking, the steady-stride and held-arm paths off: only the carried-arm path can accept.
    /// `walk` puts 0.4 of its moving energy along gravity, so the bar along gravity is 0.5 here.
    static func parameters(carriedArmStride: Double) -> DetectorParameters {
        var p = SteadyStrideTests.parameters(steadyStride: 2)
        p.recognizer.minAlongOwnShare = 0.15
        p.carriedArmStride = carriedArmStride
        p.carriedArmAlongShare = 0.5
        return p
    }

    @Test func aCarriedArmRepeatsAtTheStrideNotAtTheStepAndItsMagnitudeJoltsEachStep() {
        let f = AxisFeatureTests.lastWindow(Self.walk())
        #expect(f.vectorStride > 0.9, "\(f.vectorStride)")
        #expect(f.carriedStep > -0.4 && f.vectorStride - f.carriedStep > 0.5, "\(f.carriedStep)")
        #expect(f.carriedJolt > 0.5, "\(f.carriedJolt)")
        // A hand moving to and fro on one line at the step's rate repeats at every lag a whole number of its periods.
        let hand = AxisFeatureTests.lastWindow(HeldArmTests.walk(sway: 0))
        #expect(hand.vectorStride > 0.9, "\(hand.vectorStride)")
        #expect(hand.vectorStride - hand.carriedStep < 0.1, "\(hand.vectorStride) \(hand.carriedStep)")
        // The stride's to-and-fro alone (a hand clapping or brushing at that period) is reversed half-way.
        let toAndFro = AxisFeatureTests.lastWindow(Self.walk(jolt: 0))
        #expect(toAndFro.vectorStride > 0.9 && toAndFro.carriedStep < -0.8, "\(toAndFro.carriedStep)")
        // Without a stride in the motion nothing is measured.
        let noise = SyntheticMotion.at50Hz(count: 3000, seed: 7, noise: 1.5) { _ in (0, standardGravity, 0) }
        let none = AxisFeatureTests.lastWindow(noise)
        #expect(none.vectorStride < WalkingRecognizer.carriedNeedsStride, "\(none.vectorStride)")
        #expect(none.carriedStep == -1 && none.carriedJolt == -1)
    }

    @Test func aCarriedArmWalkCountsAndAHandRepeatingAtBothLagsDoesNot() {
        let walk = Self.walk()
        let counted = SyntheticMotion.count(walk, parameters: Self.parameters(carriedArmStride: 0.75)).steps
        #expect((66...78).contains(counted), "\(counted) of 78")
        // Off (above 1), the gates refuse every step.
        #expect(SyntheticMotion.count(walk, parameters: Self.parameters(carriedArmStride: 2)).steps == 0)
        // Under the standard bar along gravity (0.2), a motion 0.4 along it is no hand on a rail (a swinging purse).
        var standardBar = Self.parameters(carriedArmStride: 0.75)
        standardBar.carriedArmAlongShare = DetectorParameters.standard.carriedArmAlongShare
        #expect(SyntheticMotion.count(walk, parameters: standardBar).steps == 0)
        // A hand to and fro on a tilted line at 1.8 a second, which the rhythm takes stroke by stroke.
        let line = HeldArmTests.walk(sway: 0)
        var rhythmOnly = Self.parameters(carriedArmStride: 0.75)
        rhythmOnly.recognizer.enabled = false
        #expect(SyntheticMotion.count(line, parameters: rhythmOnly).steps >= 95)
        #expect(SyntheticMotion.count(line, parameters: Self.parameters(carriedArmStride: 0.75)).steps == 0)
        // The stride's to-and-fro alone, strong enough for the rhythm to take each half of it as a step: refused.
        let hand = Self.walk(carried: 6, jolt: 0)
        #expect(SyntheticMotion.count(hand, parameters: rhythmOnly).steps >= 60)
        #expect(SyntheticMotion.count(hand, parameters: Self.parameters(carriedArmStride: 0.75)).steps == 0)
        // Without axes nothing says how the motion repeats.
        #expect(
            SyntheticMotion.count(walk, magnitudeOnly: true, parameters: Self.parameters(carriedArmStride: 0.75)).steps
                == 0)
    }

    @Test func parametersSavedBeforeTheCarriedArmReadItsStandardBars() throws {
        let s = DetectorParameters.standard
        #expect(
            try SavedJSON.parameterSavedBeforeItExisted("carriedArmStride", \.carriedArmStride, marker: 0.5) == 0.75)
        #expect(
            try SavedJSON.parameterSavedBeforeItExisted("carriedArmContrast", \.carriedArmContrast, marker: 0.5)
                == s.carriedArmContrast)
        #expect(
            try SavedJSON.parameterSavedBeforeItExisted("carriedArmJolt", \.carriedArmJolt, marker: 0.5)
                == s.carriedArmJolt)
        #expect(
            try SavedJSON.parameterSavedBeforeItExisted("carriedArmStepFloor", \.carriedArmStepFloor, marker: 0.5)
                == s.carriedArmStepFloor)
        #expect(
            try SavedJSON.parameterSavedBeforeItExisted("carriedArmAlongShare", \.carriedArmAlongShare, marker: 0.5)
                == 0.2)
    }
}
