import Foundation
import TestSupport
import Testing

@testable import StepDetection

/// Issue #47, a bout's start: the steps the walking gate refused in the seconds before a walk it recognises are the
/// walk's too (the gate look-back, `gateLookBackSeconds`, WalkingGate.swift; off in the standard set: it costs false
/// steps in hand activity, bench/accuracy.md).
@Suite struct BoutStartTests {
    typealias Sample = SyntheticMotion.Sample

    /// Trees that never say walking: windows are walking only on the steady-stride path (motion along gravity).
    static func parameters(gateLookBack: Double) -> DetectorParameters {
        var p = DetectorParameters.standard
        p.recognizer.model = WalkingTrees(depth: 1, base: -5, features: [0], thresholds: [1e300], leaves: [0, 0])
        p.heldArmSway = 2
        p.gateLookBackSeconds = gateLookBack
        return p
    }

    /// 80 steps at 2 a second from 10 s on (50 Hz, three axes): for the first `acrossSeconds` the step's motion lies
    /// mostly across gravity (a bag swinging: share along gravity 0.25, which the steady-stride path refuses), then
    /// along it. The rhythm follows every step; the windows say walking only once the motion is along gravity.
    static func walkTurningAlongGravity(acrossSeconds: Double = 16) -> [Sample] {
        let up = (0.0, 0.6, 0.8)
        let across = (1.0, 0.0, 0.0)
        var random = SeededRandom(seed: 47)
        let walk = SyntheticWalk(rate: 50, steps: 80, interval: 0.5, lead: 10, tail: 4, seed: 3)
        return walk.samples().map { s in
            let t = Double(s.timeNs) / 1e9
            let motion = s.magnitude - standardGravity
            let (along, side) = t < 10 + acrossSeconds ? (0.5, 0.87) : (1.0, 0.0)
            let sway = 0.5 * sin(.pi * t)
            return (
                s.timeNs,
                standardGravity * up.0 + motion * side * across.0 + sway + random.noise(0.05),
                (standardGravity + motion * along) * up.1 + random.noise(0.05),
                (standardGravity + motion * along) * up.2 + random.noise(0.05)
            )
        }
    }

    @Test func aRecognisedWalkTakesTheStepsTheGateRefusedJustBefore() {
        let walk = Self.walkTurningAlongGravity()
        let without = SyntheticMotion.count(walk, parameters: Self.parameters(gateLookBack: 0))
        let reach = 6.0
        let with = SyntheticMotion.count(walk, parameters: Self.parameters(gateLookBack: reach))
        #expect(without.steps > 0 && without.steps < 80, "counted \(without.steps) without the gate look-back")
        // Every step counted without the look-back is counted with it, and those it adds lie within its reach
        // before the first one.
        #expect(Set(without.times).isSubset(of: Set(with.times)))
        let first = without.times.first ?? 0
        let added = with.times.filter { $0 < first }
        #expect(with.steps == without.steps + added.count)
        #expect(added.count >= Int(reach / 0.5) - 1, "recovered \(added.count)")
        #expect(added.allSatisfy { $0 >= first - Int64(reach * 1e9) })
    }

    @Test func theStandardSetHasNoGateLookBack() {
        // Off (0): the detector before it. With it on, WISDM clapping and folding lost their budget (bench/accuracy.md).
        #expect(DetectorParameters.standard.gateLookBackSeconds == 0)
        let walk = Self.walkTurningAlongGravity()
        #expect(
            SyntheticMotion.count(walk, parameters: Self.parameters(gateLookBack: 0)).steps
                < SyntheticMotion.count(walk, parameters: Self.parameters(gateLookBack: 6)).steps)
    }

    @Test func theGateLookBackTakesNothingWhenNoWalkIsRecognised() {
        // The whole walk across gravity: every window refuses it, and the look-back has nothing to count with.
        let walk = Self.walkTurningAlongGravity(acrossSeconds: 60)
        #expect(SyntheticMotion.count(walk, parameters: Self.parameters(gateLookBack: 6)).steps == 0)
    }

    @Test(arguments: [0.2, 0.3, 0.35, 0.4, 0.5])
    func resumingWhileRefusedStepsWaitEqualsOnePass(fraction: Double) throws {
        let walk = Self.walkTurningAlongGravity()
        let run = try SyntheticMotion.resumed(
            walk, cut: Int(Double(walk.count) * fraction), parameters: Self.parameters(gateLookBack: 6))
        #expect(run.events == run.onePass)
        #expect(run.counters == run.onePassCounters)
    }
}
