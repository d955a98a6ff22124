import Agent
import Analysis
import Foundation
import TestSupport
import Testing
import WallTime

@testable import Store

/// What a fetch finds wrong with its input (malformed lines skipped, a source with nothing in it) is in its warnings,
/// its log line and the history, in `count`'s words, and is reported once.
@Suite(.timeLimit(.minutes(1))) struct InputWarningTests {
    let t0 = Fixture.date("2026-11-21T10:00:00+09:00")

    /// The committed walk with seven bad lines (101-107) after its first 99 samples: NaN, infinities, 1e308, a time
    /// out of range, a NaN axis, a field that is not a number.
    static func walkWithBadLines(in dir: TempDir) throws -> String {
        let lines = try String(contentsOfFile: Fixture.walk, encoding: .utf8).split(separator: "\n").map(String.init)
        let bad = [
            "2000.1,nan,1,2", "2000.2,inf,1,2", "2000.3,1e308,1,2", "1e30,1,2,3", "2000.4,-inf,0,0", "2000.5,1,NaN,2",
            "2000.6,1,2,x",
        ]
        return try dir.write("bad.csv", (lines.prefix(100) + bad + lines.dropFirst(100)).joined(separator: "\n") + "\n")
    }

    /// What `steptweet count` says about the file's skipped lines.
    static func countsNotes(_ path: String) throws -> [String] {
        try RecordingCounter.count(path: path).summary.skippedLineNotes(file: path)
    }

    func fetcher(_ dir: TempDir, source: String) throws -> Fetcher {
        var config = try Fixture.config(dir: dir, source: source)
        config.publishers = [ScriptedPublisher()]
        return Fetcher(configuration: config, clock: ContinuousClock())
    }

    @Test func skippedLinesAreInTheWarningsLogLineAndHistoryOfOneFetch() async throws {
        let dir = try TempDir()
        let path = try Self.walkWithBadLines(in: dir)
        let notes = try Self.countsNotes(path)
        #expect(notes.first == "skipped \(path):101: acceleration is NaN")
        #expect(notes.count == 6 && notes.last == "\(path): 2 more malformed lines skipped")
        let fetcher = try fetcher(dir, source: path)
        let dry = await fetcher.fetch(now: Instant(t0.addingTimeInterval(600)), trigger: [.manual], dryRun: true)
        #expect(dry.warnings == notes)
        let first = await fetcher.fetch(now: Instant(t0.addingTimeInterval(600)), trigger: [.manual])
        #expect(first.result == .newData, "\(first.line)")
        #expect(first.warnings == notes, "a dry run reports without using them up")
        let logLine = first.logLine(zone: TimeZone(identifier: "Asia/Tokyo")!)
        #expect(logLine.contains("; warning: skipped \(path):101: acceleration is NaN; "), "\(logLine)")
        let second = await fetcher.fetch(now: Instant(t0.addingTimeInterval(1200)), trigger: [.manual])
        #expect(second.warnings.isEmpty, "reported once")
        let history = try StateStore(path: fetcher.configuration.statePath).history()
        #expect(history.map(\.warnings) == [[], notes])
    }

    @Test func linesSkippedByEarlierSlicesOrTheWalkTriggerAreReportedByTheNextFetch() async throws {
        let dir = try TempDir()
        let path = try Self.walkWithBadLines(in: dir)
        let notes = try Self.countsNotes(path)
        var sliced = try fetcher(dir, source: path)
        sliced.sliceBytes = 4096  // the bad lines are in the first of many slices
        let report = await sliced.fetch(now: Instant(t0.addingTimeInterval(600)), trigger: [.manual])
        #expect(report.result == .newData, "\(report.line)")
        #expect(report.warnings == notes)

        let other = try TempDir()
        let walkRead = try fetcher(other, source: try Self.walkWithBadLines(in: other))
        guard case .success = walkRead.ingestForWalks(now: Instant(t0.addingTimeInterval(600))) else {
            Issue.record("the walk trigger's read failed")
            return
        }
        let after = await walkRead.fetch(now: Instant(t0.addingTimeInterval(600)), trigger: [.manual])
        #expect(after.warnings == (try Self.countsNotes(other.path("bad.csv"))))
    }

    @Test func anEmptyOrHeaderOnlySourceSaysSoAndStaysNoData() async throws {
        let dir = try TempDir()
        let empty = try dir.write("empty.csv", "")
        let report = try await fetcher(dir, source: empty).fetch(
            now: Instant(t0.addingTimeInterval(600)), trigger: [.manual])
        #expect(report.result == .noData, "\(report.line)")
        #expect(report.warnings == ["\(empty): file is empty"])

        let other = try TempDir()
        let header = try other.write("header.csv", "t_ms,x,y,z\n")
        let fetcher = try fetcher(other, source: header)
        let dry = await fetcher.fetch(now: Instant(t0.addingTimeInterval(600)), trigger: [.manual], dryRun: true)
        #expect(dry.warnings == ["\(header): no samples or readings after the header"])
        let first = await fetcher.fetch(now: Instant(t0.addingTimeInterval(600)), trigger: [.manual])
        #expect(first.result == .noData)
        #expect(first.warnings == ["\(header): no samples or readings after the header"])
        // Once samples arrive, the source is no longer empty.
        try Data(String(contentsOfFile: Fixture.walk, encoding: .utf8).utf8).write(to: URL(fileURLWithPath: header))
        let later = await fetcher.fetch(now: Instant(t0.addingTimeInterval(1200)), trigger: [.manual])
        #expect(later.result == .newData, "\(later.line)")
        #expect(later.warnings.isEmpty)
    }

    /// A ride's FIT file says why it holds no steps; a recording in g labelled m/s² says it was read as g.
    @Test func aRideAndACorrectedUnitAreSaidInTheWarnings() async throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let dir = try TempDir()
        let ride = try dir.write(
            "ride.fit", try Data(contentsOf: root.appendingPathComponent("fixtures/formats/garmin_ride_no_steps.fit")))
        let report = try await fetcher(dir, source: ride).fetch(
            now: Instant(t0.addingTimeInterval(600)), trigger: [.manual])
        #expect(report.result == .noData, "\(report.line)")
        #expect(
            report.warnings == [
                "\(ride): a cycling activity holds no steps (steps are counted for running, walking and hiking)"
            ])

        let other = try TempDir()
        let inG = try other.write("in_g.csv", try ShimmerFixture.inGLabelledMetresPerSecondSquared())
        let dry = try await fetcher(other, source: inG).fetch(
            now: Instant(t0.addingTimeInterval(600)), trigger: [.manual], dryRun: true)
        #expect(
            dry.warnings.contains { $0.hasPrefix("\(inG): the file says its acceleration is in m/s^2") },
            "\(dry.warnings)")
    }
}
