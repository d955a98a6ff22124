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

    /// Opens (creating and migrating) the database at `path`. `busyTimeout` bounds the wait for another writer.
    public init(path: String, busyTimeout: TimeInterval = 5) throws {
        self.path = path
        try FileManager.default.createDirectory(
            atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path,
            withIntermediateDirectories: true)
        var config = Configuration()
        config.busyMode = .timeout(busyTimeout)
        let pool = try DatabasePool(path: path, configuration: config)
        writer = pool
        try Self.migrator.migrate(pool)
    }

    /// Opens `path` read-only for dry runs (nothing is created or changed); an absent file gives an empty in-memory state.
    public init(readOnlyPath path: String) throws {
        self.path = path
        if FileManager.default.fileExists(atPath: path) {
            var config = Configuration()
            config.readonly = true
            config.busyMode = .timeout(2)
            let queue = try DatabaseQueue(path: path, configuration: config)
            // Fail early on an unmigrated or foreign file.
            _ = try queue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM outbox") }
            writer = queue
        } else {
            let queue = try DatabaseQueue()
            try Self.migrator.migrate(queue)
            writer = queue
        }
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
        try writer.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT ((second + ?) / ?) * ? - ? AS p, SUM(count) AS n FROM steps
                    WHERE second >= ? AND second < ? GROUP BY p ORDER BY p
                    """, arguments: [offset, bucket, bucket, offset, Self.ceilSecond(fromNs), Self.ceilSecond(toNs)]
            )
            .map { (start: $0["p"], steps: $0["n"]) }
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
        /// Parts of the saved row that could not be read (written by another version, or edited), each with what
        /// reading does instead; empty when all was read.
        var problems: [String] = []
    }

    static func savedSource(_ db: Database, source: String) throws -> SavedSource {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM source_cursor WHERE source = ?", arguments: [source])
        else {
            return SavedSource()
        }
        var saved = SavedSource(
            lastSampleNs: row["last_sample_ns"], lastReadingEndNs: row["last_reading_end_ns"],
            skipReadingsThroughNs: row["skip_readings_through_ns"], firstDataNs: row["first_data_ns"])
        /// The saved JSON of `column`, or nil with a problem that says what reading does instead.
        func decoded<T: Decodable>(_ type: T.Type, _ column: String, _ what: String, _ instead: String) -> T? {
            guard let text: String = row[column] else { return nil }
            do {
                return try JSONDecoder().decode(type, from: Data(text.utf8))
            } catch {
                saved.problems.append(
                    "the saved \(what) of \(source) cannot be read (\(describeDecodingError(error))): \(instead)")
                return nil
            }
        }
        saved.cursor = decoded(
            SourceCursor.self, "cursor", "reading position",
            "reading starts over at its beginning and skips the samples and step readings up to the last ones counted")
        saved.detector = decoded(
            StepDetector.self, "detector", "step detector",
            "detection starts afresh, and steps of a walk in progress may be missed")
        return saved
    }

    /// Saves where reading `source` stopped and its detector (the row `savedSource` reads).
    static func saveSource(_ db: Database, source: String, _ saved: SavedSource, nowNs: Int64) throws {
        let encoder = JSONEncoder()
        let cursorText = try saved.cursor.map { String(decoding: try encoder.encode($0), as: UTF8.self) }
        let detectorText = try saved.detector.map { String(decoding: try encoder.encode($0), as: UTF8.self) }
        try db.execute(
            sql: """
                INSERT INTO source_cursor (source, cursor, detector, last_sample_ns, last_reading_end_ns,
                                           skip_readings_through_ns, first_data_ns, updated_ns)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(source) DO UPDATE SET cursor = excluded.cursor, detector = excluded.detector,
                last_sample_ns = excluded.last_sample_ns, last_reading_end_ns = excluded.last_reading_end_ns,
                skip_readings_through_ns = excluded.skip_readings_through_ns, first_data_ns = excluded.first_data_ns,
                updated_ns = excluded.updated_ns
                """,
            arguments: [
                source, cursorText, detectorText, saved.lastSampleNs, saved.lastReadingEndNs,
                saved.skipReadingsThroughNs, saved.firstDataNs, nowNs,
            ])
    }

    static func postedUntil(_ db: Database) throws -> Int64? {
        try WindowStateRecord.postedUntil(db)
    }

    /// One row of fetch history.
    public struct HistoryEntry: Sendable, Codable, Equatable {
        public var id: Int64
        public var started: Date
        public var ended: Date
        public var trigger: String
        public var windowStart: Date?
        public var windowEnd: Date?
        public var steps: Int?
        public var result: String
        public var error: String?
    }

    /// The last `limit` fetches, newest first.
    public func history(limit: Int = 20) throws -> [HistoryEntry] {
        try writer.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM fetch_history ORDER BY id DESC LIMIT ?", arguments: [limit]).map {
                r in
                HistoryEntry(
                    id: r["id"], started: Self.date(r["started_ns"]), ended: Self.date(r["ended_ns"]),
                    trigger: r["trigger"], windowStart: (r["window_start_ns"] as Int64?).map(Self.date),
                    windowEnd: (r["window_end_ns"] as Int64?).map(Self.date), steps: r["steps"],
                    result: r["result"], error: r["error"])
            }
        }
    }

    /// One outbox entry.
    public struct OutboxEntry: Sendable, Codable, Equatable {
        public var id: Int64
        public var windowStart: Date
        public var windowEnd: Date
        public var steps: Int
        public var text: String
        public var target: String
        public var idempotencyKey: String
        public var status: OutboxStatus
        public var attempts: Int
        public var nextAttempt: Date
        public var remoteID: String?
        public var lastError: String?
        /// The last attempt may have been posted although no success was seen (its answer was lost, or the fetch died).
        public var unconfirmed = false
    }

    static func outboxEntry(_ r: Row) -> OutboxEntry {
        OutboxEntry(
            id: r["id"], windowStart: date(r["window_start_ns"]), windowEnd: date(r["window_end_ns"]),
            steps: r["steps"], text: r["text"], target: r["target"], idempotencyKey: r["idempotency_key"],
            status: r["status"], attempts: r["attempts"], nextAttempt: date(r["next_attempt_ns"]),
            remoteID: r["remote_id"], lastError: r["last_error"], unconfirmed: (r["unconfirmed"] as Int? ?? 0) != 0)
    }

    /// Outbox entries with the given status (all when nil), oldest first.
    public func outbox(status: OutboxStatus? = nil) throws -> [OutboxEntry] {
        try writer.read { db in
            let rows =
                status == nil
                ? try Row.fetchAll(db, sql: "SELECT * FROM outbox ORDER BY id")
                : try Row.fetchAll(db, sql: "SELECT * FROM outbox WHERE status = ? ORDER BY id", arguments: [status])
            return rows.map(Self.outboxEntry)
        }
    }

    /// What `outbox retry` or `outbox drop` did to one entry.
    public enum OutboxChange: Sendable, Equatable {
        case changed(OutboxEntry)
        case notFound(Int64)
        /// Already delivered (or dropped): nothing to do.
        case final(OutboxEntry)
    }

    /// Re-queues failed (or waiting) entries: the next fetch tries them first, whatever its time. Each keeps its
    /// idempotency key, so a post that did reach its target is not doubled.
    public func retryOutbox(ids: [Int64]) throws -> [OutboxChange] {
        try changeOutbox(ids: ids) { db, entry in
            try db.execute(
                sql: "UPDATE outbox SET status = 'pending', next_attempt_ns = 0 WHERE id = ?", arguments: [entry.id])
        }
    }

    /// Gives entries up: they are never sent; `reason` is recorded as their last error.
    public func dropOutbox(ids: [Int64], reason: String) throws -> [OutboxChange] {
        try changeOutbox(ids: ids) { db, entry in
            try db.execute(
                sql: "UPDATE outbox SET status = 'dropped', last_error = ? WHERE id = ?",
                arguments: ["dropped: " + reason, entry.id])
        }
    }

    private func changeOutbox(ids: [Int64], _ change: (Database, OutboxEntry) throws -> Void) throws -> [OutboxChange] {
        try writer.write { db in
            try ids.map { id in
                guard let row = try Row.fetchOne(db, sql: "SELECT * FROM outbox WHERE id = ?", arguments: [id]) else {
                    return .notFound(id)
                }
                let entry = Self.outboxEntry(row)
                guard entry.status == .pending || entry.status == .failed else { return .final(entry) }
                try change(db, entry)
                return .changed(
                    Self.outboxEntry(try Row.fetchOne(db, sql: "SELECT * FROM outbox WHERE id = ?", arguments: [id])!))
            }
        }
    }

    /// Sets where the next since-last window begins when no window was posted yet (the demo starts its clock there).
    public func setWindowStartIfUnset(_ date: Date) throws {
        try writer.write { db in
            try WindowStateRecord.setPostedUntilIfUnset(db, Timestamps.nanoseconds(date))
        }
    }

    func countAttempt(_ id: Int64) throws {
        try writer.write { db in
            try db.execute(
                sql: "UPDATE outbox SET attempts = attempts + 1, unconfirmed = 1 WHERE id = ?", arguments: [id])
        }
    }

    func recordOutcome(
        _ id: Int64, status: OutboxStatus, nextNs: Int64, remoteID: String?, error: String?, nowNs: Int64,
        unconfirmed: Bool = false
    ) throws {
        try writer.write { db in
            try db.execute(
                sql: """
                    UPDATE outbox SET status = ?, next_attempt_ns = ?, remote_id = COALESCE(?, remote_id), last_error = ?,
                    delivered_ns = CASE WHEN ? = 'delivered' THEN ? ELSE delivered_ns END, unconfirmed = ? WHERE id = ?
                    """, arguments: [status, nextNs, remoteID, error, status, nowNs, unconfirmed ? 1 : 0, id])
        }
    }

    static func addBuckets(_ db: Database, _ buckets: [Int64: Int]) throws {
        let statement = try db.cachedStatement(
            sql: """
                INSERT INTO steps (second, count) VALUES (?, ?) ON CONFLICT(second) DO UPDATE SET count = count + excluded.count
                """)
        for (second, count) in buckets.sorted(by: { $0.key < $1.key }) where count != 0 {
            try statement.execute(arguments: [second, count])
        }
    }

    static func floorSecond(_ ns: Int64) -> Int64 {
        let q = ns / 1_000_000_000
        return ns % 1_000_000_000 < 0 ? q - 1 : q
    }

    static func date(_ ns: Int64) -> Date { Timestamps.date(nanoseconds: ns) }
}
