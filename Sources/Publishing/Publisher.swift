import Foundation
import Messages
import WallTime

/// One post to deliver: the text and the idempotency key derived from its window (the same key on every retry).
public struct Post: Sendable, Equatable, Codable {
    public var text: String
    /// Stable key for this window, e.g. `steps-20261121T010000Z-20261121T013000Z`; each target maps it onto what it
    /// offers (Idempotency-Key header, Matrix txnId, Bluesky rkey, ...).
    public var idempotencyKey: String
    /// The window the post tells of.
    public var window: TimeWindow
    /// The window's chart, for targets with `image = "chart"`; nil for a text-only post.
    public var image: PostImage?

    public init(text: String, idempotencyKey: String, window: TimeWindow, image: PostImage? = nil) {
        self.text = text
        self.idempotencyKey = idempotencyKey
        self.window = window
        self.image = image
    }
}

/// What one delivery attempt came to, classified from the transport and status code (never from message text).
public enum DeliveryOutcome: Sendable, Equatable {
    /// The target accepted the post; `remoteID` is its id there when the target returns one.
    case delivered(remoteID: String?)
    /// The target says this post already exists (same idempotency key, or X's duplicate-content 403).
    case alreadyDelivered(remoteID: String?)
    /// The text went out without its image: the upload failed and the target has `image_required = false`.
    /// `reason` says why, for the fetch report's note on the delivery.
    case deliveredWithoutImage(remoteID: String?, reason: String)
    /// Worth retrying later: network error, deadline, 408, 429, 5xx. `retryAfter` is the server's wish, if it said.
    /// `unconfirmed`: the request may have reached the target and been acted on (no answer before the deadline, a
    /// dropped connection, 5xx); false when it certainly was not (refused connection, 408, 425, 429).
    case retryable(reason: String, retryAfter: TimeInterval?, unconfirmed: Bool = false)
    /// Will not succeed by retrying: other 4xx, bad configuration, text over the limit. `reason` shows the server's message.
    case permanent(reason: String)

    /// Whether the post is known to be on the target.
    public var isDelivered: Bool {
        switch self {
        case .delivered, .alreadyDelivered, .deliveredWithoutImage: return true
        default: return false
        }
    }
}

extension Post {
    /// The idempotency key of a window: `steps-<start>-<end>` with both ends in UTC as `yyyyMMddTHHmmssZ` (plus
    /// `.mmm` milliseconds when a bound is not on a whole second), e.g. `steps-20261121T010000Z-20261121T013000Z`.
    /// Deterministic: the same window always gives the same key, on every retry and after a restart. Only
    /// `[A-Za-z0-9.-]`, so it is safe as a header value, a Matrix txnId and a file name.
    ///
    /// Targets map it as follows: Mastodon and webhooks `Idempotency-Key` header; Matrix the `{txnId}` path
    /// segment and `org.steptweet.idempotency_key` in the event's content; Bluesky a TID record key derived from the window start (`BlueskyPublisher.recordKey`); ntfy,
    /// Misskey, Discord, Slack and X have no key (X answers a repeat with 403 duplicate content, reported as
    /// `.alreadyDelivered`); the file target skips a key it already holds.
    public static func idempotencyKey(for window: TimeWindow) -> String {
        "steps-\(keyTime(window.start.date))-\(keyTime(window.end.date))"
    }

    /// A post for a window, with the key from `idempotencyKey(for:)`.
    public init(text: String, window: TimeWindow) {
        self.init(text: text, idempotencyKey: Post.idempotencyKey(for: window), window: window)
    }

    static func keyTime(_ date: Date) -> String {
        let millis = Int64((date.timeIntervalSince1970 * 1000).rounded())
        let seconds = Int64((Double(millis) / 1000).rounded(.down))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let c = calendar.dateComponents(
            [.year, .month, .day, .hour, .minute, .second],
            from: Date(timeIntervalSince1970: TimeInterval(seconds)))
        var text = String(
            format: "%04d%02d%02dT%02d%02d%02d", c.year ?? 0, c.month ?? 0, c.day ?? 0,
            c.hour ?? 0, c.minute ?? 0, c.second ?? 0)
        let fraction = millis - seconds * 1000
        if fraction != 0 { text += String(format: ".%03d", Int(fraction)) }
        return text + "Z"
    }
}

/// Where a post goes. Each target (webhook, Mastodon, X, Matrix, Bluesky, Discord, Slack, ntfy, Misskey, stdout,
/// file) is one type behind this protocol, declared to the factory by its `static let target: TargetKind`.
public protocol Publisher: Sendable {
    /// Name used in logs, results and the outbox, e.g. `mastodon` or the configured table name.
    var name: String { get }
    /// Delivers `post`, giving up when `deadline` passes (a hard deadline on the deadline's clock, not an idle
    /// timeout).
    func publish(_ post: Post, deadline: Deadline) async -> DeliveryOutcome
    /// The length rule the target enforces (checked before any request), nil when it has none worth checking.
    var lengthRule: LengthRule? { get }
    /// A one-line description for logs and `--dry-run`, with secrets and webhook URLs redacted.
    var redactedDescription: String { get }
    /// Whether sending a post again can make a second one there: the target has no idempotency key and no
    /// duplicate check (Discord, Slack, ntfy, Misskey), servers may ignore its key (Mastodon) or forget it (Matrix's
    /// txnId, after 24 h on Synapse or with a new login). Such targets are
    /// asked `lookUp` before a post is resent after an unconfirmed attempt.
    var repeatsDuplicate: Bool { get }
    /// For `repeatsDuplicate` targets that cannot look a post up: resend after an unconfirmed attempt (at least once,
    /// the default) or give the post up (at most once; `resend_unconfirmed = false`).
    var resendUnconfirmed: Bool { get }
    /// Whether `post` is already on the target (an earlier attempt went through although its answer was lost).
    func lookUp(_ post: Post, deadline: Deadline) async -> PostLookup
    /// How long, and for which credentials, the target surely still knows a post's idempotency key after an attempt:
    /// a resend within that is answered with the first post, never a second one. Asked when `lookUp` fails; nil (the
    /// default) when no resend of an unconfirmed attempt is safe without a look-up.
    var keyMemory: KeyMemory? { get }
    /// Whether its posts carry the window's chart (`image`, `image_required`).
    var image: ImageOption { get }
    /// Why the target would refuse `text` (over its length, characters it refuses), as far as that is known without
    /// asking its server; nil when it takes the text, or cuts it (`shorten = true`). Asked when a window closes, so
    /// a text no retry can deliver is found then, not at its first attempt.
    func refusal(of text: String) -> String?
}

