import Agent
import Analysis
import Foundation
import GRDB
import Logging
import Messages
import Publishing
import SensorInput
import Testing
import WallTime

@testable import Store

/// The fetch budget covers reading the input: a backlog is ingested in slices, each saved with its cursor, and a
/// fetch whose budget is spent closes its window at what it read; the next fetch goes on from there.
@Suite(.timeLimit(.minutes(1))) struct SlicedIngestionTests {
    let t0 = Fixture.date("2026-11-21T10:00:00+09:00")

    /// The committed walk, four times over, one after the other (relative times), written to `dir`.
    func backlog(_ dir: TempDir) throws -> String {
        try dir.write("backlog.csv", try Self.backlogText.get())
    }

    static let backlogText = Result {
        let lines = try String(contentsOfFile: Fixture.walk, encoding: .utf8).split(separator: "\n")
        var out = String(lines[0]) + "\n"
        var offset = 0.0
        for _ in 0..<4 {
            var last = 0.0
            for line in lines.dropFirst() {
                let fields = line.split(separator: ",", maxSplits: 1)
                let t = Double(fields[0])!
                last = t
                out += "\(String(format: "%.3f", t + offset)),\(fields[1])\n"
            }
            offset += last + 20_000  // 20 s of nothing between the walks
        }
        return out
    }

    @Test func aSpentBudgetClosesTheWindowAtWhatWasReadAndTheBacklogGoesOnWithoutLossOrDoubleCount() async throws {
        let dir = try TempDir()
        let path = try backlog(dir)
        var config = try Fixture.config(dir: dir, source: path, start: "2026-11-21T10:00:00+09:00")
        config.schedule.deadline = 0.000_001  // spent before the first slice ends: one slice per fetch
        config.publishers = [ScriptedPublisher()]
        var fetcher = Fetcher(configuration: config, clock: ContinuousClock())
        fetcher.sliceBytes = 16 * 1024
        let whole = try RecordingCounter.count(path: path, options: ReadOptions(start: Instant(t0)))
        var posted = 0
        var fetches = 0
        var backlogFetches = 0
        var windows: [(Date, Date)] = []
        let now = t0.addingTimeInterval(3600)
        while fetches < 200 {
            let report = await fetcher.fetch(now: Instant(now.addingTimeInterval(Double(fetches))), trigger: [.manual])
            fetches += 1
            if report.backlog { backlogFetches += 1 }
            posted += report.postedSteps
            windows += report.windows.map { ($0.span.start.date, $0.span.end.date) }
            if !report.backlog { break }
        }
        #expect(backlogFetches > 10, "a 16 KB slice per fetch: the backlog took \(fetches) fetches")
        #expect(whole.steps > 400, "four walks of about 112 steps")
        #expect(posted == whole.steps, "posted \(posted), one pass counts \(whole.steps)")
        for (a, b) in zip(windows, windows.dropFirst()) { #expect(a.1 == b.0) }
        // Nothing is left: one more fetch reads nothing new.
        let after = await fetcher.fetch(now: Instant(now.addingTimeInterval(Double(fetches) + 60)), trigger: [.manual])
        #expect(!after.backlog)
        #expect(after.postedSteps == 0)
    }

    /// A step log read two months after it was written, a reading at each minute's half: its steps are stored at
    /// their minutes (`StepsCompaction.placed`), so the first window begins at the first of them, 30 s before the
    /// first reading, and a window that ends inside a minute passes the rest of it on as late steps. Every step is
    /// posted once.
    @Test func aStepLogMonthsOldIsPostedOnceThoughStoredAtItsMinutes() async throws {
        let dir = try TempDir()
        let log = (0..<30).map { m in
            #"{"ts": "2026-09-22T10:\#(m < 10 ? "0" : "")\#(m):30+09:00", "steps": \#(40 + m)}"# + "\n"
        }
        let path = try dir.write("steps.jsonl", log.joined())
        var config = try Fixture.config(dir: dir, source: path)
        config.schedule.deadline = 0.000_001  // one slice per fetch
        config.publishers = [ScriptedPublisher()]
        var fetcher = Fetcher(configuration: config, clock: ContinuousClock())
        fetcher.sliceBytes = 200
        var posted = 0
        var fetches = 0
        var windows: [(Date, Date)] = []
        while fetches < 100 {
            let report = await fetcher.fetch(now: Instant(t0.addingTimeInterval(Double(fetches))), trigger: [.manual])
            fetches += 1
            posted += report.postedSteps
            windows += report.windows.map { ($0.span.start.date, $0.span.end.date) }
            if !report.backlog { break }
        }
        #expect(fetches > 5, "read in slices")
        #expect(posted == MinuteReadings.steps(0..<30))
        #expect(windows.first?.0 == Fixture.date("2026-09-22T10:00:00+09:00"), "from the first stored minute")
        for (a, b) in zip(windows, windows.dropFirst()) { #expect(a.1 == b.0) }
        let offMinute = try await DatabaseQueue(path: config.statePath).read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM steps WHERE second % 60 != 0")!
        }
        #expect(offMinute == 0)
    }

    @Test func withEnoughBudgetTheWholeBacklogIsReadInOneFetchAcrossSlices() async throws {
        let dir = try TempDir()
        let path = try backlog(dir)
        var config = try Fixture.config(dir: dir, source: path, start: "2026-11-21T10:00:00+09:00")
        config.publishers = [ScriptedPublisher()]
        config.schedule.deadline = 600  // enough on a machine loaded by other builds (the default 30 s was not)
        var fetcher = Fetcher(configuration: config, clock: ContinuousClock())
        fetcher.sliceBytes = 16 * 1024
        let whole = try RecordingCounter.count(path: path, options: ReadOptions(start: Instant(t0)))
        let report = await fetcher.fetch(now: Instant(t0.addingTimeInterval(3600)), trigger: [.manual])
        #expect(!report.backlog)
        #expect(report.result == .newData)
        #expect(report.postedSteps == whole.steps)
    }

    /// A step log read in slices: a slice's window closes at the end of the latest reading read, not at the fetch
    /// time, so the readings of later slices still land in windows to come and every one is posted.
    @Test func aStepLogReadInSlicesPostsEveryReadingOnce() async throws {
        let dir = try TempDir()
        let (_, fetcher) = try MinuteReadings.slicedStepLogFetcher(dir: dir, 0..<30)
        var posted = 0
        var fetches = 0
        while fetches < 100 {
            let report = await fetcher.fetch(
                now: Instant(t0.addingTimeInterval(3600 + Double(fetches))), trigger: [.manual])
            fetches += 1
            posted += report.postedSteps
            if !report.backlog { break }
        }
        let all = MinuteReadings.steps(0..<30)
        #expect(fetches > 5, "read in slices")
        #expect(posted == all)
    }

    @Test func shuttingTheSchedulerDownCancelsTheFetchInProgress() async throws {
        let dir = try TempDir()
        let config = try Fixture.config(dir: dir)
        let started = AsyncStream<Void>.makeStream()
        let scheduler = AgentScheduler(
            configuration: config, clock: ManualClock(t0).wall, random: { 0 },
            fetch: { now, trigger in
                started.continuation.yield()
                // A fetch that would go on for a long time unless cancelled.
                await withTaskCancellationHandler {
                    while !Task.isCancelled { await Task.yield() }
                } onCancel: {
                }
                return FetchReport(result: .failed, reason: "cancelled", trigger: trigger, now: now, dryRun: false)
            })
        let loop = Task { await scheduler.run() }
        await scheduler.post(.signal)
        var iterator = started.stream.makeAsyncIterator()
        _ = await iterator.next()
        await scheduler.shutdown()
        await loop.value  // returns: the fetch was cancelled rather than waited for
        #expect(await scheduler.fetchCount == 1)
    }
}

/// Saved state a fetch cannot read (written by another version, or edited) is reported in the fetch's report and log
/// line, and worked around without counting a step twice: an unreadable detector starts afresh at the saved position,
/// an unreadable position starts the file over and skips what was counted.
@Suite(.timeLimit(.minutes(1))) struct UnreadableSavedStateTests {
    let t0 = Fixture.date("2026-11-21T10:00:00+09:00")

    /// Ingests the first slices of the backlog, replaces saved columns of the source's row (column, text), then
    /// fetches until the backlog is read; returns the steps posted in all, the reports after the edit and one pass's
    /// count.
    func run(editing edits: [(String, String)]) async throws
        -> (posted: Int, stored: Int, after: [FetchReport], whole: Int)
    {
        let dir = try TempDir()
        let path = try dir.write("backlog.csv", try SlicedIngestionTests.backlogText.get())
        var config = try Fixture.config(dir: dir, source: path, start: "2026-11-21T10:00:00+09:00")
        config.schedule.deadline = 0.000_001  // one slice per fetch
        config.publishers = [ScriptedPublisher()]
        var fetcher = Fetcher(configuration: config, clock: ContinuousClock())
        fetcher.sliceBytes = 16 * 1024
        let whole = try RecordingCounter.count(path: path, options: ReadOptions(start: Instant(t0)))
        let now = t0.addingTimeInterval(3600)
        var posted = 0
        var fetches = 0
        for _ in 0..<5 {
            let report = await fetcher.fetch(now: Instant(now.addingTimeInterval(Double(fetches))), trigger: [.manual])
            fetches += 1
            posted += report.postedSteps
            #expect(report.warnings.isEmpty)
        }
        let db = try DatabaseQueue(path: config.statePath)
        try await db.write { db in
            for (column, text) in edits {
                try db.execute(sql: "UPDATE source_cursor SET \(column) = ? WHERE source = ?", arguments: [text, path])
                #expect(db.changesCount == 1)
            }
        }
        try db.close()
        var after: [FetchReport] = []
        while fetches < 200 {
            let report = await fetcher.fetch(now: Instant(now.addingTimeInterval(Double(fetches))), trigger: [.manual])
            fetches += 1
            after.append(report)
            posted += report.postedSteps
            if !report.backlog { break }
        }
        let reopened = try DatabaseQueue(path: config.statePath)
        defer { try? reopened.close() }
        let stored = try await reopened.read { db in try Int.fetchOne(db, sql: "SELECT SUM(count) FROM steps") ?? 0 }
        return (posted, stored, after, whole.steps)
    }

    @Test func anUnreadableDetectorIsReportedAndDetectionStartsAfreshAtTheSavedPosition() async throws {
        let (posted, stored, after, whole) = try await run(editing: [("detector", #"{"version": 99}"#)])
        let warning = try #require(after.first?.warnings.first)
        #expect(warning.contains("saved step detector") && warning.contains("starts afresh"), "\(warning)")
        #expect(
            after.first?.logLine(zone: TimeZone(identifier: "UTC")!).contains("warning: the saved step detector")
                == true)
        #expect(after.dropFirst().allSatisfy { $0.warnings.isEmpty }, "saved again readable after one fetch")
        // A fresh detector needs its first full window (10.24 s) before it counts: about 20 steps of the walk in
        // progress, never one twice.
        #expect(posted <= whole && posted >= whole - 25, "posted \(posted), one pass counts \(whole)")
        #expect(stored <= whole && stored >= whole - 25, "stored \(stored), one pass counts \(whole)")
    }

    /// With the detector too (a saved detector alone refuses samples up to its last one, so the position matters
    /// when both are lost).
    @Test func anUnreadablePositionStartsOverWithoutCountingAStepTwice() async throws {
        let (posted, stored, after, whole) = try await run(editing: [("cursor", "not json"), ("detector", "{}")])
        let warnings = try #require(after.first?.warnings)
        #expect(warnings.count == 2)
        #expect(
            warnings.contains { $0.contains("saved reading position") && $0.contains("skips the samples") },
            "\(warnings)")
        #expect(after.dropFirst().allSatisfy { $0.warnings.isEmpty })
        #expect(posted <= whole && posted >= whole - 25, "posted \(posted), one pass counts \(whole)")
        #expect(stored <= whole && stored >= whole - 25, "stored \(stored), one pass counts \(whole)")
    }

    /// A step log (readings, not samples): the readings up to the last one counted are not counted again when the
    /// position is lost, in every slice of the reading that starts over (here about four readings a slice, one slice
    /// a fetch), and those written after it are counted.
    @Test func anUnreadablePositionInAStepLogCountsNoReadingTwice() async throws {
        let dir = try TempDir()
        let steps = MinuteReadings.steps
        let (path, fetcher) = try MinuteReadings.slicedStepLogFetcher(dir: dir, 0..<20)
        let statePath = fetcher.configuration.statePath
        var fetches = 0
        /// Fetches at `now` until the source is read to its end; the steps posted, the warnings reported and where the
        /// last window ended.
        func fetchAll(now: Date) async -> (posted: Int, warnings: [String], end: Date?) {
            var posted = 0
            var warnings: [String] = []
            var end: Date?
            while fetches < 100 {
                let report = await fetcher.fetch(
                    now: Instant(now.addingTimeInterval(Double(fetches))), trigger: [.manual])
                fetches += 1
                posted += report.postedSteps
                warnings += report.warnings
                end = report.windows.last?.span.end.date ?? end
                if !report.backlog { break }
            }
            return (posted, warnings, end)
        }
        let first = await fetchAll(now: t0.addingTimeInterval(12 * 60))
        // The readings before the window's end, by the rule `count` and `preview` use (a reading spans the time since
        // the one before it, spread evenly), so also part of the one in progress at 10:12.
        let firstEnd = try #require(first.end)
        let log = try RecordingCounter.count(path: path)
        let beforeEnd = log.steps(
            from: Instant(nanosecondsSinceEpoch: 0),
            to: Instant(nanosecondsSinceEpoch: Timestamps.nanoseconds(firstEnd)))
        #expect(first.posted == beforeEnd && beforeEnd > steps(0..<12), "the readings before \(firstEnd)")
        #expect(fetches > 3, "the log was read in slices")
        let db = try DatabaseQueue(path: statePath)
        try await db.write { db in try db.execute(sql: "UPDATE source_cursor SET cursor = 'not json'") }
        try db.close()
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(MinuteReadings.stepLog(20..<30).utf8))
        try handle.close()
        let before = fetches
        let second = await fetchAll(now: t0.addingTimeInterval(40 * 60))
        #expect(fetches - before > 3, "read again in slices")
        #expect(
            second.warnings.contains { $0.contains("saved reading position") && $0.contains("step readings") },
            "\(second.warnings)")
        let all = steps(0..<30)
        #expect(first.posted + second.posted == all)
        let reopened = try DatabaseQueue(path: statePath)
        defer { try? reopened.close() }
        let (stored, skip) = try await reopened.read { db in
            (
                try Int.fetchOne(db, sql: "SELECT SUM(count) FROM steps") ?? 0,
                try Int64?.fetchOne(db, sql: "SELECT skip_readings_through_ns FROM source_cursor") ?? nil
            )
        }
        #expect(stored == all, "each reading stored once")
        #expect(skip == nil, "no readings skipped once the log was read to its end")
    }

    /// A whole-file step export (Google Fit) whose reader state, kept inside the position, cannot be read: the fetch
    /// says so, the reader starts over, and no reading counted before is counted again. The walk trigger, reading
    /// first, leaves it to the fetch (saving nothing), so the fetch's report still says it.
    @Test(arguments: [false, true]) func anUnreadableReaderStateCountsNoReadingTwice(walkTriggerFirst: Bool)
        async throws
    {
        let dir = try TempDir()
        let steps = MinuteReadings.steps
        func posted(_ report: FetchReport) -> Int { report.postedSteps }
        let path = try dir.write("steps.json", MinuteReadings.googleFit(0..<20))
        var config = try Fixture.config(dir: dir, source: path)
        config.publishers = [ScriptedPublisher()]
        let fetcher = Fetcher(configuration: config, clock: ContinuousClock())
        let first = await fetcher.fetch(now: Instant(t0.addingTimeInterval(12 * 60)), trigger: [.manual])
        #expect(posted(first) == steps(0..<12))
        let db = try DatabaseQueue(path: config.statePath)
        try await db.write { db in
            let text = try #require(try String.fetchOne(db, sql: "SELECT cursor FROM source_cursor"))
            var cursor = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            #expect(cursor["parserState"] != nil)
            cursor["parserState"] = Data("{\"version\": 99}".utf8).base64EncodedString()
            let edited = String(decoding: try JSONSerialization.data(withJSONObject: cursor), as: UTF8.self)
            try db.execute(sql: "UPDATE source_cursor SET cursor = ?", arguments: [edited])
        }
        try db.close()
        try dir.write("steps.json", MinuteReadings.googleFit(0..<30))
        if walkTriggerFirst {
            guard case .failure(let e) = fetcher.ingestForWalks(now: Instant(t0.addingTimeInterval(39 * 60))) else {
                Issue.record("the walk trigger read past an unreadable reader state")
                return
            }
            #expect(e.message.contains("google-fit reader") && e.message.contains("left to the next fetch"), "\(e)")
        }
        let second = await fetcher.fetch(now: Instant(t0.addingTimeInterval(40 * 60)), trigger: [.manual])
        #expect(
            second.warnings.contains { $0.contains("google-fit reader") && $0.contains("not counted again") },
            "\(second.warnings)")
        #expect(posted(first) + posted(second) == steps(0..<30))
        let reopened = try DatabaseQueue(path: config.statePath)
        defer { try? reopened.close() }
        let stored = try await reopened.read { db in try Int.fetchOne(db, sql: "SELECT SUM(count) FROM steps") ?? 0 }
        #expect(stored == steps(0..<30), "each reading stored once")
    }

    @Test func theWalkTriggerLeavesUnreadableStateToTheNextFetch() async throws {
        let dir = try TempDir()
        let path = try dir.write("backlog.csv", try SlicedIngestionTests.backlogText.get())
        var config = try Fixture.config(dir: dir, source: path, start: "2026-11-21T10:00:00+09:00")
        config.publishers = [ScriptedPublisher()]
        let fetcher = Fetcher(configuration: config, clock: ContinuousClock())
        _ = try fetcher.ingestForWalks(now: Instant(t0.addingTimeInterval(3600))).get()
        let db = try DatabaseQueue(path: config.statePath)
        try await db.write { db in try db.execute(sql: "UPDATE source_cursor SET cursor = '[]'") }
        try db.close()
        guard case .failure(let e) = fetcher.ingestForWalks(now: Instant(t0.addingTimeInterval(3700))) else {
            Issue.record("the walk trigger read past unreadable state")
            return
        }
        #expect(e.message.contains("saved reading position") && e.message.contains("left to the next fetch"), "\(e)")
    }
}
