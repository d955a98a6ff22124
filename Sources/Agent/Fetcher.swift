import Foundation
import GRDB
import Messages
import Publishing
import SensorInput
import StepDetection

/// The result of a fetch, as iOS's `UIBackgroundFetchResult`: exactly one per fetch.
public enum FetchResult: String, Codable, Sendable {
    case newData = "NewData"
    case noData = "NoData"
    case failed = "Failed"
}

/// What kind of problem made a fetch `Failed`, chosen from typed errors (never from message text). Callers map it to
/// an exit status: `temporary` may succeed by itself later (75), `configuration` needs the configuration, a credential
/// or a source path fixed (78), `input` is a source that cannot be read as its format (65).
public enum FailureKind: String, Codable, Sendable, Comparable {
    /// Network, a server's 5xx or 429, the lock held, the deadline, a vanished device, a source not yet written.
    case temporary
    /// A source that cannot be read as its format.
    case input
    /// Configuration or credentials: missing credentials, a refused post (4xx), a source path that does not exist.
    case configuration

    /// The more serious of two kinds is the one a person must act on: configuration, then input, then temporary.
    public static func < (a: FailureKind, b: FailureKind) -> Bool { a.rank < b.rank }
    var rank: Int { self == .temporary ? 0 : self == .input ? 1 : 2 }

    /// The kind of a source read failure.
    static func of(_ error: InputError) -> FailureKind {
        switch error.kind {
        case .unreadable: return .configuration
        case .malformed: return .input
        case .notYetAvailable: return .temporary
        }
    }
}

/// A failure with its kind, for problems the fetch finds itself (not from a lower module's typed error).
struct FetchFailure: Error, CustomStringConvertible {
    var kind: FailureKind
    var message: String
    var description: String { message }
}

/// What one fetch did: the windows it added to the outbox, the deliveries it tried, and its result.
public struct FetchReport: Codable, Sendable {
    /// A window composed by this fetch.
    public struct Window: Codable, Sendable, Equatable {
        public var start: Date
        public var end: Date
        public var steps: Int
        public var text: String
        public var idempotencyKey: String
    }

    /// One delivery attempt (or, in a dry run, a delivery that would be attempted).
    public struct Delivery: Codable, Sendable, Equatable {
        public var target: String
        public var idempotencyKey: String
        public var windowStart: Date
        public var windowEnd: Date
        /// `delivered`, `already_delivered`, `retryable`, `permanent`, `deferred` (not due or no budget) or `dry_run`.
        public var outcome: String
        public var remoteID: String?
        public var reason: String?
    }

    public var result: FetchResult
    public var reason: String?
    /// For `Failed`: the most serious kind among its failures.
    public var failureKind: FailureKind?
    public var trigger: String
    public var now: Date
    public var dryRun: Bool
    /// The window considered, even when nothing was posted for it.
    public var windowStart: Date?
    public var windowEnd: Date?
    public var steps: Int?
    public var windows: [Window] = []
    public var deliveries: [Delivery] = []
    /// Walking bouts that ended in the data ingested by this fetch.
    public var boutsEnded = 0
    /// Time the fetch took (monotonic clock), in milliseconds.
    public var elapsedMs = 0.0

    public init(result: FetchResult, reason: String? = nil, trigger: String, now: Date, dryRun: Bool) {
        self.result = result
        self.reason = reason
        self.trigger = trigger
        self.now = now
        self.dryRun = dryRun
    }

    /// Marks the fetch `Failed` for `reason`, of `kind`.
    mutating func fail(_ kind: FailureKind, _ reason: String) {
        result = .failed
        self.reason = reason
        failureKind = kind
    }

