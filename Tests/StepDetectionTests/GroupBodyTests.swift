import Foundation
import Testing
import WallTimeCore

@testable import StepDetection

/// Bouts of four to six steps in a group judged on their own seconds (`DetectorParameters.groupBoutBodyShare`,
/// `groupBoutBodyStride`; issue #47, acc39): pottering about, a few steps to the shelf and a few back, whose arm swings
/// hard across gravity and whose 10 s windows are mostly the pauses around them. A bout whose own ticks show a body
/// stepping gives its group the evidence a window would, as a longer short bout's own seconds do.
@Suite struct GroupBodyTests {
    /// A bout of `steps` steps 0.6 s apart, `pause` seconds, then one of `second` steps (`steps` again when nil),
    /// between 10 s of rest (LoneBodyTests' bout: about 0.4 of the moving energy along gravity at an arm swing of
    /// 4.5 m/s², 0.32 at 5.5, 0.17 at 8).
    static func pair(
        _ steps: Int, _ second: Int? = nil, rate: Double = 50, pause: Double = 3, firstSwing: Double = 4.5,
        secondSwing: Double = 4.5
    ) -> [SyntheticMotion.Sample] {
        let first = LoneBodyTests.lone(steps, rate: rate, swing: firstSwing, tail: 0)
        return first
            + LoneBodyTests.lone(
                second ?? steps, rate: rate, swing: secondSwing, lead: pause,
                startNs: first.last!.timeNs + Int64(1e9 / rate))
    }

    /// The standard parameters without the group body judgement (the detector before acc39).
    static var withoutGroupBody: DetectorParameters {
        var p = LoneBodyTests.windowsSayNothing
        p.groupBoutBodyShare = 2
        return p
    }

    @Test(arguments: [(4, 25.0), (4, 50), (4, 100), (5, 50), (6, 25), (6, 100)])
    func twoBodyBoutsCountAsAGroupWithoutAWindow(steps: Int, rate: Double) {
        let run = Self.pair(steps, rate: rate)
        let before = SyntheticMotion.count(run, parameters: Self.withoutGroupBody).steps
        #expect(before == 0, "judged on its windows, the group counted \(before) at \(rate) Hz")
        let counted = SyntheticMotion.count(run, parameters: LoneBodyTests.windowsSayNothing).steps
        #expect(
            counted >= 2 * steps - 2 && counted <= 2 * steps, "counted \(counted) of \(2 * steps) at \(rate) Hz")
    }

    @Test func oneBodyBoutGivesItsGroupTheEvidence() {
        // The second bout's arm swings harder (0.17 along gravity, under the bars): alone it counts nothing, in the
        // group of the first it counts, as a bout beside a longer short bout whose own seconds show a body stepping.
        let harder = LoneBodyTests.lone(4, swing: 8)
        #expect(SyntheticMotion.count(harder, parameters: LoneBodyTests.windowsSayNothing).steps == 0)
        let run = Self.pair(4, secondSwing: 8)
        #expect(SyntheticMotion.count(run, parameters: Self.withoutGroupBody).steps == 0)
        let counted = SyntheticMotion.count(run, parameters: LoneBodyTests.windowsSayNothing).steps
        #expect(counted >= 6 && counted <= 8, "counted \(counted) of 8")
    }

    @Test func aGroupOfBoutsUnderTheBarsCountsNothing() {
        let under = Self.pair(4, firstSwing: 8, secondSwing: 8)
        #expect(SyntheticMotion.count(under, parameters: LoneBodyTests.windowsSayNothing).steps == 0)
        var lower = LoneBodyTests.windowsSayNothing
        lower.groupBoutBodyShare = 0.1
        #expect(SyntheticMotion.count(under, parameters: lower).steps >= 6, "the share is what refuses it")
        #expect(SyntheticMotion.count(LoneBoutTests.acrossGravity(Self.pair(5))).steps == 0)
        #expect(SyntheticMotion.count(Self.pair(5), magnitudeOnly: true).steps == 0)
        for change in [
            { (p: inout DetectorParameters) in p.groupBoutBodyShare = 0.99 },
            { (p: inout DetectorParameters) in p.groupBoutBodyStride = 1 },
            { (p: inout DetectorParameters) in p.loneBoutBodyMotion = 20 },
        ] {
            var p = LoneBodyTests.windowsSayNothing
            change(&p)
            #expect(SyntheticMotion.count(Self.pair(4), parameters: p).steps == 0)
        }
    }

    @Test func aGroupsEvidenceNeverJudgesALoneBout() {
        // 0.32 along gravity passes the group's share (0.25), not the lone bout's (0.35): alone the bout is judged by
        // the lone bars and refused, in a group of two such bouts it counts.
        let p = LoneBodyTests.windowsSayNothing
        #expect(SyntheticMotion.count(LoneBodyTests.lone(6, swing: 5.5), parameters: p).steps == 0)
        #expect(SyntheticMotion.count(Self.pair(4, firstSwing: 5.5, secondSwing: 5.5), parameters: p).steps >= 6)
    }

    @Test func aBodyBoutTooFarFromTheNextIsLone() {
        // 9 s apart (over `boutGroupGapSeconds`): two lone bouts, each judged alone and each counting on its own.
        let counted = SyntheticMotion.count(Self.pair(4, pause: 9), parameters: LoneBodyTests.windowsSayNothing)
        #expect(counted.steps >= 6 && counted.steps <= 8, "counted \(counted.steps) of 8")
    }

    @Test(arguments: [0.3, 0.4, 0.5, 0.6, 0.7])
    func resumingInAGroupEqualsOnePass(fraction: Double) throws {
        let run = try SyntheticMotion.expectResumingEqualsOnePass(
            Self.pair(4, secondSwing: 8), at: fraction, parameters: LoneBodyTests.windowsSayNothing)
        #expect(run.onePassCounters.steps >= 6)
    }

    @Test func aGroupSavedBeforeItsBodyEvidenceDecodes() throws {
        let json = try SavedJSON.object(encoding: DetectorParameters.standard)
        let decoded = try SavedJSON.decode(
            DetectorParameters.self, from: json, removing: ["groupBoutBodyShare", "groupBoutBodyStride"])
        #expect(decoded == .standard)
        var g = BoutGroup()
        g.add(
            [0, 600_000_000, 1_200_000_000, 1_800_000_000], evidence: 0, boutShare: 0.4, loneBody: true, groupBody: 0.25
        )
        let saved = try SavedJSON.object(encoding: g)
        #expect(saved["bodyEvidence"] as? Double == 0.25)
        var old = try SavedJSON.decode(BoutGroup.self, from: saved, removing: ["bodyEvidence"])
        #expect(old.bodyEvidence == nil && old.groupEvidence == 0)
        old.bodyEvidence = 0.25
        #expect(old == g)
    }
}
