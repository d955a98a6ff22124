import Foundation
import GRDB
import SensorInput

/// The step readings phones pushed to the receiver (`[receive]`), as one source: each fetch counts the readings that
/// arrived or changed since the last, by the one reading rule. A resend that changes a reading (today's growing
/// total) adds only its difference; one that lowers time already posted lowers nothing posted, and the fetch says
/// so. Its watermark is the earliest end of data of the devices heard within `settle`: windows wait for a device
/// that is still sending, not for one that has gone quiet.
struct ReceivedStepSource: StepSource {
    let store: StateStore
    /// How long windows wait for a device that has gone quiet.
    let settleNs: Int64

    var name: String { "receive" }

    func didSave(_ read: SourceRead) {}

    /// Readings a slice of a fetch recounts at most (a year of minutes sent at once is read over several slices, each
    /// saved on its own, so memory stays bounded).
    static let readingsPerSlice = 5_000

    func read(after saved: SavedSource, nowNs: Int64, byteLimit: Int64?, observeDevice: Bool) throws -> SourceRead {
        try store.writer.read { db in
            var read = SourceRead(next: saved, watermarkNs: try watermark(db, nowNs: nowNs))
            var counted: [(ReceivedReadingRecord, StepReading)] = []
            var resumeAt: ReceivedReadingRecord?
            var checkpoints: [ReceivedCheckpointRecord] = []
            var room = byteLimit == nil ? Int.max : Self.readingsPerSlice
            let devices = try String.fetchAll(
                db,
                ReceivedReadingRecord.filter(ReceivedReadingRecord.Columns.changed == true)
                    .select(ReceivedReadingRecord.Columns.device).distinct())
            var unreached: [String] = []
            for device in devices {
                guard room > 0 else {
                    unreached.append(device)
                    continue
                }
                let recounted = try recount(device, db, limit: room)
                room -= recounted.looked
                if let next = recounted.resumeAt {
                    resumeAt = next
                    read.moreToRead = true
                }
                if room <= 0 && device != devices.last { read.moreToRead = true }
                if let checkpoint = recounted.checkpoint { checkpoints.append(checkpoint) }
                var change: [Int64: Int] = [:]  // built here and stored once: no copy of it per reading
                for (row, now) in recounted.changed {
                    if let before = row.counted {
                        before.stepsPerSecond { change[$0, default: 0] -= $1 }
                    }
                    now.stepsPerSecond { change[$0, default: 0] += $1 }
                    counted.append((row, now))
                }
                read.deviceBuckets[device] = change
            }
            // A backlog left for the next slice or fetch holds the window back to its earliest reading: closing past
            // it would post time whose steps are not counted yet, and they would come later as late steps.
            if read.moreToRead, let earliest = try Self.backlogStart(db, resumeAt: resumeAt, unreached: unreached) {
                read.watermarkNs = min(read.watermarkNs, earliest)
            }
            read.deviceBuckets = read.deviceBuckets.mapValues { $0.filter { $0.value != 0 } }.filter {
                !$0.value.isEmpty
            }
            let firstData = counted.map(\.1.startNs).min()
            read.next.firstDataNs = [saved.firstDataNs, firstData].compactMap { $0 }.min()
            let marks = counted
            let resume = resumeAt
            let reached = checkpoints
            read.saveAlso.append { db in
                try Self.markCounted(marks, db)
                for checkpoint in reached { try checkpoint.insert(db, onConflict: .replace) }
                // The slice stopped inside a device's readings: the next one starts there.
                if let resume {
                    typealias C = ReceivedReadingRecord.Columns
                    try ReceivedReadingRecord.filter(C.device == resume.device && C.key == resume.key)
                        .updateAll(db, C.changed.set(to: true))
                }
            }
            return read
        }
    }

    /// The earliest reading a slice left uncounted: where it stopped inside a device, and the earliest changed reading
    /// of each device it did not reach.
    static func backlogStart(_ db: Database, resumeAt: ReceivedReadingRecord?, unreached: [String]) throws -> Int64? {
        typealias C = ReceivedReadingRecord.Columns
        var left = resumeAt.map { [$0.startNs] } ?? []
        for device in unreached {
            let mine = ReceivedReadingRecord.filter(C.device == device && C.changed == true)
            if let start = try Int64.fetchOne(db, mine.select(min(C.startNs))) { left.append(start) }
        }
        return left.min()
    }

