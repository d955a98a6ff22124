import Foundation
import StepDetection
import TestSupport
import Testing
import WallTimeCore

/// An all-zero sample is a logger's missing value (ZeroHold.swift): it repeats the valid sample before it, a run of
/// zeros past `zeroHoldSeconds` (2 s) is a gap, and a zero with nothing before it is dropped. Read as |a| = 0 (the
/// hold off, `zeroHoldSeconds` −1: the detector before), one zero every 0.5 s was a rhythm.
@Suite struct ZeroHoldTests {
    static let holdOff: DetectorParameters = {
        var p = DetectorParameters.standard
        p.zeroHoldSeconds = -1
        return p
    }()

    /// `samples` with every `every`-th sample from `from` on made all zero.
    static func zeroed(_ samples: [SyntheticMotion.Sample], every: Int, from: Int = 0) -> [SyntheticMotion.Sample] {
        samples.enumerated().map { i, s in i >= from && (i - from) % every == 0 ? (s.timeNs, 0, 0, 0) : s }
    }

    /// `samples` with those from `start` for `seconds` made all zero.
    static func zeroRun(_ samples: [SyntheticMotion.Sample], start: Int, seconds: Double) -> [SyntheticMotion.Sample] {
        let endNs = samples[start].timeNs + Int64(seconds * 1e9)
        return samples.enumerated().map { i, s in i >= start && s.timeNs < endNs ? (s.timeNs, 0, 0, 0) : s }
    }

    /// Ten minutes at 50 Hz lying still (noise 0.05 m/s²).
    static func still() -> [SyntheticMotion.Sample] {
        EdgeInputTests.restWithGlitches(0, seed: 7) { ($0, 0, 0, 0) }
    }

    @Test(arguments: [false, true])
    func aStillDeviceWithAZeroEveryHalfSecondCountsNothing(magnitudeOnly: Bool) {
        let samples = Self.zeroed(Self.still(), every: 25, from: 10)
        #expect(SyntheticMotion.count(samples, magnitudeOnly: magnitudeOnly).steps == 0)
        // Read as |a| = 0, each zero is a 1 g dip twice a second: a rhythm (1,111 steps when measured, h47edge).
        let asReadings = SyntheticMotion.count(samples, magnitudeOnly: magnitudeOnly, parameters: Self.holdOff).steps
        #expect(asReadings > 500, "the hold off counted \(asReadings)")
    }

    @Test func aStillDevicesZerosAreTakenAsItsPreviousSample() {
        var d = StepDetector()
        let samples = Self.zeroed(Self.still(), every: 25, from: 10)
        for s in samples { d.push(s) { _ in } }
        #expect(d.counters.accepted == samples.count && d.counters.invalid == 0)
    }

    @Test(arguments: [false, true])
    func aWalkWithZerosSprinkledCountsAsTheCleanWalk(magnitudeOnly: Bool) {
        let walk = EdgeInputTests.walk(50)
        let clean = SyntheticMotion.count(walk, magnitudeOnly: magnitudeOnly).steps
        #expect(clean == 120)
        // One every 0.5 s (a rhythm of its own), and one every 0.34 s (beside the 0.55 s steps).
        for every in [25, 17] {
            let zeros = Self.zeroed(walk, every: every, from: 3)
            let counted = SyntheticMotion.count(zeros, magnitudeOnly: magnitudeOnly).steps
            #expect(abs(counted - clean) <= 2, "a zero every \(every) samples: \(counted) of \(clean)")
        }
        let asReadings = SyntheticMotion.count(
            Self.zeroed(walk, every: 25, from: 3), magnitudeOnly: magnitudeOnly, parameters: Self.holdOff
        ).steps
        #expect(asReadings > clean + 10, "the hold off counted \(asReadings) of \(clean)")
    }

    @Test func aRunOfZerosLongerThanTheHoldIsAGap() {
        let walk = EdgeInputTests.walk(50, steps: 160)
        let cut = walk.count / 2
        let withRun = Self.zeroRun(walk, start: cut, seconds: 3)
        let zeros = withRun.filter { $0.x == 0 && $0.y == 0 && $0.z == 0 }
        let resumesAt = cut + zeros.count
        var d = StepDetector()
        var steps: [Int64] = []
        var bouts: [WalkingBout] = []
        for s in withRun {
            d.push(s) {
                if case .step(let t) = $0 { steps.append(t.nanosecondsSinceEpoch) }
                if case .boutEnded(let b) = $0 { bouts.append(b) }
            }
        }
        d.finish { if case .boutEnded(let b) = $0 { bouts.append(b) } }
        // 2 s of the run are held (the previous sample repeated), the rest of it is dropped.
        let held = zeros.filter { $0.timeNs - walk[cut - 1].timeNs <= 2_000_000_000 }.count
        #expect(d.counters.invalid == zeros.count - held)
        #expect(d.counters.accepted == walk.count - zeros.count + held)
        // Each side counts as it does alone (as across a gap in the data), and no step is inside the run.
        let before = SyntheticMotion.count(Array(walk[..<cut])).steps
        let after = SyntheticMotion.count(Array(walk[resumesAt...])).steps
        #expect(d.counters.steps == before + after, "\(d.counters.steps) against \(before) + \(after)")
        #expect(!steps.contains { $0 >= walk[cut].timeNs && $0 < walk[resumesAt].timeNs })
        #expect(bouts.count == 2)
        #expect(bouts.first.map { $0.end.nanosecondsSinceEpoch < walk[cut].timeNs } == true)
    }

