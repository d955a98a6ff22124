import Foundation
import GRDB
import Messages
import Publishing

/// What targets read from their servers (Mastodon's `max_characters` and `characters_reserved_per_url` from
/// `/api/v2/instance`; X's rotated OAuth 2.0 tokens; Bluesky's session), kept in the state database so that a one-shot
/// `steptweet fetch` from cron asks once a day and logs in once, not on every run, and so that a refresh token X has
/// rotated survives a restart. The
/// database is opened on first use; a failure to open, read or write it is thrown (`info` and `store` turn it into
/// "ask the server again"). `storeDurably` commits with `synchronous = FULL`: the pool's connections run WAL with
/// `NORMAL`, whose last commits a power cut may undo, and a lost rotated refresh token cannot be had again.
public actor StateTargetInfoCache: TargetInfoCache {
    let statePath: String
    private var store: StateStore?

    public init(statePath: String) {
        self.statePath = statePath
    }

    public func readInfo(_ key: String) throws -> TargetInfo? {
        try open().writer.read { db in
            try TargetInfoRecord.fetchOne(db, key: key).map {
                TargetInfo(value: $0.value, storedAt: Timestamps.date(nanoseconds: $0.storedNs))
            }
        }
    }

    public func storeDurably(_ info: TargetInfo, for key: String) throws {
        let record = TargetInfoRecord(key: key, value: info.value, storedNs: Timestamps.nanoseconds(info.storedAt))
        try open().writer.writeWithoutTransaction { db in
            // Not inside a transaction: SQLite ignores a change of `synchronous` there.
            try db.execute(sql: "PRAGMA synchronous = FULL")
            defer { try? db.execute(sql: "PRAGMA synchronous = NORMAL") }
            try db.inTransaction {
                try record.upsert(db)
                return .commit
            }
        }
    }

    private func open() throws -> StateStore {
        if let store { return store }
        let opened = try StateStore(path: statePath, busyTimeout: 2)
        store = opened
        return opened
    }
}

/// A fact a target read from its server (`target_info`), with when it was read.
struct TargetInfoRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "target_info"
    enum CodingKeys: String, CodingKey {
        case key, value
        case storedNs = "stored_ns"
    }
    var key: String
    var value: String
    var storedNs: Int64
}
