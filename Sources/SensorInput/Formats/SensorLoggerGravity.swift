import Foundation
import StepDetection

/// A Sensor Logger recording exported as a zip or folder whose acceleration is `Accelerometer.csv`: acceleration
/// without gravity (iOS, and Android beside `TotalAcceleration.csv`), which counts no step alone. The recording holds
/// gravity in `Gravity.csv` beside it; each accelerometer row plus the gravity row at the same time is the total
/// acceleration, paired as pushed batches are (`SensorLoggerAcceleration.pairs`: within 1 µs, each gravity row once).
/// Without `Gravity.csv`, `AccelerometerUncalibrated.csv` (with gravity) is read instead, as the receiver does; with
/// neither, the recording is refused rather than counted from acceleration without gravity.
enum SensorLoggerGravity {
    typealias Timed = SensorLoggerAcceleration.Timed

    /// The file that completes `r`, a Sensor Logger `Accelerometer.csv` in an export: `Gravity.csv` beside it, else
    /// `AccelerometerUncalibrated.csv`; nil for any other recording. Throws when there is neither.
    static func companion(of r: ResolvedInput) throws -> String? {
        guard r.format.name == HeaderCSVFormats.sensorLogger.name, let export = r.export, let file = r.file else {
            return nil
        }
        // Only Accelerometer.csv has companions.
        guard !Export.companions(format: r.format.name, file: file).isEmpty else { return nil }
        if let found = export.completing(file, format: r.format.name) { return found }
        throw InputError(
            file: r.path,
            message: "Sensor Logger's Accelerometer.csv is acceleration without gravity, which counts no step alone, "
                + "and there is no Gravity.csv (or AccelerometerUncalibrated.csv) beside it in this \(export.what): "
                + "record with Gravity turned on as well (on Android, TotalAcceleration)")
    }

    /// Reads `r` (`Accelerometer.csv`) completed by `companion` (`Gravity.csv`, or `AccelerometerUncalibrated.csv`
    /// read instead of it), a file of its export.
    ///
    /// The two files are merged as they are read, in time order: `Gravity.csv` on a thread of its own (`GravityFeed`),
    /// `Accelerometer.csv` on this one, so a recording of any length is held a few thousand rows at a time. Both are
    /// read as any Sensor Logger CSV: a row whose time goes backwards is skipped and named (`file:line`), so each
    /// stream is in time order. What is left out, and in which order it is said, is what pairing the whole files says.
    static func read(
        _ r: ResolvedInput, in export: Export, companion: String, options: ReadOptions, batch: SampleBatchSink?,
        _ sink: (InputItem) -> Void
    ) throws -> ReadSummary {
        let gravity = export.member(companion)
        guard Export.baseName(companion).lowercased() == "gravity.csv" else {
            return try InputFormats.read(
                path: gravity.path, format: r.format, options: options, source: gravity.source, batch: batch, sink)
        }
        // The accelerometer rows reach the merge through the reader's batch sink, an escaping closure type.
        return try withoutActuallyEscaping(sink) { sink in
            try merged(r, gravity: gravity.path, gravity.source, options: options, batch: batch, sink)
        }
    }

