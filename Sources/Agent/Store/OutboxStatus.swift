import GRDB

/// Where an outbox entry stands. Stored as its raw value, the same strings every database written so far holds.
public enum OutboxStatus: String, Codable, Sendable, CaseIterable, DatabaseValueConvertible {
    /// Waiting for delivery (first attempt, or retried after a temporary failure).
    case pending
    /// On the target (delivered, or found there).
    case delivered
    /// Refused for good (a 4xx, an over-long text); waits for `steptweet outbox retry` or `drop`.
    case failed
    /// Given up by hand (`steptweet outbox drop`): never sent.
    case dropped
}

/// What one delivery attempt of a fetch came to (in its report, logs and `fetch --json`).
public enum DeliveryResult: String, Codable, Sendable, CaseIterable, CustomStringConvertible {
    case delivered
    /// The target already had the post (same idempotency key, or found by a look-up).
    case alreadyDelivered = "already_delivered"
    /// Failed for now; retried at a later fetch.
    case retryable
    /// Refused for good; stays in the outbox as `failed`.
    case permanent
    /// Not attempted: not due yet, or no budget left.
    case deferred
    /// A dry run's "would be sent".
    case dryRun = "dry_run"

    public var isDelivered: Bool { self == .delivered || self == .alreadyDelivered }
    public var description: String { rawValue }
}