    /// The device's readings from the earliest changed one on, each with what it counts now: its microsteps summed
    /// in time order with those before it, then rounded (fractional counts are summed, then rounded), so a change
    /// moves the rounding of the readings after it too. Only readings whose count or time changed are returned, with
    /// the checkpoint to save: the sum before the reading the next recount of this device starts at or after.
    func recount(_ device: String, _ db: Database, limit: Int) throws -> (
        changed: [(ReceivedReadingRecord, StepReading)], looked: Int, resumeAt: ReceivedReadingRecord?,
        checkpoint: ReceivedCheckpointRecord?
    ) {
        typealias C = ReceivedReadingRecord.Columns
        let mine = ReceivedReadingRecord.filter(C.device == device)
        guard
            let earliest = try Int64.fetchOne(
                db, mine.filter(C.changed == true).select(min(C.startNs)))
        else { return ([], 0, nil, nil) }
        var micro: Int64
        if let saved = try ReceivedCheckpointRecord.fetchOne(db, key: device), saved.beforeNs <= earliest {
            let between = mine.filter(C.startNs >= saved.beforeNs && C.startNs < earliest)
            micro = try saved.microsteps + (Int64.fetchOne(db, between.select(sum(C.microsteps))) ?? 0)
        } else {
            micro = try Int64.fetchOne(db, mine.filter(C.startNs < earliest).select(sum(C.microsteps))) ?? 0
        }
        var roundedBefore = Self.rounded(micro)
        var out: [(ReceivedReadingRecord, StepReading)] = []
        var looked = 0
        // The sum before the readings that start at `start` (several can: their keys order them).
        var start = earliest
        var microBeforeStart = micro
        let rows = try mine.filter(C.startNs >= earliest).order(C.startNs, C.key).fetchCursor(db)
        while let row = try rows.next() {
            if row.startNs != start { (start, microBeforeStart) = (row.startNs, micro) }
            if looked == limit {
                let checkpoint = ReceivedCheckpointRecord(device: device, beforeNs: start, microsteps: microBeforeStart)
                return (out, looked, row, checkpoint)
            }
            looked += 1
            micro += row.microsteps
            let roundedNow = Self.rounded(micro)
            let now = StepReading(startNs: row.startNs, endNs: row.endNs, steps: roundedNow - roundedBefore)
            roundedBefore = roundedNow
            if row.changed || row.counted != now { out.append((row, now)) }
        }
        return (out, looked, nil, ReceivedCheckpointRecord(device: device, beforeNs: start + 1, microsteps: micro))
    }

    static func rounded(_ microsteps: Int64) -> Int {
        Int((microsteps + (microsteps >= 0 ? 500_000 : -500_000)) / 1_000_000)
    }

    /// Records what the steps table now holds for each reading; a reading replaced again since it was read stays
    /// changed, for the next fetch.
    static func markCounted(_ marks: [(ReceivedReadingRecord, StepReading)], _ db: Database) throws {
        // One statement prepared once (a backlog marks thousands of readings a slice).
        let mark = try db.cachedStatement(
            sql: """
                UPDATE received_reading SET counted_start_ns = ?, counted_end_ns = ?, counted_steps = ?,
                    changed = changed AND NOT (start_ns = ? AND end_ns = ? AND microsteps = ?)
                WHERE device = ? AND key = ?
                """)
        for (row, now) in marks {
            try mark.execute(arguments: [
                now.startNs, now.endNs, now.steps, row.startNs, row.endNs, row.microsteps, row.device, row.key,
            ])
        }
    }

    /// The earliest end of data of the devices heard within `settle`; `nowNs` when none is.
    func watermark(_ db: Database, nowNs: Int64) throws -> Int64 {
        let active = try ReceivedDevice.filter(ReceivedDevice.Columns.lastHeardNs >= nowNs - settleNs).fetchAll(db)
        return active.compactMap(\.dataEndNs).min().map { min($0, nowNs) } ?? nowNs
    }
}
