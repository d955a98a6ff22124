import Clocks
import Foundation
import TestSupport
import Testing
import WallTime

@testable import Publishing

/// `Deadline` on a test clock: no real waiting.
@Suite struct DeadlineRaceTests {
    @Test func remainingAndHasPassedFollowTheClock() async {
        let clock = TestClock<Duration>()
        let deadline = Deadline(in: .seconds(5), clock: clock)
        #expect(deadline.remaining == .seconds(5))
        #expect(!deadline.hasPassed)
        await clock.advance(by: .seconds(4))
        #expect(deadline.remaining == .seconds(1))
        #expect(deadline.remainingSeconds == 1)
        await clock.advance(by: .seconds(1))
        #expect(deadline.hasPassed)
        #expect(Deadline(in: .zero, clock: clock).hasPassed)
    }

    @Test func durationsInSecondsKeepTheirFraction() {
        #expect(Duration.milliseconds(1500).timeInterval == 1.5)
        #expect(Duration.milliseconds(-250).timeInterval == -0.25)
        #expect(Duration.nanoseconds(1).timeInterval == 1e-9)
    }

    @Test func workThatFinishesFirstWins() async {
        let deadline = Deadline(in: .seconds(5), clock: TestClock<Duration>())
        #expect(await deadline.race(orElse: "late") { "done" } == "done")
    }

    @Test func theFallbackWinsWhenTheDeadlinePassesAndTheWorkIsCancelled() async {
        let clock = TestClock<Duration>()
        let deadline = Deadline(in: .seconds(5), clock: clock)
        let cancelled = Flag()
        let finished = Flag()
        let race = Task {
            let result = await deadline.race(orElse: "late") {
                // Never finishes by itself: ends only when cancelled.
                await withTaskCancellationHandler {
                    try? await Task.sleep(for: .seconds(3600))
                } onCancel: {
                    cancelled.set()
                }
                return "done"
            }
            finished.set()
            return result
        }
        await clock.advance(by: .seconds(4))
        await clock.advance(by: .seconds(1))
        // On a loaded machine the race's timer may reach the clock only after those steps: step on until it fired
        // (its instant was fixed when the deadline was made), rather than wait for a step that never comes.
        _ = await eventually(every: .milliseconds(1)) {
            if !finished.isSet { await clock.advance(by: .seconds(1)) }
            return finished.isSet
        }
        #expect(await race.value == "late")
        await cancelled.wait()
        #expect(cancelled.isSet)
    }

    @Test func graceExtendsTheRace() async {
        let clock = TestClock<Duration>()
        let deadline = Deadline(in: .seconds(1), clock: clock)
        let (stream, finish) = AsyncStream.makeStream(of: Void.self)
        let race = Task {
            await deadline.race(grace: .seconds(2), orElse: "late") {
                for await _ in stream { return "done" }
                return "stream ended"
            }
        }
        await clock.advance(by: .seconds(2))  // past the deadline, inside the grace
        finish.yield()
        #expect(await race.value == "done")
    }

    @Test func aDeadlineAlreadyPassedReturnsTheFallbackWithoutWaitingForIgnoredCancellation() async {
        let deadline = Deadline(in: .zero, clock: ImmediateClock<Duration>())
        let result = await deadline.race(orElse: "late") {
            // Ignores cancellation: the race must not wait for it.
            await withCheckedContinuation { (_: CheckedContinuation<Void, Never>) in }
            return "never"
        }
        #expect(result == "late")
    }

    @Test func cancellingTheCallerEndsTheRaceWithTheFallback() async {
        let deadline = Deadline(in: .seconds(60), clock: TestClock<Duration>())
        let race = Task {
            await deadline.race(orElse: "cancelled") {
                try? await Task.sleep(for: .seconds(3600))
                return "done"
            }
        }
        race.cancel()
        #expect(await race.value == "cancelled")
    }

    /// A post already sent when the agent stops runs to its answer: cutting it would leave unknown whether it posted.
    @Test func workAskedToFinishOutlivesItsCallersCancellation() async {
        let deadline = Deadline(in: .seconds(60), clock: TestClock<Duration>())
        let started = Flag()
        let (answer, answered) = AsyncStream.makeStream(of: String.self)
        let race = Task {
            await deadline.race(orElse: "cancelled", callerCancelled: .letsWorkFinish) {
                started.set()
                for await reply in answer { return Task.isCancelled ? "work cancelled" : reply }
                return "no answer"
            }
        }
        await started.wait()
        race.cancel()
        answered.yield("answered")
        #expect(await race.value == "answered")
    }

    /// Asked to finish, work still ends at the deadline: the agent's stop is bounded by it.
    @Test func workAskedToFinishStillEndsAtTheDeadline() async {
        let clock = TestClock<Duration>()
        let deadline = Deadline(in: .seconds(5), clock: clock)
        let started = Flag()
        let finished = Flag()
        let race = Task {
            let result = await deadline.race(orElse: "late", callerCancelled: .letsWorkFinish) {
                started.set()
                try? await Task.sleep(for: .seconds(3600))
                return "done"
            }
            finished.set()
            return result
        }
        await started.wait()
        race.cancel()
        _ = await eventually(every: .milliseconds(1)) {
            if !finished.isSet { await clock.advance(by: .seconds(1)) }
            return finished.isSet
        }
        #expect(await race.value == "late")
    }
}

/// A one-way flag that can be awaited.
final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    var isSet: Bool { lock.withLock { value } }

    func set() {
        let toResume: [CheckedContinuation<Void, Never>] = lock.withLock {
            value = true
            defer { waiters = [] }
            return waiters
        }
        toResume.forEach { $0.resume() }
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let ready: Bool = lock.withLock {
                if value { return true }
                waiters.append(continuation)
                return false
            }
            if ready { continuation.resume() }
        }
    }
}
