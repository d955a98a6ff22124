import Foundation
import GRDB
import Messages
import SensorInput
import StepDetection

/// The agent's state in one SQLite file (WAL, migrations): steps per second, source cursors with detector state,
/// the window position, fetch history, walking bouts, the outbox of posts and the agent's status.
public final class StateStore: Sendable {
    public let path: String
    let writer: any DatabaseWriter

    /// Opens (creating and migrating) the database at `path`. `busyTimeout` bounds the wait for another writer. A file
    /// or folder in the way is a `StateFileError` with the file system's reason.
    public init(path: String, busyTimeout: TimeInterval = 5) throws {
        self.path = path
        do {
            try FileManager.default.createDirectory(
                atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path,
                withIntermediateDirectories: true)
            // The state holds targets' refresh tokens and sessions: a new database is the user's alone (SQLite gives
            // its `-wal` and `-shm` files the database file's mode).
            if !FileManager.default.fileExists(atPath: path) {
                _ = FileManager.default.createFile(
                    atPath: path, contents: nil, attributes: [.posixPermissions: 0o600])
            }
            var config = Configuration()
            config.busyMode = .timeout(busyTimeout)
            let pool = try DatabasePool(path: path, configuration: config)
            writer = pool
            try Self.migrator.migrate(pool)
        } catch {
            throw Self.fileProblem(error, path: path, writing: true) ?? error
        }
    }

