import Foundation
import WallTime

/// An instant on an injected clock by which something must be done: the continuous clock in production, a
/// swift-clocks `TestClock` or `ImmediateClock` in tests. Every wait bounded by a deadline goes through `race`.
///
/// ```swift
/// let deadline = Deadline(in: .seconds(30))                       // ContinuousClock
/// let outcome = await deadline.race(orElse: .timedOut) { await work() }
/// ```
public struct Deadline: Sendable {
    private let remainingOnClock: @Sendable () -> Duration
    private let sleepPast: @Sendable (Duration) async throws -> Void
    private let sleepFor: @Sendable (Duration) async throws -> Void

    /// The instant `instant` of `clock`.
    public init<C: Clock>(at instant: C.Instant, on clock: C) where C.Duration == Duration {
        remainingOnClock = { clock.now.duration(to: instant) }
        sleepPast = { grace in try await clock.sleep(until: instant.advanced(by: grace), tolerance: nil) }
        sleepFor = { duration in try await clock.sleep(for: duration) }
    }

    /// `duration` from now on `clock` (a negative or zero duration has already passed).
    public init(in duration: Duration, clock: any Clock<Duration> = ContinuousClock()) {
        self = Self.make(duration, clock)
    }

    private static func make<C: Clock>(_ duration: Duration, _ clock: C) -> Deadline where C.Duration == Duration {
        Deadline(at: clock.now.advanced(by: duration), on: clock)
    }

    /// Time left before the deadline; zero or negative once it has passed.
    public var remaining: Duration { remainingOnClock() }

    /// Whether the deadline has been reached.
    public var hasPassed: Bool { remaining <= .zero }

    /// `remaining` in seconds (for APIs that take a `TimeInterval`).
    public var remainingSeconds: TimeInterval { remaining.timeInterval }

    /// Sleeps on the deadline's clock until it (plus `grace`) has passed; throws `CancellationError` when cancelled.
    public func sleep(grace: Duration = .zero) async throws {
        try await sleepPast(grace)
    }

    /// Sleeps `duration` on the deadline's clock (between polls that wait for the deadline); throws
    /// `CancellationError` when cancelled.
    public func pause(for duration: Duration) async throws {
        try await sleepFor(duration)
    }

    /// What cancelling the caller of `race` does.
    public enum CallerCancellation: Sendable {
        /// The race ends at once with its fallback (a wait that nobody needs any more).
        case endsRace
        /// `work` goes on, not cancelled, to its result or the deadline: a request already sent that the other side
        /// may act on (cut, it leaves unknown whether a post went out, and a target without idempotency keys posts
        /// the resend twice).
        case letsWorkFinish
    }

    /// `work`'s result, or `fallback` when the deadline plus `grace` passes first. `work` is then cancelled and not
    /// waited for: the race returns on time even when `work` ignores cancellation. Cancelling the caller ends the
    /// race with `fallback` too, unless `callerCancelled` is `.letsWorkFinish`.
    public func race<T: Sendable>(
        grace: Duration = .zero, orElse fallback: T, callerCancelled: CallerCancellation = .endsRace,
        _ work: @escaping @Sendable () async -> T
    ) async -> T {
        let finish = RaceFinish<T>()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                finish.begin(continuation)
                let worker = Task { finish.resume(await work()) }
                let timer = Task {
                    do { try await sleepPast(grace) } catch { return }
                    finish.resume(fallback)
                }
                finish.track(worker, timer)
            }
        } onCancel: {
            if callerCancelled == .endsRace { finish.resume(fallback) }
        }
    }
}

/// Resumes a race's continuation exactly once, then cancels both of its tasks.
private final class RaceFinish<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<T, Never>?
    private var pending: T?
    private var done = false
    private var tasks: [Task<Void, Never>] = []

    func begin(_ continuation: CheckedContinuation<T, Never>) {
        lock.lock()
        if done, let pending {
            lock.unlock()
            continuation.resume(returning: pending)
            return
        }
        self.continuation = continuation
        lock.unlock()
    }

    func track(_ tasks: Task<Void, Never>...) {
        lock.lock()
        let finished = done
        if !finished { self.tasks = tasks }
        lock.unlock()
        if finished { tasks.forEach { $0.cancel() } }
    }

    func resume(_ value: T) {
        lock.lock()
        guard !done else {
            lock.unlock()
            return
        }
        done = true
        let continuation = self.continuation
        self.continuation = nil
        if continuation == nil { pending = value }
        let tasks = self.tasks
        self.tasks = []
        lock.unlock()
        continuation?.resume(returning: value)
        tasks.forEach { $0.cancel() }
    }
}
