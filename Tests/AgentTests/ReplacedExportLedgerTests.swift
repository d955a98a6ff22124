import Agent
import Foundation
import GRDB
import TestSupport
import Testing
import WallTime

@testable import Store

/// A followed export replaced by a newer one counts what the newer one says, per minute (the reading ledger): a record
/// it adds before the last one counted (a watch synced late) once, the same export again nothing, and where phone and
/// watch overlap across the two exports the device the overlap rule picks now.
@Suite(.timeLimit(.minutes(1))) struct ReplacedExportLedgerTests {
    let t0 = Fixture.date("2026-11-21T10:00:00+09:00")
    typealias Records = [(String, String, String, Int)]

    /// A fetcher following `export.xml` in `dir` (in slices of `sliceBytes` when given).
    func fetcher(_ dir: TempDir, extra: String = "", sliceBytes: Int64? = nil) throws -> (Fetcher, String, String) {
        let path = dir.path("export.xml")
        var config = try Fixture.config(dir: dir, source: path, extra: extra)
        config.publishers = [ScriptedPublisher()]
        var fetcher = Fetcher(configuration: config, clock: ContinuousClock())
        if let sliceBytes { fetcher.sliceBytes = sliceBytes }
        return (fetcher, path, config.statePath)
    }

    /// Writes the export of `records` beside `path` and renames it over it (how a download lands).
    func replace(_ path: String, with records: Records, in dir: TempDir) throws {
        let beside = try dir.write("export.xml.part", ReplacedExportTests.export(records, heartRates: 20))
        #expect(rename(beside, path) == 0)
    }

    /// Steps stored on the day.
    func stored(_ state: String) throws -> Int {
        let day = TimeWindow(
            start: Instant(t0.addingTimeInterval(-36_000)), end: Instant(t0.addingTimeInterval(50_000)))
        return try StateStore(path: state).steps(in: day)
    }

    func fetch(_ fetcher: Fetcher, at seconds: TimeInterval) async -> FetchReport {
        await fetcher.fetch(now: Instant(t0.addingTimeInterval(seconds)), trigger: [.manual])
    }

    /// Makes the state one written before the ledger was kept (`v23-step-log-seq-at`, the schema before
    /// `v24-reading-ledger`; `v25-step-log-seq-device-ts` and `v26-reading-spill`, which came after, are forgotten
    /// too), which the next fetch migrates.
    static func forgetLedger(_ path: String) throws {
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(
                sql: """
                    DROP TABLE reading_ledger; DROP TABLE reading_ledger_state;
                    DROP TABLE reading_spill; DROP TABLE reading_spill_source;
                    DELETE FROM grdb_migrations
                    WHERE identifier IN ('v24-reading-ledger', 'v25-step-log-seq-device-ts', 'v26-reading-spill')
                    """)
        }
        #expect(
            try queue.read { db in try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations") }.last
                == "v23-step-log-seq-at")
        try queue.close()
    }

    static let lateWatch = ("Apple Watch", "09:00:00", "09:05:00", 999)

    @Test func aRecordSyncedLateIntoTheNewerExportIsCountedOnce() async throws {
        let dir = try TempDir()
        let (fetcher, path, state) = try fetcher(dir)
        try replace(path, with: ReplacedExportTests.old, in: dir)
        #expect(await fetch(fetcher, at: 1800).steps == 720)
        let newer = ReplacedExportTests.old + [Self.lateWatch] + ReplacedExportTests.new
        try replace(path, with: newer, in: dir)
        let second = await fetch(fetcher, at: 7200)
        #expect(second.steps == 650 + 999, "\(second.line)")
        #expect(second.lateSteps == 999, "the watch's walk at 09:00 was posted with the first window")
        #expect(try stored(state) == 720 + 999 + 650)
        try replace(path, with: newer, in: dir)  // the same export again
        let third = await fetch(fetcher, at: 9000)
        #expect(third.steps == 0, "\(third.line)")
        #expect(try stored(state) == 720 + 999 + 650)
    }

    /// The same export downloaded again and read in slices: none of its records are counted again in any slice.
    @Test func theSameExportAgainCountsNothingInAnySlice() async throws {
        let dir = try TempDir()
        let (fetcher, path, state) = try fetcher(dir, sliceBytes: 600)
        let records = ReplacedExportTests.old + ReplacedExportTests.new
        try replace(path, with: records, in: dir)
        _ = await fetch(fetcher, at: 1800)
        _ = await fetch(fetcher, at: 7200)
        let before = try stored(state)
        #expect(before == 1370)
        try replace(path, with: records, in: dir)
        _ = await fetch(fetcher, at: 8000)
        _ = await fetch(fetcher, at: 9000)
        let after = try stored(state)
        #expect(after == 1370, "a re-import stores nothing")
    }

    /// Phone and watch over the same walk, the watch's record arriving only with the newer export: the minute holds
    /// the one the overlap rule picks, the most steps or the preferred source.
    @Test(arguments: [("", 420), ("prefer = \"iPhone\"", 300)])
    func phoneAndWatchOverlapAcrossTwoExports(prefer: String, expected: Int) async throws {
        let dir = try TempDir()
        let (fetcher, path, state) = try fetcher(dir, extra: prefer)
        let first: Records =
            prefer.isEmpty ? [("iPhone", "10:00:00", "10:05:00", 300)] : [("Apple Watch", "10:00:00", "10:05:00", 420)]
        try replace(path, with: first + [("iPhone", "10:20:00", "10:25:00", 400)], in: dir)
        _ = await fetch(fetcher, at: 1800)
        let both: Records = [("iPhone", "10:00:00", "10:05:00", 300), ("Apple Watch", "10:00:00", "10:05:00", 420)]
        try replace(path, with: both + [("iPhone", "10:20:00", "10:25:00", 400)], in: dir)
        _ = await fetch(fetcher, at: 3600)
        let now = try stored(state)
        #expect(now == expected + 400)
    }

    /// Phone and watch records of one walk either side of a slice's end (an export larger than
    /// `Fetcher.sliceBytes`, 16 MiB; here slices of 300 bytes, a record or two each): counted once, by the overlap
    /// rule, as when the file is read whole.
    @Test(arguments: [("", 420), ("prefer = \"iPhone\"", 300)])
    func phoneAndWatchEitherSideOfASliceBoundaryCountOnce(prefer: String, expected: Int) async throws {
        let dir = try TempDir()
        let (fetcher, path, state) = try fetcher(dir, extra: prefer, sliceBytes: 300)
        let records: Records = [
            ("iPhone", "10:00:00", "10:05:00", 300), ("Apple Watch", "10:00:00", "10:05:00", 420),
            ("iPhone", "10:20:00", "10:25:00", 400),
        ]
        _ = try dir.write("export.xml", ReplacedExportTests.export(records))
        let report = await fetch(fetcher, at: 1800)
        #expect(!report.backlog, "\(report.line)")
        #expect(try stored(state) == expected + 400, "\(path)")
    }

    /// A state from before the ledger: its first newer export is counted as before (the late record is not), and
    /// fills the ledger, so that the next newer export's late record is counted.
    @Test func aStateFromBeforeTheLedgerKeepsOneFromItsNextNewerExport() async throws {
        let dir = try TempDir()
        let (fetcher, path, state) = try fetcher(dir)
        try replace(path, with: ReplacedExportTests.old, in: dir)
        _ = await fetch(fetcher, at: 1800)
        try Self.forgetLedger(dir.path("state.sqlite"))
        let newer = ReplacedExportTests.old + [Self.lateWatch] + ReplacedExportTests.new
        try replace(path, with: newer, in: dir)
        _ = await fetch(fetcher, at: 7200)
        #expect(try stored(state) == 720 + 650, "counted as before: the watch's late record is not")
        let late = ("iPhone", "08:00:00", "08:10:00", 777)
        try replace(path, with: newer + [late], in: dir)
        _ = await fetch(fetcher, at: 9000)
        #expect(try stored(state) == 720 + 650 + 777, "the ledger holds the export as it was read")
    }

    /// A step log (readings) rotated by copy and truncate and written again: its new lines add to what was counted,
    /// in the minute it shares with the old file's last lines too (the first line of a file is a reading at its
    /// time). Read again whole (its cursor lost) afterwards, nothing counts twice.
    /// Also when the file written again is larger than a slice (here 40 bytes, a line a slice; `Fetcher.sliceBytes`,
    /// 16 MiB, in use): it took the larger count, 24 of 36, in the shared minute.
    @Test(arguments: [nil, 40] as [Int64?])
    func aStepLogTruncatedInPlaceAddsItsNewLinesInASharedMinute(sliceBytes: Int64?) async throws {
        let dir = try TempDir()
        let line = { (time: String, steps: Int) in #"{"ts": "2026-11-21T10:00:\#(time)+09:00", "steps": \#(steps)}"# }
        let path = try dir.write("steps.jsonl", [line("10", 5), line("20", 7)].joined(separator: "\n") + "\n")
        var config = try Fixture.config(dir: dir, source: path)
        config.publishers = [ScriptedPublisher()]
        var fetcher = Fetcher(configuration: config, clock: ContinuousClock())
        if let sliceBytes { fetcher.sliceBytes = sliceBytes }
        _ = await fetch(fetcher, at: 30)
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: Data(([line("40", 11), line("50", 13)].joined(separator: "\n") + "\n").utf8))
        try handle.close()
        _ = await fetch(fetcher, at: 60)
        #expect(try stored(config.statePath) == 5 + 7 + 11 + 13)
        let db = try DatabaseQueue(path: config.statePath)
        try await db.write { db in try db.execute(sql: "UPDATE source_cursor SET cursor = 'not json'") }
        try db.close()
        _ = await fetch(fetcher, at: 90)
        #expect(try stored(config.statePath) == 5 + 7 + 11 + 13, "read again from its start: nothing twice")
    }
}
