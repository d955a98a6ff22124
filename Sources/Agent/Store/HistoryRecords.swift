import Foundation
import GRDB

/// One fetch as written to the history (`fetch_history`): exactly one row per fetch; read back as
/// `StateStore.HistoryEntry`.
struct FetchHistoryRecord: Encodable, PersistableRecord {
    static let databaseTableName = "fetch_history"
    static let databaseColumnEncodingStrategy = DatabaseColumnEncodingStrategy.convertToSnakeCase
    var startedNs: Int64
    var endedNs: Int64
    var trigger: String
    var windowStartNs: Int64?
    var windowEndNs: Int64?
    var steps: Int?
    var result: String
    var error: String?
    /// Of `steps`, those that arrived after their own window was posted.
    var lateSteps: Int?
    /// The fetch's warnings as a JSON array; nil when none.
    var warnings: String?
}

extension StateStore {
    /// One row of fetch history, as `history` and `status` show it: times as dates, warnings as a list.
    public struct HistoryEntry: Sendable, Codable, Equatable, FetchableRecord, TableRecord {
        public static let databaseTableName = "fetch_history"
        public enum Columns {
            static let id = Column("id")
        }

        public var id: Int64
        public var started: Date
        public var ended: Date
        public var trigger: String
        public var windowStart: Date?
        public var windowEnd: Date?
        public var steps: Int?
        public var result: String
        public var error: String?
        /// Late steps the fetch posted (steps that arrived after the window covering their time was posted).
        public var lateSteps: Int?
        /// What the fetch worked around or found in its input (`FetchReport.warnings`).
        public var warnings: [String] = []

        public init(row r: Row) throws {
            id = r["id"]
            started = StateStore.date(r["started_ns"])
            ended = StateStore.date(r["ended_ns"])
            trigger = r["trigger"]
            windowStart = (r["window_start_ns"] as Int64?).map(StateStore.date)
            windowEnd = (r["window_end_ns"] as Int64?).map(StateStore.date)
            steps = r["steps"]
            result = r["result"]
            error = r["error"]
            lateSteps = r["late_steps"]
            warnings =
                (r["warnings"] as String?).flatMap { try? JSONDecoder().decode([String].self, from: Data($0.utf8)) }
                ?? []
        }
    }

    /// The last `limit` fetches, newest first.
    public func history(limit: Int = 20) throws -> [HistoryEntry] {
        try writer.read { db in try HistoryEntry.order(HistoryEntry.Columns.id.desc).limit(limit).fetchAll(db) }
    }
}
