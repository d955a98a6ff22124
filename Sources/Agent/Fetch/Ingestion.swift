import Foundation
import Messages
import Publishing
import SensorInput
import Store
import WallTime

extension Fetcher {
    /// The configured sources of steps: the `[source]` file, device or phone, the phones that push to `[receive]`
    /// (each sample stream that still has work: `ReceivedStreamRecord.active`).
    func sources(_ store: StateStore) -> [any StepSource] {
        var sources: [any StepSource] = []
        if let phone = configuration.source?.phyphox {
            sources.append(
                PhyphoxStepSource(remote: phone, transport: pullTransport, parameters: configuration.detector))
        } else if let source = configuration.source {
            sources.append(FileStepSource(source: source, parameters: configuration.detector, store: store))
        }
        if let receive = configuration.receive {
            sources.append(ReceivedStepSource(store: store, settle: .seconds(receive.settle)))
            let reorder = Duration.seconds(receive.reorder)
            let streams = (try? store.read { tx in try tx.activeStreams(reorder: reorder) }) ?? []
            for stream in streams {
                sources.append(
                    ReceivedStreamSource(
                        store: store, stream: stream, reorder: reorder, parameters: configuration.detector))
            }
        }
        return sources
    }

    /// Reads every source in slices and closes the windows at the earliest watermark. After each slice its steps,
    /// bouts and position are saved in one transaction, and the budget is checked: reading stops when `ingestShare`
    /// of the budget is spent (or the fetch is cancelled, e.g. by SIGTERM), leaving the rest for delivery; a backlog
    /// goes on at the next fetch. The last slices are saved in the transaction that closes the windows, and the
    /// report is filled from what that transaction committed.
    func ingestAndClose(store: StateStore, now: Instant, budget: Deadline, report: inout FetchReport) async throws {
        let deliveryShare = Duration.seconds(configuration.schedule.deadline * (1 - Self.ingestShare))
        var finals: [(source: any StepSource, read: SourceRead)] = []
        var lowered = 0
        let configuredSources = sources(store)
        try await dropGatheredRecords(store, except: configuredSources.map(\.name), report: &report)
        for configured in configuredSources {
            let name = configured.name
            var saved = try await store.savedSource(name)
            report.warnings += saved.problems
            // A phone is asked within ingestion's share of the budget: delivery keeps its own.
            let pullDeadline = Deadline(in: budget.remaining - deliveryShare, clock: clock)
            let source = await configured.pull(after: saved, deadline: pullDeadline)
            var observeDevice = !report.dryRun
            while true {
                var read = try source.read(after: saved, now: now, byteLimit: sliceBytes, observeDevice: observeDevice)
                observeDevice = false  // a live device is read once per fetch
                report.warnings += read.warnings + read.notices
                report.boutsEnded += read.bouts.count
                if !read.moreToRead || budget.remaining <= deliveryShare || Task.isCancelled {
                    report.warnings += read.inputWarnings
                    read.next.skipped = SkippedLines()  // reported by this fetch, saved with its window
                    report.backlog = report.backlog || read.moreToRead
                    finals.append((source, read))
                    break
                }
                let slice = try read.slice(source: name, now: now, boutsHandled: true, prefer: configuration.prefer)
                lowered += try await store.write { tx in try tx.save(slice, now: now) }
                source.didSave(read)
                saved = read.next
                await Task.yield()
            }
        }
        let watermark = finals.map(\.read.watermark).min() ?? now
        let firstData = finals.compactMap(\.read.next.firstData).min()
        // Bouts this fetch posts need no walk-triggered fetch of their own.
        let lastSlices = try finals.map {
            try $0.read.slice(source: $0.source.name, now: now, boutsHandled: true, prefer: configuration.prefer)
        }
        let (closed, loweredLast) = try await store.write { tx in
            var lowered = 0
            for slice in lastSlices { lowered += try tx.save(slice, now: now) }
            let closed = try self.closeWindows(tx, watermark: watermark, firstData: firstData, now: now)
            return (closed, lowered)
        }
        for (source, read) in finals { source.didSave(read) }
        report.record(closed)
        lowered += loweredLast
        if lowered > 0 {
            report.warnings.append(
                "a resend lowered \(lowered) steps in time already posted: what was posted stays as it was")
        }
    }

    /// Drops what an export's gathering left for a source no longer configured (its `[source]` path changed while the
    /// export was gathered): no read will settle it, and it would stay in the state for good. Says so when it did.
    func dropGatheredRecords(_ store: StateStore, except names: [String], report: inout FetchReport) async throws {
        let kept = names
        let dropped = try await store.write { tx in try tx.dropGatheredRecords(except: kept) }
        if dropped > 0 {
            report.warnings.append(
                "dropped \(dropped) records gathered for a source no longer configured: a changed [source] path")
        }
    }

    /// The share of the budget ingestion may use before the window is closed and posts are delivered.
    static let ingestShare = 0.6

    /// For the walk trigger: reads and stores what is new (steps, bouts, positions) without closing a window, and
    /// returns how many walking bouts ended that no fetch has answered yet, marking them answered (once per bout).
    public func ingestForWalks(now: Instant) -> Result<Int, WalkIngestError> {
        guard configuration.source != nil || configuration.receive != nil else { return .success(0) }
        let lock: StateLock
        do { lock = try StateLock(path: configuration.statePath + ".lock") } catch {
            return .failure(WalkIngestError(message: "\(error)"))
        }
        defer { lock.release() }
        do {
            let store = try StateStore(path: configuration.statePath, busyTimeout: 2)
            var reads: [(source: any StepSource, read: SourceRead)] = []
            for source in sources(store) {
                let saved = try store.savedSource(source.name)
                // Saved state that cannot be read is recovered by a fetch, whose report says so.
                guard saved.problems.isEmpty else {
                    return .failure(
                        WalkIngestError(message: saved.problems.joined(separator: "; ") + "; left to the next fetch"))
                }
                let read = try source.read(after: saved, now: now, byteLimit: nil, observeDevice: true)
                // So is a reader's own state found unreadable while reading: nothing of this read is saved.
                guard read.warnings.isEmpty else {
                    return .failure(
                        WalkIngestError(message: read.warnings.joined(separator: "; ") + "; left to the next fetch"))
                }
                reads.append((source, read))
            }
            let slices = try reads.map {
                try $0.read.slice(source: $0.source.name, now: now, boutsHandled: false, prefer: configuration.prefer)
            }
            let bouts = try store.write { tx in
                for slice in slices { try tx.save(slice, now: now) }
                return try tx.answerUnhandledBouts()
            }
            for (source, read) in reads { source.didSave(read) }
            return .success(bouts)
        } catch let e as InputError {
            return .failure(WalkIngestError(message: "ingestion: \(configuration.described(e))"))
        } catch {
            return .failure(WalkIngestError(message: StateStore.describe(error, path: configuration.statePath)))
        }
    }
}

/// Why reading for the walk trigger failed.
public struct WalkIngestError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
