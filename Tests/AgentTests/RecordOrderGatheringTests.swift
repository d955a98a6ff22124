import Agent
import Foundation
import GRDB
import Store
import TestSupport
import Testing
import WallTime

/// An export found out of time order is gathered and settled a slice a fetch (`GatheredExport`): no fetch reads it
/// whole, nothing of it is counted while it is gathered, and a newer export over it or a state saved before this was
/// kept still store what `count` counts.
extension RecordOrderTests {
    /// One read a fetch (a fresh fetcher each: the state alone), with the stored steps and the warnings of each.
    func fetchEach(_ dir: TempDir, _ format: Format, at: Instant, until done: (FetchReport) -> Bool) async throws
        -> [(report: FetchReport, stored: Int)]
    {
        var out: [(FetchReport, Int)] = []
        for _ in 1...200 {
            let report = try await fetcher(dir, format, slicePerFetch: true).fetch(now: at, trigger: [.manual])
            out.append((report, try stored(dir)))
            if done(report) { return out }
        }
        Issue.record("never done")
        return out
    }

    static func gathering(_ r: FetchReport) -> Bool { r.warnings.contains { $0.contains("gathering its records") } }
    static func settling(_ r: FetchReport) -> Bool { r.warnings.contains { $0.contains("being settled") } }

    /// The records kept for settling, of every source.
    func spilled(_ dir: TempDir) throws -> Int {
        let queue = try DatabaseQueue(path: dir.path("state.sqlite"))
        defer { try? queue.close() }
        return try queue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM reading_spill") ?? 0 }
    }

    /// Gathering and settling take several fetches of one slice each; while the file is gathered the stored steps
    /// stay as they were, and at the end they are what `count` counts, with nothing left kept.
    @Test(arguments: Format.allCases, [Order.grouped, .shuffled])
    func aFallbackIsSpreadOverFetchesOfASliceEach(format: Format, order: Order) async throws {
        let dir = try TempDir()
        let whole = try write(dir, format, order)
        let fetches = try await fetchEach(dir, format, at: now) { !$0.backlog }
        let gathering = fetches.filter { Self.gathering($0.report) }
        let settling = fetches.filter { Self.settling($0.report) }
        #expect(gathering.count >= 3, "a 4 KB slice a fetch over a file of \(fetches.count) fetches")
        #expect(settling.count >= 2, "16 records a part")
        #expect(Set(gathering.map(\.stored)).count == 1, "nothing of it counted while it is gathered")
        #expect(fetches.last?.stored == whole)
        #expect(try spilled(dir) == 0)
    }

    /// Writes a grouped export and fetches it a slice a fetch until two fetches have gathered its records.
    func gatherTwice(_ dir: TempDir, _ format: Format) async throws {
        _ = try write(dir, format, .grouped)
        var seen = 0
        _ = try await fetchEach(dir, format, at: now) { report in
            seen += Self.gathering(report) ? 1 : 0
            return seen == 2
        }
        #expect(try spilled(dir) > 0)
    }

    /// An export being gathered renamed aside (`export.xml.1`, as a rotation would) and a newer one put in its place:
    /// the newer one is gathered from its start, what was gathered of the old one is dropped, and the old one's rest
    /// is not read into it.
    @Test(arguments: Format.allCases)
    func anExportRenamedAsideMidGatheringIsReplaced(format: Format) async throws {
        let dir = try TempDir()
        try await gatherTwice(dir, format)
        #expect(rename(dir.path(format.file), dir.path(format.file + ".1")) == 0)
        let newer = try write(dir, format, .shuffled, changed: true)
        _ = try await fetchAll(dir, format, slicePerFetch: true, at: now + .seconds(600))
        #expect(try stored(dir) == newer)
        #expect(try spilled(dir) == 0)
    }