extension Publisher {
    public var lengthRule: LengthRule? { nil }
    public var redactedDescription: String { name }
    public var repeatsDuplicate: Bool { false }
    public var resendUnconfirmed: Bool { true }
    public var image: ImageOption { .off }
    public func refusal(of text: String) -> String? { nil }
    public func lookUp(_ post: Post, deadline: Deadline) async -> PostLookup { .unsupported }
    public var keyMemory: KeyMemory? { nil }
}

/// How long a target remembers the idempotency keys it was sent, and under which credentials (`Publisher.keyMemory`).
public struct KeyMemory: Sendable, Equatable {
    /// How long after an attempt its key is surely still known, less a margin for clocks and slow requests.
    public var lifetime: Duration
    /// Names what the keys are remembered for (a fingerprint of the server, the place and the credential, never the
    /// secret): an attempt made under another scope is unknown to this one.
    public var scope: String

    public init(lifetime: Duration, scope: String) {
        self.lifetime = lifetime
        self.scope = scope
    }

    /// Whether a resend at `now` is answered with the post of an attempt first made at `firstAttempt` under `scope`:
    /// the same scope, and younger than `lifetime` (a clock that went back leaves the age unknown: not covered).
    public func covers(firstAttempt: Date, scope: String?, now: Date) -> Bool {
        guard scope == self.scope, now >= firstAttempt else { return false }
        return now.timeIntervalSince(firstAttempt) < lifetime / .seconds(1)
    }
}

/// What looking for a post on its target found.
public enum PostLookup: Sendable, Equatable {
    case found(remoteID: String?)
    case notFound
    /// The lookup itself failed (network, deadline, HTTP error): whether the post is there is unknown.
    case failed(reason: String)
    /// The target offers no way to look.
    case unsupported
}

/// Ends a delivery attempt early with `outcome` (an over-long text, a failed login, ...).
public struct Stop: Error, Sendable, Equatable {
    public var outcome: DeliveryOutcome
    public init(_ outcome: DeliveryOutcome) { self.outcome = outcome }
}

/// The length check every target runs before sending: an over-long text is a permanent error, or, when the
/// configuration says `shorten = true`, is cut at a grapheme boundary and ended with `…`.
public struct TextGate: Sendable, Equatable {
    public var rule: LengthRule?
    public var shorten: Bool

    public init(rule: LengthRule?, shorten: Bool = false) {
        self.rule = rule
        self.shorten = shorten
    }

    /// Why `text` cannot be sent, nil when it can (as it is, or cut).
    public func refusal(of text: String) -> String? {
        guard case .failure(let stop) = prepare(text), case .permanent(let reason) = stop.outcome else { return nil }
        return reason
    }

    /// The text to send, or the permanent outcome that stops the post.
    public func prepare(_ text: String) -> Result<String, Stop> {
        guard let rule else {
            return text.isEmpty ? .failure(Stop(.permanent(reason: "empty text"))) : .success(text)
        }
        let check = rule.check(text)
        if check.valid { return .success(text) }
        if shorten, !text.isEmpty, let cut = rule.shorten(text) { return .success(cut) }
        if text.isEmpty { return .failure(Stop(.permanent(reason: "empty text"))) }
        if check.weightedLength <= check.limit {
            if case .bluesky = rule {
                return .failure(
                    Stop(
                        .permanent(
                            reason:
                                "text too long for \(rule): \(text.utf8.count) bytes > 3000 (set shorten = true to cut it)"
                        )))
            }
            return .failure(Stop(.permanent(reason: "text refused by \(rule): it contains U+FFFE, U+FEFF or U+FFFF")))
        }
        return .failure(
            Stop(
                .permanent(
                    reason:
                        "text too long for \(rule): \(check.weightedLength) > \(check.limit) (set shorten = true to cut it)"
                )))
    }
}

/// Prints posts to standard output: the target used when no `[[publish]]` table is configured.
public struct StdoutPublisher: Publisher {
    public let name: String
    /// Writes one post's line, its newline included.
    let write: @Sendable (String) -> Void

    public init(name: String = "stdout") {
        self.init(name: name) { print($0, terminator: "") }
    }

    /// Posts written through `write` instead: `steptweet fetch` writes them through its console (to standard error
    /// with `--json`, whose standard output is one JSON document).
    public init(name: String, write: @escaping @Sendable (String) -> Void) {
        self.name = name
        self.write = write
    }

    public func publish(_ post: Post, deadline: Deadline) async -> DeliveryOutcome {
        write(post.text + "\n")
        fflush(nil)  // all output streams; the agent's stdout is usually a pipe to a journal: one post, one line, now
        return .delivered(remoteID: nil)
    }
}

extension StdoutPublisher {
    /// `kind = "stdout"`: no keys.
    public static let target = TargetKind("stdout", usesHTTP: false, takesImages: false) { config in
        StdoutPublisher(name: config.name)
    }
}
