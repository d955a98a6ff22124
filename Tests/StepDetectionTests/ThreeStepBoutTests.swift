import Foundation
import Testing
import WallTimeCore

@testable import StepDetection

/// Bouts of three steps in a pottering group (`DetectorParameters.threeStepBoutSteps`, `threeStepBoutShare`,
/// `threeStepBoutStride`; issue #47, acc40): the rhythm often credits only three steps of a bout of four or five, at its
/// start or end. Such a bout joins its group only when its own seconds show a body stepping, and never counts alone.
@Suite struct ThreeStepBoutTests {
    /// The detector before acc40: no bout of three steps is credited.
    static var withoutThreeSteps: DetectorParameters {
        var p = LoneBodyTests.windowsSayNothing
        p.threeStepBoutShare = 2
        return p
    }

    @Test(arguments: [(3, 4, 25.0), (3, 4, 50), (4, 3, 50), (4, 3, 100), (3, 5, 50)])
    func aThreeStepBoutJoinsItsGroupOnItsOwnSeconds(first: Int, second: Int, rate: Double) {
        let run = GroupBodyTests.pair(first, second, rate: rate)
        let total = first + second
        let before = SyntheticMotion.count(run, parameters: Self.withoutThreeSteps).steps
        #expect(before <= max(first, second), "without it only the longer bout counts, alone: \(before) at \(rate) Hz")
        let counted = SyntheticMotion.count(run, parameters: LoneBodyTests.windowsSayNothing).steps
        #expect(counted >= total - 1 && counted <= total, "counted \(counted) of \(total) at \(rate) Hz")
    }

    @Test func aThreeStepBoutWithoutABodySteppingStaysOut() {
        // The three steps' arm swings hard across gravity (0.17 along it, under `threeStepBoutShare`): the four-step
        // bout counts alone on the lone bars, the three are refused; with a lower share bar they join.
        let run = GroupBodyTests.pair(3, 4, firstSwing: 8)
        let counted = SyntheticMotion.count(run, parameters: LoneBodyTests.windowsSayNothing).steps
        #expect(counted == SyntheticMotion.count(run, parameters: Self.withoutThreeSteps).steps)
        #expect(counted <= 4, "counted \(counted)")
        var lower = LoneBodyTests.windowsSayNothing
        lower.threeStepBoutShare = 0.1
        #expect(SyntheticMotion.count(run, parameters: lower).steps >= 6, "the share is what refuses it")
        var stricter = LoneBodyTests.windowsSayNothing
        stricter.threeStepBoutStride = 1
        #expect(SyntheticMotion.count(GroupBodyTests.pair(3, 4), parameters: stricter).steps <= 4)
    }

    @Test func threeStepsNeverCountAlone() {
        for rate in [25.0, 50, 100] {
            #expect(SyntheticMotion.count(LoneBodyTests.lone(3, rate: rate)).steps == 0)
            #expect(
                SyntheticMotion.count(GroupBodyTests.pair(3, 3, rate: rate)).steps == 0, "six steps: still no group")
        }
        #expect(SyntheticMotion.count(LoneBoutTests.acrossGravity(GroupBodyTests.pair(3, 4))).steps == 0)
        #expect(SyntheticMotion.count(GroupBodyTests.pair(3, 4), magnitudeOnly: true).steps == 0)
    }

    @Test(arguments: [0.3, 0.45, 0.6, 0.75])
    func resumingWithAThreeStepBoutEqualsOnePass(fraction: Double) throws {
        let run = try SyntheticMotion.expectResumingEqualsOnePass(
            GroupBodyTests.pair(3, 4), at: fraction, parameters: LoneBodyTests.windowsSayNothing)
        #expect(run.onePassCounters.steps >= 6)
    }

    @Test func parametersSavedBeforeItDecode() throws {
        let json = try SavedJSON.object(encoding: DetectorParameters.standard)
        let decoded = try SavedJSON.decode(
            DetectorParameters.self, from: json,
            removing: ["threeStepBoutSteps", "threeStepBoutShare", "threeStepBoutStride"])
        #expect(decoded == .standard)
    }
}
