/// A stretch of wall time, `[start, end)`: the one shape of a window from its closing (Store) through its text
/// (Messages), its post (Publishing) and the fetch's report and history (Agent).
///
/// Encodes (Codable) as `{"start": ns, "end": ns}`.
public struct TimeWindow: Sendable, Hashable, Codable {
    public var start: Instant
    public var end: Instant

    /// `[start, end)`; an `end` before `start` is taken as `start` (an empty window).
    public init(start: Instant, end: Instant) {
        self.start = start
        self.end = max(start, end)
    }

    public var duration: Duration { start.duration(to: end) }

    /// Whether `instant` is in `[start, end)`.
    public func contains(_ instant: Instant) -> Bool { start <= instant && instant < end }

    /// The window of the same length just before this one.
    public var previous: TimeWindow { TimeWindow(start: start - duration, end: start) }
}