    private static func merged(
        _ r: ResolvedInput, gravity path: String, _ source: LineSource, options: ReadOptions,
        batch: SampleBatchSink?, _ sink: @escaping (InputItem) -> Void
    ) throws -> ReadSummary {
        let feed = GravityFeed(path: path, source: source, options: options)
        var merge = Merge(feed: feed, maxProblems: max(1, options.maxReportedIssues))
        func deliver(_ kept: [AccelerationSample]) {
            if let batch {
                kept.withUnsafeBufferPointer { batch($0) }
            } else {
                for s in kept { sink(.sample(s)) }
            }
        }
        let linearSummary: ReadSummary
        do {
            linearSummary = try GenericCSVReader.read(
                path: r.path, options: options, resume: nil, completeLinesOnly: false,
                formatName: HeaderCSVFormats.sensorLogger.name, source: r.source,
                batch: { run in for s in run { merge.add(s, deliver) } }
            ) { s in merge.add(s, deliver) }.summary
        } catch {
            _ = try? feed.finish()  // waits for its thread, which reads on to the end holding nothing
            throw error
        }
        merge.pairPending(all: true, deliver)
        let gravitySummary = try feed.finish()
        var summary = linearSummary
        summary.skippedLines += gravitySummary.skippedLines
        summary.issues = Array((linearSummary.issues + gravitySummary.issues).prefix(options.maxReportedIssues))
        summary.samples = 0
        summary.first = nil
        summary.last = nil
        if merge.paired == 0, merge.rows > 0 {
            throw InputError(
                file: r.path,
                message: "none of its \(merge.rows) rows has a row of \(path) at the same time (within "
                    + "1 µs), so there is no acceleration with gravity to count steps in")
        }
        let unpaired = merge.rows - merge.paired
        if unpaired > 0 {
            let have = unpaired == 1 ? "has" : "have"
            try summary.skip(
                InputError(
                    file: r.path,
                    message: "\(unpaired) of its \(merge.rows) rows \(have) no row of \(path) at the same "
                        + "time (within 1 µs): left out"),
                options: options)
        }
        for problem in merge.problems {
            try summary.skip(InputError(file: r.path, message: "with gravity added: \(problem)"), options: options)
        }
        summary.skippedLines += merge.unlistedProblems
        if let first = merge.firstNs, let last = merge.lastNs {
            summary.note(samples: merge.delivered, from: first, to: last)
        }
        return summary
    }

    /// Accelerometer rows paired with the gravity feed as they come, by `SensorLoggerAcceleration.pairs` over a few
    /// thousand rows at a time. The rows are cut where the next is more than 2 µs later: every gravity row a row
    /// before the cut could pair with is more than 1 µs before every row after it, so pairing the pieces pairs what
    /// pairing the whole files pairs, each gravity row once.
    struct Merge {
        static let rowsAtOnce = 4096
        let feed: GravityFeed
        let maxProblems: Int
        /// Accelerometer rows not paired yet, and how many there are when a cut is looked for next (more after a look
        /// that found none: rows closer than 2 µs all along are not searched again row by row).
        var pending: [Timed] = []
        var threshold = rowsAtOnce
        /// Accelerometer rows read, and those paired.
        var rows = 0
        var paired = 0
        /// Samples delivered, their first and last times.
        var delivered = 0
        var firstNs: Int64?
        var lastNs: Int64?
        /// Paired samples left out (over 50 g with gravity added): the first `maxProblems` described, the rest counted.
        var problems: [String] = []
        var unlistedProblems = 0

        init(feed: GravityFeed, maxProblems: Int) {
            self.feed = feed
            self.maxProblems = maxProblems
            pending.reserveCapacity(2 * Self.rowsAtOnce)
        }

        mutating func add(_ s: AccelerationSample, _ deliver: ([AccelerationSample]) -> Void) {
            pending.append(Timed(timeNs: s.time.nanosecondsSinceEpoch, v: .init(x: s.x, y: s.y, z: s.z)))
            rows += 1
            if pending.count >= threshold {
                pairPending(all: false, deliver)
                threshold = max(Self.rowsAtOnce, 2 * pending.count)
            }
        }

