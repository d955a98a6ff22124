import Foundation
import GRDB
import Messages
import Publishing

/// What targets read from their servers (Mastodon's `max_characters` from `/api/v2/instance`), kept in the state
/// database so that a one-shot `steptweet fetch` from cron asks once a day, not on every run. The database is
/// opened on first use; a failure to read or write it only means asking the server again.
public actor StateTargetInfoCache: TargetInfoCache {
    let statePath: String
    private var store: StateStore?

    public init(statePath: String) {
        self.statePath = statePath
    }

    public func info(_ key: String) -> TargetInfo? {
        guard let store = open() else { return nil }
        return try? store.writer.read { db in
            try Row.fetchOne(db, sql: "SELECT value, stored_ns FROM target_info WHERE key = ?", arguments: [key]).map {
                TargetInfo(value: $0["value"], storedAt: Timestamps.date(nanoseconds: $0["stored_ns"]))
            }
        }
    }

    public func store(_ info: TargetInfo, for key: String) {
        guard let store = open() else { return }
        try? store.writer.write { db in
            try db.execute(
                sql: """
                    INSERT INTO target_info (key, value, stored_ns) VALUES (?, ?, ?)
                    ON CONFLICT(key) DO UPDATE SET value = excluded.value, stored_ns = excluded.stored_ns
                    """, arguments: [key, info.value, Timestamps.nanoseconds(info.storedAt)])
        }
    }

    private func open() -> StateStore? {
        if store == nil { store = try? StateStore(path: statePath, busyTimeout: 2) }
        return store
    }
}