    /// One line for an operator's log: trigger, result, window with its steps, each target's outcome, elapsed time;
    /// times in `zone` with their offset. E.g. `fetch schedule: NewData; window 2026-11-21T10:00:00+09:00 〜
    /// 2026-11-21T10:30:00+09:00, 1234 steps; mastodon delivered (id 109), x retryable: HTTP 503; 412 ms`.
    public func logLine(zone: TimeZone) -> String {
        let f = { (d: Date) in Timestamps.format(d, zone: zone) }
        var parts = ["fetch \(trigger): \(line)"]
        if let s = windowStart, let e = windowEnd { parts.append("window \(f(s)) 〜 \(f(e)), \(steps ?? 0) steps") }
        let targets = deliveries.map { d in
            "\(d.target) \(d.outcome)" + (d.remoteID.map { " (id \($0))" } ?? "") + (d.reason.map { ": \($0)" } ?? "")
        }
        if !targets.isEmpty { parts.append(targets.joined(separator: ", ")) }
        parts.append(String(format: "%.0f ms", elapsedMs))
        return parts.joined(separator: "; ")
    }

    /// `NewData`, `NoData` or `Failed: <reason>`.
    public var line: String { result == .failed ? "Failed: \(reason ?? "unknown")" : result.rawValue }
}

/// One background fetch: ingest new input since the cursors, store steps, close the window and queue its post in the
/// outbox in the same transaction, then deliver pending posts oldest first within the deadline.
public struct Fetcher: Sendable {
    public var configuration: AgentConfiguration
    /// Targets by outbox name.
    let publishers: [(name: String, publisher: any Publisher)]

    public init(configuration: AgentConfiguration) {
        self.configuration = configuration
        var seen = Set<String>()
        var list: [(String, any Publisher)] = []
        for (i, p) in configuration.publishers.enumerated() {
            var name = p.name
            if seen.contains(name) { name += "-\(i)" }
            seen.insert(name)
            list.append((name, p))
        }
        publishers = list
    }

    /// Runs one fetch at `now` (virtual or real). Never throws: every failure becomes `Failed` with a reason.
    /// The budget (`schedule.deadline`) is measured on the real monotonic clock from the call.
    public func fetch(now: Date, trigger: String, dryRun: Bool = false) async -> FetchReport {
        let budgetEnd = ContinuousClock.now + .seconds(configuration.schedule.deadline)
        var report = FetchReport(result: .noData, trigger: trigger, now: now, dryRun: dryRun)
        if let problem = configuration.publishingProblem {
            report.fail(.configuration, "missing credentials: \(problem)")
            return recordEarlyFailure(report, budgetEnd: budgetEnd)
        }
        let lock: StateLock?
        if dryRun {
            lock = nil
        } else {
            // Another fetch (the agent's, a timer's) may hold the state: wait for it within the budget.
            do {
                lock = try await StateLock.acquire(path: configuration.statePath + ".lock",
                                                   waitingUntil: Deadline(at: budgetEnd, on: ContinuousClock()))
            } catch {
                report.fail(.temporary, "\(error)")
                return recordEarlyFailure(report, budgetEnd: budgetEnd)
            }
        }
        defer { lock?.release() }

        let store: StateStore
        do {
            store = dryRun ? try StateStore(readOnlyPath: configuration.statePath)
                : try StateStore(path: configuration.statePath, busyTimeout: min(5, configuration.schedule.deadline / 2))
        } catch {
            report.fail(Self.kind(ofStateError: error), Self.describe(error, path: configuration.statePath))
            return report
        }
        var failures: [(kind: FailureKind, reason: String)] = []
        let nowNs = Timestamps.nanoseconds(now)

        // 1. Ingest and 2. close the window, in one transaction (nothing is half-saved).
        do {
            try ingestAndClose(store: store, nowNs: nowNs, report: &report)
        } catch let e as InputError {
            failures.append((FailureKind.of(e), "ingestion: \(e)"))
        } catch let e as FetchFailure {
            failures.append((e.kind, "ingestion: \(e)"))
        } catch {
            failures.append((Self.kind(ofStateError: error), Self.describe(error, path: configuration.statePath)))
        }

        // 3. Deliver what is pending, oldest first, within the budget.
        var delivered = 0
        if dryRun {
            for w in report.windows {
                for (name, _) in publishers {
                    report.deliveries.append(.init(target: name, idempotencyKey: w.idempotencyKey, windowStart: w.start,
                                                   windowEnd: w.end, outcome: "dry_run"))
                }
            }
        } else {
            do {
                let pending = try store.outbox(status: "pending")
                for entry in pending {
                    let outcome = await deliver(entry, store: store, nowNs: nowNs, budgetEnd: budgetEnd)
                    report.deliveries.append(outcome)
                    switch outcome.outcome {
                    case "delivered", "already_delivered": delivered += 1
                    case "permanent": failures.append((.configuration, "\(outcome.target): \(outcome.reason ?? outcome.outcome)"))
                    default: failures.append((.temporary, "\(outcome.target): \(outcome.reason ?? outcome.outcome)"))
                    }
                }
            } catch {
                failures.append((Self.kind(ofStateError: error), Self.describe(error, path: configuration.statePath)))
            }
        }

        if !failures.isEmpty {
            report.fail(failures.map(\.kind).max() ?? .temporary, Self.summarize(failures.map(\.reason)))
        } else if !report.windows.isEmpty || delivered > 0 {
            report.result = .newData
        } else {
            report.result = .noData
        }

        // 4. History: exactly one row per fetch.
        let began = budgetEnd - .seconds(configuration.schedule.deadline)
        if !dryRun {
            let endedNs = nowNs + Int64((ContinuousClock.now - began) / .nanoseconds(1))
            do {
                try recordHistory(store: store, report: report, nowNs: nowNs, endedNs: endedNs)
            } catch {
                if report.result != .failed {
                    report.fail(Self.kind(ofStateError: error), "recording the fetch: " + Self.describe(error, path: configuration.statePath))
                }
            }
        }
        report.elapsedMs = (ContinuousClock.now - began) / .milliseconds(1)
        return report
    }