    /// The `[source]` path changed while its export was gathered: what was gathered, which no read will settle, is
    /// dropped by the next fetch, which says so.
    @Test(arguments: Format.allCases)
    func recordsGatheredForAPathNoLongerConfiguredAreDropped(format: Format) async throws {
        let dir = try TempDir()
        try await gatherTwice(dir, format)
        _ = try dir.write("other." + format.file, "")
        let report = try await fetcher(dir, format, file: "other." + format.file).fetch(now: now, trigger: [.manual])
        #expect(try spilled(dir) == 0)
        #expect(report.warnings.contains { $0.contains("no longer configured") }, "\(report.warnings)")
    }

    /// A newer export renamed over the one being gathered, or being settled, starts over cleanly: what the newer one
    /// counts, nothing kept of the first.
    @Test(arguments: Format.allCases, [false, true])
    func aNewerExportMidGatheringStoresWhatItCounts(format: Format, settling: Bool) async throws {
        let dir = try TempDir()
        _ = try write(dir, format, .grouped)
        var seen = 0  // the second such fetch: records gathered, or a part settled
        let stop = settling ? Self.settling : Self.gathering
        let first = try await fetchEach(dir, format, at: now) { report in
            seen += stop(report) ? 1 : 0
            return seen == 2
        }
        #expect(first.last.map { stop($0.report) } == true)
        #expect(try spilled(dir) > 0)
        let newer = try write(dir, format, .shuffled, changed: true)
        _ = try await fetchAll(dir, format, slicePerFetch: true, at: now + .seconds(600))
        #expect(try stored(dir) == newer)
        #expect(try spilled(dir) == 0)
    }

    /// The walk trigger (a read without a byte limit) while the file is gathered goes on a slice, counting nothing,
    /// and the fetches after it end at what `count` counts.
    @Test(arguments: Format.allCases)
    func theWalkTriggerGathersASliceAndCountsNothing(format: Format) async throws {
        let dir = try TempDir()
        let whole = try write(dir, format, .shuffled)
        let before = try await fetchEach(dir, format, at: now) { Self.gathering($0) }
        let (stored0, spilled0) = (try stored(dir), try spilled(dir))
        let walks = try fetcher(dir, format).ingestForWalks(now: now)
        #expect((try? walks.get()) == 0, "\(walks)")
        #expect(try stored(dir) == stored0)
        #expect(try spilled(dir) > spilled0, "a slice gathered after \(before.count) fetches")
        _ = try await fetchAll(dir, format, slicePerFetch: true, at: now)
        #expect(try stored(dir) == whole)
        #expect(try spilled(dir) == 0)
    }

    /// A state saved by the version before gathering (schema without `v26-reading-spill`, a cursor without its
    /// `gathering`), left in the middle of a grouped export's slices, migrates and goes on to what `count` counts.
    @Test(arguments: Format.allCases)
    func aStateFromBeforeGatheringGoesOn(format: Format) async throws {
        let dir = try TempDir()
        let whole = try write(dir, format, .grouped)
        let before = try await fetchEach(dir, format, at: now) { _ in true }
        #expect(before.first?.report.backlog == true)
        #expect(before.first.map { $0.stored > 0 } == true, "the records of its first slice counted, as before")
        try Self.forgetGathering(dir.path("state.sqlite"))
        let (warnings, _) = try await fetchAll(dir, format, slicePerFetch: true, at: now)
        #expect(outOfOrder(warnings))
        #expect(try stored(dir) == whole)
        #expect(try spilled(dir) == 0)
    }

    /// Makes the state one written before `v26-reading-spill`, checking that its cursor is one that version wrote.
    static func forgetGathering(_ path: String) throws {
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            let cursor = try String.fetchOne(db, sql: "SELECT cursor FROM source_cursor") ?? ""
            #expect(!cursor.contains("gathering") && cursor.contains("parserState"))
            try db.execute(
                sql: """
                    DROP TABLE reading_spill; DROP TABLE reading_spill_source;
                    DELETE FROM grdb_migrations WHERE identifier = 'v26-reading-spill'
                    """)
        }
        try queue.close()
    }
}
