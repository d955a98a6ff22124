import Analysis
import Foundation
import SensorInput
import TestSupport
import Testing
import WallTime

@Suite struct RecordingCounterTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test func countsTheDemoFixtureWithStepTimesInOrder() throws {
        let path = Self.root.appendingPathComponent("fixtures/demo_walk_50hz.csv").path
        let result = try RecordingCounter.count(path: path, keepStepTimes: true)
        #expect(result.summary.samples == 3000)
        #expect(result.stepTimes.count == result.steps)
        #expect(result.stepTimes == result.stepTimes.sorted())
        #expect(abs(result.steps - 109) <= 11)
        #expect(result.bouts.reduce(0) { $0 + $1.steps } == result.steps)
    }

    @Test func samplesHandedOverInRunsCountLikeOneByOne() throws {
        // With no per-sample observer the detector takes runs of samples; with one, samples one by one.
        let path = Self.root.appendingPathComponent("fixtures/demo_walk_50hz.csv").path
        var options = ReadOptions()
        options.jobs = 2
        options.chunkBytes = 997
        let runs = try RecordingCounter.count(path: path, options: options, keepStepTimes: true)
        var seen = 0
        let one = try RecordingCounter.count(
            path: path, options: options, keepStepTimes: true, onSample: { _ in seen += 1 })
        #expect(seen == 3000)
        #expect(runs.stepTimes == one.stepTimes && runs.steps > 50)
        #expect(runs.bouts == one.bouts)
    }
}

@Suite struct RecordingCounterStepInputTests {
    /// The committed `fixtures/formats`.
    let formats = SharedData.fixture("formats")

    @Test func stepReadingsAreSummedNotDetected() throws {
        let result = try RecordingCounter.count(path: "\(formats)/apple_health_export.xml")
        #expect(result.kind == .steps)
        #expect(result.steps == 2517)
        #expect(result.readings.count == 10)
        #expect(result.summary.samples == 0)
    }

    @Test func windowCountsReadingsProRata() throws {
        // Fitbit minutes from 1995-06-24 16:00 UTC; a window from 16:10:30 to 16:20:30 takes half of each edge minute.
        let result = try RecordingCounter.count(path: "\(formats)/steps-1995-06-23_Fitbit.json")
        let t0: Int64 = 804_009_600_000_000_000  // 1995-06-24T16:00:00Z
        let minute: Int64 = 60_000_000_000
        let lo = t0 + 10 * minute + minute / 2
        let hi = t0 + 20 * minute + minute / 2
        // 16:17 (7) + 16:18 (44) + 16:19 (12) whole, half of 16:20 (58): 92.
        #expect(result.steps(from: Instant(nanosecondsSinceEpoch: lo), to: Instant(nanosecondsSinceEpoch: hi)) == 92)
        #expect(
            result.steps(from: Instant(nanosecondsSinceEpoch: t0), to: Instant(nanosecondsSinceEpoch: t0 + 60 * minute))
                == 607)
        #expect(
            result.steps(from: Instant(nanosecondsSinceEpoch: t0 - 60 * minute), to: Instant(nanosecondsSinceEpoch: t0))
                == 0)
        // Two halves of one window add up to the whole.
        let mid = t0 + 17 * minute + minute / 3
        let a = result.steps(from: Instant(nanosecondsSinceEpoch: t0), to: Instant(nanosecondsSinceEpoch: mid))
        let b = result.steps(
            from: Instant(nanosecondsSinceEpoch: mid), to: Instant(nanosecondsSinceEpoch: t0 + 60 * minute))
        #expect(abs(a + b - 607) <= 1)
    }
}
