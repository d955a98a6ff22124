import Foundation
import Logging
import Messages
import ServiceLifecycle
import UnixSignals

/// `steptweet agent` as a swift-service-lifecycle `Service`: the scheduler, SIGUSR1 ("Simulate Background Fetch"),
/// and the optional push listener; SIGTERM/SIGINT end it gracefully after the fetch in progress (bounded by its deadline).
public struct AgentService: Service, CustomStringConvertible {
    public let scheduler: AgentScheduler
    let push: PushListener?
    let watcher: SourceWatcher?
    let sampler: AccelerometerSampler?
    let logger: Logger
    /// Why fetching is off (`interval = "never"`, missing credentials, no source), or nil.
    let disabledReason: String?
    /// What runs, for `description`.
    let summary: String

    public init(
        configuration: AgentConfiguration, clock: WallClock = .system,
        logger: Logger = Logger(label: "steptweet.agent")
    ) throws {
        let store: StateStore?
        do {
            store = try StateStore(path: configuration.statePath)
        } catch {
            logger.error(
                "state database: \(Fetcher.describe(error, path: configuration.statePath)); status will not be recorded"
            )
            store = nil
        }
        scheduler = AgentScheduler(
            configuration: configuration, clock: clock, store: store, logger: logger,
            releaseMemoryWhenIdle: true)
        self.logger = logger
        disabledReason = configuration.disabledReason
        if let p = configuration.push {
            if let token = p.token {
                push = try PushListener(port: p.port, token: token, scheduler: scheduler)
            } else {
                logger.warning("push listener not started: \(p.tokenProblem ?? "no token")")
                push = nil
            }
        } else {
            push = nil
        }
        if let device = configuration.source?.accelerometer, configuration.disabledReason == nil {
            try? FileManager.default.createDirectory(
                atPath: (device.samplePath as NSString).deletingLastPathComponent,
                withIntermediateDirectories: true)
            sampler = AccelerometerSampler(
                device: device,
                onEvent: { [logger] event in
                    switch event {
                    case .started(let what): logger.info("sampling \(what) into \(device.samplePath)")
                    case .lost(let why): logger.warning("accelerometer lost: \(why); retrying every second")
                    case .recovered(let what): logger.notice("accelerometer back: \(what)")
                    case .rotated(let path): logger.info("sample file rotated to \(path)")
                    case .clockOffset(let ns):
                        logger.notice("device timestamps are not wall-clock times: shifted by \(Double(ns) / 1e9) s")
                    case .stopped(let n): logger.info("sampling stopped after \(n) samples")
                    }
                })
        } else {
            sampler = nil
        }
        if configuration.schedule.onWalkEnd, let source = configuration.source, configuration.disabledReason == nil {
            let scheduler = self.scheduler
            do {
                watcher = try SourceWatcher(path: source.path) { Task { await scheduler.sourceChanged() } }
            } catch {
                logger.warning("walk trigger off: \(error)")
                watcher = nil
            }
        } else {
            watcher = nil
        }
        summary = [
            disabledReason.map { "fetching off: \($0)" } ?? "schedule \(configuration.schedule.effectiveInterval)",
            push == nil ? "push off" : "push on 127.0.0.1:\(configuration.push?.port ?? 0)",
            watcher == nil ? "walk trigger off" : "walk trigger on",
            sampler == nil ? "sampling off" : "sampling \(configuration.source?.accelerometer?.summary ?? "")",
        ].joined(separator: ", ")
    }

    public func run() async throws {
        // Trap SIGUSR1 before saying we are ready (its default action would end the process).
        let usr1 = await UnixSignalsSequence(trapping: .sigusr1)
        if let sampler {
            do { try sampler.start() } catch { logger.error("accelerometer sampling not started: \(error)") }
        }
        if let disabled = disabledReason {
            logger.notice("ready, fetching off (\(disabled)): SIGUSR1 and pushes are ignored")
        } else {
            logger.info("ready: `kill -USR1 \(getpid())` fetches now")
        }
        do {
            try await runServices(usr1: usr1)
        } catch {
            await stopSampler()
            throw error
        }
        await stopSampler()
    }

    /// Stops the sampler (it waits for its thread) on a thread of its own, not one of the concurrency pool's.
    private func stopSampler() async {
        guard let sampler else { return }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread {
                sampler.stop()
                done.resume()
            }.start()
        }
    }

    private func runServices(usr1: UnixSignalsSequence) async throws {
        let scheduler = self.scheduler
        try await withGracefulShutdownHandler {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await scheduler.run() }
                group.addTask {
                    for await _ in usr1 {
                        await scheduler.post(.signal)
                    }
                }
                if let push {
                    group.addTask {
                        do { try await push.run() } catch {
                            // Stopping the listener at shutdown ends run() with an error: not worth reporting.
                            if !Task.isCancelled { logger.error("push listener: \(error)") }
                        }
                    }
                }
                // The scheduler returns after shutdown; then stop the rest.
                try await group.next()
                group.cancelAll()
                watcher?.stop()
                await push?.stop()
            }
        } onGracefulShutdown: {
            Task { await scheduler.shutdown() }
        }
    }

    /// Writes what this agent resolved from its configuration and environment into the state database, so that
    /// `steptweet status` from another shell (without the agent's secrets) shows the running agent's view.
    func recordResolvedConfiguration(_ c: AgentConfiguration) {
        let targets =
            c.publishingProblem.map { "missing credentials: \($0)" }
            ?? c.publishers.map { "\($0.name) ready" }.joined(separator: ", ")
        let push =
            c.push.map { p in p.token == nil ? "off: \(p.tokenProblem ?? "no token")" : "on: 127.0.0.1:\(p.port)" }
            ?? "off: no [push] table"
        let started = Timestamps.format(Date(), zone: c.composer.timeZone)
        let file = c.file
        let interval = c.schedule.effectiveInterval
        let disabled = c.disabledReason
        let sampling = c.source?.accelerometer.map { "\($0.summary) by the agent into \($0.samplePath)" }
        Task {
            await scheduler.recordAgent {
                $0.started = started
                $0.config = file
                $0.targets = targets
                $0.push = push
                $0.interval = interval
                $0.sampling = sampling
                $0.disabledReason = disabled
            }
        }
    }

    /// How swift-service-lifecycle's debug lines name the service (`sl-service=…`): what runs, not the struct's fields.
    public var description: String { "steptweet agent (\(summary))" }

    /// Runs the agent until SIGTERM or SIGINT, logging to `logger` (the logging system is set up by the caller).
    /// A second agent on the same state database refuses to start (`StateLockError.busy` names the running one).
    public static func runUntilSignalled(configuration: AgentConfiguration, logger: Logger) async throws {
        let agentLock = try StateLock(path: configuration.statePath + ".agent.lock")
        defer { agentLock.release() }
        logger.info(
            "agent started (pid \(getpid()), schedule \(configuration.schedule.effectiveInterval), state \(configuration.statePath))"
        )
        let service = try AgentService(configuration: configuration, logger: logger)
        service.recordResolvedConfiguration(configuration)
        let group = ServiceGroup(
            configuration: .init(
                services: [.init(service: service)],
                gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
        logger.info("agent stopped")
    }
}
