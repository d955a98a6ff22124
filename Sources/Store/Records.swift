import Foundation
import GRDB
import StepDetection
import WallTime

// Typed GRDB records: each owns the SQL of its table, so no code outside `Store` writes SQL.
// The tables themselves are created by `Migrations.migrator`.

/// The window position (`window_state`, a single row): where the next window begins.
struct WindowStateRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "window_state"
    enum CodingKeys: String, CodingKey {
        case id
        case postedUntilNs = "posted_until_ns"
        case lateSteps = "late_steps"
    }
    enum Columns {
        static let postedUntilNs = Column(CodingKeys.postedUntilNs)
        static let lateSteps = Column(CodingKeys.lateSteps)
    }
    var id: Int64 = 1
    var postedUntilNs: Instant
    /// Steps that arrived for time already posted, for the next window.
    var lateSteps = 0

    /// Where the last posted window ended; nil before the first window.
    static func postedUntil(_ db: Database) throws -> Instant? {
        try fetchOne(db, key: 1)?.postedUntilNs
    }

    /// Moves the position to `instant`.
    static func setPostedUntil(_ db: Database, _ instant: Instant) throws {
        try WindowStateRecord.filter(key: 1).updateAll(db, Columns.postedUntilNs.set(to: instant))
        try WindowStateRecord(postedUntilNs: instant).insert(db, onConflict: .ignore)
    }

    /// Late steps waiting for the next window (0 before the first window).
    static func lateSteps(_ db: Database) throws -> Int {
        try fetchOne(db, key: 1)?.lateSteps ?? 0
    }

    static func addLateSteps(_ db: Database, _ steps: Int) throws {
        try WindowStateRecord.filter(key: 1).updateAll(db, Columns.lateSteps.set(to: Columns.lateSteps + steps))
    }

    /// The late steps were posted in a window.
    static func clearLateSteps(_ db: Database) throws {
        try WindowStateRecord.filter(key: 1).updateAll(db, Columns.lateSteps.set(to: 0))
    }

    /// Sets the position to `instant` only when there is none yet.
    static func setPostedUntilIfUnset(_ db: Database, _ instant: Instant) throws {
        try WindowStateRecord(postedUntilNs: instant).insert(db, onConflict: .ignore)
    }
}

/// Steps per second (`steps`): a row per second with steps, or per minute where they were merged
/// (`StepsCompaction`). Hot: written through a prepared statement (`StateStore.addBuckets`).
struct StepsRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "steps"
    enum Columns {
        static let second = Column(CodingKeys.second)
        static let count = Column(CodingKeys.count)
    }
    /// Seconds since the epoch.
    var second: Int64
    var count: Int

    /// The start of the first second with stored steps; nil when none are stored.
    static func first(_ db: Database) throws -> Instant? {
        try Int64.fetchOne(db, select(min(Columns.second))).map(Instant.init(secondsSinceEpoch:))
    }
}

/// A walking bout (`bouts`), keyed by its end; `handled` once a walk-trigger fetch has answered it.
struct BoutRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "bouts"
    enum CodingKeys: String, CodingKey {
        case endNs = "end_ns"
        case startNs = "start_ns"
        case steps, handled
    }
    enum Columns {
        static let endNs = Column(CodingKeys.endNs)
        static let startNs = Column(CodingKeys.startNs)
        static let handled = Column(CodingKeys.handled)
    }
    var endNs: Int64
    var startNs: Int64
    var steps: Int
    var handled: Bool

    /// Bouts that ended in `window`.
    static func count(_ db: Database, endingIn window: TimeWindow) throws -> Int {
        try filter(Columns.endNs >= window.start && Columns.endNs < window.end).fetchCount(db)
    }

    /// Bouts that overlap `window`, as the window's chart shades them.
    static func overlapping(_ db: Database, _ window: TimeWindow) throws -> [WalkingBout] {
        try filter(Columns.endNs > window.start && Columns.startNs < window.end).order(Columns.endNs).fetchAll(db).map {
            WalkingBout(
                start: Instant(nanosecondsSinceEpoch: $0.startNs), end: Instant(nanosecondsSinceEpoch: $0.endNs),
                steps: $0.steps)
        }
    }

    /// Marks the bouts no fetch has answered yet as answered; returns how many there were.
    static func answerUnhandled(_ db: Database) throws -> Int {
        try filter(Columns.handled == false).updateAll(db, Columns.handled.set(to: true))
    }
}

/// A source's saved reading position (`source_cursor`). Its JSON columns stay text here and the agent's
/// `SavedSource` decodes them one by one, so that a column written by another version loses only itself.
package struct SourceCursorRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    package static let databaseTableName = "source_cursor"
    enum CodingKeys: String, CodingKey {
        case source, cursor, detector
        case lastSample = "last_sample_ns"
        case lastReadingEnd = "last_reading_end_ns"
        case skipReadingsThrough = "skip_readings_through_ns"
        case firstData = "first_data_ns"
        case skippedLines = "skipped_lines"
        case remotePosition = "remote_position"
        case updated = "updated_ns"
    }
    package enum Columns {
        static let source = Column(CodingKeys.source)
    }
    package var source: String
    package var cursor: String?
    package var detector: String?
    package var lastSample: Instant?
    package var lastReadingEnd: Instant?
    package var skipReadingsThrough: Instant?
    package var firstData: Instant?
    package var skippedLines: String?
    package var remotePosition: String?
    package var updated: Instant

    package init(
        source: String, cursor: String?, detector: String?, lastSample: Instant?, lastReadingEnd: Instant?,
        skipReadingsThrough: Instant?, firstData: Instant?, skippedLines: String?, remotePosition: String?,
        updated: Instant
    ) {
        self.source = source
        self.cursor = cursor
        self.detector = detector
        self.lastSample = lastSample
        self.lastReadingEnd = lastReadingEnd
        self.skipReadingsThrough = skipReadingsThrough
        self.firstData = firstData
        self.skippedLines = skippedLines
        self.remotePosition = remotePosition
        self.updated = updated
    }
}