    /// A fetch that failed before it could start (missing credentials, the state held by another fetch for the
    /// whole budget) is still recorded in the history, when the state database can be written.
    func recordEarlyFailure(_ report: FetchReport, budgetEnd: ContinuousClock.Instant) -> FetchReport {
        var report = report
        let began = budgetEnd - .seconds(configuration.schedule.deadline)
        report.elapsedMs = (ContinuousClock.now - began) / .milliseconds(1)
        guard !report.dryRun, let store = try? StateStore(path: configuration.statePath, busyTimeout: 1) else { return report }
        let nowNs = Timestamps.nanoseconds(report.now)
        try? recordHistory(store: store, report: report, nowNs: nowNs, endedNs: nowNs + Int64(report.elapsedMs * 1e6))
        return report
    }

    func ingestAndClose(store: StateStore, nowNs: Int64, report: inout FetchReport) throws {
        let ingest: Ingest?
        if let source = configuration.source {
            let saved = try store.writer.read { db in try StateStore.savedSource(db, source: source.path) }
            ingest = try Ingest.read(source: source, saved: saved, nowNs: nowNs, observeDevice: !report.dryRun)
        } else {
            ingest = nil
        }
        report.boutsEnded = ingest?.bouts.count ?? 0
        if report.dryRun {
            try store.writer.read { db in try closeWindows(db, ingest: ingest, nowNs: nowNs, report: &report) }
        } else {
            try store.writer.write { db in
                // Bouts this fetch posts need no walk-triggered fetch of their own.
                if let ingest, let source = configuration.source { try ingest.save(db, source: source.path, nowNs: nowNs, boutsHandled: true) }
                try closeWindows(db, ingest: ingest, nowNs: nowNs, report: &report)
            }
            configuration.source?.accelerometer?.removeRotatedFile(ifFinished: ingest?.finishedInode)
        }
    }

