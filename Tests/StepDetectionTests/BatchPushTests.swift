import Foundation
import StepDetection
import TestSupport
import Testing
import WallTimeCore

/// `push(_:_:)` takes runs of quiet samples on a path of its own (`quietRun`); pushed in runs, a signal must give the
/// same events and the same saved state, after every run, as pushed one sample at a time.
@Suite struct BatchPushTests {
    /// Real clapping, then a three-axis walk with jittered times, a stretch given as magnitude only (`y = z = 0`), a
    /// gap longer than `maxSampleGap`, and samples the detector drops: NaN, 60 g, a repeated time, one out of order.
    static func signal() throws -> [AccelerationSample] {
        let clapping = try SyntheticMotion.clapping()
        var walk = SyntheticWalk(rate: 100, steps: 60, interval: 0.52, lead: 1, jitter: 0.3, seed: 9)
        walk.startNs = (clapping.last?.timeNs ?? 0) + 30_000_000
        var samples = (clapping + SyntheticMotion.walk3D(walk)).map {
            AccelerationSample(time: Instant(nanosecondsSinceEpoch: $0.timeNs), x: $0.x, y: $0.y, z: $0.z)
        }
        let magnitudeOnly = SyntheticWalk(
            rate: 50, steps: 40, lead: 0, startNs: samples.last!.time.nanosecondsSinceEpoch + 20_000_000, seed: 3)
        samples += magnitudeOnly.samples().map {
            AccelerationSample(time: Instant(nanosecondsSinceEpoch: $0.timeNs), x: $0.magnitude, y: 0, z: 0)
        }
        let afterGap = SyntheticWalk(
            rate: 25, steps: 40, startNs: samples.last!.time.nanosecondsSinceEpoch + 5_000_000_000, seed: 5)
        samples += SyntheticMotion.walk3D(afterGap).map {
            AccelerationSample(time: Instant(nanosecondsSinceEpoch: $0.timeNs), x: $0.x, y: $0.y, z: $0.z)
        }
        let k = samples.count / 2
        samples[k].x = .nan
        samples[k + 7].z = 60 * standardGravity
        samples[k + 20].time.nanosecondsSinceEpoch = samples[k + 19].time.nanosecondsSinceEpoch
        samples[k + 40].time.nanosecondsSinceEpoch = samples[k + 38].time.nanosecondsSinceEpoch - 1
        return samples
    }

    @Test(arguments: [true, false])
    func runsPushedAtOnceEqualSamplesPushedOneByOne(recognizer: Bool) throws {
        let samples = try Self.signal()
        var parameters = DetectorParameters.standard
        parameters.recognizer.enabled = recognizer
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        for axisFeatures in [false, true] {
            var single = StepDetector(parameters: parameters, axisFeatures: axisFeatures)
            var batched = single
            var singleEvents: [DetectorEvent] = []
            var batchedEvents: [DetectorEvent] = []
            var random = SeededRandom(seed: 11)
            var start = 0
            while start < samples.count {
                let end = min(samples.count, start + Int.random(in: 1...3000, using: &random))
                for s in samples[start..<end] {
                    single.push(
                        time: Instant(nanosecondsSinceEpoch: s.time.nanosecondsSinceEpoch), x: s.x, y: s.y, z: s.z
                    ) { singleEvents.append($0) }
                }
                samples[start..<end].withUnsafeBufferPointer { run in batched.push(run) { batchedEvents.append($0) } }
                #expect(
                    Self.firstDifference(batchedEvents, singleEvents) == nil, "events after samples \(start)..<\(end)")
                #expect(
                    try encoder.encode(batched) == encoder.encode(single), "saved state after samples \(start)..<\(end)"
                )
                start = end
            }
            single.finish { singleEvents.append($0) }
            batched.finish { batchedEvents.append($0) }
            #expect(Self.firstDifference(batchedEvents, singleEvents) == nil)
            #expect(batched.counters == single.counters)
            #expect(single.counters.invalid == 2 && single.counters.outOfOrder == 2)
            #expect(single.counters.steps >= 100, "the walks were counted (140 true steps)")
        }
    }

    /// Random signals: rates from 12.5 to 400 Hz with jitter, bursts of rhythmic motion, and now and then a gap, a
    /// dropped sample, a repeated time or magnitude-only samples; each scenario varies the detector or the stream.
    @Test(arguments: PushScenario.all)
    func randomSignalsPushedInRunsEqualOneByOne(_ scenario: PushScenario) throws {
        var random = SeededRandom(seed: scenario.seed)
        let samples = scenario.signal(using: &random)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        var single = StepDetector(parameters: scenario.parameters)
        var batched = StepDetector(parameters: scenario.parameters)
        var singleEvents: [DetectorEvent] = []
        var batchedEvents: [DetectorEvent] = []
        var start = 0
        var interrupted = false
        while start < samples.count {
            var end = min(samples.count, start + Int.random(in: 1...5000, using: &random))
            // A run ends among the last samples, where every one starts the recognizer's grid over.
            if scenario.timesEndAtInt64Max && start < samples.count - 5 && end > samples.count - 5 {
                end = samples.count - 5
            }
            for s in samples[start..<end] {
                single.push(time: Instant(nanosecondsSinceEpoch: s.time.nanosecondsSinceEpoch), x: s.x, y: s.y, z: s.z)
                { singleEvents.append($0) }
            }
            samples[start..<end].withUnsafeBufferPointer { run in batched.push(run) { batchedEvents.append($0) } }
            #expect(try encoder.encode(batched) == encoder.encode(single), "saved state after samples ..<\(end)")
            if !interrupted && end > samples.count / 2 {
                interrupted = true
                switch scenario.midway {
                case .none: break
                case .savedAndDecoded:
                    single = try JSONDecoder().decode(StepDetector.self, from: encoder.encode(single))
                    batched = try JSONDecoder().decode(StepDetector.self, from: encoder.encode(batched))
                case .finishedThenContinued:
                    single.finish { singleEvents.append($0) }
                    batched.finish { batchedEvents.append($0) }
                }
            }
            start = end
        }
        single.finish { singleEvents.append($0) }
        batched.finish { batchedEvents.append($0) }
        #expect(Self.firstDifference(batchedEvents, singleEvents) == nil)
        #expect(batched.counters == single.counters)
        #expect(single.counters.steps > 0 && single.counters.invalid > 0, "\(single.counters)")
    }

    /// Where two event lists first differ (an index, or the shorter one's count), nil when they are equal: a failure
    /// says where, not thousands of events.
    static func firstDifference(_ a: [DetectorEvent], _ b: [DetectorEvent]) -> Int? {
        if let i = (0..<min(a.count, b.count)).first(where: { a[$0] != b[$0] }) { return i }
        return a.count == b.count ? nil : min(a.count, b.count)
    }
}

