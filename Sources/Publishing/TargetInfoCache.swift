import Foundation

/// One fact a target read from its server (Mastodon's character limit, X's rotated OAuth 2.0 tokens), with when it
/// was read.
public struct TargetInfo: Sendable, Equatable {
    public var value: String
    public var storedAt: Date

    public init(value: String, storedAt: Date) {
        self.value = value
        self.storedAt = storedAt
    }
}

/// Where targets keep what they read from their servers so that it is read once, not on every post: the agent
/// keeps it in its state database (it survives restarts), tests and one-shot commands in memory. Keys are chosen by
/// the target and include its server, e.g. `mastodon.max_characters https://mastodon.example`. A target decides
/// itself how old an entry may be (`storedAt`).
///
/// Two kinds of entries: facts the server can be asked for again (`info`, `store`: a failure only means asking
/// again), and what cannot be had again once lost (X's rotated refresh token, whose predecessor stops working):
/// `readInfo` and `storeDurably` throw instead, and `storeDurably` returns only once the entry would survive a crash
/// or a power cut of the machine.
public protocol TargetInfoCache: Sendable {
    /// The entry stored under `key`, if any; throws when the store cannot be read.
    func readInfo(_ key: String) async throws -> TargetInfo?
    /// Stores (replaces) the entry under `key` durably; throws when it is not stored.
    func storeDurably(_ info: TargetInfo, for key: String) async throws
}

extension TargetInfoCache {
    /// The entry stored under `key`, or nil when there is none or it cannot be read (a fact to ask the server for).
    public func info(_ key: String) async -> TargetInfo? { try? await readInfo(key) }
    /// Stores (replaces) the entry under `key` if it can (a fact the server can be asked for again).
    public func store(_ info: TargetInfo, for key: String) async { try? await storeDurably(info, for: key) }
}

/// A `TargetInfoCache` in memory, for one process.
public actor InMemoryTargetInfoCache: TargetInfoCache {
    private var entries: [String: TargetInfo] = [:]

    public init() {}

    public func readInfo(_ key: String) -> TargetInfo? { entries[key] }
    public func storeDurably(_ info: TargetInfo, for key: String) { entries[key] = info }
}
