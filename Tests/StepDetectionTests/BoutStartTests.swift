import Foundation
import TestSupport
import Testing

@testable import StepDetection

/// Issue #47, a bout's start: the steps the walking gate refused in the seconds before a walk it recognises count
/// when they lie within the gate look-back's reach (`startLookBackSeconds`, 5 s; GateLookBack.swift, h47start), and
/// stay refused before it. An earlier gate look-back (`gateLookBackSeconds`, off in every set, removed in session 29)
/// is no longer read; parameter sets saved with it still decode.
@Suite struct BoutStartTests {
    typealias Sample = SyntheticMotion.Sample

    /// Trees that never say walking: windows are walking only on the steady-stride path (motion along gravity).
    static func parameters() -> DetectorParameters {
        var p = DetectorParameters.standard(treesSaying: -5)
        p.heldArmSway = 2
        p.carriedArmStride = 2
        return p
    }

    /// 80 steps at 2 a second from 10 s on (50 Hz, three axes): for the first `acrossSeconds` the step's motion lies
    /// mostly across gravity (a bag swinging: share along gravity 0.25, which the steady-stride path refuses), then
    /// along it. The rhythm follows every step; the windows say walking only once the motion is along gravity.
    static func walkTurningAlongGravity(acrossSeconds: Double = 16) -> [Sample] {
        let up = (0.0, 0.6, 0.8)
        let across = (1.0, 0.0, 0.0)
        let walk = SyntheticWalk(rate: 50, steps: 80, interval: 0.5, lead: 10, tail: 4, seed: 3).samples()
        return SyntheticMotion.noisy(walk.map(\.timeNs)) { i in
            let t = Double(walk[i].timeNs) / 1e9
            let motion = walk[i].magnitude - standardGravity
            let (along, side) = t < 10 + acrossSeconds ? (0.5, 0.87) : (1.0, 0.0)
            let sway = 0.5 * sin(.pi * t)
            return (
                standardGravity * up.0 + motion * side * across.0 + sway,
                (standardGravity + motion * along) * up.1, (standardGravity + motion * along) * up.2
            )
        }
    }

    /// `parameters()` with the gate look-back's reach set (0: off).
    static func parameters(lookBackSeconds: Double) -> DetectorParameters {
        var p = parameters()
        p.startLookBackSeconds = lookBackSeconds
        return p
    }

    @Test func withoutTheGateLookBackTheStepsRefusedBeforeARecognisedWalkStayRefused() {
        let walk = Self.walkTurningAlongGravity()
        let counted = SyntheticMotion.count(walk, parameters: Self.parameters(lookBackSeconds: 0))
        // The walk starts 10 s in and turns along gravity at 26 s: windows over its first seconds lie across gravity
        // and refuse their steps (the first at least 5 s of them: 10 steps), and nothing counts them later.
        #expect(counted.steps > 0 && counted.steps <= 70, "counted \(counted.steps)")
        #expect(counted.times.allSatisfy { $0 >= 15_000_000_000 }, "first step \(counted.times.first ?? 0)")
    }

    @Test func theGateLookBackCountsTheRefusedSecondsBeforeARecognisedWalk() throws {
        let walk = Self.walkTurningAlongGravity()
        let off = SyntheticMotion.count(walk, parameters: Self.parameters(lookBackSeconds: 0))
        let standard = SyntheticMotion.count(walk, parameters: Self.parameters())
        let first = try #require(off.times.first)
        let added = Set(standard.times).subtracting(off.times)
        // Every step counted without it still counts; it adds the steps of the 5 s before the first (at 2 a second,
        // 9-10 of them), and none earlier.
        #expect(Set(off.times).isSubset(of: standard.times))
        #expect((8...10).contains(added.count), "added \(added.count): \(off.steps) -> \(standard.steps)")
        #expect(added.allSatisfy { $0 < first && $0 >= first - 5_000_000_000 }, "\(added.sorted()) before \(first)")
    }

    @Test func aParameterSetSavedWithTheGateLookBackStillDecodes() throws {
        // Saved by the builds that had the key (main up to 0e3788c), set or off: the key is read past.
        var json = try #require(
            try JSONSerialization.jsonObject(with: JSONEncoder().encode(Self.parameters())) as? [String: Any])
        json["gateLookBackSeconds"] = 3
        let decoded = try JSONDecoder().decode(
            DetectorParameters.self, from: JSONSerialization.data(withJSONObject: json))
        #expect(decoded == Self.parameters())
        // A detector state that holds it resumes and counts as the one saved without it.
        var state = try #require(
            try JSONSerialization.jsonObject(with: JSONEncoder().encode(StepDetector(parameters: Self.parameters())))
                as? [String: Any])
        state["parameters"] = json
        let resumed = try JSONDecoder().decode(StepDetector.self, from: JSONSerialization.data(withJSONObject: state))
        let walk = Self.walkTurningAlongGravity()
        #expect(
            SyntheticMotion.count(walk, parameters: resumed.parameters).times
                == SyntheticMotion.count(walk, parameters: Self.parameters()).times)
    }

    @Test(arguments: [0.2, 0.3, 0.35, 0.4, 0.5])
    func resumingWhileRefusedStepsWaitEqualsOnePass(fraction: Double) throws {
        try SyntheticMotion.expectResumingEqualsOnePass(
            Self.walkTurningAlongGravity(), at: fraction, parameters: Self.parameters())
    }
}
