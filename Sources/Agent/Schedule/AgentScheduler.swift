import Foundation
import Logging
import Messages
import Publishing
import Store
import WallTime

/// Runs fetches on the schedule (interval or cron, never more often than the `minimum` floor, with jitter), on
/// SIGUSR1, on silent pushes (coalesced, at most one per push period, deferred while a fetch runs) and when a walk
/// ends; backs off after `Failed`; never runs two fetches at once. Sleeps until the next event: no polling.
public actor AgentScheduler {
    public typealias FetchFunction = @Sendable (_ now: Instant, _ triggers: FetchTriggers) async -> FetchReport
    /// Reads new data for the walk trigger; returns the number of walking bouts that ended and were not yet answered.
    public typealias WalkIngestFunction = @Sendable (_ now: Instant) async -> Result<Int, WalkIngestError>

    let configuration: AgentConfiguration
    let clock: WallClock
    let fetch: FetchFunction
    let ingestForWalks: WalkIngestFunction
    /// Least time between two walk-trigger reads while data keeps arriving.
    let walkDebounce: TimeInterval
    private var dataChanged = false
    private var lastWalkIngest: Date?
    let random: @Sendable () -> Double
    let logger: Logger
    let store: StateStore?
    /// Give memory back before and after each fetch (`MemoryTrim`).
    let releaseMemoryWhenIdle: Bool

    private var pending = Set<FetchTrigger>()
    private var woken = false
    private var stopping = false
    private var waiter: CheckedContinuation<Void, Never>?
    private var idleWaiters: [(fetches: Int, continuation: CheckedContinuation<Void, Never>)] = []

    /// When the scheduler, asleep, wakes next unless something is posted (nil: awake, or asleep until posted).
    public private(set) var sleepingUntil: Date?
    /// When the next scheduled fetch is due (nil: none).
    public private(set) var nextScheduled: Date?
    public private(set) var lastFetch: Date?
    public private(set) var consecutiveFailures = 0
    public private(set) var lastPushFetch: Date?
    /// Every report, in order (kept small: the last 100).
    public private(set) var reports: [FetchReport] = []
    public private(set) var isFetching = false

    public init(
        configuration: AgentConfiguration, clock: WallClock = .system, store: StateStore? = nil,
        logger: Logger = Logger(label: "steptweet.agent"),
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        walkDebounce: TimeInterval = 5,
        fetch: FetchFunction? = nil,
        ingestForWalks: WalkIngestFunction? = nil,
        releaseMemoryWhenIdle: Bool = false
    ) {
        self.configuration = configuration
        self.releaseMemoryWhenIdle = releaseMemoryWhenIdle
        self.clock = clock
        self.store = store
        self.logger = logger
        self.random = random
        let fetcher = Fetcher(configuration: configuration, clock: clock.clock)
        self.fetch = fetch ?? { now, trigger in await fetcher.fetch(now: now, trigger: trigger) }
        self.ingestForWalks = ingestForWalks ?? { now in fetcher.ingestForWalks(now: now) }
        self.walkDebounce = walkDebounce
    }

    /// The source file changed (from `SourceWatcher`): with `on_walk_end`, read it soon and fetch if a walk ended.
    public func sourceChanged() {
        guard configuration.schedule.onWalkEnd else { return }
        dataChanged = true
        wake()
    }

    /// Asks for a fetch (SIGUSR1, a push, a walk's end). Coalesced with any trigger already waiting.
    public func post(_ trigger: FetchTrigger) {
        pending.insert(trigger)
        wake()
    }

    /// Ends `run()`. A fetch in progress is cancelled: it stops ingesting after its current slice, saves what it
    /// read, sends no post it had not sent, lets a post in flight run to its answer (at most to its deadline: cut,
    /// the post would be sent again on the next start) and records its result.
    public func shutdown() {
        stopping = true
        currentFetch?.cancel()
        wake()
    }

    /// The fetch in progress, so that `shutdown()` can cancel it.
    private var currentFetch: Task<FetchReport, Never>?

    private func wake() {
        woken = true
        waiter?.resume()
        waiter = nil
    }

    /// Fetches run since `run()` started.
    public private(set) var fetchCount = 0

    /// Resumes once at least `fetches` fetches have run and the scheduler is asleep with nothing to do (or stopped).
    public func waitUntilIdle(fetches: Int = 0) async {
        if stopping && waiter == nil && !isFetching { return }
        if waiter != nil && !woken && fetchCount >= fetches { return }
        await withCheckedContinuation { idleWaiters.append((fetches, $0)) }
    }

    private func resumeIdleWaiters(all: Bool = false) {
        var keep: [(fetches: Int, continuation: CheckedContinuation<Void, Never>)] = []
        for w in idleWaiters {
            if all || fetchCount >= w.fetches { w.continuation.resume() } else { keep.append(w) }
        }
        idleWaiters = keep
    }

    /// The scheduler's loop; returns after `shutdown()`.
    public func run() async {
        let disabled = configuration.disabledReason
        lastFetch = (try? store?.history(limit: 1).first?.started.date) ?? nil
        if let disabled {
            logger.notice("agent idle: \(disabled)")
            publishStatus {
                $0.state = .disabled
                $0.disabledReason = disabled
                $0.nextFetch = nil
            }
        } else {
            // Waiting from the start: the record may still say how the last agent ended (`stopped`), which `status`
            // would show beside "running" until the first fetch.
            publishStatus { $0.state = .idle }
            scheduleNext(after: lastFetch ?? clock.now())
        }
        // Start-up (configuration, database, libraries) leaves pages an idle agent does not need: give them back now,
        // not only after the first fetch (which may be hours away).
        if releaseMemoryWhenIdle { MemoryTrim.releaseIdlePages() }
        while !stopping {
            let now = clock.now()
            var reasons: [FetchTrigger] = []
            if disabled != nil {
                if !pending.isEmpty { logger.notice("fetch not started: \(disabled ?? "")") }
                pending.removeAll()
            } else {
                reasons = await dueTriggers(now)
            }
            if !reasons.isEmpty {
                await runFetch(now: now, triggers: FetchTriggers(reasons))
                continue
            }
            var wakeAt = nextScheduled
            if pending.contains(.push), let notBefore = pushNotBefore { wakeAt = min(wakeAt ?? notBefore, notBefore) }
            if dataChanged, let last = lastWalkIngest {
                let notBefore = last.addingTimeInterval(walkDebounce)
                wakeAt = min(wakeAt ?? notBefore, notBefore)
            }
            await sleep(until: wakeAt)
        }
        publishStatus {
            $0.state = .stopped
            $0.nextFetch = nil
        }
        resumeIdleWaiters(all: true)
    }

    /// What asks for a fetch now: a signal or an ended walk, a push (at most one fetch per `push.period`), the
    /// schedule, or, when nothing else does, new data whose reading finds a walk that ended.
    private func dueTriggers(_ now: Date) async -> [FetchTrigger] {
        var reasons: [FetchTrigger] = []
        for t in [FetchTrigger.signal, .walk] where pending.contains(t) {
            reasons.append(t)
            pending.remove(t)
        }
        if pending.contains(.push) && pushAllowed(at: now) {
            reasons.append(.push)
            pending.remove(.push)
            lastPushFetch = now
        }
        if let next = nextScheduled, now >= next { reasons.append(.schedule) }
        if reasons.isEmpty && dataChanged && walkIngestAllowed(at: now) {
            dataChanged = false
            lastWalkIngest = now
            switch await ingestForWalks(Instant(now)) {
            case .success(let bouts) where bouts > 0:
                logger.info("\(bouts) walk(s) ended")
                reasons.append(.walk)
            case .success: break
            case .failure(let e): logger.warning("walk trigger: \(e)")
            }
        }
        return reasons
    }

    private var pushNotBefore: Date? {
        guard let last = lastPushFetch, let push = configuration.push else { return nil }
        return last.addingTimeInterval(push.period)
    }

    private func walkIngestAllowed(at now: Date) -> Bool {
        guard let last = lastWalkIngest else { return true }
        return now >= last.addingTimeInterval(walkDebounce)
    }

    private func pushAllowed(at now: Date) -> Bool {
        guard let notBefore = pushNotBefore else { return true }
        return now >= notBefore
    }

    /// Sleeps until `date` or until something is posted.
    private func sleep(until date: Date?) async {
        if woken {
            woken = false
            return
        }
        // The wake-up is an instant on the clock, fixed and registered with the clock (the timer task starts at once,
        // on this actor, up to its first suspension) before anyone can see the scheduler idle.
        let timer: Task<Void, Never>? = date.map { date in
            let alarm = clock.alarm(at: date)
            return Task.immediate {
                do { try await alarm.wait() } catch { return }
                self.wake()
            }
        }
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            waiter = c
            sleepingUntil = date
            resumeIdleWaiters()
        }
        sleepingUntil = nil
        woken = false
        timer?.cancel()
    }

    private func runFetch(now: Date, triggers: FetchTriggers) async {
        isFetching = true
        // What the receiver and start-up left resident goes before the fetch adds its own: a fetch during 10 phones'
        // pushes otherwise peaked at both together (bench/receiver_load_result.txt).
        if releaseMemoryWhenIdle { MemoryTrim.releaseIdlePages() }
        publishStatus { $0.state = .fetching }
        logger.debug("fetch started (\(triggers))")
        let fetch = self.fetch
        let started = Instant(now)
        let task = Task { await fetch(started, triggers) }
        currentFetch = task
        if stopping { task.cancel() }
        let report = await task.value
        currentFetch = nil
        isFetching = false
        fetchCount += 1
        reports.append(report)
        if reports.count > 100 { reports.removeFirst(reports.count - 100) }
        let zone = configuration.composer.timeZone
        logger.log(
            level: report.result == .failed || !report.warnings.isEmpty ? .warning : .info,
            "\(report.logLine(zone: zone))")
        for w in report.windows {
            logger.debug(
                "text for \(Timestamps.format(w.span.start.date, zone: zone)) 〜 \(Timestamps.format(w.span.end.date, zone: zone)): \(w.text)"
            )
        }
        consecutiveFailures = report.result == .failed ? consecutiveFailures + 1 : 0
        lastFetch = now
        scheduleNext(after: now)
        let failures = consecutiveFailures
        publishStatus {
            $0.state = .idle
            $0.lastResult = report.line
            $0.consecutiveFailures = failures
        }
        if releaseMemoryWhenIdle {
            let n = MemoryTrim.releaseIdlePages()
            logger.debug("released idle pages of \(n) mappings")
        }
    }

    /// Sets `nextScheduled` from the last fetch: interval or cron, the minimum floor, backoff, jitter.
    func scheduleNext(after base: Date) {
        let s = configuration.schedule
        let now = clock.now()
        var next: Date?
        switch s.interval {
        case .never: next = nil
        case .minimum: next = base.addingTimeInterval(s.minimum)
        case .every(let d): next = base.addingTimeInterval(max(d, s.minimum))
        case .cron(let cron):
            next = cron.next(after: base, in: configuration.composer.timeZone).map {
                max($0, base.addingTimeInterval(s.minimum))
            }
        }
        if let regular = next {
            var when = regular
            if consecutiveFailures > 1 {
                // The one documented backoff, with equal jitter: its fixed half is the floor doubling per failure in a
                // row (2 × minimum after the second, 6 h at most), its random half adds up to as much again.
                let backoff = Backoff.delay(
                    attempt: consecutiveFailures, retryAfter: nil, base: 2 * s.minimum,
                    cap: 12 * 3600, random: random)
                when = max(regular, now.addingTimeInterval(backoff))
            }
            when = when.addingTimeInterval(random() * s.jitter)
            nextScheduled = when
        } else {
            nextScheduled = nil
        }
        let nextText = nextScheduled.map { Timestamps.format($0, zone: configuration.composer.timeZone) }
        publishStatus {
            $0.nextFetch = nextText
            $0.disabledReason = nil
        }
    }

    /// Records the agent's resolved configuration (targets, push, interval, sampling) for `steptweet status`.
    public func recordAgent(_ change: @Sendable (inout AgentStatus) -> Void) {
        publishStatus(change)
    }

    private func publishStatus(_ change: (inout AgentStatus) -> Void) {
        guard let store else { return }
        let updated = Timestamps.format(clock.now(), zone: configuration.composer.timeZone)
        do {
            try store.updateAgentStatus { status in
                change(&status)
                status.updated = updated
                status.pid = Int(getpid())
            }
        } catch {
            logger.warning("cannot record agent status: \(StateStore.describe(error, path: store.path))")
        }
    }
}
