import Foundation
import WallTime

/// A clock that never sleeps: each sleep jumps to the instant asked for (when it is later), runs a hook with the
/// number of sleeps so far (to change a fake device tree at a chosen point) and yields. `wall(startingAtNs:)` reads
/// it as wall time, for the live pollers.
public final class JumpingClock: Clock, @unchecked Sendable {
    public typealias Duration = Swift.Duration
    public struct Instant: InstantProtocol {
        public var offset: Swift.Duration
        public func advanced(by duration: Swift.Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Swift.Duration { other.offset - offset }
        public static func < (a: Instant, b: Instant) -> Bool { a.offset < b.offset }
    }

    private let lock = NSLock()
    private var current = Instant(offset: .zero)
    private var sleeps = 0
    private let onSleep: (Int) -> Void

    public init(onSleep: @escaping (Int) -> Void = { _ in }) { self.onSleep = onSleep }

    public var now: Instant { lock.withLock { current } }
    public var minimumResolution: Swift.Duration { .nanoseconds(1) }
    /// The sleeps so far.
    public var sleepCount: Int { lock.withLock { sleeps } }

    public func sleep(until deadline: Instant, tolerance: Swift.Duration?) async throws {
        try Task.checkCancellation()
        let n: Int = lock.withLock {
            if current < deadline { current = deadline }
            sleeps += 1
            return sleeps
        }
        onSleep(n)
        await Task.yield()  // a poller on this clock never waits: let the other tasks of the pool run
    }

    /// Wall time on this clock: `startNs` (ns since the epoch) at its present instant.
    public func wall(startingAtNs startNs: Int64) -> WallClock { WallClock(self, startingAt: wallInstant(startNs)) }
}

/// The wall-time instant `ns` after the epoch (outside `JumpingClock`, whose own `Instant` is its clock's).
private func wallInstant(_ ns: Int64) -> Instant { Instant(nanosecondsSinceEpoch: ns) }