    @Test func aRunOfZerosWithinTheHoldIsNoGap() {
        let walk = EdgeInputTests.walk(50, steps: 160)
        let withRun = Self.zeroRun(walk, start: walk.count / 2, seconds: 1)
        var d = StepDetector()
        for s in withRun { d.push(s) { _ in } }
        d.finish { _ in }
        #expect(d.counters.invalid == 0 && d.counters.accepted == walk.count)
        // The second's steps are lost, the walk is one bout.
        #expect(d.counters.bouts == 1)
        #expect((150...160).contains(d.counters.steps), "\(d.counters.steps)")
    }

    @Test(arguments: [false, true])
    func zerosBeforeTheFirstValidSampleAreDropped(magnitudeOnly: Bool) {
        let walk = EdgeInputTests.walk(50)
        let lead = (1...10).map { (walk[0].timeNs - Int64($0) * 20_000_000, 0.0, 0.0, 0.0) }.reversed()
        func events(_ samples: [SyntheticMotion.Sample]) -> (events: [DetectorEvent], counters: DetectorCounters) {
            var d = StepDetector()
            var out: [DetectorEvent] = []
            for s in samples {
                if magnitudeOnly {
                    let m = (s.x * s.x + s.y * s.y + s.z * s.z).squareRoot()
                    d.push(time: Instant(nanosecondsSinceEpoch: s.timeNs), magnitude: m) { out.append($0) }
                } else {
                    d.push(s) { out.append($0) }
                }
            }
            d.finish { out.append($0) }
            return (out, d.counters)
        }
        let clean = events(walk)
        let led = events(Array(lead) + walk)
        #expect(led.events == clean.events)
        #expect(led.counters.invalid == 10 && led.counters.accepted == walk.count)
        #expect(led.counters.steps == 120)
    }

    /// A walk with a zero every 0.34 s, a 1 s run of zeros and a 3 s one (a gap), and a still stretch with zeros.
    static func walkWithHolds() -> [SyntheticMotion.Sample] {
        let walk = EdgeInputTests.walk(50, steps: 200)
        var samples = zeroed(walk, every: 17, from: 5)
        samples = zeroRun(samples, start: 2_000, seconds: 1)
        samples = zeroRun(samples, start: 4_000, seconds: 3)
        return samples
    }

    @Test(arguments: [1_990, 2_001, 2_030, 2_049, 4_001, 4_080, 4_120, 4_149, 4_151, 5_000])
    func aStateSavedInAHoldResumesAsOnePass(cut: Int) throws {
        let samples = Self.walkWithHolds()
        let run = try SyntheticMotion.resumed(samples, cut: cut)
        #expect(run.events == run.onePass, "cut at \(cut)")
        #expect(run.counters == run.onePassCounters, "cut at \(cut)")
        #expect(run.onePassCounters.steps >= 180)
        #expect(run.onePassCounters.invalid > 0)
    }

    @Test func aStateSavedBeforeTheHoldDecodesWithNoHoldPending() throws {
        let saved = try Data(contentsOf: URL(fileURLWithPath: SharedData.fixture("saved/detector_demo_walk_20s.json")))
        let json = try #require(try JSONSerialization.jsonObject(with: saved) as? [String: Any])
        #expect(json["zeroHold"] == nil)
        let parameters = try #require(json["parameters"] as? [String: Any])
        #expect(parameters["zeroHoldSeconds"] == nil)
        var d = try JSONDecoder().decode(StepDetector.self, from: saved)
        #expect(d.parameters.zeroHoldSeconds == 2)
        // No valid sample to repeat: a zero next is dropped, and it makes no gap (the bout goes on).
        let last = try #require(d.lastSample).nanosecondsSinceEpoch
        var ended: [WalkingBout] = []
        d.push(time: Instant(nanosecondsSinceEpoch: last + 20_000_000), x: 0, y: 0, z: 0) { _ in }
        #expect(d.counters.invalid == 1 && d.counters.accepted == 1_000)
        d.push(time: Instant(nanosecondsSinceEpoch: last + 40_000_000), x: 0.3, y: 0.2, z: 9.8) {
            if case .boutEnded(let b) = $0 { ended.append(b) }
        }
        #expect(ended.isEmpty && d.counters.accepted == 1_001)
        // The valid sample is remembered: a zero after it is held.
        d.push(time: Instant(nanosecondsSinceEpoch: last + 60_000_000), x: 0, y: 0, z: 0) { _ in }
        #expect(d.counters.invalid == 1 && d.counters.accepted == 1_002)
        d.finish { if case .boutEnded(let b) = $0 { ended.append(b) } }
        #expect(ended.map(\.start) == [Instant(nanosecondsSinceEpoch: 560_146_000)])
    }
}
