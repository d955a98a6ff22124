/// A point in wall time: nanoseconds since the Unix epoch (UTC), the one time type at the package's module boundaries.
///
/// It is the integer the state database and saved positions have always held, with its unit in the type: it encodes
/// (Codable) as that same integer, so saved JSON and state read and write byte for byte as before. Arithmetic takes
/// Swift's `Duration`; a `Date` is one conversion away in WallTime (`Instant(date)`, `instant.date`). Pure Swift,
/// without Foundation, so that StepDetection can use it.
public struct Instant: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// Nanoseconds since 1970-01-01T00:00:00Z.
    public var nanosecondsSinceEpoch: Int64

    @inlinable
    public init(nanosecondsSinceEpoch: Int64) { self.nanosecondsSinceEpoch = nanosecondsSinceEpoch }

    /// The start of the whole second `seconds` since the epoch.
    public init(secondsSinceEpoch seconds: Int64) { nanosecondsSinceEpoch = seconds * Self.nanosecondsPerSecond }

    /// 1970-01-01T00:00:00Z.
    public static let epoch = Instant(nanosecondsSinceEpoch: 0)

    /// The last instant an `Instant` holds (in 2262): an end no time reaches.
    public static let distantFuture = Instant(nanosecondsSinceEpoch: .max)

    static let nanosecondsPerSecond: Int64 = 1_000_000_000

    /// The whole second holding the instant (rounded down, also before the epoch).
    public var secondsSinceEpoch: Int64 {
        let (q, r) = nanosecondsSinceEpoch.quotientAndRemainder(dividingBy: Self.nanosecondsPerSecond)
        return r < 0 ? q - 1 : q
    }

    /// The first whole second at or after the instant.
    public var secondsSinceEpochRoundedUp: Int64 {
        let (q, r) = nanosecondsSinceEpoch.quotientAndRemainder(dividingBy: Self.nanosecondsPerSecond)
        return r > 0 ? q + 1 : q
    }

    /// The instant at the start of its second.
    public var wholeSecond: Instant { Instant(secondsSinceEpoch: secondsSinceEpoch) }

    public func advanced(by duration: Duration) -> Instant {
        Instant(nanosecondsSinceEpoch: nanosecondsSinceEpoch + duration.nanoseconds)
    }

    public func duration(to other: Instant) -> Duration {
        .nanoseconds(other.nanosecondsSinceEpoch - nanosecondsSinceEpoch)
    }

    // Inlinable: the readers and the detector compare and make instants per sample, across the module line.
    @inlinable
    public static func < (a: Instant, b: Instant) -> Bool { a.nanosecondsSinceEpoch < b.nanosecondsSinceEpoch }
    @inlinable
    public static func == (a: Instant, b: Instant) -> Bool { a.nanosecondsSinceEpoch == b.nanosecondsSinceEpoch }
    public static func + (a: Instant, d: Duration) -> Instant { a.advanced(by: d) }
    public static func - (a: Instant, d: Duration) -> Instant { a.advanced(by: .zero - d) }
    public static func - (a: Instant, b: Instant) -> Duration { b.duration(to: a) }
    public static func += (a: inout Instant, d: Duration) { a = a + d }

    public init(from decoder: any Decoder) throws {
        nanosecondsSinceEpoch = try decoder.singleValueContainer().decode(Int64.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(nanosecondsSinceEpoch)
    }

    /// The nanoseconds, as the database and the logs have them.
    public var description: String { "\(nanosecondsSinceEpoch)ns" }
}

extension Duration {
    /// The duration in whole nanoseconds (rounded toward zero).
    public var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