        /// Pairs the pending rows up to the last cut (`all`: every one, at the end of the file); `deliver` gets the
        /// samples kept.
        mutating func pairPending(all: Bool, _ deliver: ([AccelerationSample]) -> Void) {
            var end = pending.count
            if !all {
                let gap = 2 * SensorLoggerAcceleration.sameTimeNs
                guard let cut = (1..<pending.count).last(where: { pending[$0].timeNs - pending[$0 - 1].timeNs > gap })
                else { return }  // no cut yet (rows 2 µs apart or closer): wait for more
                end = cut
            }
            guard end > 0 else { return }
            let first = pending[0].timeNs - SensorLoggerAcceleration.sameTimeNs
            let last = pending[end - 1].timeNs + SensorLoggerAcceleration.sameTimeNs
            while let g = feed.peek(), g.timeNs < first { feed.advance() }
            var window: [Timed] = []
            while let g = feed.peek(), g.timeNs <= last {
                window.append(g)
                feed.advance()
            }
            let (samples, _) = SensorLoggerAcceleration.pairs(Array(pending[..<end]), window)
            pending.removeFirst(end)
            paired += samples.count
            var kept: [AccelerationSample] = []
            kept.reserveCapacity(samples.count)
            for s in samples {
                if let problem = SampleCheck.valueProblem(s) {
                    if problems.count < maxProblems { problems.append(problem) } else { unlistedProblems += 1 }
                } else {
                    kept.append(s)
                }
            }
            guard let f = kept.first, let l = kept.last else { return }
            if firstNs == nil { firstNs = f.time.nanosecondsSinceEpoch }
            lastNs = l.time.nanosecondsSinceEpoch
            delivered += kept.count
            deliver(kept)
        }
    }
}

/// The rows of a Sensor Logger CSV (`Gravity.csv`) read on a thread of their own and handed over in time order,
/// through a queue of a few blocks of rows: the reader waits while the queue is full, so the file is never held.
final class GravityFeed: @unchecked Sendable {
    typealias Timed = SensorLoggerAcceleration.Timed
    static let blockRows = 4096
    static let queuedBlocks = 4
    private let condition = NSCondition()
    private var queue: [[Timed]] = []
    private var finished = false
    private var stopped = false
    private var result: Result<ReadSummary, any Error>?
    private let done = DispatchSemaphore(value: 0)
    /// The block being taken, on the taking thread.
    private var current: [Timed] = []
    private var index = 0

    /// Starts reading `path` (`source`) as a Sensor Logger CSV.
    init(path: String, source: LineSource, options: ReadOptions) {
        // A thread of its own, not Dispatch's pool (see `Parallelism.ordered`).
        let thread = Thread { [self] in
            var block: [Timed] = []
            block.reserveCapacity(Self.blockRows)
            func add(_ s: AccelerationSample) {
                block.append(Timed(timeNs: s.time.nanosecondsSinceEpoch, v: .init(x: s.x, y: s.y, z: s.z)))
                if block.count == Self.blockRows {
                    push(block)
                    block.removeAll(keepingCapacity: true)
                }
            }
            let outcome = Result {
                try GenericCSVReader.read(
                    path: path, options: options, resume: nil, completeLinesOnly: false,
                    formatName: HeaderCSVFormats.sensorLogger.name, source: source,
                    batch: { run in for s in run { add(s) } }, add
                ).summary
            }
            if !block.isEmpty { push(block) }
            condition.lock()
            result = outcome
            finished = true
            condition.broadcast()
            condition.unlock()
            done.signal()
        }
        thread.stackSize = 8 << 20
        thread.start()
    }

    private func push(_ block: [Timed]) {
        condition.lock()
        defer { condition.unlock() }
        while queue.count >= Self.queuedBlocks && !stopped { condition.wait() }
        guard !stopped else { return }
        queue.append(block)
        condition.broadcast()
    }

    /// The next row, nil after the last one (or when reading failed: `finish` tells why).
    func peek() -> Timed? {
        if index < current.count { return current[index] }
        condition.lock()
        defer { condition.unlock() }
        while queue.isEmpty && !finished { condition.wait() }
        guard !queue.isEmpty else { return nil }
        current = queue.removeFirst()
        index = 0
        condition.broadcast()
        return current.first
    }

    /// Moves past the row `peek` gave.
    func advance() { index += 1 }

    /// The rows not taken are dropped; waits for the reading to end and returns its summary, or throws its error.
    func finish() throws -> ReadSummary {
        condition.lock()
        stopped = true
        queue.removeAll()
        condition.broadcast()
        condition.unlock()
        done.wait()
        done.signal()  // a second call returns at once
        return try result!.get()
    }
}
