import Foundation
import Testing
import WallTimeCore

@testable import StepDetection

/// A lone bout of four to six steps judged on its own seconds (`DetectorParameters.loneBoutBodyShare`,
/// `loneBoutBodyStride`, `loneBoutBodyMotion`; issue #47, acc38): a walk across a room whose arm swings hard across
/// gravity puts less than `loneBoutAlongShare` of its moving energy along gravity, and its 10 s windows are mostly the
/// rest around it, yet its own ticks push along gravity, repeat that push a stride later and move |a| as steps do.
@Suite struct LoneBodyTests {
    /// A lone bout of `steps` steps 0.6 s apart moving |a| by about 1.6 m/s² between 10 s of rest, with three axes:
    /// |a| along a tilted gravity and the arm's swing across it at the stride rate, `swing` m/s² high (4.5: its own
    /// seconds put about 0.4 of their moving energy along gravity, under `loneBoutAlongShare` 0.5).
    static func lone(
        _ steps: Int, rate: Double = 50, swing: Double = 4.5, lead: Double = 10, tail: Double = 10,
        startNs: Int64 = 0
    ) -> [SyntheticMotion.Sample] {
        var walk = SyntheticWalk(
            rate: rate, steps: steps, interval: 0.6, amplitude: 6, lead: lead, tail: tail, seed: 31)
        walk.startNs = startNs
        let (up, across) = (SyntheticMotion.up, SyntheticMotion.across)
        let walking = walk.lead...(walk.lead + Double(steps) * walk.interval)
        return walk.samples().map { s in
            let t = Double(s.timeNs - walk.startNs) / 1e9
            let arm = walking.contains(t) ? swing * sin(Double.pi * (t - walk.lead) / walk.interval) : 0
            return (
                s.timeNs, up.0 * s.magnitude + across.0 * arm, up.1 * s.magnitude + across.1 * arm,
                up.2 * s.magnitude + across.2 * arm
            )
        }
    }

    /// The standard parameters without the lone body judgement (the detector before acc38).
    static var withoutLoneBody: DetectorParameters {
        var p = DetectorParameters.standard
        p.loneBoutBodyShare = 2
        return p
    }

    /// Trees that never say walking and no physical path: no window gives a bout evidence.
    static var windowsSayNothing: DetectorParameters {
        var p = DetectorParameters.standard(treesSaying: -5)
        p.steadyStride = 2
        p.heldArmSway = 2
        p.carriedArmStride = 2
        return p
    }

    @Test(arguments: [(4, 25.0), (4, 50), (4, 100), (5, 50), (6, 25), (6, 50), (6, 100)])
    func aLoneBoutSwingingItsArmCountsOnItsOwnSeconds(steps: Int, rate: Double) {
        let bout = Self.lone(steps, rate: rate)
        let before = SyntheticMotion.count(bout, parameters: Self.withoutLoneBody).steps
        #expect(before == 0, "its share along gravity is under loneBoutAlongShare: counted \(before) at \(rate) Hz")
        let counted = SyntheticMotion.count(bout).steps
        #expect(counted >= steps - 1 && counted <= steps, "counted \(counted) of \(steps) at \(rate) Hz")
        let alone = SyntheticMotion.count(bout, parameters: Self.windowsSayNothing).steps
        #expect(alone == counted, "no window is needed: counted \(alone) at \(rate) Hz")
    }

    @Test func theSameRhythmAcrossGravityCountsNothing() {
        for steps in 4...6 {
            #expect(SyntheticMotion.count(LoneBoutTests.acrossGravity(Self.lone(steps))).steps == 0)
        }
    }

    @Test func anArmSwingingHarderStillIsRefused() {
        // 5.5 m/s² across gravity: about 0.32 of the moving energy along it, under `loneBoutBodyShare`.
        #expect(SyntheticMotion.count(Self.lone(6, swing: 5.5)).steps == 0)
    }

    @Test func eachBarRefusesABoutUnderIt() {
        let bout = Self.lone(6)
        for change in [
            { (p: inout DetectorParameters) in p.loneBoutBodyShare = 0.99 },
            { (p: inout DetectorParameters) in p.loneBoutBodyStride = 1 },
            { (p: inout DetectorParameters) in p.loneBoutBodyMotion = 20 },
        ] {
            var p = DetectorParameters.standard
            change(&p)
            #expect(SyntheticMotion.count(bout, parameters: p).steps == 0)
        }
    }

