import Foundation
import StepDetection
import Testing
import WallTimeCore

/// A short walk judged on its own seconds (`DetectorParameters.shortBoutBodyShare`, `shortBoutBodyStride`,
/// `shortBoutBodyMotion`; issue #47, sw37): a timed up and go whose 10 s windows say nothing still counts when its own
/// ticks push along gravity, repeat that push a stride later and move |a| as steps do. The same rhythm across gravity
/// (a hand at work) does not.
@Suite struct ShortBoutBodyTests {
    /// Trees that never say walking and no physical path: only the short-bout judgement can count a bout, and no
    /// window gives it evidence.
    static func windowsSayNothing(body: Bool = true) -> DetectorParameters {
        var p = DetectorParameters.standard(treesSaying: -5)
        p.steadyStride = 2
        p.heldArmSway = 2
        p.carriedArmStride = 2
        if !body { p.shortBoutBodyShare = 2 }
        return p
    }

    /// Ten steps 0.6 s apart moving |a| by about 1.7 m/s² (a wrist's walk in WISDM: 1.8), 10 s of rest before and
    /// after: one rhythm bout, as a timed up and go's usually is. (Two bouts of five are a group, judged on windows
    /// alone: the body is measured for bouts the short-bout judgement takes alone.)
    static func shortWalk(rate: Double) -> SyntheticWalk {
        SyntheticWalk(rate: rate, steps: 10, interval: 0.6, amplitude: 6, lead: 10, tail: 10, seed: 31)
    }

    static func timedUpAndGo(rate: Double) -> [SyntheticMotion.Sample] {
        SyntheticMotion.walk3D(shortWalk(rate: rate))
    }

    @Test(arguments: [12.5, 25, 50, 100, 200])
    func aShortWalkCountsOnItsOwnSeconds(rate: Double) {
        let run = Self.timedUpAndGo(rate: rate)
        let before = SyntheticMotion.count(run, parameters: Self.windowsSayNothing(body: false)).steps
        #expect(before == 0, "no window says walking at \(rate) Hz: counted \(before)")
        let counted = SyntheticMotion.count(run, parameters: Self.windowsSayNothing()).steps
        #expect(counted >= 9 && counted <= 10, "counted \(counted) of 10 at \(rate) Hz")
    }

    @Test func theSameRhythmAcrossGravityCountsNothing() {
        let walk = Self.shortWalk(rate: 50)
        let hands = SyntheticMotion.acrossGravity(walk.samples())
        #expect(SyntheticMotion.count(hands, parameters: Self.windowsSayNothing()).steps == 0)
        // Along gravity, the same |a| counts: only where the motion lies refuses it.
        #expect(SyntheticMotion.count(SyntheticMotion.walk3D(walk), parameters: Self.windowsSayNothing()).steps >= 9)
    }

    @Test func eachBarRefusesAWalkUnderIt() {
        let run = Self.timedUpAndGo(rate: 50)
        for change in [
            { (p: inout DetectorParameters) in p.shortBoutBodyShare = 0.99 },
            { (p: inout DetectorParameters) in p.shortBoutBodyStride = 1 },
            { (p: inout DetectorParameters) in p.shortBoutBodyMotion = 20 },
        ] {
            var p = Self.windowsSayNothing()
            change(&p)
            #expect(SyntheticMotion.count(run, parameters: p).steps == 0)
        }
    }

    /// Bouts shorter than `shortBoutMinSteps` give their group body evidence only by the group's bars
    /// (`groupBoutBodyShare`, GroupBodyTests): with those off, and the lone-bout judgement off too
    /// (`loneBoutAlongShare` above 1), their group is judged on windows alone.
    @Test func aGroupOfBoutsShorterThanTheMinimumIsJudgedByTheGroupBars() {
        var p = Self.windowsSayNothing()
        p.loneBoutAlongShare = 2
        var (run, startNs): ([SyntheticMotion.Sample], Int64) = ([], 0)
        for k in 0..<2 {
            var walk = SyntheticWalk(
                rate: 50, steps: 5, interval: 0.6, amplitude: 6, lead: k == 0 ? 10 : 3, tail: k == 1 ? 10 : 0,
                seed: 31 + UInt64(k))
            walk.startNs = startNs
            run += SyntheticMotion.walk3D(walk)
            startNs += Int64((walk.duration * 1e9).rounded())
        }
        let counted = SyntheticMotion.count(run, parameters: p).steps
        #expect(counted >= 9 && counted <= 10, "counted \(counted) of 10")
        p.groupBoutBodyShare = 2
        #expect(SyntheticMotion.count(run, parameters: p).steps == 0)
    }

    @Test func parametersSavedBeforeTheBodyDecode() throws {
        let json = try SavedJSON.object(encoding: DetectorParameters.standard)
        let decoded = try SavedJSON.decode(
            DetectorParameters.self, from: json,
            removing: ["shortBoutBodyShare", "shortBoutBodyStride", "shortBoutBodyMotion"])
        #expect(decoded == .standard)
        #expect(decoded.shortBoutBodyShare == 0.3 && decoded.shortBoutBodyStride == 0.3)
        #expect(decoded.shortBoutBodyMotion == 1.0)
    }

    @Test(arguments: [0.3, 0.5, 0.7])
    func resumingAroundAJudgedBodyEqualsOnePass(fraction: Double) throws {
        let run = Self.timedUpAndGo(rate: 50)
        let r = try SyntheticMotion.resumed(
            run, cut: Int(Double(run.count) * fraction), parameters: Self.windowsSayNothing())
        #expect(r.events == r.onePass)
        #expect(r.counters == r.onePassCounters && r.onePassCounters.steps >= 9)
    }
}
