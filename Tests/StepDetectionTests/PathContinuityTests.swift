import Foundation
import TestSupport
import Testing

@testable import StepDetection

/// Issue #47 (h47rail3): a walk with a hand on a treadmill's rail shows the held-arm path in a third to a half of its
/// windows, scattered; judged window by window it kept breaking and each new rhythm bout had to reach `enter` again.
/// Path continuity (`DetectorParameters.pathContinuitySeconds`) keeps a walk a physical path recognised going.
@Suite struct PathContinuityTests {
    typealias Sample = SyntheticMotion.Sample

    /// The first 70 s of DSADS person 1 walking on a treadmill at 4 km/h with a hand on the rail (the right-arm unit,
    /// 25 Hz): about 103 steps a minute by the spectrum, ~120 steps. Its |a| swings ~1.0 m/s² (under `minSwing`).
    static func railWalk() throws -> [Sample] {
        try AxisFeatureTests.fixture("activities/dsads_p1_treadmill_rail_70s.csv")
    }

    static func parameters(continuity: Double) -> DetectorParameters {
        var p = DetectorParameters.standard
        p.pathContinuitySeconds = continuity
        return p
    }

    @Test func aRailWalkWhosePathEvidenceFlickersKeepsCounting() throws {
        let walk = try Self.railWalk()
        // Judged window by window (the detector before), its second rhythm bout (from 33 s) never reaches `enter`.
        let before = SyntheticMotion.count(walk, parameters: Self.parameters(continuity: 0)).steps
        #expect(before <= 55, "\(before)")
        // With continuity the walk that counted from its first seconds goes on across the rhythm's break.
        let counted = SyntheticMotion.count(walk).steps
        #expect((95...125).contains(counted), "\(counted) of ~120")
        #expect(DetectorParameters.standard.pathContinuitySeconds == 5)
    }

    @Test func handActivityWithoutAPathCountsTheSameWithContinuity() throws {
        // Clapping never shows a physical path: nothing is remembered, nothing continues.
        let clapping = try SyntheticMotion.clapping()
        let with = SyntheticMotion.count(clapping).times
        #expect(with == SyntheticMotion.count(clapping, parameters: Self.parameters(continuity: 0)).times)
        // The held-arm line without its sway (a hand to and fro on a tilted line) opens and continues nothing.
        let line = HeldArmTests.walk(sway: 0, rise: 0.8)
        #expect(SyntheticMotion.count(line, parameters: HeldArmTests.parameters(heldArmSway: 0.15)).steps == 0)
    }

    @Test(arguments: [0.3, 0.45, 0.5, 0.55, 0.7])
    func resumingWhileAPathIsRememberedEqualsOnePass(fraction: Double) throws {
        let run = try SyntheticMotion.expectResumingEqualsOnePass(try Self.railWalk(), at: fraction)
        let json = try SavedJSON.object(run.saved)
        let memory = try #require(json["pathMemory"] as? [String: Any])
        // By 21 s a window has shown the held-arm path: the cut falls where one is remembered.
        #expect(((memory["endNs"] as? NSNumber)?.int64Value ?? .min) > 20_000_000_000, "\(memory)")
        // A state saved before path continuity decodes, remembering no path, with the standard continuity.
        let older = try SavedJSON.decode(
            StepDetector.self, from: json, removing: ["pathMemory", "parameters.pathContinuitySeconds"])
        #expect(older.gate.pathMemory == PathMemory())
        #expect(older.parameters.pathContinuitySeconds == DetectorParameters.standard.pathContinuitySeconds)
        let saved = try JSONDecoder().decode(StepDetector.self, from: run.saved)
        #expect(older.counters == saved.counters)
        #expect(saved.gate.pathMemory != PathMemory())
    }
}
