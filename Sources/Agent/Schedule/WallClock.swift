import Foundation
import Publishing

/// Wall time for the scheduler, read from an injected `any Clock<Duration>`.
///
/// The schedule is kept in dates (cron times, the last fetch in the history table, `status`), so the scheduler reads
/// dates; it sleeps on the injected clock, with each wake-up an instant on that clock. Production: real dates, sleeps
/// on `ContinuousClock` (which keeps counting while the machine is suspended). Tests: swift-clocks' `TestClock`,
/// whose dates advance only when the test advances it, so no test sleeps for real.
public struct WallClock: Sendable {
    /// The clock the scheduler sleeps on.
    public let clock: any Clock<Duration>
    private let readDate: @Sendable () -> Date
    private let makeAlarm: @Sendable (Date) -> Alarm

    /// Real dates; sleeps on the continuous clock.
    public static var system: WallClock { WallClock(ContinuousClock(), readDate: { Date() }) }

    /// Dates that advance with `clock`, from `start` at the clock's present instant (a test clock: dates move only
    /// when the test advances it).
    public init<C: Clock<Duration>>(_ clock: C, startingAt start: Date) {
        let origin = clock.now
        self.init(clock, readDate: { start.addingTimeInterval(origin.duration(to: clock.now).timeInterval) })
    }

    private init<C: Clock<Duration>>(_ clock: C, readDate: @escaping @Sendable () -> Date) {
        self.clock = clock
        self.readDate = readDate
        self.makeAlarm = { date in
            let deadline = clock.now.advanced(by: .seconds(date.timeIntervalSince(readDate())))
            return Alarm {
                guard clock.now < deadline else { return try Task.checkCancellation() }
                try await clock.sleep(until: deadline, tolerance: nil)
            }
        }
    }

    /// The present date.
    public func now() -> Date { readDate() }

    /// The instant on `clock` when `date` arrives, fixed now; `wait()` suspends until it (at once when past).
    public func alarm(at date: Date) -> Alarm { makeAlarm(date) }

    /// Suspends until `date`; throws `CancellationError` when the task is cancelled.
    public func sleep(until date: Date) async throws { try await alarm(at: date).wait() }

    /// A wake-up fixed as an instant on the clock when it was set, so a sleeper that starts late still wakes then.
    public struct Alarm: Sendable {
        /// Suspends until the instant (at once when it is past); throws `CancellationError` when cancelled.
        public let wait: @Sendable () async throws -> Void
    }
}
