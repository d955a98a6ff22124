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
