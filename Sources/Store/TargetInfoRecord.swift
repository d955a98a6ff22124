import GRDB
import WallTime

/// A fact a target read from its server (`target_info`), with when it was read: Mastodon's limits, X's rotated OAuth
/// 2.0 tokens, Bluesky's session (the agent's `StateTargetInfoCache` keeps Publishing's `TargetInfo` here).
package struct TargetInfoRecord: Codable, Sendable, FetchableRecord, PersistableRecord {
    package static let databaseTableName = "target_info"
    enum CodingKeys: String, CodingKey {
        case key, value
        case stored = "stored_ns"
    }
    package enum Columns {
        static let key = Column(CodingKeys.key)
        static let value = Column(CodingKeys.value)
        static let stored = Column(CodingKeys.stored)
    }
    package var key: String
    package var value: String
    /// When it was read.
    package var stored: Instant

    package init(key: String, value: String, stored: Instant) {
        self.key = key
        self.value = value
        self.stored = stored
    }
}

extension StateStore {
    /// The fact kept under `key`; nil when none is.
    package func targetInfo(_ key: String) throws -> TargetInfoRecord? {
        try writer.read { db in try TargetInfoRecord.fetchOne(db, key: key) }
    }

    /// Keeps a fact with `synchronous = FULL`: the pool's connections run WAL with `NORMAL`, whose last commits a
    /// power cut may undo, and a lost rotated refresh token cannot be had again.
    package func storeDurably(_ record: TargetInfoRecord) throws {
        try writer.writeWithoutTransaction { db in
            // Not inside a transaction: SQLite ignores a change of `synchronous` there.
            try db.execute(sql: "PRAGMA synchronous = FULL")
            defer { try? db.execute(sql: "PRAGMA synchronous = NORMAL") }
            try db.inTransaction {
                try record.upsert(db)
                return .commit
            }
        }
    }
}