    @Test func aLoneBodyBoutIsJudgedOnAllItsIntervals() {
        // Judged without a window, a lone bout leaves no interval out as a turn: a hand's four peaks 1.7, 0.45 and
        // 0.7 s apart (WISDM 1620 eating chips) are no walk, though the spread of their last two is a walk's.
        let ns: (Double) -> Int64 = { Int64(($0 * 1e9).rounded()) }
        let (uneven, even) = ([0, 1.7, 2.15, 2.85].map(ns), [0, 0.6, 1.15, 1.8].map(ns))
        func walks(_ steps: [Int64], evidence: Double, share: Double, body: Bool?) -> Bool {
            var d = StepDetector()
            d.gate.group.add(steps[...], evidence: evidence, boutShare: share, loneBody: body)
            return d.loneBoutWalks
        }
        #expect(!walks(uneven, evidence: 0, share: 0.39, body: true))
        #expect(walks(even, evidence: 0, share: 0.39, body: true))
        // Along gravity with a window, the longest still is left out (a short walk's stop or start, h47slow35).
        #expect(walks(uneven, evidence: 1, share: 0.6, body: nil))
    }

    @Test func aBoutWithoutAxesDoesNotCount() {
        #expect(SyntheticMotion.count(Self.lone(6), magnitudeOnly: true).steps == 0)
    }

    @Test func twoSuchBoutsAreAGroupJudgedOnTheirOwnSeconds() {
        // Two bouts of four steps 3 s apart are a group of eight: no window says walking, but each bout's own seconds
        // show a body stepping, which is the group's evidence (acc39; before it the group was judged on its windows
        // and counted 0: GroupBodyTests).
        let first = Self.lone(4, tail: 0)
        let run = first + Self.lone(4, lead: 3, startNs: first.last!.timeNs + 20_000_000)
        let counted = SyntheticMotion.count(run, parameters: Self.windowsSayNothing).steps
        #expect(counted >= 7 && counted <= 8, "counted \(counted) of 8")
        #expect(SyntheticMotion.count(Self.lone(4), parameters: Self.windowsSayNothing).steps >= 3)
    }

    @Test(arguments: [0.3, 0.45, 0.55, 0.65, 0.8])
    func resumingAroundALoneBodyEqualsOnePass(fraction: Double) throws {
        let bout = Self.lone(6)
        let r = try SyntheticMotion.resumed(bout, cut: Int(Double(bout.count) * fraction), parameters: .standard)
        #expect(r.events == r.onePass)
        #expect(r.counters == r.onePassCounters && r.onePassCounters.steps >= 5)
    }

    @Test func parametersSavedBeforeTheLoneBodyDecode() throws {
        let json = try SavedJSON.object(encoding: DetectorParameters.standard)
        let decoded = try SavedJSON.decode(
            DetectorParameters.self, from: json,
            removing: ["loneBoutBodyShare", "loneBoutBodyStride", "loneBoutBodyMotion"])
        #expect(decoded == .standard)
        #expect(decoded.loneBoutBodyShare == 0.35 && decoded.loneBoutBodyStride == 0.65)
        #expect(decoded.loneBoutBodyMotion == 1.0)
    }

    @Test func aStateSavedBeforeTheLoneBodyDecodes() throws {
        // Cut while the group holds the bout's judgement, and drop it as a state saved before acc38 lacks it.
        let bout = Self.lone(6)
        var d = StepDetector()
        var cut = 0
        for (i, s) in bout.enumerated() {
            d.push(time: Instant(nanosecondsSinceEpoch: s.timeNs), x: s.x, y: s.y, z: s.z) { _ in }
            let json = String(decoding: try JSONEncoder().encode(d), as: UTF8.self)
            if json.contains("loneBody") {
                cut = i
                break
            }
        }
        #expect(cut > 0)
        let resumed = try SavedJSON.decode(
            StepDetector.self, from: SavedJSON.object(encoding: d),
            removing: ["held[].loneBodyStepping", "boutGroup.loneBody"])
        #expect(resumed.counters == d.counters)
    }
}
