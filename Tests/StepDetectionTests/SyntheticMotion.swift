import Foundation
import StepDetection
import TestSupport
import Testing
import WallTimeCore

/// Motion for the walking recognizer with three axes, shared by the detector's suites: synthetic walks (from
/// `SyntheticWalk`), gravity plus a motion a suite describes, real recordings, and the runs every suite makes of
/// them (counted, resumed from a saved state).
enum SyntheticMotion {
    typealias Sample = (timeNs: Int64, x: Double, y: Double, z: Double)

    /// The steady, tilted gravity direction of `walk3D`, and a direction across it (about unit and orthogonal).
    static let up = (0.3, 0.2, 0.93)
    static let across = (0.95, -0.1, -0.28)

    /// A walk with three axes: |a| from `SyntheticWalk` along `up`, plus the arm's swing along `across` at the
    /// stride rate (half the step rate).
    static func walk3D(_ walk: SyntheticWalk) -> [Sample] {
        walk.samples().map { s in
            let t = Double(s.timeNs - walk.startNs) / 1e9
            let swing = 1.2 * sin(Double.pi * t / walk.interval)
            return (
                s.timeNs, up.0 * s.magnitude + across.0 * swing, up.1 * s.magnitude + across.1 * swing,
                up.2 * s.magnitude + across.2 * swing
            )
        }
    }

    /// The same |a| with its motion across gravity (along `across`, gravity along `up`): a hand at work, which no
    /// gate takes for walking however regular.
    static func acrossGravity(_ magnitudes: [(timeNs: Int64, magnitude: Double)]) -> [Sample] {
        magnitudes.map { s in
            let motion = s.magnitude - standardGravity
            return (
                s.timeNs, up.0 * standardGravity + across.0 * motion, up.1 * standardGravity + across.1 * motion,
                up.2 * standardGravity + across.2 * motion
            )
        }
    }

    /// A slow walk with a loosely worn watch (Bangle.js 150_4): the steps push along gravity at 1.6 Hz (1.5 m/s²)
    /// while the loose watch sways across it at 0.45 Hz (`sway` m/s²), slower than the stride and not alternating
    /// with it as an arm swing does; `seconds` at 50 Hz.
    static func looseSlowWalk(seconds: Double = 60, sway: Double = 4.2) -> [Sample] {
        at50Hz(count: Int(seconds * 50)) { t in
            let step = 1.5 * sin(2 * .pi * 1.6 * t)
            let s = sway * sin(2 * .pi * 0.45 * t)
            let g = standardGravity + step
            return (g * up.0 + s * across.0, g * up.1 + s * across.1, g * up.2 + s * across.2)
        }
    }

    /// One sample at each of `times`: `axes(i)` (m/s², gravity included) with noise of `noise` m/s² added to each
    /// axis, drawn from `seed`.
    static func noisy(
        _ times: [Int64], seed: UInt64 = 47, noise: Double = 0.05, _ axes: (_ index: Int) -> (Double, Double, Double)
    ) -> [Sample] {
        var random = SeededRandom(seed: seed)
        return times.indices.map { i in
            let (x, y, z) = axes(i)
            return (times[i], x + random.noise(noise), y + random.noise(noise), z + random.noise(noise))
        }
    }

    /// `count` samples at 50 Hz from 0: `axes(t)` at each time `t` (s), with noise as `noisy` adds it.
    static func at50Hz(
        count: Int, seed: UInt64 = 47, noise: Double = 0.05, _ axes: (_ t: Double) -> (Double, Double, Double)
    ) -> [Sample] {
        noisy((0..<count).map { Int64($0) * 20_000_000 }, seed: seed, noise: noise) { axes(Double($0) / 50) }
    }

    /// A real recording (`t_ms,x,y,z`, m/s²) from ../shared, shifted to start at `startNs`.
    static func recording(_ relative: String, startNs: Int64 = 0) throws -> [Sample] {
        samples(try SharedData.numbers(relative), startNs: startNs)
    }

    /// Subject 1601's three minutes of clapping (WISDM watch, 20 Hz), committed in `fixtures/activities`.
    static func clapping() throws -> [Sample] {
        samples(try SharedData.numbers(atPath: SharedData.fixture("activities/wisdm_watch_1601_clapping.csv")))
    }

    static func samples(_ rows: [[Double]], startNs: Int64 = 0) -> [Sample] {
        rows.compactMap { f in
            guard f.count == 4 else { return nil }
            return (startNs + Int64((f[0] * 1e6).rounded()), f[1], f[2], f[3])
        }
    }

