import GRDB
import SensorInput
import StepDetection
import WallTime

/// One transaction on the state, as the fetch sees it: what closing windows reads and writes, typed, with no SQL and
/// no database handle above Store. Handed to the closure of `StateStore.read` or `write`, and valid only inside it.
package struct StateTransaction {
    let db: Database

    // MARK: the window position

    /// Where the last posted window ended; nil before the first window.
    package func postedUntil() throws -> Instant? { try WindowStateRecord.postedUntil(db) }

    /// Moves the window position to `instant`.
    package func setPostedUntil(_ instant: Instant) throws { try WindowStateRecord.setPostedUntil(db, instant) }

    /// Sets the window position to `instant` only when there is none yet.
    package func setPostedUntilIfUnset(_ instant: Instant) throws {
        try WindowStateRecord.setPostedUntilIfUnset(db, instant)
    }

    /// Late steps waiting for the next window (0 before the first window).
    package func lateSteps() throws -> Int { try WindowStateRecord.lateSteps(db) }

    /// The late steps were posted in a window.
    package func clearLateSteps() throws { try WindowStateRecord.clearLateSteps(db) }

    // MARK: steps and bouts

    /// The start of the first stored step's second; nil when none are stored.
    package func firstStep() throws -> Instant? { try StepsRecord.first(db) }

    /// Steps counted in `window` (per-second resolution).
    package func steps(in window: TimeWindow) throws -> Int { try StateStore.steps(db, in: window) }

    /// The steps of `window` per UTC minute, as readings over their minutes.
    package func stepsPerMinute(in window: TimeWindow) throws -> [StepReading] {
        try StateStore.stepsPerMinute(db, in: window)
    }

    /// Walking bouts that ended in `window`.
    package func boutCount(endingIn window: TimeWindow) throws -> Int { try BoutRecord.count(db, endingIn: window) }

    /// Walking bouts that overlap `window`.
    package func bouts(overlapping window: TimeWindow) throws -> [WalkingBout] {
        try BoutRecord.overlapping(db, window)
    }

    /// Marks the bouts no fetch has answered yet as answered; returns how many there were.
    package func answerUnhandledBouts() throws -> Int { try BoutRecord.answerUnhandled(db) }

    // MARK: the outbox

    /// Adds a closing window's post for its target, unless the target already has one with its key.
    package func queue(_ entry: OutboxRecord) throws { try entry.add(db) }

    /// Keeps a window's chart, the first drawn for its key.
    package func keepChart(_ chart: OutboxImageRecord) throws { try chart.add(db) }

    /// Asks for a window's chart, drawn after this transaction commits (`StateStore.keepRequestedChart`).
    package func requestChart(_ request: ChartRequestRecord) throws { try request.add(db) }

    // MARK: sources

    /// A source's saved position; nil before its first read.
    package func sourceCursor(_ source: String) throws -> SourceCursorRecord? {
        try SourceCursorRecord.fetchOne(db, key: source)
    }

    /// Drops the records gathered for sources other than `sources` (`ReadingSpill.dropAll`); returns how many.
    package func dropGatheredRecords(except sources: [String]) throws -> Int {
        try ReadingSpill.dropAll(db, except: sources)
    }

    /// The first `limit` records gathered for `source` (a followed export out of time order), in start order.
    package func gatheredRecords(_ source: String, limit: Int) throws -> [SourcedReading] {
        try ReadingSpill.first(db, source: source, limit: limit)
    }

    /// Where a source's reading ledger stands; nil for a source read before the ledger was kept.
    package func readingLedgerMode(_ source: String) throws -> ReadingLedger.Mode? {
        try ReadingLedger.mode(db, source: source)
    }

    /// The sample streams a fetch still has work for (`ReceivedStreamRecord.active`).
    package func activeStreams(reorder: Duration) throws -> [String] {
        try ReceivedStreamRecord.active(db, reorder: reorder)
    }

    /// A pushed sample stream's record; nil when none was received.
    package func receivedStream(_ stream: String) throws -> ReceivedStreamRecord? {
        try ReceivedStreamRecord.fetchOne(db, key: stream)
    }

    /// Calls `body` with each waiting sample of `stream` in `(after, through]`, in time order.
    package func forEachReceivedSample(
        stream: String, after: Instant, through: Instant, _ body: (AccelerationSample) throws -> Void
    ) throws {
        try ReceivedSampleRecord.forEach(db, stream: stream, after: after, through: through, body)
    }

    /// How many samples of `stream` at or before `through` wait.
    package func receivedSampleCount(stream: String, through: Instant) throws -> Int {
        try ReceivedSampleRecord.count(db, stream: stream, through: through)
    }

    /// Counts what phones pushed since the last fetch (`ReceivedRecount`).
    package func recountReceived(now: Instant, settle: Duration, limit: Int) throws -> ReceivedRecount {
        try ReceivedRecount(db, now: now, settle: settle, limit: limit)
    }

    /// Saves a slice a source read: its steps (one device per minute where phones overlap), bouts, position, and
    /// what else the source changed. Returns the steps it lowered in time already posted (which stay posted).
    @discardableResult
    package func save(_ slice: IngestedSlice, now: Instant) throws -> Int {
        let nowNs = now.nanosecondsSinceEpoch
        var counted = slice.buckets
        let overlap = DeviceOverlap(prefer: slice.prefer)
        for (second, steps) in try overlap.resolve(db, slice.deviceBuckets) { counted[second, default: 0] += steps }
        var net = 0
        if let readings = slice.readings {
            if counted.isEmpty {
                // A file of readings only: its change saved a span of minutes at a time (a whole export read again
                // holds one span's seconds, not all of them); spans share no second.
                try ReadingLedger.apply(db, readings) { net += try StateStore.placeBuckets(db, $0, nowNs: nowNs) }
            } else {
                for (second, steps) in try ReadingLedger.apply(db, readings) { counted[second, default: 0] += steps }
            }
        }
        net += try StateStore.placeBuckets(db, counted, nowNs: nowNs)
        let lowered = try StateStore.addLateSteps(db, net: net).lowered
        for b in slice.bouts {
            try BoutRecord(
                endNs: b.end.nanosecondsSinceEpoch, startNs: b.start.nanosecondsSinceEpoch, steps: b.steps,
                handled: slice.boutsHandled
            ).insert(
                db, onConflict: .ignore)
        }
        if let spill = slice.spill { try ReadingSpill.apply(db, source: slice.position.source, spill) }
        try slice.position.upsert(db)
        for change in slice.changes { try apply(change, now: now) }
        return lowered
    }

    private func apply(_ change: IngestedSlice.Change, now: Instant) throws {
        switch change {
        case .counted(let recount):
            try recount.markCounted(db)
        case .fed(let stream, let through, let spans):
            try ReceivedSampleRecord.remove(db, stream: stream, through: through)
            try ReceivedCounted.add(spans, stream: stream, db)
        case .heard(let device, let format, let dataEnd, let samples):
            try ReceivedDevice.heard(
                db, device: device, format: format, now: now, dataEnd: dataEnd, readings: 0, samples: samples)
        }
    }
}

