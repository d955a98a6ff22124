import Foundation
import Store
import TestSupport
import Testing

@testable import Agent

/// The agent's fetches measure their budget on the scheduler's injected clock (issue #46): a test clock moves them,
/// the real one never does behind it.
@Suite(.timeLimit(.minutes(1))) struct SchedulerClockTests {
    let t0 = Fixture.date("2026-11-21T10:10:00+09:00")

    /// The state is held by another fetch for the whole budget of 30 s: the scheduler's fetch waits for it
    /// on the test clock, and gives up once the test moves that clock past the budget, with no real wait. On the real
    /// clock it would still be waiting when the test's steps run out (ten thousand seconds on the test clock, a few
    /// in real time).
    @Test func aScheduledFetchWaitsForTheStateOnTheSchedulersClock() async throws {
        let dir = try TempDir()
        let config = try Fixture.config(dir: dir, schedule: "deadline = \"30s\"")
        let held = try StateLock(path: config.statePath + ".lock")
        defer { held.release() }
        let clock = ManualClock(t0)
        let scheduler = AgentScheduler(configuration: config, clock: clock.wall, random: { 0 })
        let task = Task { await scheduler.run() }
        await scheduler.waitUntilIdle()
        await scheduler.post(.manual)
        // The fetch's budget starts on the clock when it starts, whenever that is in real time: then a second at a time.
        var turns = 0
        while await !scheduler.isFetching, turns < 1_000_000 {
            await Task.yield()
            turns += 1
        }
        var steps = 0
        while await scheduler.reports.isEmpty, steps < 10_000 {
            await clock.advance(by: 1)
            steps += 1
        }
        let report = try #require(await scheduler.reports.first, "no fetch ended after \(steps) s on the clock")
        #expect(report.line.hasPrefix("Failed: busy: another fetch (pid \(getpid())) held the state database"))
        // Its time is the test clock's: the whole budget, and no more than the clock moved while it ran (a loaded
        // machine may let the test step the clock a few times between the fetch giving up and its report).
        #expect(
            report.elapsedMs >= 29_000 && report.elapsedMs <= Double(steps) * 1000, "\(report.elapsedMs), \(steps) s")
        await scheduler.shutdown()
        await task.value
    }
}