    static func count(_ samples: [Sample], magnitudeOnly: Bool = false, parameters: DetectorParameters = .standard)
        -> (steps: Int, times: [Int64])
    {
        var d = StepDetector(parameters: parameters)
        var times: [Int64] = []
        let handle: (DetectorEvent) -> Void = { if case .step(let t) = $0 { times.append(t.nanosecondsSinceEpoch) } }
        for s in samples {
            if magnitudeOnly {
                d.push(
                    time: Instant(nanosecondsSinceEpoch: s.timeNs),
                    magnitude: (s.x * s.x + s.y * s.y + s.z * s.z).squareRoot(), handle)
            } else {
                d.push(s, handle)
            }
        }
        d.finish(handle)
        return (d.counters.steps, times)
    }

    /// A run through one detector and, cut at a sample, through one saved there as JSON and decoded (an agent
    /// restarted mid-stream).
    struct ResumedRun {
        /// The resumed run's events and counters.
        var events: [DetectorEvent]
        var counters: DetectorCounters
        /// The run in one pass.
        var onePass: [DetectorEvent]
        var onePassCounters: DetectorCounters
        /// The state saved at the cut.
        var saved: Data
    }

    /// `samples` in one pass and resumed from a state saved after `cut` samples.
    static func resumed(_ samples: [Sample], cut: Int, parameters: DetectorParameters = .standard) throws
        -> ResumedRun
    {
        var events: [DetectorEvent] = []
        var first = StepDetector(parameters: parameters)
        for s in samples[..<cut] { first.push(s) { events.append($0) } }
        let saved = try JSONEncoder().encode(first)
        var resumed = try JSONDecoder().decode(StepDetector.self, from: saved)
        for s in samples[cut...] { resumed.push(s) { events.append($0) } }
        resumed.finish { events.append($0) }
        var onePass: [DetectorEvent] = []
        var d = StepDetector(parameters: parameters)
        for s in samples { d.push(s) { onePass.append($0) } }
        d.finish { onePass.append($0) }
        return ResumedRun(
            events: events, counters: resumed.counters, onePass: onePass, onePassCounters: d.counters, saved: saved)
    }

    /// `resumed`, cut after `fraction` of the samples, expecting the resumed run's events and counters to be the
    /// one pass's; the run, for what a suite expects besides.
    @discardableResult
    static func expectResumingEqualsOnePass(
        _ samples: [Sample], at fraction: Double, parameters: DetectorParameters = .standard,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> ResumedRun {
        let run = try resumed(samples, cut: Int(Double(samples.count) * fraction), parameters: parameters)
        #expect(run.events == run.onePass, "cut at \(fraction)", sourceLocation: sourceLocation)
        #expect(run.counters == run.onePassCounters, "cut at \(fraction)", sourceLocation: sourceLocation)
        return run
    }

    /// A standard detector fed the first half of `samples`, and its state as JSON, for a test to turn into what an
    /// earlier release saved.
    static func savedHalfWay(_ samples: [Sample]) throws -> (detector: StepDetector, json: [String: Any]) {
        var d = StepDetector()
        for s in samples[..<(samples.count / 2)] { d.push(s) { _ in } }
        let json = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(d)) as? [String: Any])
        return (d, json)
    }

    /// The detector whose saved state is `json`.
    static func decoded(_ json: [String: Any]) throws -> StepDetector {
        try JSONDecoder().decode(StepDetector.self, from: JSONSerialization.data(withJSONObject: json))
    }
}

extension StepDetector {
    /// Pushes one sample of three axes.
    mutating func push(_ s: SyntheticMotion.Sample, _ emit: (DetectorEvent) -> Void) {
        push(time: Instant(nanosecondsSinceEpoch: s.timeNs), x: s.x, y: s.y, z: s.z, emit)
    }
}

extension WalkingTrees {
    /// Trees that give every window the same probability, 1 / (1 + e^-`logOdds`): -5 never says walking, 0 says
    /// 0.5, 5 always says walking; whatever else decides a window is then the suite's to test.
    static func constant(logOdds: Double) -> WalkingTrees {
        WalkingTrees(depth: 1, base: logOdds, features: [0], thresholds: [1e300], leaves: [0, 0])
    }
}

extension DetectorParameters {
    /// The shipped gates, paths and rules around trees that say the same to every window (`WalkingTrees.constant`):
    /// what the suites that test one rule start from.
    static func standard(treesSaying logOdds: Double) -> DetectorParameters {
        var p = DetectorParameters.standard
        p.recognizer.model = .constant(logOdds: logOdds)
        return p
    }
}
