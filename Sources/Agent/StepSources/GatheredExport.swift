import Foundation
import SensorInput
import Store

/// A followed export whose records are out of time order (grouped by source, shuffled), counted as one read of it
/// over as many reads as it takes, each no longer than a slice (`SourceCursor.Gathering`): its records are gathered
/// from its start into the state, a slice a read (`ReadingSpill`, in the transaction that saves the position), none
/// counted; once the file is read to its end, they are settled in start order, a part a read, each part's readings
/// counted through the reading ledger as a file read again from its start (the first part starts it over, the last
/// one settles every minute to what the file says), and removed.
struct GatheredExport {
    let path: String
    /// The cursor the read started from.
    let from: SourceCursor?
    let byteLimit: Int64?
    let overlap: OverlapPolicy

    /// A part settled by this read: whether it was the last.
    struct Settled {
        var last: Bool
        var before: Int64?
    }

    /// Records settled a part: a 16 MiB slice's worth (an Apple Health record is ~250 bytes), more only when one run
    /// of overlapping records is longer (`settle` doubles the part until a run ends in it).
    var partRecords: Int { max(16, Int((byteLimit ?? 16 << 20) / 256)) }

    /// When the file was read to its end before this read and is the same file (`cursor` as `from` left it),
    /// settles the next part of its records: hands `sink` their readings, says in `summary` whether the part starts
    /// the file over, and moves `cursor` on. Nil when there was no part to settle.
    func settle(
        _ cursor: inout SourceCursor?, store: StateStore, _ summary: inout ReadSummary,
        _ sink: (InputItem) -> Void
    ) throws -> Settled? {
        guard from?.gathering?.complete == true, let gathering = cursor?.gathering, gathering.complete else {
            return nil
        }
        var limit = partRecords
        while true {
            let records = try store.read { tx in try tx.gatheredRecords(path, limit: limit) }
            let all = records.count < limit
            guard let part = SourcedReading.settledPart(records, all: all, policy: overlap) else {
                limit *= 2  // one run of overlapping records longer than a part: a larger part
                continue
            }
            for r in part.readings { sink(.reading(r)) }
            summary.startedOver = gathering.settledParts == 0
            if all {
                cursor?.settledAll()
            } else {
                cursor?.gathering?.settledParts += 1
            }
            return Settled(last: all, before: part.before)
        }
    }

    /// Puts in `ingest` what the read does to the records kept for the file (`spill`) and where gathering or
    /// settling stands (`progress`).
    func note(
        _ ingest: inout SourceRead, cursor: SourceCursor?, summary: ReadSummary, gathered: [SourcedReading],
        settled: Settled?
    ) {
        ingest.spill = spill(cursor: cursor, summary: summary, gathered: gathered, settled: settled)
        ingest.inputWarnings += progress(cursor, settled: settled)
    }

    /// Whether the file has more to read: while it is gathered or settled, yes; after its last part, no; nil when
    /// the read was none of these (a slice says it by its length).
    func moreToRead(_ cursor: SourceCursor?, settled: Settled?) -> Bool? {
        cursor?.gathering != nil ? true : settled != nil ? false : nil
    }

    /// What the read does to the records kept for the file: those it gathered added, those it settled removed, all
    /// dropped when gathering began again (the file found out of order again, or replaced) or is over. Nil when it
    /// does nothing to them.
    func spill(
        cursor: SourceCursor?, summary: ReadSummary, gathered: [SourcedReading], settled: Settled?
    ) -> ReadingSpill.Change? {
        let over = from?.gathering != nil && cursor?.gathering == nil
        // A read from a lost position (no saved cursor) gathers only once it finds the file out of order again.
        let dropFirst = summary.gatherBegan || over
        guard dropFirst || !gathered.isEmpty || settled?.before != nil else { return nil }
        let continues = !summary.gatherBegan && from?.gathering != nil && cursor?.gathering != nil
        return ReadingSpill.Change(
            dropFirst: dropFirst, records: gathered,
            firstNumber: continues ? from?.gathering?.records ?? 0 : 0, settledBefore: settled?.before)
    }

    /// The fetch's words for where gathering or settling stands, or that it ended with this read.
    func progress(_ cursor: SourceCursor?, settled: Settled?) -> [String] {
        guard let cursor, let gathering = cursor.gathering else {
            guard settled?.last == true, let records = from?.gathering?.records else { return [] }
            return [
                "\(path): its \(records) records, not in time order, were gathered and settled in time order: "
                    + "counted as one read"
            ]
        }
        if gathering.complete {
            return [
                "\(path): its \(gathering.records) records, not in time order, are all read and being settled in time "
                    + "order (\(gathering.settledParts) parts so far): its steps are counted when that is done"
            ]
        }
        var st = stat()
        let size = stat(path, &st) == 0 ? Int64(st.st_size) : cursor.offset
        let mb = { (bytes: Int64) in String(format: "%.1f", Double(bytes) / 1e6) }
        return [
            "\(path): gathering its records, not in time order, to count them as one read: \(mb(cursor.offset)) of "
                + "\(mb(size)) MB read (\(gathering.records) records); its steps are counted once all are read"
        ]
    }
}
