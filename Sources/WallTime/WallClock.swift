import Foundation
@_exported import WallTimeCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The one source of time: wall time (dates, and instants for samples) and an injected
/// `any Clock<Duration>` to sleep and measure intervals on.
///
/// Everything that reads the time or waits takes a `WallClock`: the scheduler (cron times, the last fetch, `status`
/// are dates), the live accelerometer poller (each sample's time, the wait until the next), the sampler's writer
/// (how long samples wait), the commands' "now". Production: `WallClock.system`, the real time of day
/// (`CLOCK_REALTIME`), sleeping on `ContinuousClock` (which keeps counting while the machine is suspended). Tests: a
/// swift-clocks `TestClock` or `ImmediateClock` (or any clock of their own), whose dates advance only with the clock,
/// so no test sleeps for real.
public struct WallClock: Sendable {
    /// The clock sleeps and intervals are measured on.
    public let clock: any Clock<Duration>
    private let readNs: @Sendable () -> Int64
    private let readDate: @Sendable () -> Date
    private let sleepUntilInstant: @Sendable (Instant) async throws -> Void
    private let makeAlarm: @Sendable (Date) -> Alarm
    private let makeStopwatch: @Sendable () -> Stopwatch

    /// The real time of day; sleeps on the continuous clock.
    public static var system: WallClock { system(sleepingOn: ContinuousClock()) }

    /// The real time of day; sleeps on `clock` (one that keeps the continuous clock's time but sleeps its own way, as
    /// the accelerometer sampler's thread does on its stop pipe).
    public static func system<C: Clock<Duration>>(sleepingOn clock: C) -> WallClock {
        WallClock(clock, readNs: realtimeNs, readDate: { Date(timeIntervalSince1970: Double(realtimeNs()) / 1e9) })
    }

    /// The one raw read of the time of day in the package.
    @Sendable private static func realtimeNs() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }

    /// Dates that advance with `clock`, from `start` at the clock's present instant (a test clock: dates move only
    /// when the test advances it, or sleeps on it).
    public init<C: Clock<Duration>>(_ clock: C, startingAt start: Date) {
        let origin = clock.now
        let startNs = Int64((start.timeIntervalSince1970 * 1e9).rounded())
        self.init(
            clock, readNs: { startNs + origin.duration(to: clock.now).nanoseconds },
            readDate: { start.addingTimeInterval(origin.duration(to: clock.now).timeInterval) })
    }

    /// Wall time that advances with `clock`, from `start` at the clock's present instant.
    public init<C: Clock<Duration>>(_ clock: C, startingAt start: Instant) {
        let origin = clock.now
        let startNs = start.nanosecondsSinceEpoch
        let ns: @Sendable () -> Int64 = { startNs + origin.duration(to: clock.now).nanoseconds }
        self.init(clock, readNs: ns, readDate: { Date(timeIntervalSince1970: Double(ns()) / 1e9) })
    }

    private init<C: Clock<Duration>>(
        _ clock: C, readNs: @escaping @Sendable () -> Int64, readDate: @escaping @Sendable () -> Date
    ) {
        self.clock = clock
        self.readNs = readNs
        self.readDate = readDate
        self.sleepUntilInstant = { instant in
            // Past instants too go to the clock (a test's clock counts every sleep; a real one returns at once).
            let wait = Duration.nanoseconds(instant.nanosecondsSinceEpoch - readNs())
            try await clock.sleep(until: clock.now.advanced(by: wait), tolerance: nil)
        }
        self.makeAlarm = { date in
            let deadline = clock.now.advanced(by: .seconds(date.timeIntervalSince(readDate())))
            return Alarm {
                guard clock.now < deadline else { return try Task.checkCancellation() }
                try await clock.sleep(until: deadline, tolerance: nil)
            }
        }
        self.makeStopwatch = {
            let start = clock.now
            return Stopwatch { start.duration(to: clock.now) }
        }
    }

    /// The present date.
    public func now() -> Date { readDate() }

    /// The present time as an instant (a sample's time, a push's arrival).
    public func nowInstant() -> Instant { Instant(nanosecondsSinceEpoch: readNs()) }

    /// The instant on `clock` when `date` arrives, fixed now; `wait()` suspends until it (at once when past).
    public func alarm(at date: Date) -> Alarm { makeAlarm(date) }

    /// Suspends until `date`; throws `CancellationError` when the task is cancelled.
    public func sleep(until date: Date) async throws { try await alarm(at: date).wait() }

    /// Suspends until the wall time `instant` (at once when past); throws `CancellationError` when the task is
    /// cancelled.
    public func sleep(until instant: Instant) async throws { try await sleepUntilInstant(instant) }

    /// Starts measuring an interval on `clock` (not on the time of day, which may jump).
    public func stopwatch() -> Stopwatch { makeStopwatch() }

    /// A wake-up fixed as an instant on the clock when it was set, so a sleeper that starts late still wakes then.
    public struct Alarm: Sendable {
        /// Suspends until the instant (at once when it is past); throws `CancellationError` when cancelled.
        public let wait: @Sendable () async throws -> Void
    }

    /// Time elapsed on the clock since the stopwatch was started.
    public struct Stopwatch: Sendable {
        public let elapsed: @Sendable () -> Duration
    }
}

extension Duration {
    /// The duration in seconds, as `TimeInterval`.
    public var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) * 1e-18
    }
}
