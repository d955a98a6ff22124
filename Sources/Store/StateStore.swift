import Foundation
import GRDB
import SensorInput
import WallTime

/// The agent's state in one SQLite file (WAL, migrations): steps per second, source cursors with detector state,
/// the window position, fetch history, walking bouts, the outbox of posts and the agent's status.
public final class StateStore: Sendable {
    public let path: String
    /// The connection (a pool, or a queue for a read-only or in-memory state). Code above Store goes through
    /// `read` and `write`, which hand it a `StateTransaction`.
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
            try Migrations.migrator.migrate(pool)
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
            try Migrations.migrator.migrate(queue)
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
        try Migrations.migrator.migrate(copy)
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

    /// Runs `body` in one read transaction, handed the typed view of the state (`StateTransaction`).
    package func read<T>(_ body: (StateTransaction) throws -> T) throws -> T {
        try writer.read { db in try body(StateTransaction(db: db)) }
    }

    package func read<T: Sendable>(_ body: @Sendable (StateTransaction) throws -> T) async throws -> T {
        try await writer.read { db in try body(StateTransaction(db: db)) }
    }

    /// Runs `body` in one write transaction: all it changes is committed together, or nothing is.
    package func write<T>(_ body: (StateTransaction) throws -> T) throws -> T {
        try writer.write { db in try body(StateTransaction(db: db)) }
    }

    package func write<T: Sendable>(_ body: @Sendable (StateTransaction) throws -> T) async throws -> T {
        try await writer.write { db in try body(StateTransaction(db: db)) }
    }

    // MARK: reading

    /// Steps counted in `window` (per-second resolution: the seconds that start in it).
    public func steps(in window: TimeWindow) throws -> Int {
        try writer.read { db in try Self.steps(db, in: window) }
    }

    static func steps(_ db: Database, in window: TimeWindow) throws -> Int {
        typealias C = StepsRecord.Columns
        let (first, end) = (window.start.secondsSinceEpochRoundedUp, window.end.secondsSinceEpochRoundedUp)
        return try Int.fetchOne(db, StepsRecord.filter(C.second >= first && C.second < end).select(sum(C.count))) ?? 0
    }

    /// Steps per period of `bucket` seconds in `window`, keyed by the period's start (seconds since the epoch,
    /// periods aligned to `offset` seconds east of UTC).
    public func stepsPerPeriod(in window: TimeWindow, bucket: Int64, offset: Int64 = 0) throws -> [(
        start: Int64, steps: Int
    )] {
        try writer.read { db in try Self.stepsPerPeriod(db, in: window, bucket: bucket, offset: offset) }
    }

    static func stepsPerPeriod(_ db: Database, in window: TimeWindow, bucket: Int64, offset: Int64 = 0) throws
        -> [(start: Int64, steps: Int)]
    {
        try Row.fetchAll(
            db,
            sql: """
                SELECT ((second + ?) / ?) * ? - ? AS p, SUM(count) AS n FROM steps
                WHERE second >= ? AND second < ? GROUP BY p ORDER BY p
                """,
            arguments: [
                offset, bucket, bucket, offset, window.start.secondsSinceEpochRoundedUp,
                window.end.secondsSinceEpochRoundedUp,
            ]
        )
        .map { (start: $0["p"], steps: $0["n"]) }
    }

    /// The steps of `window` per UTC minute, as readings over their minutes: what the window's chart and its busiest
    /// hour are drawn from (a day is at most 1,440 rows however many seconds hold steps).
    static func stepsPerMinute(_ db: Database, in window: TimeWindow) throws -> [StepReading] {
        try stepsPerPeriod(db, in: window, bucket: 60).map {
            StepReading(
                start: Instant(nanosecondsSinceEpoch: $0.start * 1_000_000_000),
                end: Instant(nanosecondsSinceEpoch: ($0.start + 60) * 1_000_000_000), steps: $0.steps)
        }
    }

    /// Merges steps long behind the posted windows into minutes (`StepsCompaction`), a day of them per call.
    public func mergeOldSteps() throws {
        try writer.write { db in
            guard let posted = try WindowStateRecord.postedUntil(db) else { return }
            try StepsCompaction.merge(db, postedUntil: posted)
        }
    }

    /// First and last second (since the epoch) with stored steps.
    public func stepRange() throws -> (first: Int64, last: Int64)? {
        try writer.read { db in
            let second = StepsRecord.Columns.second
            guard let row = try Row.fetchOne(db, StepsRecord.select(min(second), max(second))),
                let a: Int64 = row[0], let b: Int64 = row[1]
            else { return nil }
            return (a, b)
        }
    }

    /// Sets where the next since-last window begins when no window was posted yet (the demo starts its clock there).
    public func setWindowStartIfUnset(_ start: Instant) throws {
        try writer.write { db in try WindowStateRecord.setPostedUntilIfUnset(db, start) }
    }

    /// Stores steps per second; seconds long past (`StepsCompaction.placed`) as their minute. Steps for time a posted
    /// window already covered are late: they are kept for the next window (`WindowStateRecord.lateSteps`), never
    /// dropped. A change that lowers time already posted (a resend with a smaller count) lowers nothing posted: it is
    /// returned, for the fetch to report.
    @discardableResult
    static func addBuckets(_ db: Database, _ buckets: [Int64: Int], nowNs: Int64) throws -> (late: Int, lowered: Int) {
        try addLateSteps(db, net: try placeBuckets(db, buckets, nowNs: nowNs))
    }

    /// Adds `buckets` to the steps table and returns the steps they add in time already posted (less than 0 when
    /// they lower it): `addBuckets` in parts, whose nets `addLateSteps` takes summed.
    static func placeBuckets(_ db: Database, _ buckets: [Int64: Int], nowNs: Int64) throws -> Int {
        guard !buckets.isEmpty else { return 0 }
        let placed = try StepsCompaction.placed(db, buckets, nowNs: nowNs)
        var net = 0
        if let postedUntil = try WindowStateRecord.postedUntil(db) {
            for (second, count) in placed where Instant(secondsSinceEpoch: second) < postedUntil { net += count }
        }
        try insertBuckets(db, placed)
        return net
    }

    /// Counts `net` steps added in time already posted as late steps; returns them, or the steps lowered there.
    static func addLateSteps(_ db: Database, net: Int) throws -> (late: Int, lowered: Int) {
        if net > 0 { try WindowStateRecord.addLateSteps(db, net) }
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
}
