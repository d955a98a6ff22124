import Foundation
import Ingestion
import Logging
import Messages
import ServiceLifecycle
import Store

/// `steptweet agent`: its long-running parts as swift-service-lifecycle services in one `ServiceGroup`, started in
/// dependency order (the sampler before the scheduler that reads its samples; the triggers after it) and, on SIGTERM
/// or SIGINT, stopped gracefully in reverse: no new pushes or signals, the fetch in progress finishes (bounded by its
/// deadline), the sampler writes its last samples.
public enum AgentServices {
    /// The services for `configuration`, in start order. Building them does no I/O; each starts its own in `run()`.
    static func services(
        configuration: AgentConfiguration, scheduler: AgentScheduler, store: StateStore? = nil, logger: Logger
    ) -> [ServiceGroupConfiguration.ServiceConfiguration] {
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = []
        let enabled = configuration.disabledReason == nil
        if enabled, let device = configuration.source?.accelerometer {
            services.append(.init(service: SamplerService(device: device, logger: logger)))
        }
        let summary =
            configuration.disabledReason.map { "fetching off: \($0)" }
            ?? "schedule \(configuration.schedule.effectiveInterval)"
        services.append(.init(service: SchedulerService(scheduler: scheduler, summary: summary)))
        if enabled, configuration.schedule.onWalkEnd, let source = configuration.source, source.phyphox == nil {
            // Without inotify the walk trigger is off; the rest goes on. (A phone that is pulled has no file to watch.)
            services.append(
                .init(
                    service: WalkWatcherService(path: source.path, scheduler: scheduler, logger: logger),
                    successTerminationBehavior: .ignore))
        }
        let receiver = receiverService(configuration: configuration, store: store, logger: logger)
        services.append(
            .init(
                service: FetchSignalService(
                    scheduler: scheduler, disabledReason: configuration.disabledReason, logger: logger,
                    beforeReady: {
                        guard let receiver else { return }
                        try await receiver.waitUntilListening()
                        logger.info("receiver listening on \(receiver.address)")
                        MemoryTrim.releaseIdlePages()
                        await scheduler.recordAgent { $0.receiver = "listening on \(receiver.address)" }
                    })))
        if let receiver {
            // A receiver that cannot listen ends the agent (exit 75: systemd starts it again): the phones' pushes
            // would all be lost while it ran.
            services.append(.init(service: receiver, failureTerminationBehavior: .gracefullyShutdownGroup))
        }
        if let push = configuration.push {
            if let token = push.token {
                let listener = PushListener(
                    port: push.port, token: token, scheduler: scheduler,
                    disabledReason: configuration.disabledReason, logger: logger)
                // A listener that cannot serve (its port taken) is logged; fetching on the schedule goes on.
                services.append(.init(service: listener, failureTerminationBehavior: .ignore))
            } else {
                logger.warning("push listener not started: \(push.tokenProblem ?? "no token")")
            }
        }
        return services
    }

    /// The receiver of `[receive]`, its connections fitted to the descriptor limit; nil (and why, logged) when it
    /// has no token or no state database.
    static func receiverService(configuration: AgentConfiguration, store: StateStore?, logger: Logger)
        -> ReceiverService?
    {
        guard var receive = configuration.receive else { return nil }
        guard receive.token != nil else {
            logger.warning("receiver not started: \(receive.tokenProblem ?? "no token")")
            return nil
        }
        guard let store else {
            logger.error("receiver not started: the state database cannot be opened")
            return nil
        }
        let (limits, warning) = receive.limits.fittedToDescriptors(key: "receive.max_connections")
        if let warning { logger.warning("\(warning)") }
        receive.limits = limits
        return ReceiverService(
            receive: receive, store: store, logger: logger, releaseMemoryAbove: MemoryRelease.largeBody)
    }

    /// Runs the agent until SIGTERM, SIGINT or SIGHUP (a closed terminal), logging to `logger` (the logging system is
    /// set up by the caller). A second agent on the same state database refuses to start (`StateLockError.busy` names
    /// the running one).
    public static func runUntilSignalled(configuration: AgentConfiguration, logger: Logger) async throws {
        let agentLock = try StateLock(path: configuration.statePath + ".agent.lock")
        defer { agentLock.release() }
        logger.info(
            "agent started (pid \(getpid()), schedule \(configuration.schedule.effectiveInterval), state \(configuration.statePath))"
        )
        // Start-up's peak is its steps' pages together (the loader's relocations, argument parsing, the database's
        // opening, the servers' start): each step's are given back before the next (bench/receiver_load_result.txt).
        MemoryTrim.releaseIdlePages()
        let store: StateStore?
        do {
            store = try StateStore(path: configuration.statePath)
        } catch {
            logger.error(
                "state database: \(StateStore.describe(error, path: configuration.statePath)); status will not be recorded"
            )
            store = nil
        }
        let scheduler = AgentScheduler(
            configuration: configuration, store: store, logger: logger, releaseMemoryWhenIdle: true)
        await recordResolvedConfiguration(configuration, scheduler: scheduler)
        MemoryTrim.releaseIdlePages()
        let group = ServiceGroup(
            configuration: .init(
                services: services(configuration: configuration, scheduler: scheduler, store: store, logger: logger),
                gracefulShutdownSignals: [.sigterm, .sigint, .sighup], logger: logger))
        do {
            try await group.run()
        } catch let error as ListenError {
            await scheduler.recordAgent { $0.receiver = "not listening: \(error)" }
            throw error
        }
        logger.info("agent stopped")
    }

    /// Writes what this agent resolved from its configuration and environment into the state database, so that
    /// `steptweet status` from another shell (without the agent's secrets) shows the running agent's view.
    static func recordResolvedConfiguration(_ c: AgentConfiguration, scheduler: AgentScheduler) async {
        let targets =
            c.publishingProblem.map { "missing credentials: \($0)" }
            ?? c.publishers.map { "\($0.name) ready" }.joined(separator: ", ")
        let receiver =
            c.receive.map { r in
                r.token == nil ? "off: \(r.tokenProblem ?? "no token")" : "starting on \(r.host):\(r.port)"
            }
        let push =
            c.push.map { p in p.token == nil ? "off: \(p.tokenProblem ?? "no token")" : "on: 127.0.0.1:\(p.port)" }
            ?? "off: no [push] table"
        let started = Timestamps.format(scheduler.clock.now(), zone: c.composer.timeZone)
        let file = c.file
        let interval = c.schedule.effectiveInterval
        let disabled = c.disabledReason
        let sampling = c.source?.accelerometer.map { "\($0.summary) by the agent into \($0.samplePath)" }
        await scheduler.recordAgent {
            $0.started = started
            $0.config = file
            $0.targets = targets
            $0.push = push
            $0.receiver = receiver
            $0.interval = interval
            $0.sampling = sampling
            $0.disabledReason = disabled
        }
    }
}
