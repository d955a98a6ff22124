import Foundation
import StepDetection
import TestSupport
import Testing

/// The agent saves the detector between fetches, wherever a fetch ends. Every suite resumes at a few cuts through the
/// rule it tests; this one cuts every 97 samples (about 2 s) through one stream that passes every rule keeping state:
/// a group of short bouts, a lone bout, a short bout judged alone, a walk, clapping (the repeat gate refuses it), a
/// purse walk whose refused start the gate look-back takes (its ring of step energies), a loose slow walk (the step
/// band), and a group that a walk's later bouts join. A state decoded at a cut goes on exactly as the one saved:
/// the same events for 15 s (past the gate look-back's 5 s and a window's 10.24 s), and the same state after them.
/// (h47edge cut every 5 samples through the whole stream: none of 3,240 differed.)
@Suite struct DenseResumeTests {
    /// The stream, three axes at 50 Hz (the purse walk at 100 Hz).
    static func everyRule() throws -> [SyntheticMotion.Sample] {
        var out: [SyntheticMotion.Sample] = []
        func add(_ part: [SyntheticMotion.Sample]) {
            let shift = (out.last.map { $0.timeNs + 20_000_000 } ?? 0) - part[0].timeNs
            out += part.map { ($0.timeNs + shift, $0.x, $0.y, $0.z) }
        }
        add(ShortBoutGroupTests.pottering(bouts: [5, 5, 5], pause: 3))
        add(ShortBoutGroupTests.pottering(bouts: [5], pause: 0))
        add(ShortBoutGroupTests.pottering(bouts: [12], pause: 0))
        add(SyntheticMotion.walk3D(SyntheticWalk(rate: 50, steps: 40, interval: 0.55, lead: 10, tail: 10, seed: 9)))
        let clapping = try SyntheticMotion.clapping()
        add(Array(clapping[..<(clapping.count / 3)]))
        add(try GateLookBackTests.purseWalk())
        add(SyntheticMotion.looseSlowWalk(seconds: 40))
        add(ShortBoutGroupTests.pottering(bouts: [8, 4, 5], pause: 3))
        return out
    }

    static func push(
        _ d: inout StepDetector, _ s: SyntheticMotion.Sample, magnitudeOnly: Bool, _ events: inout [DetectorEvent]
    ) {
        if magnitudeOnly {
            d.push(
                time: .init(nanosecondsSinceEpoch: s.timeNs),
                magnitude: (s.x * s.x + s.y * s.y + s.z * s.z).squareRoot()
            ) {
                events.append($0)
            }
        } else {
            d.push(s) { events.append($0) }
        }
    }

    static func state(_ d: StepDetector) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return try encoder.encode(d)
    }

    @Test(arguments: [false, true])
    func aStateSavedAtAnyCutGoesOnAsTheOneSaved(magnitudeOnly: Bool) throws {
        let samples = try Self.everyRule()
        let horizon = 750
        var d = StepDetector()
        var ignored: [DetectorEvent] = []
        for (i, s) in samples.enumerated() {
            if i % 97 == 0 {
                var kept = d
                var resumed = try JSONDecoder().decode(StepDetector.self, from: try Self.state(d))
                var (expected, events): ([DetectorEvent], [DetectorEvent]) = ([], [])
                for t in samples[i..<min(i + horizon, samples.count)] {
                    Self.push(&kept, t, magnitudeOnly: magnitudeOnly, &expected)
                    Self.push(&resumed, t, magnitudeOnly: magnitudeOnly, &events)
                }
                if i + horizon >= samples.count {
                    kept.finish { expected.append($0) }
                    resumed.finish { events.append($0) }
                }
                #expect(events == expected, "cut at sample \(i)")
                #expect(try Self.state(resumed) == Self.state(kept), "cut at sample \(i)")
            }
            Self.push(&d, s, magnitudeOnly: magnitudeOnly, &ignored)
        }
        d.finish { ignored.append($0) }
        // The stream holds walks for each path: the resumed runs above compared real work.
        #expect(d.counters.steps >= 150, "counted \(d.counters.steps)")
    }
}
