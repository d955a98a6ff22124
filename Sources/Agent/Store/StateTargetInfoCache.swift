import Foundation
import GRDB
import Messages
import Publishing

/// What targets read from their servers (Mastodon's `max_characters` and `characters_reserved_per_url` from
/// `/api/v2/instance`), kept in the state database so that a one-shot `steptweet fetch` from cron asks once a day,
/// not on every run. The database is opened on first use; a failure to read or write it only means asking the server
/// again.
public actor StateTargetInfoCache: TargetInfoCache {
    let statePath: String
    private var store: StateStore?

    public init(statePath: String) {
        self.statePath = statePath
    }

    public func info(_ key: String) -> TargetInfo? {
        guard let store = open() else { return nil }
        return try? store.writer.read { db in
            try TargetInfoRecord.fetchOne(db, key: key).map {
                TargetInfo(value: $0.value, storedAt: Timestamps.date(nanoseconds: $0.storedNs))
            }
        }
    }

    public func store(_ info: TargetInfo, for key: String) {
        guard let store = open() else { return }
        try? store.writer.write { db in
            try TargetInfoRecord(key: key, value: info.value, storedNs: Timestamps.nanoseconds(info.storedAt)).upsert(
                db)
        }
    }

    private func open() -> StateStore? {
        if store == nil { store = try? StateStore(path: statePath, busyTimeout: 2) }
        return store
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
