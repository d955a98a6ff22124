import Foundation
import StepDetection
import Testing
import WallTimeCore

/// Short bouts a few seconds apart judged as one group (ShortBoutGroup.swift; issue #47: pottering about, a few
/// steps at a time, with pauses of a few seconds).
@Suite struct ShortBoutGroupTests {
    /// The standard parameters with each short bout judged alone: the detector before groups.
    static let withoutGroups: DetectorParameters = {
        var p = DetectorParameters.standard
        p.boutGroupGapSeconds = 0
        return p
    }()

    /// Bouts of `steps` steps at 100 a minute, `pause` seconds of rest between them, 10 s of rest before and after,
    /// with three axes (`SyntheticMotion.walk3D`).
    static func pottering(rate: Double = 50, bouts: [Int], pause: Double, seed: UInt64 = 31) -> [SyntheticMotion.Sample]
    {
        var samples: [SyntheticMotion.Sample] = []
        var startNs: Int64 = 0
        for (k, steps) in bouts.enumerated() {
            var walk = SyntheticWalk(
                rate: rate, steps: steps, interval: 0.6, lead: k == 0 ? 10 : pause, tail: k == bouts.count - 1 ? 10 : 0,
                seed: seed + UInt64(k))
            walk.startNs = startNs
            samples += SyntheticMotion.walk3D(walk)
            startNs += Int64((walk.duration * 1e9).rounded())
        }
        return samples
    }

    @Test(arguments: [25.0, 50, 100])
    func boutsOfFiveStepsAFewSecondsApartCount(rate: Double) {
        let walk = Self.pottering(rate: rate, bouts: [5, 5, 5, 5], pause: 3)
        let counted = SyntheticMotion.count(walk).steps
        #expect(counted >= 18 && counted <= 20, "counted \(counted) of 20 at \(rate) Hz")
        #expect(SyntheticMotion.count(walk, parameters: Self.withoutGroups).steps == 0)
    }

    /// The standard parameters without the lone-bout judgements (`loneBoutAlongShare`, LoneBoutTests;
    /// `loneBoutBodyShare`, LoneBodyTests): groups alone.
    static let withoutLoneBouts: DetectorParameters = {
        var p = DetectorParameters.standard
        p.loneBoutAlongShare = 2
        p.loneBoutBodyShare = 2
        return p
    }()

    @Test func aLoneBoutOfFiveStepsIsNoGroup() {
        // Five regular peaks alone are as much a hand's burst as a walk: a group needs `shortBoutMinSteps` in all
        // (a lone bout counts only on its own seconds' share along gravity: LoneBoutTests).
        let walk = Self.pottering(bouts: [5], pause: 0)
        #expect(SyntheticMotion.count(walk, parameters: Self.withoutLoneBouts).steps == 0)
    }

    @Test func aLoneShortBoutDoesNotCountOnWindowsThatSayWalking() {
        // Every window at 0.95: four or five steps alone still do not count (a 10 s window around them is mostly
        // what surrounds them); two such bouts a few seconds apart do, as a group.
        var p = Self.withoutLoneBouts
        p.steadyStride = 2
        p.recognizer.model = .constant(logOdds: 3)
        #expect(SyntheticMotion.count(Self.pottering(bouts: [5], pause: 0), parameters: p).steps == 0)
        let group = SyntheticMotion.count(Self.pottering(bouts: [5, 5], pause: 3), parameters: p).steps
        #expect(group >= 9 && group <= 10, "counted \(group) of 10")
    }

    @Test func boutsFurtherApartThanTheGapAreNotAGroup() {
        let gap = DetectorParameters.standard.boutGroupGapSeconds
        #expect(
            SyntheticMotion.count(Self.pottering(bouts: [5, 5, 5], pause: gap + 4), parameters: Self.withoutLoneBouts)
                .steps == 0)
        let near = SyntheticMotion.count(Self.pottering(bouts: [5, 5, 5], pause: gap - 4)).steps
        #expect(near >= 13 && near <= 15, "counted \(near) of 15")
    }

    @Test func aCountedGroupCountsItsNextShortBout() {
        // Eight steps (a short bout on its own), then four more after a pause: the group's walk goes on.
        let walk = Self.pottering(bouts: [8, 4], pause: 3)
        let counted = SyntheticMotion.count(walk).steps
        #expect(counted >= 11 && counted <= 12, "counted \(counted) of 12")
        #expect(SyntheticMotion.count(walk, parameters: Self.withoutGroups).steps <= 8)
    }

    @Test func aGroupOfBurstsAcrossGravityIsNotWalking() {
        // The same |a| with its motion across gravity (a hand at work, a few strokes at a time): refused.
        let bursts = SyntheticMotion.acrossGravity(
            Self.pottering(bouts: [5, 5, 5, 5], pause: 3).map { s in
                (s.timeNs, (s.x * s.x + s.y * s.y + s.z * s.z).squareRoot())
            })
        #expect(SyntheticMotion.count(bursts).steps == 0)
    }

    @Test func theSettledTimeCoversAWaitingGroup() {
        // Steps a group counts later are never before what the detector said was final.
        var d = StepDetector()
        var settled = Int64.min
        var (late, counted) = (0, 0)
        let count: (DetectorEvent) -> Void = { event in
            if case .step(let t) = event {
                counted += 1
                if t.nanosecondsSinceEpoch < settled { late += 1 }
            }
        }
        for s in Self.pottering(bouts: [5, 5, 5], pause: 4) {
            d.push(s, count)
            settled = max(settled, d.settled?.nanosecondsSinceEpoch ?? .min)
        }
        d.finish(count)
        #expect(counted >= 13)
        #expect(late == 0)
    }

    @Test(arguments: [0.25, 0.35, 0.45, 0.55, 0.7, 0.85])
    func resumingInsideAGroupEqualsOnePass(fraction: Double) throws {
        let walk = Self.pottering(bouts: [5, 5, 5, 5], pause: 3)
        let run = try SyntheticMotion.expectResumingEqualsOnePass(walk, at: fraction)
        #expect(run.onePassCounters.steps >= 18)
    }

    @Test func aStateOrParametersSavedBeforeGroupsDecode() throws {
        let (d, saved) = try SyntheticMotion.savedHalfWay(Self.pottering(bouts: [5, 5], pause: 3))
        var json = saved
        for key in ["boutGroup", "groupOnlyUntilNs"] {
            #expect(json[key] != nil)
            json[key] = nil
        }
        var parameters = try #require(json["parameters"] as? [String: Any])
        parameters["boutGroupMinSteps"] = nil
        parameters["boutGroupGapSeconds"] = nil
        json["parameters"] = parameters
        let resumed = try SyntheticMotion.decoded(json)
        #expect(resumed.counters == d.counters)
        #expect(resumed.parameters == .standard)
    }
}
