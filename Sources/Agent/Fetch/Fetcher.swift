import Foundation
import GRDB
import Messages
import Publishing
import SensorInput
import StepDetection

/// One background fetch: ingest new input since the cursors, store steps, close the window and queue its post in the
/// outbox in the same transaction, then deliver pending posts oldest first within the deadline.
public struct Fetcher: Sendable {
    public var configuration: AgentConfiguration
    /// Targets by outbox name.
    let publishers: [(name: String, publisher: any Publisher)]
    /// A number in 0..<1 for the retry backoff's jitter (injectable for tests).
    var random: @Sendable () -> Double = { Double.random(in: 0..<1) }

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
            report.fail("missing credentials: \(problem)", kind: .configuration)
            return report
        }
        let lock: FetchLock?
        if dryRun {
            lock = nil
        } else {
            do { lock = try FetchLock(path: configuration.statePath + ".lock") } catch {
                report.fail("\(error)", kind: .of(error))
                return report
            }
        }
        defer { lock?.release() }

        let store: StateStore
        do {
            store = dryRun ? try StateStore(readOnlyPath: configuration.statePath)
                : try StateStore(path: configuration.statePath, busyTimeout: min(5, configuration.schedule.deadline / 2))
        } catch {
            report.fail(Self.describe(error, path: configuration.statePath), kind: .of(error))
            return report
        }
        var failures: [FetchFailure] = []
        let nowNs = Timestamps.nanoseconds(now)

        // 1. Ingest and 2. close the window, in one transaction (nothing is half-saved).
        do {
            try ingestAndClose(store: store, nowNs: nowNs, report: &report)
        } catch let e as InputError {
            failures.append(FetchFailure(reason: "ingestion: \(e)", kind: .of(e)))
        } catch let e as ClassifiedError where e.underlying is InputError {
            failures.append(FetchFailure(reason: "ingestion: \(e)", kind: e.kind))
        } catch {
            failures.append(FetchFailure(reason: Self.describe(error, path: configuration.statePath), kind: .of(error)))
        }

        // 3. Deliver what is pending, oldest first, within the budget.
        let delivered = dryRun ? listDryRunDeliveries(&report)
            : await deliverPending(store: store, nowNs: nowNs, budgetEnd: budgetEnd, report: &report, failures: &failures)

        if let first = failures.first {
            report.fail(Self.summarize(failures.map(\.reason)), kind: first.kind)
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
                    report.fail("recording the fetch: " + Self.describe(error, path: configuration.statePath), kind: .of(error))
                }
            }
        }
        report.elapsedMs = (ContinuousClock.now - began) / .milliseconds(1)
        return report
    }

    /// A dry run lists what each target would be sent, and delivers nothing.
    func listDryRunDeliveries(_ report: inout FetchReport) -> Int {
        for w in report.windows {
            for (name, _) in publishers {
                report.deliveries.append(.init(target: name, idempotencyKey: w.idempotencyKey, windowStart: w.start,
                                               windowEnd: w.end, outcome: "dry_run"))
            }
        }
        return 0
    }

    /// Delivers the pending outbox entries oldest first; returns how many went through.
    func deliverPending(store: StateStore, nowNs: Int64, budgetEnd: ContinuousClock.Instant,
                        report: inout FetchReport, failures: inout [FetchFailure]) async -> Int {
        var delivered = 0
        do {
            for entry in try store.outbox(status: "pending") {
                let outcome = await deliver(entry, store: store, nowNs: nowNs, budgetEnd: budgetEnd)
                report.deliveries.append(outcome)
                switch outcome.outcome {
                case "delivered", "already_delivered": delivered += 1
                default:
                    let known = publishers.contains { $0.name == outcome.target }
                    failures.append(FetchFailure(reason: "\(outcome.target): \(outcome.reason ?? outcome.outcome)",
                                                 kind: .of(outcome, targetKnown: known)))
                }
            }
        } catch {
            failures.append(FetchFailure(reason: Self.describe(error, path: configuration.statePath), kind: .of(error)))
        }
        return delivered
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
        let lock: FetchLock
        do { lock = try FetchLock(path: configuration.statePath + ".lock") } catch { return .failure(WalkIngestError(message: "\(error)")) }
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
        } catch let e as ClassifiedError where e.underlying is InputError {
            return .failure(WalkIngestError(message: "ingestion: \(e)"))
        } catch {
            return .failure(WalkIngestError(message: Self.describe(error, path: configuration.statePath)))
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
}
