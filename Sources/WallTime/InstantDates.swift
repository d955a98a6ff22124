import Foundation

// The one conversion between the package's `Instant` and Foundation's `Date` (text, calendars, time zones and HTTP
// dates are Foundation's).

extension Instant {
    /// The instant of `date`, to the nearest nanosecond.
    public init(_ date: Date) { self.init(nanosecondsSinceEpoch: Int64((date.timeIntervalSince1970 * 1e9).rounded())) }

    /// The date of the instant: whole seconds and the nanoseconds apart, so that a whole second stays whole.
    public var date: Date {
        let (seconds, nanoseconds) = nanosecondsSinceEpoch.quotientAndRemainder(dividingBy: 1_000_000_000)
        return Date(timeIntervalSince1970: Double(seconds) + Double(nanoseconds) * 1e-9)
    }
}

extension TimeWindow {
    /// The window from `start` to `end`, each to the nearest nanosecond.
    public init(start: Date, end: Date) { self.init(start: Instant(start), end: Instant(end)) }
}
