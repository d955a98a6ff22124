import Foundation

/// How long to wait before the next attempt: the server's wish when it gave one, otherwise exponential backoff with
/// "equal jitter" (half fixed, half random), so that many agents failing together do not retry together.
public enum Backoff {
    /// The longest wait a server's wish is honoured for: a day, the longest rate-limit window of the targets (X's
    /// daily post limit). A longer `Retry-After` (`99999999999`, a date in the year 9999: a broken proxy or a hostile
    /// server) waits a day: in nanoseconds it would not fit the outbox's next attempt, and it would hold the post
    /// back for years.
    public static let longestWish: TimeInterval = 86_400

    /// - Parameters:
    ///   - attempt: failed attempts so far (1 after the first failure).
    ///   - retryAfter: what the server asked for (Retry-After, rate-limit reset), if anything.
    ///   - base: the first delay before jitter; doubled for each further attempt.
    ///   - cap: the largest computed delay (a server's own `retryAfter` is honoured even above it, up to
    ///     `longestWish`).
    ///   - random: a number in 0..<1 (injectable for tests).
    /// - Returns: seconds to wait; for `retryAfter` that is `retryAfter` (at most `longestWish`) plus up to 10 % (at
    ///   most 5 s) of jitter, otherwise a value in `[d/2, d)` with `d = min(cap, base · 2^(attempt-1))`.
    public static func delay(
        attempt: Int, retryAfter: TimeInterval?, base: TimeInterval = 30,
        cap: TimeInterval = 3600, random: () -> Double = { Double.random(in: 0..<1) }
    ) -> TimeInterval {
        let r = min(max(random(), 0), 1)
        if let retryAfter, retryAfter.isFinite {
            let wish = min(max(0, retryAfter), longestWish)
            return wish + r * min(wish * 0.1, 5)
        }
        let exponent = Double(min(max(attempt, 1) - 1, 40))
        let d = min(cap, base * pow(2, exponent))
        return d / 2 + r * d / 2
    }
}
