import Foundation
import StepDetection
import Testing
import WallTimeCore

/// A timed up and go's turn (`DetectorParameters.shortBoutTurnFromMiddle`; issue #47, h47own): two legs of a walk and
/// a pause between them are one short bout whose intervals are even but for one long interval in their middle. The
/// short-bout judgement measures their spread without it; a hand's burst uneven throughout stays uneven.
@Suite struct ShortBoutTurnTests {
    /// Every window at 0.5 (under `enter`, over `shortBoutEnter`) and no physical path: only the short-bout judgement
    /// decides, and with the windows passing it, only the cadence and the spread.
    static func windowsAtHalf(turnFromMiddle: Double = DetectorParameters.standard.shortBoutTurnFromMiddle)
        -> DetectorParameters
    {
        var p = DetectorParameters.standard(treesSaying: 0)
        p.steadyStride = 2
        p.heldArmSway = 2
        p.carriedArmStride = 2
        p.shortBoutTurnFromMiddle = turnFromMiddle
        return p
    }

    /// Bouts of the given steps 0.6 s apart, `pause` seconds more between them, 10 s of rest before and after, with
    /// three axes (`ShortBoutGroupTests.pottering`): with a pause under a step, one rhythm bout.
    static func legs(_ legs: [Int], turn: Double = 0.9, rate: Double = 50) -> [SyntheticMotion.Sample] {
        ShortBoutGroupTests.pottering(rate: rate, bouts: legs, pause: turn)
    }

    @Test(arguments: [25.0, 50, 100])
    func aTurnBetweenTwoLegsIsNotAnUnevenWalk(rate: Double) {
        let run = Self.legs([5, 5], rate: rate)
        let before = SyntheticMotion.count(run, parameters: Self.windowsAtHalf(turnFromMiddle: 0)).steps
        #expect(before == 0, "the turn breaks the spread at \(rate) Hz: counted \(before)")
        let counted = SyntheticMotion.count(run, parameters: Self.windowsAtHalf()).steps
        #expect(counted >= 9 && counted <= 10, "counted \(counted) of 10 at \(rate) Hz")
    }

    /// Issue #47 (h47slow35): a short walk's slowest interval is often its last, the walker stopping (six steps, then
    /// 1.5 s to the seventh and 0.6 s to the eighth). Its spread leaves that interval out wherever it lies (0.5); the
    /// middle half alone (0.25, the detector before) refused the whole walk.
    @Test(arguments: [25.0, 50, 100])
    func aShortWalkSlowingAtItsEndCounts(rate: Double) {
        let run = Self.legs([6, 2], rate: rate)
        let before = SyntheticMotion.count(run, parameters: Self.windowsAtHalf(turnFromMiddle: 0.25)).steps
        #expect(before == 0, "the slow last interval breaks the spread at \(rate) Hz: counted \(before)")
        let counted = SyntheticMotion.count(run, parameters: Self.windowsAtHalf()).steps
        #expect(counted >= 7 && counted <= 8, "counted \(counted) of 8 at \(rate) Hz")
        #expect(DetectorParameters.standard.shortBoutTurnFromMiddle == 0.5)
    }

    @Test func handActivityCountsNothingWhereverTheLongestIntervalIs() throws {
        // Clapping (WISDM 1601, 3 minutes) with the standard trees: nothing, with the longest interval left out in the
        // middle half or anywhere.
        let clapping = try SyntheticMotion.clapping()
        var before = DetectorParameters.standard
        before.shortBoutTurnFromMiddle = 0.25
        #expect(SyntheticMotion.count(clapping, parameters: before).steps == 0)
        #expect(SyntheticMotion.count(clapping).steps == 0)
        // A burst uneven throughout, with every window at 0.5: nothing either way.
        let burst = Self.legs([4, 3, 4])
        #expect(SyntheticMotion.count(burst, parameters: Self.windowsAtHalf(turnFromMiddle: 0.25)).steps == 0)
        #expect(SyntheticMotion.count(burst, parameters: Self.windowsAtHalf()).steps == 0)
    }

    @Test func twoLongIntervalsStillBreakTheSpread() {
        // Only one interval is left out: a burst uneven throughout stays uneven.
        let run = Self.legs([4, 3, 4])
        var p = Self.windowsAtHalf()
        #expect(SyntheticMotion.count(run, parameters: p).steps == 0)
        p.shortBoutIntervalCV = 1  // the spread is all that refuses it
        #expect(SyntheticMotion.count(run, parameters: p).steps >= 10)
    }

    @Test func parametersAndStatesSavedBeforeTheTurnDecode() throws {
        let json = try SavedJSON.object(encoding: DetectorParameters.standard)
        let decoded = try SavedJSON.decode(DetectorParameters.self, from: json, removing: ["shortBoutTurnFromMiddle"])
        #expect(decoded == .standard)
        // A state cut while a group waits (a lone bout of 5, its group open), without the group's new keys.
        let walk = LoneBoutTests.lone(5, tail: 30)
        var d = StepDetector()
        var cut = 0
        for (i, s) in walk.enumerated() {
            d.push(time: Instant(nanosecondsSinceEpoch: s.timeNs), x: s.x, y: s.y, z: s.z) { _ in }
            if String(decoding: try JSONEncoder().encode(d), as: UTF8.self).contains("loneShare") {
                cut = i
                break
            }
        }
        #expect(cut > 0)
        let resumed = try SavedJSON.decode(
            StepDetector.self, from: SavedJSON.object(encoding: d),
            removing: ["boutGroup.intervalLongest", "boutGroup.intervalsBeforeLongest"])
        #expect(resumed.counters == d.counters)
    }

    @Test(arguments: [0.3, 0.5, 0.7])
    func resumingAroundAJudgedTurnEqualsOnePass(fraction: Double) throws {
        let run = Self.legs([5, 5])
        let r = try SyntheticMotion.resumed(
            run, cut: Int(Double(run.count) * fraction), parameters: Self.windowsAtHalf())
        #expect(r.events == r.onePass)
        #expect(r.counters == r.onePassCounters && r.onePassCounters.steps >= 9)
    }
}
