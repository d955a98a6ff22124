import Foundation
import GRDB
import WallTime

/// One fetch in the history (`fetch_history`): exactly one row per fetch, written when it ends and read back by
/// `history` and `status` (`status --json` writes it with its times as dates, `encode(to:)`).
public struct FetchHistoryRecord: Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "fetch_history"
    public enum Columns {
        static let id = Column("id")
        static let startedNs = Column("started_ns")
        static let endedNs = Column("ended_ns")
        static let trigger = Column("trigger")
        static let windowStartNs = Column("window_start_ns")
        static let windowEndNs = Column("window_end_ns")
        static let steps = Column("steps")
        static let result = Column("result")
        static let error = Column("error")
        static let lateSteps = Column("late_steps")
        static let warnings = Column("warnings")
    }

    /// Nil until the row is inserted.
    public var id: Int64?
    public var started: Instant
    public var ended: Instant
    public var trigger: FetchTriggers
    /// The window the fetch considered; nil when it failed before it got to one.
    public var window: TimeWindow?
    public var steps: Int?
    public var result: FetchResult
    public var error: String?
    /// Late steps the fetch posted (steps that arrived after the window covering their time was posted).
    public var lateSteps: Int?
    /// What the fetch worked around or found in its input (`FetchReport.warnings`); stored as a JSON array, or
    /// NULL when none.
    public var warnings: [String] = []

    /// The history row of a fetch that began at `started` and ended at `ended` (the agent makes it from its report).
    package init(
        started: Instant, ended: Instant, trigger: FetchTriggers, window: TimeWindow?, steps: Int?,
        result: FetchResult, error: String?, lateSteps: Int?, warnings: [String]
    ) {
        self.started = started
        self.ended = ended
        self.trigger = trigger
        self.window = window
        self.steps = steps
        self.result = result
        self.error = error
        self.lateSteps = lateSteps
        self.warnings = warnings
    }

    public init(row r: Row) throws {
        id = r[Columns.id]
        started = r[Columns.startedNs]
        ended = r[Columns.endedNs]
        let triggerText: String = r[Columns.trigger]
        guard let trigger = FetchTriggers(names: triggerText) else {
            throw DatabaseError(message: "fetch_history.trigger: unknown trigger '\(triggerText)'")
        }
        self.trigger = trigger
        if let start: Instant = r[Columns.windowStartNs], let end: Instant = r[Columns.windowEndNs] {
            window = TimeWindow(start: start, end: end)
        }
        steps = r[Columns.steps]
        let resultText: String = r[Columns.result]
        guard let result = FetchResult(rawValue: resultText) else {
            throw DatabaseError(message: "fetch_history.result: unknown result '\(resultText)'")
        }
        self.result = result
        error = r[Columns.error]
        lateSteps = r[Columns.lateSteps]
        warnings =
            (r[Columns.warnings] as String?).flatMap { try? JSONDecoder().decode([String].self, from: Data($0.utf8)) }
            ?? []
    }

    public func encode(to container: inout PersistenceContainer) throws {
        container[Columns.id] = id
        container[Columns.startedNs] = started
        container[Columns.endedNs] = ended
        container[Columns.trigger] = trigger.description
        container[Columns.windowStartNs] = window?.start
        container[Columns.windowEndNs] = window?.end
        container[Columns.steps] = steps
        container[Columns.result] = result.rawValue
        container[Columns.error] = error
        container[Columns.lateSteps] = lateSteps
        container[Columns.warnings] =
            warnings.isEmpty ? nil : String(decoding: try JSONEncoder().encode(warnings), as: UTF8.self)
    }
}

extension FetchHistoryRecord: Encodable {
    /// The keys `status --json` has always written for a fetch (snake_cased by the command).
    enum JSONKeys: String, CodingKey {
        case id, started, ended, trigger, windowStart, windowEnd, steps, result, error, lateSteps, warnings
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: JSONKeys.self)
        try c.encodeIfPresent(id, forKey: .id)
        try c.encode(started.date, forKey: .started)
        try c.encode(ended.date, forKey: .ended)
        try c.encode(trigger, forKey: .trigger)
        try c.encodeIfPresent(window?.start.date, forKey: .windowStart)
        try c.encodeIfPresent(window?.end.date, forKey: .windowEnd)
        try c.encodeIfPresent(steps, forKey: .steps)
        try c.encode(result, forKey: .result)
        try c.encodeIfPresent(error, forKey: .error)
        try c.encodeIfPresent(lateSteps, forKey: .lateSteps)
        try c.encode(warnings, forKey: .warnings)
    }
}

extension StateStore {
    /// Adds a fetch's row to the history.
    package func record(history: FetchHistoryRecord) throws {
        try writer.write { db in try history.insert(db) }
    }

    /// The last `limit` fetches, newest first.
    public func history(limit: Int = 20) throws -> [FetchHistoryRecord] {
        try writer.read { db in
            try FetchHistoryRecord.order(FetchHistoryRecord.Columns.id.desc).limit(limit).fetchAll(db)
        }
    }
}
