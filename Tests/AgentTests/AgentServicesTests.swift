import Foundation
import Logging
import ServiceLifecycle
import Testing

@testable import Agent
@testable import Ingestion
@testable import Store

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite(.timeLimit(.minutes(1))) struct AgentServicesTests {
    func config(dir: TempDir, push: String = "", schedule: String = "") throws -> AgentConfiguration {
        try AgentConfiguration.parse(
            """
            [source]
            path = "walk.csv"
            [schedule]
            interval = "1h"
            jitter = "0s"
            \(schedule)
            [state]
            path = "state.sqlite"
            \(push)
            """, file: dir.path("c.toml"), environment: ["PUSH_TOKEN": "s3cret"])
    }

    func scheduler(_ config: AgentConfiguration, _ recorder: FetchRecorder) -> AgentScheduler {
        let clock = ManualClock(Fixture.date("2026-11-21T10:00:00Z"))
        return AgentScheduler(configuration: config, clock: clock.wall, random: { 0 }) { await recorder.fetch($0, $1) }
    }

    func group(_ services: [ServiceGroupConfiguration.ServiceConfiguration]) -> ServiceGroup {
        ServiceGroup(configuration: .init(services: services, logger: Logger(label: "test")))
    }

    /// Whether something answers HTTP on the port. A closed port refuses at once; a listener's answer can take many
    /// seconds on a loaded machine, so the request waits as long as the tests' `patience`.
    func answers(_ port: UInt16) async -> Bool {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/push")!)
        request.httpMethod = "POST"
        request.timeoutInterval = patienceInSeconds
        return (try? await URLSession.shared.data(for: request)) != nil
    }

    @Test func servicesStartInDependencyOrderAndDoNoIOWhenBuilt() throws {
        let dir = try TempDir()
        let config = try config(
            dir: dir, push: "[push]\nport = 1\ntoken_env = \"PUSH_TOKEN\"", schedule: "on_walk_end = true")
        let services = AgentServices.services(
            configuration: config, scheduler: scheduler(config, FetchRecorder()), logger: Logger(label: "test"))
        #expect(
            services.map(\.serviceName) == [
                "scheduler (schedule 1h)", "walk watcher (\(dir.path("walk.csv")))", "fetch signal (SIGUSR1)",
                "push listener",
            ])
        // Nothing was opened or created: the state database appears only when the agent runs.
        #expect(!FileManager.default.fileExists(atPath: dir.path("state.sqlite")))
    }

    /// swift-service-lifecycle's debug lines name each service by its description: what runs, not its fields.
    @Test func theServicesDescribeWhatRuns() async throws {
        let dir = try TempDir()
        let config = try AgentConfiguration.parse(
            "[source]\npath = \"walk.csv\"\n[schedule]\ninterval = \"15m\"\n[state]\npath = \"state.sqlite\"\n",
            file: dir.path("config.toml"), environment: [:])
        let services = AgentServices.services(
            configuration: config, scheduler: AgentScheduler(configuration: config), logger: Logger(label: "test"))
        #expect(services.map(\.serviceName) == ["scheduler (schedule 15m)", "fetch signal (SIGUSR1)"])
    }

    @Test func gracefulShutdownStopsThePushListenerFirstAndDrainsTheFetchInProgress() async throws {
        let dir = try TempDir()
        let recorder = FetchRecorder()
        let config = try config(dir: dir)
        let scheduler = scheduler(config, recorder)
        let listener = PushListener(port: 0, token: "s3cret", scheduler: scheduler)
        let group = group([
            .init(service: SchedulerService(scheduler: scheduler, summary: "test")), .init(service: listener),
        ])
        let running = Task { try await group.run() }
        try await listener.waitUntilListening()
        let port = try #require(await listener.address()).port
        #expect(await answers(port))

        await recorder.hold()
        await scheduler.post(.signal)
        await recorder.waitForFetch(count: 1)
        await group.triggerGracefulShutdown()
        // The listener, started last, is stopped first, while the scheduler still waits for its fetch.
        #expect(await eventually { !(await answers(port)) })
        #expect(await scheduler.isFetching)
        await recorder.release()
        try await running.value
        #expect(await recorder.calls.map(\.trigger) == ["signal"])
    }

    @Test func aPushListenerThatCannotListenLeavesTheAgentFetching() async throws {
        let dir = try TempDir()
        let recorder = FetchRecorder()
        // Another listener holds the port.
        let holder = PushListener(port: 0, token: "x", scheduler: scheduler(try config(dir: dir), FetchRecorder()))
        let holding = Task { try await holder.run() }
        try await holder.waitUntilListening()
        let taken = try #require(await holder.address()).port
        let config = try config(dir: dir, push: "[push]\nport = \(taken)\ntoken_env = \"PUSH_TOKEN\"")
        let scheduler = scheduler(config, recorder)
        let group = group(
            AgentServices.services(configuration: config, scheduler: scheduler, logger: Logger(label: "t")))
        let running = Task { try await group.run() }
        await scheduler.post(.signal)
        await scheduler.waitUntilIdle(fetches: 1)
        #expect(await recorder.calls.map(\.trigger) == ["signal"])
        await group.triggerGracefulShutdown()
        try await running.value
        holding.cancel()
        await holder.stop()
    }

    /// Issue #44: a receiver that cannot listen ends the agent's services with an error naming the address (the
    /// agent then exits 75), and the agent never says it is ready.
    @Test func aReceiverThatCannotListenStopsTheAgentNamingTheAddress() async throws {
        let dir = try TempDir()
        let holder = PushListener(port: 0, token: "x", scheduler: scheduler(try config(dir: dir), FetchRecorder()))
        let holding = Task { try await holder.run() }
        try await holder.waitUntilListening()
        let taken = try #require(await holder.address()).port
        let config = try config(
            dir: dir, push: "[receive]\nlisten = \"127.0.0.1:\(taken)\"\ntoken_env = \"PUSH_TOKEN\"")
        let store = try StateStore(path: config.statePath)
        let group = group(
            AgentServices.services(
                configuration: config, scheduler: scheduler(config, FetchRecorder()), store: store,
                logger: Logger(label: "t")))
        await #expect {
            try await group.run()
        } throws: { error in
            "\(error)".contains("receiver cannot listen on 127.0.0.1:\(taken)")
        }
        holding.cancel()
        await holder.stop()
    }

    /// A push the agent will not act on is still a 2xx (so the sender does not retry) but says so and why, while one
    /// it acts on is 202 accepted: the listener the agent builds knows which.
    @Test(arguments: [
        ("never", 200, ["status": "ignored", "reason": #"schedule.interval is "never""#]),
        ("1h", 202, ["status": "accepted"]),
    ])
    func aPushTheAgentIgnoresIsAnsweredIgnoredWithTheReason(interval: String, status: Int, answer: [String: String])
        async throws
    {
        let dir = try TempDir()
        var config = try AgentConfiguration.parse(
            """
            [source]
            path = "walk.csv"
            [schedule]
            interval = "\(interval)"
            jitter = "0s"
            [state]
            path = "state.sqlite"
            [push]
            port = 1
            token_env = "PUSH_TOKEN"
            """, file: dir.path("c.toml"), environment: ["PUSH_TOKEN": "s3cret"])
        config.push?.port = 0
        let services = AgentServices.services(
            configuration: config, scheduler: scheduler(config, FetchRecorder()), logger: Logger(label: "test"))
        let listener = try #require(services.lazy.compactMap { $0.service as? PushListener }.first)
        let serving = Task { try await listener.run() }
        try await listener.waitUntilListening()
        let port = try #require(await listener.address()).port
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/push")!)
        request.httpMethod = "POST"
        request.setValue("Bearer s3cret", forHTTPHeaderField: "Authorization")
        request.httpBody = Data(#"{"aps":{"content-available":1}}"#.utf8)
        let (body, response) = try await URLSession.shared.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == status)
        #expect((try? JSONSerialization.jsonObject(with: body)) as? [String: String] == answer)
        serving.cancel()
        await listener.stop()
    }
}