    /// Opens `path` read-only (`status`, `history`, `steps`, `outbox`, dry runs: nothing is created or changed); an
    /// absent file gives an empty in-memory state. A database in a folder this user cannot write is read too.
    public init(readOnlyPath path: String) throws {
        self.path = path
        if FileManager.default.fileExists(atPath: path) {
            do {
                writer = try Self.openReadOnly(path)
            } catch let error as DatabaseError where error.resultCode == .SQLITE_READONLY {
                // A WAL database needs its `-shm` index to be read; SQLite cannot create it in a folder this user may
                // not write. Without one no connection has the file open (a writer creates it), so the file is read
                // as it stands, as immutable.
                guard StateFileError.find(path: path, writing: true) != nil,
                    !FileManager.default.fileExists(atPath: path + "-shm"),
                    let encoded = path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed)
                else { throw Self.fileProblem(error, path: path, writing: false) ?? error }
                writer = try Self.openReadOnly("file:\(encoded)?immutable=1")
            } catch {
                throw Self.fileProblem(error, path: path, writing: false) ?? error
            }
        } else {
            let queue = try DatabaseQueue()
            try Self.migrator.migrate(queue)
            writer = queue
        }
    }

    /// A copy of the state at `path` in memory, for a dry run: it runs the fetch's own path, and everything it
    /// changes is gone with the copy. Nothing at `path` is created or changed; an absent file gives an empty state.
    public init(inMemoryCopyOf path: String) throws {
        self.path = path
        let copy = try DatabaseQueue()
        if FileManager.default.fileExists(atPath: path) {
            try StateStore(readOnlyPath: path).writer.backup(to: copy)
        }
        try Self.migrator.migrate(copy)
        writer = copy
    }

    /// A read-only connection to `location` (a path, or a `file:` URI), checked to be a state database.
    static func openReadOnly(_ location: String) throws -> DatabaseQueue {
        var config = Configuration()
        config.readonly = true
        config.busyMode = .timeout(2)
        let queue = try DatabaseQueue(path: location, configuration: config)
        // Fail early on an unmigrated or foreign file.
        _ = try queue.read { db in try OutboxRecord.fetchCount(db) }
        return queue
    }

    /// The file system's reason for an error opening or writing the database at `path`, when it is a permission or a
    /// path (not a busy, corrupt or full database).
    static func fileProblem(_ error: Error, path: String, writing: Bool) -> StateFileError? {
        if let e = error as? DatabaseError, ![.SQLITE_CANTOPEN, .SQLITE_READONLY, .SQLITE_PERM].contains(e.resultCode) {
            return nil
        }
        return StateFileError.find(path: path, writing: writing)
    }

    static var migrator: DatabaseMigrator {
        var m = DatabaseMigrator()
        m.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE steps (second INTEGER PRIMARY KEY, count INTEGER NOT NULL) WITHOUT ROWID;
                    CREATE TABLE source_cursor (
                        source TEXT PRIMARY KEY, cursor TEXT, detector TEXT, last_sample_ns INTEGER,
                        first_data_ns INTEGER, updated_ns INTEGER NOT NULL);
                    CREATE TABLE window_state (id INTEGER PRIMARY KEY CHECK (id = 1), posted_until_ns INTEGER NOT NULL);
                    CREATE TABLE bouts (
                        end_ns INTEGER PRIMARY KEY, start_ns INTEGER NOT NULL, steps INTEGER NOT NULL,
                        handled INTEGER NOT NULL DEFAULT 0);
                    CREATE TABLE fetch_history (
                        id INTEGER PRIMARY KEY AUTOINCREMENT, started_ns INTEGER NOT NULL, ended_ns INTEGER NOT NULL,
                        trigger TEXT NOT NULL, window_start_ns INTEGER, window_end_ns INTEGER, steps INTEGER,
                        result TEXT NOT NULL, error TEXT);
                    CREATE TABLE outbox (
                        id INTEGER PRIMARY KEY AUTOINCREMENT, window_start_ns INTEGER NOT NULL, window_end_ns INTEGER NOT NULL,
                        steps INTEGER NOT NULL, text TEXT NOT NULL, target TEXT NOT NULL, idempotency_key TEXT NOT NULL,
                        status TEXT NOT NULL DEFAULT 'pending', attempts INTEGER NOT NULL DEFAULT 0,
                        next_attempt_ns INTEGER NOT NULL, remote_id TEXT, last_error TEXT, created_ns INTEGER NOT NULL,
                        delivered_ns INTEGER, UNIQUE (target, idempotency_key));
                    CREATE INDEX outbox_pending ON outbox (status, id);
                    CREATE TABLE agent_state (key TEXT PRIMARY KEY, value TEXT NOT NULL);
                    """)
        }
        m.registerMigration("v2-unconfirmed") { db in
            // 1 while the last attempt's fate is unknown: counted but not answered (a crash), or answered ambiguously.
            try db.execute(sql: "ALTER TABLE outbox ADD COLUMN unconfirmed INTEGER NOT NULL DEFAULT 0")
        }
        m.registerMigration("v3-target-info") { db in
            // What targets read from their servers (Mastodon's character limit), with when: `StateTargetInfoCache`.
            try db.execute(
                sql: "CREATE TABLE target_info (key TEXT PRIMARY KEY, value TEXT NOT NULL, stored_ns INTEGER NOT NULL)")
        }
        m.registerMigration("v4-agent-status", migrate: AgentStatus.migrate)
        m.registerMigration("v5-last-reading") { db in
            // The end of the latest step reading counted from a source, and, while a source whose position was lost
            // is read again from its start, the end up to which its readings are not counted again.
            try db.execute(
                sql: """
                    ALTER TABLE source_cursor ADD COLUMN last_reading_end_ns INTEGER;
                    ALTER TABLE source_cursor ADD COLUMN skip_readings_through_ns INTEGER;
                    """)
        }
        m.registerMigration("v6-skipped-lines") { db in
            // Malformed lines skipped that no fetch has reported yet (JSON), and each fetch's warnings (JSON array).
            try db.execute(
                sql: """
                    ALTER TABLE source_cursor ADD COLUMN skipped_lines TEXT;
                    ALTER TABLE fetch_history ADD COLUMN warnings TEXT;
                    """)
        }
        m.registerMigration("v7-late-steps") { db in
            // Steps stored for time a posted window already covered, waiting for the next window; and how many of
            // them each fetch posted.
            try db.execute(
                sql: """
                    ALTER TABLE window_state ADD COLUMN late_steps INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE fetch_history ADD COLUMN late_steps INTEGER;
                    """)
        }
        m.registerMigration("v8-received", migrate: ReceivedDevice.migrate)
        m.registerMigration("v9-remote-position") { db in
            // Where a source pulled from a phone (phyphox) stopped: its session, time reference and last buffer time
            // (JSON), kept beside its detector.
            try db.execute(sql: "ALTER TABLE source_cursor ADD COLUMN remote_position TEXT")
        }
        m.registerMigration("v10-device-overlap", migrate: DeviceOverlap.migrate)
        m.registerMigration("v11-outbox-image", migrate: OutboxImageRecord.migrate)
        m.registerMigration("v12-steps-compaction", migrate: StepsCompaction.migrate)
        m.registerMigration("v13-received-checkpoint", migrate: ReceivedCheckpointRecord.migrate)
        m.registerMigration("v14-received-total", migrate: ReceivedTotalRecord.migrate)
        m.registerMigration("v15-received-refusal", migrate: ReceivedDevice.migrateRefusal)
        m.registerMigration("v16-adding-key", migrate: StateStore.migrateAddingKey)
        m.registerMigration("v17-reading-sent", migrate: StateStore.migrateReadingSent)
        m.registerMigration("v18-received-counted", migrate: ReceivedCounted.migrate)
        m.registerMigration("v19-outbox-key-memory", migrate: OutboxRecord.migrateKeyMemory)
        m.registerMigration("v20-agent-receiver", migrate: AgentStatus.migrateReceiver)
        return m
    }

    // MARK: reading

    /// Steps counted in `[fromNs, toNs)` (per-second resolution).
    public func steps(fromNs: Int64, toNs: Int64) throws -> Int {
        try writer.read { db in try Self.steps(db, fromNs: fromNs, toNs: toNs) }
    }

    static func steps(_ db: Database, fromNs: Int64, toNs: Int64) throws -> Int {
        try Int.fetchOne(
            db, sql: "SELECT COALESCE(SUM(count), 0) FROM steps WHERE second >= ? AND second < ?",
            arguments: [ceilSecond(fromNs), ceilSecond(toNs)]) ?? 0
    }

    /// Steps per period of `bucket` seconds in `[fromNs, toNs)`, keyed by the period's start (seconds since the epoch,
    /// periods aligned to `offset` seconds east of UTC).
    public func stepsPerPeriod(fromNs: Int64, toNs: Int64, bucket: Int64, offset: Int64 = 0) throws -> [(
        start: Int64, steps: Int
    )] {
        try writer.read { db in try Self.stepsPerPeriod(db, fromNs: fromNs, toNs: toNs, bucket: bucket, offset: offset)
        }
    }

    static func stepsPerPeriod(_ db: Database, fromNs: Int64, toNs: Int64, bucket: Int64, offset: Int64 = 0) throws
        -> [(start: Int64, steps: Int)]
    {
        try Row.fetchAll(
            db,
            sql: """
                SELECT ((second + ?) / ?) * ? - ? AS p, SUM(count) AS n FROM steps
                WHERE second >= ? AND second < ? GROUP BY p ORDER BY p
                """, arguments: [offset, bucket, bucket, offset, Self.ceilSecond(fromNs), Self.ceilSecond(toNs)]
        )
        .map { (start: $0["p"], steps: $0["n"]) }
    }

    /// The steps of `[fromNs, toNs)` per UTC minute, as readings over their minutes: what the window's chart and its
    /// busiest hour are drawn from (a day is at most 1,440 rows however many seconds hold steps).
    static func stepsPerMinute(_ db: Database, fromNs: Int64, toNs: Int64) throws -> [StepReading] {
        try stepsPerPeriod(db, fromNs: fromNs, toNs: toNs, bucket: 60).map {
            StepReading(startNs: $0.start * 1_000_000_000, endNs: ($0.start + 60) * 1_000_000_000, steps: $0.steps)
        }
    }

    /// Merges steps long behind the posted windows into minutes (`StepsCompaction`), a day of them per call.
    public func mergeOldSteps() throws {
        try writer.write { db in
            guard let posted = try WindowStateRecord.postedUntil(db) else { return }
            try StepsCompaction.merge(db, postedUntilNs: posted)
        }
    }

    /// First and last second (since the epoch) with stored steps.
    public func stepRange() throws -> (first: Int64, last: Int64)? {
        try writer.read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT MIN(second) AS a, MAX(second) AS b FROM steps"),
                let a: Int64 = row["a"], let b: Int64 = row["b"]
            else { return nil }
            return (a, b)
        }
    }

    static func ceilSecond(_ ns: Int64) -> Int64 {
        let q = ns / 1_000_000_000
        return ns % 1_000_000_000 > 0 ? q + 1 : q
    }

    /// The saved reading position and detector of a source.
    struct SavedSource {
        var cursor: SourceCursor?
        var detector: StepDetector?
        var lastSampleNs: Int64?
        /// The end of the latest step reading counted (step logs).
        var lastReadingEndNs: Int64?
        /// Readings ending at or before this are not counted: set while a source whose position was lost is read
        /// again from its start, until that reading reaches the end of the source.
        var skipReadingsThroughNs: Int64?
        var firstDataNs: Int64?
        /// Where a source pulled from a phone's remote interface stopped (a file's position is `cursor`).
        var remotePosition: PhyphoxPosition?
        /// Malformed lines skipped that no fetch has reported yet.
        var skipped = SkippedLines()
        /// Parts of the saved row that could not be read (written by another version, or edited), each with what
        /// reading does instead; empty when all was read.
        var problems: [String] = []
    }

    static func savedSource(_ db: Database, source: String) throws -> SavedSource {
        guard let row = try SourceCursorRecord.fetchOne(db, key: source) else { return SavedSource() }
        var saved = SavedSource(
            lastSampleNs: row.lastSampleNs, lastReadingEndNs: row.lastReadingEndNs,
            skipReadingsThroughNs: row.skipReadingsThroughNs, firstDataNs: row.firstDataNs)
        /// The saved JSON `text`, or nil with a problem that says what reading does instead.
        func decoded<T: Decodable>(_ type: T.Type, _ text: String?, _ what: String, _ instead: String) -> T? {
            guard let text else { return nil }
            do {
                return try JSONDecoder().decode(type, from: Data(text.utf8))
            } catch {
                saved.problems.append(
                    "the saved \(what) of \(source) cannot be read (\(describeDecodingError(error))): \(instead)")
                return nil
            }
        }
        saved.cursor = decoded(
            SourceCursor.self, row.cursor, "reading position",
            "reading starts over at its beginning and skips the samples and step readings up to the last ones counted")
        saved.detector = decoded(
            StepDetector.self, row.detector, "step detector",
            "detection starts afresh, and steps of a walk in progress may be missed")
        saved.skipped =
            decoded(
                SkippedLines.self, row.skippedLines, "skipped lines not yet reported",
                "lines skipped before this fetch go unreported") ?? SkippedLines()
        saved.remotePosition = decoded(
            PhyphoxPosition.self, row.remotePosition, "position on the phone",
            "the phone's buffers are read from their start, and samples up to the last one counted are skipped")
        return saved
    }

    /// Saves where reading `source` stopped and its detector (the row `savedSource` reads).
    static func saveSource(_ db: Database, source: String, _ saved: SavedSource, nowNs: Int64) throws {
        let encoder = JSONEncoder()
        func text(_ value: (some Encodable)?) throws -> String? {
            try value.map { String(decoding: try encoder.encode($0), as: UTF8.self) }
        }
        try SourceCursorRecord(
            source: source, cursor: try text(saved.cursor), detector: try text(saved.detector),
            lastSampleNs: saved.lastSampleNs, lastReadingEndNs: saved.lastReadingEndNs,
            skipReadingsThroughNs: saved.skipReadingsThroughNs, firstDataNs: saved.firstDataNs,
            skippedLines: saved.skipped.isEmpty ? nil : try text(saved.skipped),
            remotePosition: try text(saved.remotePosition), updatedNs: nowNs
        ).upsert(db)
    }

    static func postedUntil(_ db: Database) throws -> Int64? {
        try WindowStateRecord.postedUntil(db)
    }

    /// Sets where the next since-last window begins when no window was posted yet (the demo starts its clock there).
    public func setWindowStartIfUnset(_ date: Date) throws {
        try writer.write { db in
            try WindowStateRecord.setPostedUntilIfUnset(db, Timestamps.nanoseconds(date))
        }
    }

    /// Stores steps per second; seconds long past (`StepsCompaction.placed`) as their minute. Steps for time a posted
    /// window already covered are late: they are kept for the next window (`WindowStateRecord.lateSteps`), never
    /// dropped. A change that lowers time already posted (a resend with a smaller count) lowers nothing posted: it is
    /// returned, for the fetch to report.
    @discardableResult
    static func addBuckets(_ db: Database, _ buckets: [Int64: Int], nowNs: Int64) throws -> (late: Int, lowered: Int) {
        let placed = try StepsCompaction.placed(db, buckets, nowNs: nowNs)
        let postedUntil = try WindowStateRecord.postedUntil(db)
        var net = 0
        if let postedUntil {
            for (second, count) in placed where second * 1_000_000_000 < postedUntil { net += count }
        }
        if net > 0 { try WindowStateRecord.addLateSteps(db, net) }
        try insertBuckets(db, placed)
        return (max(net, 0), max(-net, 0))
    }

    private static func insertBuckets(_ db: Database, _ buckets: [Int64: Int]) throws {
        let statement = try db.cachedStatement(
            sql: """
                INSERT INTO steps (second, count) VALUES (?, ?) ON CONFLICT(second) DO UPDATE SET count = count + excluded.count
                """)
        for (second, count) in buckets.sorted(by: { $0.key < $1.key }) where count != 0 {
            try statement.execute(arguments: [second, count])
        }
    }

    static func floorSecond(_ ns: Int64) -> Int64 { StepReading.floorSecond(ns) }

    static func date(_ ns: Int64) -> Date { Timestamps.date(nanoseconds: ns) }
}
