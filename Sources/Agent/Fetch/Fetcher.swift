import Analysis
import Foundation
import Messages
import Publishing
import SensorInput
import StepDetection
import Store
import WallTime

/// One background fetch: ingest new input since the cursors, store steps, close the window and queue its post in the
/// outbox in the same transaction, then deliver pending posts oldest first within the deadline.
public struct Fetcher: Sendable {
    public var configuration: AgentConfiguration
    /// Targets by outbox name.
    let publishers: [(name: String, publisher: any Publisher)]
    /// A number in 0..<1 for the retry backoff's jitter (injectable for tests).
    var random: @Sendable () -> Double = { Double.random(in: 0..<1) }
    /// The clock the budget (`schedule.deadline`) runs on, given by whoever runs the fetch: the agent's scheduler
    /// passes its own (`WallClock.clock`), a command the continuous clock, a test its test clock. No default: a fetch
    /// never measures its budget on the real clock behind an injected one.
    public var clock: any Clock<Duration>
    /// How a pulled source (phyphox on a phone) is asked: URLSession (its answers bounded by the pull's own budget,
    /// not a target's answer limit: an hour at 200 Hz is some 40 MB), or a fake in tests.
    public var pullTransport: any HTTPSending = URLSessionSender(answerLimit: nil)
    /// Whether closing a window draws its chart: when a target has `image = "chart"`, or for a dry run that shows the
    /// charts (`fetch --dry-run --image-dir`). Otherwise no chart is drawn and no PNG is held.
    public var drawsCharts: Bool
    /// How a window's chart is drawn, after the commit that closed the window (`drawRequestedCharts`).
    var renderChart: ChartRenderer = { activity, composer, options throws(RasterizeError) in
        try WindowChart.image(activity, composer: composer, options: options)
    }

    public init(configuration: AgentConfiguration, clock: any Clock<Duration>) {
        self.configuration = configuration
        self.clock = clock
        var seen = Set<String>()
        var list: [(String, any Publisher)] = []
        for (i, p) in configuration.publishers.enumerated() {
            var name = p.name
            if seen.contains(name) { name += "-\(i)" }
            seen.insert(name)
            list.append((name, p))
        }
        publishers = list
        drawsCharts = list.contains { $0.1.image.chart }
    }

    /// Runs one fetch at `now` (virtual or real). Never throws: every failure becomes `Failed` with a reason.
    /// The budget (`schedule.deadline`) is measured on `clock` from the call.
    public func fetch(now: Instant, trigger: FetchTriggers, dryRun: Bool = false) async -> FetchReport {
        let budget = Deadline(in: .seconds(configuration.schedule.deadline), clock: clock)
        var report = FetchReport(result: .noData, trigger: trigger, now: now, dryRun: dryRun)
        if let problem = configuration.publishingProblem {
            guard dryRun else {
                report.fail(.configuration, "missing credentials: \(problem)")
                return recordEarlyFailure(report, budget: budget)
            }
            // A dry run sends nothing: it previews without credentials, and says a fetch would fail.
            report.warnings.append("missing credentials: \(problem) (a fetch fails until they are set)")
        }
        let lock: StateLock?
        do { lock = try await lockState(dryRun: dryRun, budget: budget) } catch {
            report.fail(StateStore.failureKind(of: error), "\(error)")
            return recordEarlyFailure(report, budget: budget)
        }
        defer { lock?.release() }
        let store: StateStore
        do { store = try openStore(dryRun: dryRun) } catch {
            report.fail(StateStore.failureKind(of: error), StateStore.describe(error, path: configuration.statePath))
            return report
        }
        var failures: [(kind: FailureKind, reason: String)] = []
        let started = now

        // 1. Ingest and 2. close the window, in one transaction (nothing is half-saved).
        do {
            try await ingestAndClose(store: store, now: started, budget: budget, report: &report)
        } catch {
            failures.append(ingestionFailure(error))
        }
        // The charts the closing asked for are drawn after its commit (and any a dead fetch left), before delivery.
        drawRequestedCharts(store: store, now: started, report: &report)

        // 3. Deliver what is pending, oldest first, within the budget.
        let delivered =
            dryRun
            ? showDryRun(store: store, report: &report)
            : await deliverPending(store: store, now: started, budget: budget, report: &report, failures: &failures)

        report.conclude(failures: failures, delivered: delivered)

        // 4. Upkeep, and history: exactly one row per fetch.
        if !dryRun {
            mergeOldSteps(store: store, now: started, report: &report)
            let ended = started + elapsed(budget)
            do {
                try recordHistory(store: store, report: report, started: started, ended: ended)
            } catch {
                if report.result != .failed {
                    report.fail(
                        StateStore.failureKind(of: error),
                        "recording the fetch: " + StateStore.describe(error, path: configuration.statePath))
                }
            }
        }
        report.elapsedMs = elapsed(budget) / .milliseconds(1)
        return report
    }

