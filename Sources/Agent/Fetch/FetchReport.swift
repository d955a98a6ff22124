import Foundation
import Messages
import Publishing
import Store
import WallTime

/// What one fetch did: the windows it added to the outbox, the deliveries it tried, and its result.
public struct FetchReport: Codable, Sendable {
    /// One delivery attempt (or, in a dry run, a delivery that would be attempted).
    public struct Delivery: Codable, Sendable, Equatable {
        public var target: String
        /// The window posted, as its outbox row keeps it.
        public var window: ClosedWindow
        /// `delivered`, `already_delivered`, `retryable`, `permanent`, `deferred` (not due or no budget) or `dry_run`.
        public var outcome: DeliveryResult
        public var remoteID: String?
        public var reason: String?
        /// What the operator should know about a delivery that went through, e.g. that it was posted without its
        /// image because the upload failed and the target has `image_required = false`.
        public var note: String?
    }

    public var result: FetchResult
    public var reason: String?
    /// For `Failed`: the most serious kind among its failures.
    public var failureKind: FailureKind?
    public var trigger: FetchTriggers
    /// When the fetch ran (virtual or real): the time its windows close at.
    public var now: Instant
    public var dryRun: Bool
    /// The window considered, even when nothing was posted for it.
    public var window: TimeWindow?
    public var steps: Int?
    /// The windows this fetch closed and queued, as committed.
    public var windows: [ClosedWindow] = []
    public var deliveries: [Delivery] = []
    /// A dry run's charts, by idempotency key, read back from its copy of the state (`fetch --dry-run --image-dir`
    /// writes them); a fetch keeps them in the outbox, not in its report.
    public var charts: [String: PostImage] = [:]
    /// Steps posted by this fetch that arrived after the window covering their time was posted (they went into the
    /// first window closed after they arrived).
    public var lateSteps = 0
    /// Walking bouts that ended in the data ingested by this fetch.
    public var boutsEnded = 0
    /// The budget ended ingestion before the source's end: the window closed at what was read, and the next fetch
    /// goes on from there.
    public var backlog = false
    /// Time the fetch took (monotonic clock), in milliseconds.
    public var elapsedMs = 0.0
    /// What the fetch worked around and the operator should know: saved state it could not read, and what it did
    /// instead.
    public var warnings: [String] = []

    public init(result: FetchResult, reason: String? = nil, trigger: FetchTriggers, now: Instant, dryRun: Bool) {
        self.result = result
        self.reason = reason
        self.trigger = trigger
        self.now = now
        self.dryRun = dryRun
    }

    /// Marks the fetch `Failed` for `reason`, of `kind`.
    mutating func fail(_ kind: FailureKind, _ reason: String) {
        result = .failed
        self.reason = reason
        failureKind = kind
    }

    /// One line for an operator's log: trigger, result, window with its steps, each target's outcome, elapsed time;
    /// times in `zone` with their offset. E.g. `fetch schedule: NewData; window 2026-11-21T10:00:00+09:00 〜
    /// 2026-11-21T10:30:00+09:00, 1234 steps; mastodon delivered (id 109), x retryable: HTTP 503; 412 ms`.
    public func logLine(zone: TimeZone) -> String {
        let f = { (d: Date) in Timestamps.format(d, zone: zone) }
        var parts = ["fetch \(trigger): \(line)"]
        if let window {
            parts.append(
                "window \(f(window.start.date)) 〜 \(f(window.end.date)), \(steps ?? 0) steps"
                    + (lateSteps != 0 ? " (\(lateSteps) late)" : ""))
        }
        let targets = deliveries.map { d in
            "\(d.target) \(d.outcome)" + (d.remoteID.map { " (id \($0))" } ?? "") + (d.reason.map { ": \($0)" } ?? "")
                + (d.note.map { " (\($0))" } ?? "")
        }
        if !targets.isEmpty { parts.append(targets.joined(separator: ", ")) }
        parts += warnings.map { "warning: \($0)" }
        parts.append(String(format: "%.0f ms", elapsedMs))
        return parts.joined(separator: "; ")
    }

    /// `NewData`, `NoData` or `Failed: <reason>`.
    public var line: String { result == .failed ? "Failed: \(reason ?? "unknown")" : result.rawValue }
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
