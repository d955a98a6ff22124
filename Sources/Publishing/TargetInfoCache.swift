import Foundation

/// One fact a target read from its server (Mastodon's character limit), with when it was read.
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
public protocol TargetInfoCache: Sendable {
    /// The entry stored under `key`, if any.
    func info(_ key: String) async -> TargetInfo?
    /// Stores (replaces) the entry under `key`.
    func store(_ info: TargetInfo, for key: String) async
}

/// A `TargetInfoCache` in memory, for one process.
public actor InMemoryTargetInfoCache: TargetInfoCache {
    private var entries: [String: TargetInfo] = [:]

    public init() {}

    public func info(_ key: String) -> TargetInfo? { entries[key] }
    public func store(_ info: TargetInfo, for key: String) { entries[key] = info }
}
