import Foundation
import TestSupport
import Testing
import WallTimeCore

@testable import StepDetection

/// Issue #47, the rail bridge (RailBridge.swift): a walk the carried-arm path recognised is counted across the
/// seconds where its hand on the rail feels no step, and not across a stop.
@Suite struct RailBridgeTests {
    typealias Sample = SyntheticMotion.Sample

    /// 60 s at 50 Hz at 1.3 steps a second (78 steps), a hand on a rail: the body carries the arm to and fro across
    /// gravity once a stride (1.5 m/s², 0.65 Hz), and each step jolts it beside that line (1.2 m/s²) and along
    /// gravity (0.9 m/s², 1.3 Hz), so a fifth of the moving energy lies along gravity (DSADS p3's rail: a tenth). The
    /// steps' jolts fade to a tenth for `fade` seconds from each of `fadesAt` while the body still carries the arm;
    /// `stopsAt`: the body and the arm stop there instead (only the sensor's noise). `otherStep`: the jolt of every
    /// other step, relative to the rest (under 1: |a| passes `minSwing` once a stride).
    static func walk(fadesAt: [Double] = [], stopsAt: [Double] = [], fade: Double = 2.5, otherStep: Double = 1)
        -> [Sample]
    {
        SyntheticMotion.at50Hz(count: 3000) { t in
            let faded = fadesAt.contains { t >= $0 && t < $0 + fade }
            let stopped = stopsAt.contains { t >= $0 && t < $0 + fade }
            let a = stopped ? 0 : 1.5 * sin(2 * .pi * 0.65 * t)
            let other = sin(2 * .pi * 0.65 * t) > 0 ? 1 : otherStep
            let j = stopped ? 0 : (faded ? 0.1 : other) * sin(2 * .pi * 1.3 * t)
            let (up, across1, across2) = (CarriedArmTests.up, CarriedArmTests.across1, CarriedArmTests.across2)
            return (
                standardGravity * up.0 + a * across1.0 + 1.2 * j * across2.0 + 0.9 * j * up.0,
                standardGravity * up.1 + a * across1.1 + 1.2 * j * across2.1 + 0.9 * j * up.1,
                standardGravity * up.2 + a * across1.2 + 1.2 * j * across2.2 + 0.9 * j * up.2
            )
        }
    }

    /// Only the carried-arm path can accept (CarriedArmTests.parameters); `bridge` seconds of rail bridge.
    static func parameters(bridge: Double) -> DetectorParameters {
        var p = CarriedArmTests.parameters(carriedArmStride: 0.75)
        p.railBridgeSeconds = bridge
        return p
    }

    static let fades = [14.0, 29.0, 44.0]

    @Test func aRailWalkIsCountedAcrossTheSecondsItsHandFeelsNoStep() {
        let walk = Self.walk(fadesAt: Self.fades)
        let bridged = SyntheticMotion.count(walk, parameters: Self.parameters(bridge: 5)).steps
        let unbridged = SyntheticMotion.count(walk, parameters: Self.parameters(bridge: 0)).steps
        #expect((74...80).contains(bridged), "\(bridged) of 78")
        #expect(bridged >= unbridged + 8, "bridged \(bridged), not \(unbridged)")
        // Unfaded, the bridge changes nothing.
        let steady = Self.walk()
        #expect(
            SyntheticMotion.count(steady, parameters: Self.parameters(bridge: 5)).steps
                == SyntheticMotion.count(steady, parameters: Self.parameters(bridge: 0)).steps)
        // Without a rail path's window there is nothing to bridge (nor anything to count: the trees never walk).
        var off = Self.parameters(bridge: 5)
        off.carriedArmStride = 2
        #expect(SyntheticMotion.count(walk, parameters: off).steps == 0)
    }

    @Test func aRailWalkSeenOnceAStrideCountsEachStep() {
        // Every other step jolts half as hard: the rhythm's bout is confirmed from peaks a stride apart.
        let walk = Self.walk(otherStep: 0.5)
        let bridged = SyntheticMotion.count(walk, parameters: Self.parameters(bridge: 5)).steps
        let unbridged = SyntheticMotion.count(walk, parameters: Self.parameters(bridge: 0)).steps
        #expect((74...80).contains(bridged), "\(bridged) of 78")
        #expect(unbridged <= 42, "\(unbridged): once a stride")
    }

    @Test func aStopOnTheRailIsNotBridged() {
        // The same gaps, but the body and arm stop: no step is filled in them.
        let stops = Self.walk(stopsAt: Self.fades)
        let bridged = SyntheticMotion.count(stops, parameters: Self.parameters(bridge: 5))
        let unbridged = SyntheticMotion.count(stops, parameters: Self.parameters(bridge: 0))
        #expect(bridged.steps <= unbridged.steps + 1, "bridged \(bridged.steps), not \(unbridged.steps)")
        let inStops = bridged.times.filter { t in
            Self.fades.contains { Double(t) / 1e9 > $0 + 0.4 && Double(t) / 1e9 < $0 + 2.1 }
        }
        #expect(inStops.isEmpty, "\(inStops.map { Double($0) / 1e9 })")
    }

    @Test func settledIsNeverPassedByABridgedStep() {
        var d = StepDetector(parameters: Self.parameters(bridge: 5))
        var settled = Int64.min
        var (violations, counted) = (0, 0)
        let handle: (DetectorEvent) -> Void = { event in
            if case .step(let t) = event {
                counted += 1
                if t.nanosecondsSinceEpoch < settled { violations += 1 }
            }
        }
        for s in Self.walk(fadesAt: Self.fades) {
            d.push(s, handle)
            settled = max(settled, try! #require(d.settled).nanosecondsSinceEpoch)
        }
        d.finish(handle)
        #expect(violations == 0)
        #expect(counted >= 74)
    }

    @Test(arguments: [0.27, 0.5, 0.76])
    func resumingAcrossABridgedGapEqualsOnePass(fraction: Double) throws {
        try SyntheticMotion.expectResumingEqualsOnePass(
            Self.walk(fadesAt: Self.fades), at: fraction, parameters: Self.parameters(bridge: 5))
    }

    @Test func aStateAndParametersSavedBeforeTheBridgeDecode() throws {
        #expect(
            try SavedJSON.parameterSavedBeforeItExisted("railBridgeSeconds", \.railBridgeSeconds, marker: 0.5)
                == DetectorParameters.standard.railBridgeSeconds)
        #expect(DetectorParameters.slowWalking.railBridgeSeconds == 0)
        let older = try JSONDecoder().decode(PathMemory.self, from: Data(#"{"evidence":0.8,"endNs":12}"#.utf8))
        #expect(older == PathMemory(evidence: 0.8, endNs: 12, railEndNs: .min, railStrideNs: 0))
        let memory = PathMemory(evidence: 0.9, endNs: 20, railEndNs: 15, railStrideNs: 1_440_000_000)
        #expect(try JSONDecoder().decode(PathMemory.self, from: JSONEncoder().encode(memory)) == memory)
    }
}