/// One variation of the random signal pushed in runs: its rate, the detector's parameters, and what happens to the
/// stream. The seed draws the signal's jitter, gaps and faults and where the runs end.
struct PushScenario: Sendable, CustomTestStringConvertible {
    /// What happens when the runs pass the middle of the signal.
    enum Midway: Sendable {
        case none
        /// The state is saved and decoded, as the agent does between fetches.
        case savedAndDecoded
        /// The stream is finished, then continued (as follow mode does).
        case finishedThenContinued
    }

    var name: String
    var seed: UInt64
    var rate: Double
    var parameters = DetectorParameters.standard
    /// A regular grid whose last sample is at `Int64.max`, past where the recognizer's ticks start over.
    var timesEndAtInt64Max = false
    var midway = Midway.none

    var testDescription: String { "\(name) (\(rate) Hz)" }

    static func standard(_ change: (inout DetectorParameters) -> Void) -> DetectorParameters {
        var parameters = DetectorParameters.standard
        change(&parameters)
        return parameters
    }

    static let all: [PushScenario] = [
        PushScenario(
            name: "no weak-peak tracker", seed: 1, rate: 12.5,
            parameters: standard { $0.minSwingInWalk = $0.minSwing }),
        PushScenario(name: "no gap limit", seed: 2, rate: 25, parameters: standard { $0.maxSampleGap = 1e10 }),
        PushScenario(name: "no recognizer", seed: 3, rate: 50, parameters: standard { $0.recognizer.enabled = false }),
        PushScenario(name: "times up to the end of Int64", seed: 4, rate: 100, timesEndAtInt64Max: true),
        PushScenario(name: "state saved and decoded midway", seed: 5, rate: 200, midway: .savedAndDecoded),
        PushScenario(name: "finished midway, then continued", seed: 6, rate: 400, midway: .finishedThenContinued),
    ]

    /// 30,000 samples at about `rate` with bursts of rhythmic motion (a push along gravity each step, a smaller swing
    /// across it each stride, as gait is to the gravity gate); now and then a 3 s gap, a NaN, a repeated time,
    /// a magnitude-only sample, an all-zero sample (a logger's missing value) or a run of them of up to 3 s (one
    /// held, or past the 2 s hold a gap: ZeroHold.swift).
    func signal(using random: inout SeededRandom) -> [AccelerationSample] {
        var samples: [AccelerationSample] = []
        var zerosLeft = 0
        let period = 1e9 / rate
        var t: Int64 = 1_700_000_000_000_000_000
        for i in 0..<30_000 {
            let step = Int64(period * Double.random(in: 0.8...1.2, using: &random))
            let gap: Int64 = Int.random(in: 0..<5_000, using: &random) == 0 ? 3_000_000_000 : 0
            // On the grid that ends at `Int64.max` a jittered step could pass it.
            t = timesEndAtInt64Max ? Int64.max - Int64(29_999 - i) * Int64(period) : t + step + gap
            let phase = Double(i) / rate * 2 * .pi * 1.8
            let burst = (i / Int(rate * 20)) % 2 == 0 ? 3.0 : 0.3
            var s = AccelerationSample(
                time: Instant(nanosecondsSinceEpoch: t), x: 1 + 0.3 * burst * sin(phase / 2), y: 2,
                z: 9 + burst * max(0, sin(phase)) + random.noise(0.2))
            switch Int.random(in: 0..<2_000, using: &random) {
            case 0: s.y = .nan
            case 1: s.time.nanosecondsSinceEpoch = samples.last?.time.nanosecondsSinceEpoch ?? t
            case 2: (s.x, s.y, s.z) = (s.magnitude, 0, 0)
            case 3, 4: (s.x, s.y, s.z) = (0, 0, 0)
            case 5: zerosLeft = Int.random(in: 1...Int(rate * 3), using: &random)
            default: break
            }
            if zerosLeft > 0 {
                (s.x, s.y, s.z) = (0, 0, 0)
                zerosLeft -= 1
            }
            samples.append(s)
        }
        return samples
    }
}
