import Foundation

/// One post to deliver: the text and the idempotency key derived from its window (the same key on every retry).
public struct Post: Sendable, Equatable, Codable {
    public var text: String
    /// Stable key for this window, e.g. `steps-20261121T010000Z-20261121T013000Z`; each target maps it onto what it
    /// offers (Idempotency-Key header, Matrix txnId, Bluesky rkey, ...).
    public var idempotencyKey: String
    public var windowStart: Date
    public var windowEnd: Date

    public init(text: String, idempotencyKey: String, windowStart: Date, windowEnd: Date) {
        self.text = text
        self.idempotencyKey = idempotencyKey
        self.windowStart = windowStart
        self.windowEnd = windowEnd
    }
}

/// What one delivery attempt came to, classified from the transport and status code (never from message text).
public enum DeliveryOutcome: Sendable, Equatable {
    /// The target accepted the post; `remoteID` is its id there when the target returns one.
    case delivered(remoteID: String?)
    /// The target says this post already exists (same idempotency key, or X's duplicate-content 403).
    case alreadyDelivered(remoteID: String?)
    /// Worth retrying later: network error, deadline, 408, 429, 5xx. `retryAfter` is the server's wish, if it said.
    case retryable(reason: String, retryAfter: TimeInterval?)
    /// Will not succeed by retrying: other 4xx, bad configuration, text over the limit. `reason` shows the server's message.
    case permanent(reason: String)

    /// Whether the post is known to be on the target.
    public var isDelivered: Bool {
        switch self {
        case .delivered, .alreadyDelivered: return true
        default: return false
        }
    }
}

/// Where a post goes. Each target (webhook, Mastodon, X, Matrix, Bluesky, Discord, Slack, ntfy, stdout, file) is one
/// type behind this protocol.
public protocol Publisher: Sendable {
    /// Name used in logs, results and the outbox, e.g. `mastodon` or the configured table name.
    var name: String { get }
    /// Delivers `post`, giving up when `deadline` passes (a hard deadline, not an idle timeout).
    func publish(_ post: Post, deadline: Date) async -> DeliveryOutcome
}

/// Prints posts to standard output: the target used when no `[[publish]]` table is configured.
public struct StdoutPublisher: Publisher {
    public let name = "stdout"
    public init() {}

    public func publish(_ post: Post, deadline: Date) async -> DeliveryOutcome {
        print(post.text)
        return .delivered(remoteID: nil)
    }
}
