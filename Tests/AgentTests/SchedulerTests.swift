import Agent
import Clocks
import Foundation
import Messages
import TestSupport
import Testing
import WallTime

@testable import Store

/// Records fetches; can hold a fetch open until released, and can be told to fail.
actor FetchRecorder {
    private(set) var calls: [(at: Date, trigger: String)] = []
    var result: FetchResult = .noData
    private var gate: CheckedContinuation<Void, Never>?
    private var holding = false
    private var entered: [CheckedContinuation<Void, Never>] = []

    func setResult(_ r: FetchResult) { result = r }
    func hold() { holding = true }

    func fetch(_ now: Instant, _ trigger: FetchTriggers) async -> FetchReport {
        calls.append((now.date, trigger.description))
        for e in entered { e.resume() }
        entered.removeAll()
        if holding { await withCheckedContinuation { gate = $0 } }
        return FetchReport(
            result: result, reason: result == .failed ? "test" : nil, trigger: trigger, now: now, dryRun: false)
    }

    /// Waits until a fetch has started.
    func waitForFetch(count: Int) async {
        while calls.count < count { await withCheckedContinuation { entered.append($0) } }
    }

    func release() {
        holding = false
        gate?.resume()
        gate = nil
    }
}

@Suite(.timeLimit(.minutes(1))) struct SchedulerTests {
    let t0 = Fixture.date("2026-11-21T10:00:00+09:00")

    func make(_ schedule: String, push: String = "", dir: TempDir, store: StateStore? = nil) throws -> (
        AgentScheduler, ManualClock, FetchRecorder
    ) {
        let config = try AgentConfiguration.parse(
            """
            [source]
            path = "walk.csv"
            [schedule]
            jitter = "0s"
            \(schedule)
            [text]
            time_zone = "Asia/Tokyo"
            [state]
            path = "state.sqlite"
            \(push)
            """, file: dir.path("config.toml"), environment: ["TOKEN": "t"])
        let clock = ManualClock(t0)
        let recorder = FetchRecorder()
        let scheduler = AgentScheduler(configuration: config, clock: clock.wall, store: store, random: { 0 }) {
            now, trigger in
            await recorder.fetch(now, trigger)
        }
        return (scheduler, clock, recorder)
    }

    @Test func intervalScheduleSleepsUntilEachFetch() async throws {
        let dir = try TempDir()
        let (scheduler, clock, recorder) = try make("interval = \"15m\"", dir: dir)
        let task = Task { await scheduler.run() }
        await scheduler.waitUntilIdle()
        // Idle: one wake-up, at the next fetch; nothing else wakes the agent (no polling).
        #expect(await scheduler.sleepingUntil == t0.addingTimeInterval(900))
        await clock.advance(by: 899)
        await scheduler.waitUntilIdle()
        #expect(await recorder.calls.isEmpty)
        await clock.advance(by: 1)
        await scheduler.waitUntilIdle(fetches: 1)
        await clock.advance(by: 900)
        await scheduler.waitUntilIdle(fetches: 2)
        #expect(await recorder.calls.map(\.at) == [t0.addingTimeInterval(900), t0.addingTimeInterval(1800)])
        #expect(await recorder.calls.map(\.trigger) == ["schedule", "schedule"])
        await scheduler.shutdown()
        await task.value
    }

    /// What the agent records for `status` (its next fetch, when it last wrote) is in the configured zone, as every
    /// other time it prints.
    @Test func theRecordedNextFetchIsInTheConfiguredZone() async throws {
        let dir = try TempDir()
        let store = try StateStore(path: dir.path("state.sqlite"))
        let (scheduler, _, _) = try make("interval = \"15m\"", dir: dir, store: store)
        let task = Task { await scheduler.run() }
        await scheduler.waitUntilIdle()
        let status = try store.agentStatus()
        #expect(status.nextFetch == "2026-11-21T10:15:00+09:00")
        #expect(status.updated == "2026-11-21T10:00:00+09:00")
        await scheduler.shutdown()
        await task.value
    }

    /// An agent started on the state of one that stopped says it is waiting (`idle`) before its first fetch, not
    /// "stopped" beside "running" (issue 44).
    @Test func aStartedAgentIsIdleBeforeItsFirstFetch() async throws {
        let dir = try TempDir()
        let store = try StateStore(path: dir.path("state.sqlite"))
        try store.updateAgentStatus { $0.state = .stopped }
        let (scheduler, _, recorder) = try make("interval = \"15m\"", dir: dir, store: store)
        let task = Task { await scheduler.run() }
        await scheduler.waitUntilIdle()
        #expect(await recorder.calls.isEmpty, "no fetch yet")
        #expect(try store.agentStatus().state == .idle)
        await scheduler.shutdown()
        await task.value
        #expect(try store.agentStatus().state == .stopped)
    }

    /// swift-service-lifecycle names the service in its debug lines by `"\(service)"`: what runs, not its fields.
    @Test func minimumFloorWins() async throws {
        let dir = try TempDir()
        let (scheduler, _, _) = try make("interval = \"1m\"\nminimum = \"10m\"", dir: dir)
        let task = Task { await scheduler.run() }
        await scheduler.waitUntilIdle()
        #expect(await scheduler.nextScheduled == t0.addingTimeInterval(600))
        #expect(await scheduler.sleepingUntil == t0.addingTimeInterval(600))
        await scheduler.shutdown()
        await task.value
    }

    @Test func cronScheduleRespectsTheFloor() async throws {
        let dir = try TempDir()
        let (scheduler, clock, recorder) = try make("interval = \"*/5 * * * *\"\nminimum = \"12m\"", dir: dir)
        let task = Task { await scheduler.run() }
        await scheduler.waitUntilIdle()
        // 10:05 is the next cron time, but the floor puts the first fetch at 10:12 at the earliest.
        #expect(await scheduler.nextScheduled == t0.addingTimeInterval(720))
        await clock.advance(by: 720)
        await scheduler.waitUntilIdle(fetches: 1)
        #expect(await recorder.calls.count == 1)
        #expect(await scheduler.nextScheduled == t0.addingTimeInterval(1440))
        await scheduler.shutdown()
        await task.value
    }

    @Test func signalFetchesNowAndCoalesces() async throws {
        let dir = try TempDir()
        let (scheduler, _, recorder) = try make("interval = \"1h\"", dir: dir)
        let task = Task { await scheduler.run() }
        await scheduler.waitUntilIdle()
        await scheduler.post(.signal)
        await scheduler.post(.signal)
        await scheduler.waitUntilIdle(fetches: 1)
        #expect(await recorder.calls.map(\.trigger) == ["signal"])
        // A fetch resets the schedule.
        #expect(await scheduler.nextScheduled == t0.addingTimeInterval(3600))
        await scheduler.shutdown()
        await task.value
    }

    @Test func pushDuringAFetchIsDeferredAndRateLimited() async throws {
        let dir = try TempDir()
        let (scheduler, clock, recorder) = try make(
            "interval = \"1h\"", push: "[push]\nport = 8787\ntoken_env = \"TOKEN\"\nperiod = \"5m\"", dir: dir)
        let task = Task { await scheduler.run() }
        await scheduler.waitUntilIdle()
        await recorder.hold()
        await scheduler.post(.signal)
        await recorder.waitForFetch(count: 1)
        // Two pushes while the signal fetch runs: kept, coalesced into one fetch after it.
        await scheduler.post(.push)
        await scheduler.post(.push)
        await recorder.release()
        await scheduler.waitUntilIdle(fetches: 2)
        #expect(await recorder.calls.map(\.trigger) == ["signal", "push"])
        // Another push within the period waits for the period to pass, then runs.
        await clock.advance(by: 60)
        await scheduler.post(.push)
        await scheduler.waitUntilIdle(fetches: 2)
        #expect(await recorder.calls.count == 2)
        #expect(await scheduler.sleepingUntil == t0.addingTimeInterval(300))
        await clock.advance(by: 240)
        await scheduler.waitUntilIdle(fetches: 3)
        #expect(await recorder.calls.map(\.trigger) == ["signal", "push", "push"])
        #expect(await recorder.calls.last?.at == t0.addingTimeInterval(300))
        await scheduler.shutdown()
        await task.value
    }

    @Test func backsOffAfterRepeatedFailures() async throws {
        let dir = try TempDir()
        let (scheduler, clock, recorder) = try make("interval = \"minimum\"\nminimum = \"10m\"", dir: dir)
        await recorder.setResult(.failed)
        let task = Task { await scheduler.run() }
        await scheduler.waitUntilIdle()
        await clock.advance(by: 600)
        await scheduler.waitUntilIdle(fetches: 1)
        #expect(await scheduler.nextScheduled == t0.addingTimeInterval(1200))
        await clock.advance(by: 600)
        await scheduler.waitUntilIdle(fetches: 2)
        // Second failure in a row: wait twice the floor.
        #expect(await scheduler.nextScheduled == t0.addingTimeInterval(1200 + 1200))
        await clock.advance(by: 1200)
        await scheduler.waitUntilIdle(fetches: 3)
        #expect(await scheduler.nextScheduled == t0.addingTimeInterval(2400 + 2400))
        await recorder.setResult(.newData)
        await scheduler.post(.signal)
        await scheduler.waitUntilIdle(fetches: 4)
        #expect(await scheduler.consecutiveFailures == 0)
        #expect(await scheduler.nextScheduled == t0.addingTimeInterval(2400 + 600))
        await scheduler.shutdown()
        await task.value
    }

    @Test func neverStaysUpFetchesNothingAndSaysWhy() async throws {
        let dir = try TempDir()
        let config = try AgentConfiguration.parse(
            "[source]\npath = \"w.csv\"\n[schedule]\ninterval = \"never\"\n[state]\npath = \"s.sqlite\"\n",
            file: dir.path("c.toml"), environment: [:])
        let store = try StateStore(path: config.statePath)
        let clock = ManualClock(t0)
        let recorder = FetchRecorder()
        let scheduler = AgentScheduler(configuration: config, clock: clock.wall, store: store, random: { 0 }) {
            await recorder.fetch($0, $1)
        }
        let task = Task { await scheduler.run() }
        await scheduler.waitUntilIdle()
        await scheduler.post(.signal)
        await scheduler.waitUntilIdle()
        await clock.advance(by: 86_400)
        await scheduler.waitUntilIdle()
        #expect(await recorder.calls.isEmpty)
        #expect(await scheduler.sleepingUntil == nil)
        let status = try store.agentStatus()
        #expect(status.state == .disabled)
        #expect(status.disabledReason == "schedule.interval is \"never\"")
        await scheduler.shutdown()
        await task.value
    }

    @Test func shutdownWaitsForTheFetchInProgress() async throws {
        let dir = try TempDir()
        let (scheduler, _, recorder) = try make("interval = \"1h\"", dir: dir)
        let task = Task { await scheduler.run() }
        await scheduler.waitUntilIdle()
        await recorder.hold()
        await scheduler.post(.signal)
        await recorder.waitForFetch(count: 1)
        await scheduler.shutdown()
        #expect(await scheduler.isFetching)
        await recorder.release()
        await task.value
        #expect(await scheduler.reports.count == 1)
    }
}

/// Triggers are written as their names joined by commas in a fixed order, and read back only when every name is known.
@Suite struct FetchTriggersTests {
    @Test func namesRoundTripAndAnUnknownOneIsRefused() {
        let both: FetchTriggers = [.push, .signal]
        #expect(both.description == "signal,push")
        #expect(FetchTriggers(names: both.description) == both)
        #expect(FetchTriggers(names: "signal,bogus") == nil)
    }
}
