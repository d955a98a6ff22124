import Foundation
import Messages

/// The result of a fetch, as iOS's `UIBackgroundFetchResult`: exactly one per fetch.
public enum FetchResult: String, Codable, Sendable {
    case newData = "NewData"
    case noData = "NoData"
    case failed = "Failed"
}

/// What one fetch did: the windows it added to the outbox, the deliveries it tried, and its result.
public struct FetchReport: Codable, Sendable {
    /// A window composed by this fetch.
    public struct Window: Codable, Sendable, Equatable {
        public var start: Date
        public var end: Date
        public var steps: Int
        public var text: String
        public var idempotencyKey: String
    }

    /// One delivery attempt (or, in a dry run, a delivery that would be attempted).
    public struct Delivery: Codable, Sendable, Equatable {
        public var target: String
        public var idempotencyKey: String
        public var windowStart: Date
        public var windowEnd: Date
        /// `delivered`, `already_delivered`, `retryable`, `permanent`, `deferred` (not due or no budget) or `dry_run`.
        public var outcome: String
        public var remoteID: String?
        public var reason: String?
    }

    public var result: FetchResult
    public var reason: String?
    /// For a failed fetch, the kind of its (first) failure.
    public var failureKind: FetchFailureKind?
    public var trigger: String
    public var now: Date
    public var dryRun: Bool
    /// The window considered, even when nothing was posted for it.
    public var windowStart: Date?
    public var windowEnd: Date?
    public var steps: Int?
    public var windows: [Window] = []
    public var deliveries: [Delivery] = []
    /// Walking bouts that ended in the data ingested by this fetch.
    public var boutsEnded = 0
    /// Time the fetch took (monotonic clock), in milliseconds.
    public var elapsedMs = 0.0

    public init(result: FetchResult, reason: String? = nil, trigger: String, now: Date, dryRun: Bool) {
        self.result = result
        self.reason = reason
        self.trigger = trigger
        self.now = now
        self.dryRun = dryRun
    }

    /// Marks the fetch failed for `reason`, of `kind`.
    mutating func fail(_ reason: String, kind: FetchFailureKind) {
        result = .failed
        self.reason = reason
        failureKind = kind
    }

    /// `NewData`, `NoData` or `Failed: <reason>`.
    public var line: String { result == .failed ? "Failed: \(reason ?? "unknown")" : result.rawValue }
}