    func recordHistory(store: StateStore, report: FetchReport, nowNs: Int64, endedNs: Int64) throws {
        try store.writer.write { db in
            try db.execute(sql: """
                INSERT INTO fetch_history (started_ns, ended_ns, trigger, window_start_ns, window_end_ns, steps, result, error)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [nowNs, endedNs, report.trigger, report.windowStart.map(Timestamps.nanoseconds),
                                 report.windowEnd.map(Timestamps.nanoseconds), report.steps,
                                 report.result.rawValue, report.reason])
        }
    }

    /// For the walk trigger: reads and stores what is new (steps, bouts, cursor) without closing a window, and
    /// returns how many walking bouts ended that no fetch has answered yet, marking them answered (once per bout).
    public func ingestForWalks(now: Date) -> Result<Int, WalkIngestError> {
        guard let source = configuration.source else { return .success(0) }
        let lock: StateLock
        do { lock = try StateLock(path: configuration.statePath + ".lock") } catch { return .failure(WalkIngestError(message: "\(error)")) }
        defer { lock.release() }
        let nowNs = Timestamps.nanoseconds(now)
        do {
            let store = try StateStore(path: configuration.statePath, busyTimeout: 2)
            let saved = try store.writer.read { db in try StateStore.savedSource(db, source: source.path) }
            let ingest = try Ingest.read(source: source, saved: saved, nowNs: nowNs)
            let bouts = try store.writer.write { db in
                try ingest.save(db, source: source.path, nowNs: nowNs, boutsHandled: false)
                let n = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM bouts WHERE handled = 0") ?? 0
                try db.execute(sql: "UPDATE bouts SET handled = 1 WHERE handled = 0")
                return n
            }
            source.accelerometer?.removeRotatedFile(ifFinished: ingest.finishedInode)
            return .success(bouts)
        } catch let e as InputError {
            return .failure(WalkIngestError(message: "ingestion: \(e)"))
        } catch {
            return .failure(WalkIngestError(message: Self.describe(error, path: configuration.statePath)))
        }
    }

    /// Decides the window(s) ending at settled time and, when they have steps (or `post_zero`), adds their posts.
    func closeWindows(_ db: Database, ingest: Ingest?, nowNs: Int64, report: inout FetchReport) throws {
        let settled = min(ingest?.settledNs ?? nowNs, nowNs)
        let endLimit = StateStore.floorSecond(settled) * 1_000_000_000
        let posted = try StateStore.postedUntil(db)
        let storedFirst = try Int64.fetchOne(db, sql: "SELECT MIN(second) FROM steps").map { $0 * 1_000_000_000 }
        let firstData = ingest?.firstDataNs ?? storedFirst
        var startNs: Int64
        if let posted {
            startNs = posted
        } else {
            startNs = StateStore.floorSecond(min(firstData ?? endLimit, endLimit)) * 1_000_000_000
            if case .aligned(let length) = configuration.schedule.window {
                startNs = Self.periodStart(containing: startNs, length: length, zone: configuration.composer.timeZone)
            }
        }
        // Steps not yet stored (dry run) count too.
        let dryRun = report.dryRun
        func extra(_ lo: Int64, _ hi: Int64) -> Int {
            guard dryRun, let ingest else { return 0 }
            return ingest.buckets.reduce(0) { $0 + ($1.key * 1_000_000_000 >= lo && $1.key * 1_000_000_000 < hi ? $1.value : 0) }
        }
        var windows: [(Int64, Int64)] = []
        switch configuration.schedule.window {
        case .sinceLast:
            if endLimit > startNs { windows = [(startNs, endLimit)] }
        case .aligned(let length):
            let zone = configuration.composer.timeZone
            var p = Self.periodStart(containing: startNs, length: length, zone: zone)
            if p < startNs { p = Self.periodStart(containing: startNs, length: length, zone: zone, next: true) }
            while windows.count < 48 {
                let e = Self.periodStart(containing: p, length: length, zone: zone, next: true)
                guard e <= endLimit else { break }
                windows.append((p, e))
                p = e
            }
        }
        var newEnd: Int64?
        for (lo, hi) in windows {
            let steps = try StateStore.steps(db, fromNs: lo, toNs: hi) + extra(lo, hi)
            report.windowStart = StateStore.date(lo)
            report.windowEnd = StateStore.date(hi)
            report.steps = steps
            guard steps > 0 || configuration.schedule.postZero else {
                // Aligned periods without steps are passed over; a since-last window stays open.
                if case .aligned = configuration.schedule.window { newEnd = hi }
                continue
            }
            let window = StepWindow(start: StateStore.date(lo), end: StateStore.date(hi), steps: steps,
                                    bouts: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM bouts WHERE end_ns >= ? AND end_ns < ?", arguments: [lo, hi]) ?? 0)
            let text = configuration.composer.compose(window)
            let key = Post.idempotencyKey(windowStart: window.start, windowEnd: window.end)
            report.windows.append(.init(start: window.start, end: window.end, steps: steps, text: text, idempotencyKey: key))
            newEnd = hi
            if !report.dryRun {
                for (name, _) in publishers {
                    try db.execute(sql: """
                        INSERT OR IGNORE INTO outbox (window_start_ns, window_end_ns, steps, text, target, idempotency_key, next_attempt_ns, created_ns)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                        """, arguments: [lo, hi, steps, text, name, key, nowNs, nowNs])
                }
            }
        }
        if !report.dryRun {
            if let newEnd {
                try db.execute(sql: "INSERT INTO window_state (id, posted_until_ns) VALUES (1, ?) ON CONFLICT(id) DO UPDATE SET posted_until_ns = excluded.posted_until_ns", arguments: [newEnd])
            } else if posted == nil, firstData != nil {
                try db.execute(sql: "INSERT OR IGNORE INTO window_state (id, posted_until_ns) VALUES (1, ?)", arguments: [startNs])
            }
        }
        if windows.isEmpty {
            report.windowStart = StateStore.date(startNs)
            report.windowEnd = StateStore.date(max(startNs, endLimit))
            report.steps = 0
        }
    }

    /// Start (ns) of the period of `length` seconds containing `ns` (or the following one), aligned in `zone`.
    static func periodStart(containing ns: Int64, length: TimeInterval, zone: TimeZone, next: Bool = false) -> Int64 {
        let date = StateStore.date(ns)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let unit: Calendar.Component = length >= 86_400 ? .day : .hour
        guard let start = calendar.dateInterval(of: unit, for: date)?.start else { return ns }
        let out = next ? calendar.date(byAdding: unit, value: 1, to: start) ?? start : start
        return Timestamps.nanoseconds(out)
    }

    /// Tries one outbox entry: count the attempt first (so a crash mid-request is retried with the same key),
    /// publish within the remaining budget, then record the outcome. For a target that would post a repeat twice
    /// (no idempotency key), an entry whose last attempt is unconfirmed is looked up on the target first.
    func deliver(_ entry: StateStore.OutboxEntry, store: StateStore, nowNs: Int64,
                 budgetEnd: ContinuousClock.Instant) async -> FetchReport.Delivery {
        var d = FetchReport.Delivery(target: entry.target, idempotencyKey: entry.idempotencyKey, windowStart: entry.windowStart,
                                     windowEnd: entry.windowEnd, outcome: "deferred")
        guard let publisher = publishers.first(where: { $0.name == entry.target })?.publisher else {
            d.reason = "no configured target is named '\(entry.target)'"
            return d
        }
        if Timestamps.nanoseconds(entry.nextAttempt) > nowNs {
            d.reason = "waiting to retry until \(Timestamps.format(entry.nextAttempt))"
            return d
        }
        guard var deadline = Self.remainingBudget(budgetEnd) else {
            d.reason = "deadline passed before delivery"
            return d
        }
        let post = Post(text: entry.text, idempotencyKey: entry.idempotencyKey, windowStart: entry.windowStart, windowEnd: entry.windowEnd)
        let backoff = { (attempts: Int) in min(3600, 30 * pow(2, Double(min(max(attempts, 1) - 1, 10)))) * Double.random(in: 0.8...1.2) }
        if publisher.repeatsDuplicate && entry.unconfirmed {
            let settled: (status: String, next: Int64, remote: String?, error: String?, unconfirmed: Bool)?
            switch await Self.lookUp(publisher: publisher, post: post, deadline: deadline) {
            case .found(let id):
                d.outcome = "already_delivered"; d.remoteID = id
                d.reason = "found on \(publisher.name): an earlier attempt went through although its answer was lost"
                settled = ("delivered", nowNs, id, nil, false)
            case .notFound:
                settled = nil
            case .failed(let reason):
                d.outcome = "retryable"
                d.reason = "not resent: cannot tell whether an earlier attempt was posted (\(reason))"
                settled = ("pending", nowNs + Int64(backoff(entry.attempts) * 1e9), nil, d.reason, true)
            case .unsupported:
                if publisher.resendUnconfirmed {
                    settled = nil
                } else {
                    d.outcome = "permanent"
                    d.reason = "an earlier attempt may have been posted (its answer was lost); not sent again to avoid a duplicate (resend_unconfirmed = false)"
                    settled = ("failed", nowNs, nil, d.reason, true)
                }
            }
            if let settled {
                do {
                    try store.recordOutcome(entry.id, status: settled.status, nextNs: settled.next, remoteID: settled.remote,
                                            error: settled.error, nowNs: nowNs, unconfirmed: settled.unconfirmed)
                } catch {
                    d.outcome = "retryable"
                    d.reason = "recording the lookup: " + Self.describe(error, path: store.path)
                }
                return d
            }
            guard let left = Self.remainingBudget(budgetEnd) else {
                d.reason = "deadline passed before delivery (after looking the post up on \(publisher.name))"
                return d
            }
            deadline = left
        }
        do {
            try store.countAttempt(entry.id)
        } catch {
            d.reason = Self.describe(error, path: store.path)
            return d
        }
        let outcome = await Self.race(publisher: publisher, post: post, deadline: deadline)
        let attempts = entry.attempts + 1
        let update: (status: String, next: Int64, remote: String?, error: String?, unconfirmed: Bool)
        switch outcome {
        case .delivered(let id):
            d.outcome = "delivered"; d.remoteID = id
            update = ("delivered", nowNs, id, nil, false)
        case .alreadyDelivered(let id):
            d.outcome = "already_delivered"; d.remoteID = id
            update = ("delivered", nowNs, id, nil, false)
        case .retryable(let reason, let after, let unconfirmed):
            d.outcome = "retryable"; d.reason = reason
            update = ("pending", nowNs + Int64((after ?? backoff(attempts)) * 1e9), nil, reason, unconfirmed)
        case .permanent(let reason):
            d.outcome = "permanent"; d.reason = reason
            update = ("failed", nowNs, nil, reason, false)
        }
        do {
            try store.recordOutcome(entry.id, status: update.status, nextNs: update.next, remoteID: update.remote,
                                    error: update.error, nowNs: nowNs, unconfirmed: update.unconfirmed)
        } catch {
            // The post went out but could not be recorded: it stays pending and is re-sent with the same key.
            d.reason = "recording the delivery: " + Self.describe(error, path: store.path)
            if d.outcome == "delivered" || d.outcome == "already_delivered" { d.outcome = "retryable" }
        }
        return d
    }

    /// The deadline at `budgetEnd`; nil when less than 50 ms remain.
    static func remainingBudget(_ budgetEnd: ContinuousClock.Instant) -> Deadline? {
        let deadline = Deadline(at: budgetEnd, on: ContinuousClock())
        return deadline.remaining > .milliseconds(50) ? deadline : nil
    }

    /// Looks a post up, but returns no later than the deadline (+ a little).
    static func lookUp(publisher: any Publisher, post: Post, deadline: Deadline) async -> PostLookup {
        await deadline.race(grace: .milliseconds(200), orElse: .failed(reason: "no answer from \(publisher.name) before the deadline")) {
            await publisher.lookUp(post, deadline: deadline)
        }
    }

    /// Publishes, but returns no later than the deadline (+ a little): a hung target cannot hold the fetch.
    static func race(publisher: any Publisher, post: Post, deadline: Deadline) async -> DeliveryOutcome {
        await deadline.race(grace: .milliseconds(200), orElse: .retryable(reason: "no answer from \(publisher.name) before the deadline",
                                                                         retryAfter: nil, unconfirmed: true)) {
            await publisher.publish(post, deadline: deadline)
        }
    }

    /// Whether the file system holding `path` has (almost) no space left.
    static func diskIsFull(near path: String) -> Bool {
        var info = statvfs()
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        guard statvfs(directory, &info) == 0 else { return false }
        return UInt64(info.f_bavail) * UInt64(info.f_frsize) < 64 * 1024
    }

    static func summarize(_ failures: [String]) -> String {
        failures.count == 1 ? failures[0] : "\(failures[0]) (and \(failures.count - 1) more)"
    }

    /// A clear reason for a state database error: locked, corrupt, full disk, read-only, ...
    public static func describe(_ error: Error, path: String) -> String {
        if let e = error as? DatabaseError {
            switch e.resultCode {
            case .SQLITE_BUSY, .SQLITE_LOCKED:
                return "state database \(path) is locked by another process"
            case .SQLITE_CORRUPT, .SQLITE_NOTADB:
                return "state database \(path) is corrupt or not a SQLite database (\(e.message ?? "\(e.resultCode)")); move it aside to start afresh"
            case .SQLITE_FULL:
                return "state database \(path): disk full"
            case .SQLITE_IOERR where Self.diskIsFull(near: path):
                return "state database \(path): disk full (\(e.message ?? "I/O error"))"
            case .SQLITE_READONLY, .SQLITE_PERM, .SQLITE_CANTOPEN:
                return "state database \(path) cannot be written (\(e.message ?? "\(e.resultCode)"))"
            default:
                return "state database \(path): \(e.message ?? "\(e.resultCode)")"
            }
        }
        return "\(error)"
    }

    /// The kind of a state database error: locked, busy or a full disk may pass by themselves; a corrupt, read-only
    /// or unopenable database needs a person.
    public static func kind(ofStateError error: Error) -> FailureKind {
        guard let e = error as? DatabaseError else { return .temporary }
        switch e.resultCode {
        case .SQLITE_CORRUPT, .SQLITE_NOTADB, .SQLITE_READONLY, .SQLITE_PERM, .SQLITE_CANTOPEN: return .configuration
        default: return .temporary
        }
    }
}

/// Why reading for the walk trigger failed.
public struct WalkIngestError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

/// What was read from the source in one fetch (not yet saved).
struct Ingest: Sendable {
    var buckets: [Int64: Int] = [:]
    var bouts: [WalkingBout] = []
    var cursor: SourceCursor?
    var detector: StepDetector
    var lastSampleNs: Int64?
    var firstDataNs: Int64?
    /// Steps before this time are final.
    var settledNs: Int64
    /// The file this read started in, when it read that file to its end and moved on to another (a rotation).
    var finishedInode: UInt64?

    static func read(source: AgentConfiguration.Source, saved: StateStore.SavedSource, nowNs: Int64,
                     observeDevice: Bool = true) throws -> Ingest {
        if let counter = source.stepCounter {
            if observeDevice {
                try counter.record(nowNs: nowNs)
            } else if !FileManager.default.fileExists(atPath: counter.logPath) {
                // A dry run before the first reading: nothing logged yet, and a dry run writes nothing.
                return Ingest(cursor: saved.cursor, detector: saved.detector ?? StepDetector(),
                              lastSampleNs: saved.lastSampleNs, firstDataNs: saved.firstDataNs, settledNs: nowNs)
            }
        }
        if let accelerometer = source.accelerometer, !FileManager.default.fileExists(atPath: accelerometer.samplePath) {
            throw InputError(file: accelerometer.samplePath, message: "no samples yet: \(accelerometer.summary) is sampled by `steptweet agent`, which has not run with this configuration", kind: .notYetAvailable)
        }
        var ingest = Ingest(cursor: saved.cursor, detector: saved.detector ?? StepDetector(),
                            lastSampleNs: saved.lastSampleNs, firstDataNs: saved.firstDataNs, settledNs: nowNs)
        var options = ReadOptions()
        options.startNs = source.start.map(Timestamps.nanoseconds)
        options.format = source.format
        if !source.prefer.isEmpty { options.overlap = .preferSources(source.prefer) }
        var detector = ingest.detector
        var buckets: [Int64: Int] = [:]
        var bouts: [WalkingBout] = []
        var last = ingest.lastSampleNs, first = ingest.firstDataNs
        let handle: (DetectorEvent) -> Void = { event in
            switch event {
            case .step(let t): buckets[StateStore.floorSecond(t), default: 0] += 1
            case .boutEnded(let b): bouts.append(b)
            case .boutStarted: break
            }
        }
        let sink: (InputItem) -> Void = { item in
            switch item {
            case .sample(let s):
                if first == nil { first = s.timeNs }
                last = s.timeNs
                detector.push(timeNs: s.timeNs, x: s.x, y: s.y, z: s.z, handle)
            case .reading(let r):
                if first == nil { first = r.startNs }
                // Steps of a reading were taken before its end: one ending exactly at a window's end belongs to it.
                buckets[StateStore.floorSecond(max(r.startNs, r.endNs - 1)), default: 0] += r.steps
            }
        }
        var from = saved.cursor
        var rotated: ReadSummary?
        if from == nil, let device = source.accelerometer {
            if FileManager.default.fileExists(atPath: device.rotatedPath) {
                // The sampler rotated its file before any fetch read it: that file comes first.
                (rotated, from) = try SourceReader.readNew(path: device.rotatedPath, options: options, cursor: nil, sink)
            }
            if from == nil, let identity = Self.identity(of: source.path) {
                // Start at the current file's beginning under its identity, so that a rotation from now on is noticed
                // (and the renamed file read first) instead of starting in the new file.
                from = SourceCursor(offset: 0, lineNumber: 0, device: identity.device, inode: identity.inode)
            }
        }
        let startInode = from?.inode
        var (summary, cursor) = try SourceReader.readNew(path: source.path, options: options, cursor: from, sink)
        if let rotated { summary = rotated.merged(with: summary) }
        if let startInode, let now = cursor?.inode, now != startInode { ingest.finishedInode = startInode }
        if summary.samples > 0 && !summary.absoluteTime && source.start == nil {
            throw FetchFailure(kind: .configuration, message: "\(source.path): its times are relative (they start near 0): set source.start to the wall-clock time of its first sample")
        }
        if !source.follow {
            // A complete recording: its last bout is over.
            detector.finish(handle)
            ingest.settledNs = nowNs
        } else if let last, nowNs - last > Self.lateDataAllowanceNs {
            // The stream stopped: the next sample, if any, comes after a gap that ends the bout. End it now, so that
            // its last steps land in this window rather than after it was posted.
            detector.finish(handle)
            ingest.settledNs = nowNs
        } else if let s = detector.settledNs {
            // The stream may go on (samples can arrive a little after they were taken: a writer's buffer, a
            // rotation): candidates still waiting for a bout's confirmation may yet be credited, so the window
            // closes no later than the detector's settled time.
            ingest.settledNs = min(nowNs, s)
        }
        ingest.detector = detector
        ingest.buckets = buckets
        ingest.bouts = bouts
        ingest.cursor = cursor
        ingest.lastSampleNs = last
        ingest.firstDataNs = first
        return ingest
    }

    /// How long after its last sample a growing source may still deliver samples that continue the same stream.
    /// Past it the stream is taken as ended: its bout is closed and windows close at the fetch time.
    static let lateDataAllowanceNs: Int64 = 60_000_000_000

    static func identity(of path: String) -> (device: UInt64, inode: UInt64)? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return (UInt64(st.st_dev), UInt64(st.st_ino))
    }

    func save(_ db: Database, source: String, nowNs: Int64, boutsHandled: Bool) throws {
        try StateStore.addBuckets(db, buckets)
        for b in bouts {
            try db.execute(sql: "INSERT OR IGNORE INTO bouts (end_ns, start_ns, steps, handled) VALUES (?, ?, ?, ?)",
                           arguments: [b.endNs, b.startNs, b.steps, boutsHandled ? 1 : 0])
        }
        let encoder = JSONEncoder()
        let cursorText = try cursor.map { String(decoding: try encoder.encode($0), as: UTF8.self) }
        let detectorText = String(decoding: try encoder.encode(detector), as: UTF8.self)
        try db.execute(sql: """
            INSERT INTO source_cursor (source, cursor, detector, last_sample_ns, first_data_ns, updated_ns) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT(source) DO UPDATE SET cursor = excluded.cursor, detector = excluded.detector,
            last_sample_ns = excluded.last_sample_ns, first_data_ns = excluded.first_data_ns, updated_ns = excluded.updated_ns
            """, arguments: [source, cursorText, detectorText, lastSampleNs, firstDataNs, nowNs])
    }
}