    /// What an error of ingestion is: the input's, the fetch's own, or the state database's.
    func ingestionFailure(_ error: any Error) -> (kind: FailureKind, reason: String) {
        switch error {
        case let e as InputError: return (FailureKind.of(e), "ingestion: \(configuration.described(e))")
        case let e as FetchFailure: return (e.kind, "ingestion: \(e)")
        default: return (StateStore.failureKind(of: error), StateStore.describe(error, path: configuration.statePath))
        }
    }

    /// Time since the fetch began, on its clock.
    func elapsed(_ budget: Deadline) -> Duration { .seconds(configuration.schedule.deadline) - budget.remaining }

    /// A fetch that failed before it could start (missing credentials, the state held by another fetch for the
    /// whole budget) is still recorded in the history, when the state database can be written.
    func recordEarlyFailure(_ report: FetchReport, budget: Deadline) -> FetchReport {
        var report = report
        report.elapsedMs = elapsed(budget) / .milliseconds(1)
        guard !report.dryRun, let store = try? StateStore(path: configuration.statePath, busyTimeout: 1) else {
            return report
        }
        let started = report.now
        let ended = started + .nanoseconds(Int64(report.elapsedMs * 1e6))
        try? recordHistory(store: store, report: report, started: started, ended: ended)
        return report
    }

    /// Bytes of a line-based source read per slice of ingestion (a few tens of milliseconds of parsing).
    public var sliceBytes: Int64 = 16 << 20

    /// Another fetch (the agent's, a timer's) may hold the state: waits for it within the budget. A dry run takes
    /// no lock.
    func lockState(dryRun: Bool, budget: Deadline) async throws -> StateLock? {
        dryRun ? nil : try await StateLock.acquire(path: configuration.statePath + ".lock", waitingUntil: budget)
    }

    /// The state database; for a dry run, a copy in memory that the fetch changes as a real one would.
    func openStore(dryRun: Bool) throws -> StateStore {
        dryRun
            ? try StateStore(inMemoryCopyOf: configuration.statePath)
            : try StateStore(path: configuration.statePath, busyTimeout: min(5, configuration.schedule.deadline / 2))
    }

    /// A dry run's sink: it lists what each target would be sent, also targets whose credentials are missing, reads
    /// the charts its closing kept back from its copy of the state, and delivers nothing.
    func showDryRun(store: StateStore, report: inout FetchReport) -> Int {
        for w in report.windows {
            for name in publishers.map(\.name) + configuration.targetsWithoutCredentials {
                report.deliveries.append(.init(target: name, window: w, outcome: .dryRun))
            }
            guard w.imageAlt != nil else { continue }
            do {
                report.charts[w.idempotencyKey] = try store.outboxImage(idempotencyKey: w.idempotencyKey)
            } catch {
                report.warnings.append(
                    "reading the window's chart: " + StateStore.describe(error, path: configuration.statePath))
            }
        }
        return 0
    }

    /// Delivers the pending outbox entries oldest first; returns how many went through. A post refused for good is a
    /// configuration problem (credentials, the target's settings); anything else is retried later.
    func deliverPending(
        store: StateStore, now: Instant, budget: Deadline, report: inout FetchReport,
        failures: inout [(kind: FailureKind, reason: String)]
    ) async -> Int {
        var delivered = 0
        do {
            for entry in try store.outbox(status: .pending) {
                let outcome = await deliver(entry, store: store, now: now, budget: budget)
                report.deliveries.append(outcome)
                switch outcome.outcome {
                case .delivered, .alreadyDelivered: delivered += 1
                case .permanent:
                    failures.append(
                        (.configuration, "\(outcome.target): \(outcome.reason ?? outcome.outcome.rawValue)"))
                default:
                    failures.append((.temporary, "\(outcome.target): \(outcome.reason ?? outcome.outcome.rawValue)"))
                }
            }
        } catch {
            failures.append(
                (StateStore.failureKind(of: error), StateStore.describe(error, path: configuration.statePath)))
        }
        return delivered
    }

    /// Steps long behind the posted windows are kept per minute (a day of them per fetch), and the counted spans of
    /// sample streams quiet for a week are forgotten (a bounded number per fetch); a failure of either is a warning,
    /// never the fetch's failure.
    func mergeOldSteps(store: StateStore, now: Instant, report: inout FetchReport) {
        do { try store.mergeOldSteps() } catch {
            report.warnings.append(
                "merging old steps into minutes: " + StateStore.describe(error, path: configuration.statePath))
        }
        do { try store.pruneCountedSpans(now: now) } catch {
            report.warnings.append(
                "forgetting the counted spans of old sample streams: "
                    + StateStore.describe(error, path: configuration.statePath))
        }
    }

    func recordHistory(store: StateStore, report: FetchReport, started: Instant, ended: Instant) throws {
        try store.record(history: FetchHistoryRecord(report, started: started, ended: ended))
    }
}