/// What one slice of a source's reading saves, in the transaction that may close a window on it.
package struct IngestedSlice: Sendable {
    /// What a source changes beside its steps, bouts and position.
    package enum Change: Sendable {
        /// The received readings a recount counted.
        case counted(ReceivedRecount.Marks)
        /// The samples of a stream fed to its detector through `through`: removed, the spans they covered kept.
        case fed(stream: String, through: Instant, spans: CountedSpans)
        /// A phone that is pulled was heard (listed with the phones that push).
        case heard(device: String, format: String, dataEnd: Instant?, samples: Int)
    }

    /// Steps per second, counted as they are.
    package var buckets: [Int64: Int]
    /// Steps per second of each device that may overlap another: one device counts per minute (`DeviceOverlap`).
    package var deviceBuckets: [String: [Int64: Int]]
    /// Names in order of preference where devices overlap (`source.prefer`).
    package var prefer: [String]
    package var bouts: [WalkingBout]
    /// Whether the bouts need no walk-triggered fetch of their own.
    package var boutsHandled: Bool
    /// Where the source's next read starts.
    package var position: SourceCursorRecord
    package var changes: [Change]
    /// A followed file's readings, counted through its reading ledger (`ReadingLedger`).
    package var readings: ReadingLedger.Change?
    /// A followed export's records gathered or settled (`ReadingSpill`).
    package var spill: ReadingSpill.Change?

    package init(
        buckets: [Int64: Int], deviceBuckets: [String: [Int64: Int]], prefer: [String], bouts: [WalkingBout],
        boutsHandled: Bool, position: SourceCursorRecord, changes: [Change], readings: ReadingLedger.Change? = nil,
        spill: ReadingSpill.Change? = nil
    ) {
        self.readings = readings
        self.spill = spill
        self.buckets = buckets
        self.deviceBuckets = deviceBuckets
        self.prefer = prefer
        self.bouts = bouts
        self.boutsHandled = boutsHandled
        self.position = position
        self.changes = changes
    }
}
