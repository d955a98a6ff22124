import SensorInput
import Store
import WallTime

/// A followed file's step readings as one read took them, and how they count: through the source's reading ledger
/// (`ReadingLedger`: a newer export over the old one counts what it says, per minute), or, for a source that counted
/// readings before the ledger was kept, as before (a file that starts over gives none ending by the last one
/// counted), while its ledger is filled from that file.
struct ReadingTally {
    let ledger: ReadingLedger.Mode?
    /// Readings ending at or before this were counted before the ledger was kept (nanoseconds).
    let bound: Int64?
    /// Every reading the read took, in the order read.
    var readings: [StepReading] = []
    /// The earliest start and the earliest end of a reading (nanoseconds).
    var firstStart: Int64?
    var firstEnd: Int64?

    init(_ saved: SavedSource) {
        ledger = saved.ledger
        let old = ledger == nil || ledger == .seeding
        bound = old ? (saved.skipReadingsThrough ?? saved.lastReadingEnd)?.nanosecondsSinceEpoch : nil
    }

    /// How the source is read: a file that starts over delivers all its readings (the tally decides what they
    /// count); a whole reader whose state is lost leaves out what was counted only when the source keeps no reading
    /// ledger yet.
    func prepare(_ options: inout ReadOptions, _ saved: SavedSource) {
        options.countedThrough = filtersAsRead ? saved.lastReadingEnd : nil
    }

    /// Whether readings are left out as they are read (a source from before the ledger, counted as before).
    var filtersAsRead: Bool { ledger == nil }

    /// Takes a reading (spread over its seconds when the read is counted).
    mutating func take(_ r: StepReading) {
        let start = r.start.nanosecondsSinceEpoch
        firstStart = min(firstStart ?? start, start)
        firstEnd = min(firstEnd ?? r.end.nanosecondsSinceEpoch, r.end.nanosecondsSinceEpoch)
        readings.append(r)
    }

    /// Steps per second of the readings, of those ending after `bound` when `fresh`.
    func seconds(fresh: Bool) -> [Int64: Int] {
        var out: [Int64: Int] = [:]
        for r in readings where !fresh || bound.map({ r.end.nanosecondsSinceEpoch > $0 }) ?? true {
            r.stepsPerSecond { second, steps in out[second, default: 0] += steps }
        }
        return out
    }

    /// Puts what the read counts into `ingest`: the detector's steps and bouts, the readings' steps counted as they
    /// are or their ledger's change, and the mode and bound the next read starts with.
    func count(
        into ingest: inout SourceRead, detected: DetectedSteps, source: String, saved: SavedSource,
        summary: ReadSummary, countedThrough: Instant?
    ) {
        let counted = outcome(
            source: source, saved: saved, summary: summary, moreToRead: ingest.moreToRead,
            countedThrough: countedThrough)
        ingest.buckets =
            counted.buckets.isEmpty
            ? detected.buckets : detected.buckets.merging(counted.buckets, uniquingKeysWith: +)
        (ingest.bouts, ingest.readings) = (detected.bouts, counted.change)
        (ingest.next.skipReadingsThrough, ingest.next.ledger) = (counted.skipThrough, counted.mode)
    }

    /// What the read counts: steps per second added as they are, the ledger's change, the ledger's mode after it,
    /// and readings to leave out in the next slice (`SavedSource.skipReadingsThrough`).
    struct Outcome {
        var buckets: [Int64: Int] = [:]
        var change: ReadingLedger.Change?
        var mode: ReadingLedger.Mode?
        var skipThrough: Instant?
    }

    /// `source`'s outcome after a read that found `summary`; `moreToRead`: a slice with more after it.
    /// `countedThrough`: the bound the read left readings out by (a lost position, before the ledger).
    func outcome(
        source: String, saved: SavedSource, summary: ReadSummary, moreToRead: Bool, countedThrough: Instant?
    ) -> Outcome {
        let final = !moreToRead
        switch ledger {
        case nil where summary.startedOver, .seeding?:
            return Outcome(
                buckets: seconds(fresh: true),
                change: .init(source: source, kind: .seed(final: final), readings: readings),
                mode: final ? .kept : .seeding,
                skipThrough: final ? nil : bound.map(Instant.init(nanosecondsSinceEpoch:)))
        case nil:
            return Outcome(buckets: seconds(fresh: false), mode: nil, skipThrough: moreToRead ? countedThrough : nil)
        case .kept?, .rereading?:
            let startsOver = ledger == .kept && readsAgain(saved, summary)
            // Every reading of the file read again so far came after this (the last one counted before).
            let after = startsOver ? saved.lastReadingEnd : ledger == .rereading ? saved.skipReadingsThrough : nil
            let adds = after.map { onlyNew(after: $0.nanosecondsSinceEpoch) } ?? false
            let reread = ledger == .rereading || (startsOver && !(final && adds))
            guard reread || !readings.isEmpty else { return Outcome(mode: ledger) }
            // The first reading's start in whole seconds, rounded up (division truncates toward 0).
            let from = firstStart.map { $0 >= 0 ? ($0 + 999_999_999) / 1_000_000_000 : $0 / 1_000_000_000 } ?? .max
            let change: ReadingLedger.Change =
                reread
                ? .init(
                    source: source,
                    kind: .reread(
                        fromSecond: from, final: final, adds: adds,
                        restarts: ledger == .rereading && readsAgain(saved, summary)),
                    readings: readings)
                : .init(source: source, kind: .append, seconds: seconds(fresh: false))
            return Outcome(
                change: change, mode: reread && !final ? .rereading : .kept,
                skipThrough: reread && !final && adds ? after : nil)
        }
    }

    /// Whether this read went back to the start of what was counted: the file started over (a newer export over the
    /// old one, a rewrite or truncation in place), the reader's state or the position was lost.
    func readsAgain(_ saved: SavedSource, _ summary: ReadSummary) -> Bool {
        summary.startedOver || summary.savedStateUnreadable || (saved.cursor == nil && saved.lastReadingEnd != nil)
    }

    /// Whether a file read from its start holds only readings after those counted (`last`, the end of the last one):
    /// none starts before it, nor ends by it (a log truncated in place and written again, `copytruncate`), so they
    /// add to what was counted, in a minute shared with the old file's last readings too. Read in slices, every
    /// slice's readings must be (`SavedSource.skipReadingsThrough` carries `last` while they are).
    func onlyNew(after last: Int64) -> Bool {
        guard let firstStart, let firstEnd else { return true }
        return firstStart >= last && firstEnd > last
    }
}
