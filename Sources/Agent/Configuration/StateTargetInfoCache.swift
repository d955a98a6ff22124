import Foundation
import Messages
import Publishing
import Store
import WallTime

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
        try open().targetInfo(key).map {
            TargetInfo(value: $0.value, storedAt: $0.stored.date)
        }
    }

    public func storeDurably(_ info: TargetInfo, for key: String) throws {
        let record = TargetInfoRecord(key: key, value: info.value, stored: Instant(info.storedAt))
        try open().storeDurably(record)
    }

    private func open() throws -> StateStore {
        if let store { return store }
        let opened = try StateStore(path: statePath, busyTimeout: 2)
        store = opened
        return opened
    }
}
