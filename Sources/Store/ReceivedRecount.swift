import GRDB
import SensorInput
import WallTime

/// What the step readings phones pushed add since the last fetch, by the one reading rule: each device's readings
/// from its earliest changed one on, recounted in time order (fractional counts summed, then rounded), so a resend
/// that changes a reading adds only its difference. At most `limit` readings are looked at: a year of minutes sent at
/// once is counted over several slices, each saved on its own. Its watermark is the earliest end of data of the
/// devices heard within `settle`, and no later than a backlog left for the next slice.
package struct ReceivedRecount: Sendable {
    /// Each device's change of steps per second (zeros left out; devices without a change left out).
    package var deviceBuckets: [String: [Int64: Int]] = [:]
    /// Steps before this time are final.
    package var watermark: Instant
    /// Whether readings were left for the next slice.
    package var moreToRead = false
    /// The start of the earliest reading counted.
    package var firstData: Instant?
    /// What to record once the counted steps are saved (`IngestedSlice.Change.counted`).
    package var marks = Marks()

    /// The readings counted, with what the steps table holds for each now; each device's checkpoint; and where a
    /// slice stopped inside a device's readings.
    package struct Marks: Sendable {
        var counted: [(ReceivedReadingRecord, StepReading)] = []
        var checkpoints: [ReceivedCheckpointRecord] = []
        var resumeAt: ReceivedReadingRecord?

        /// Records what the steps table now holds for each reading (a reading replaced again since it was read stays
        /// changed, for the next fetch), the checkpoints reached, and where the next slice starts.
        func markCounted(_ db: Database) throws {
            // One statement prepared once (a backlog marks thousands of readings a slice).
            let mark = try db.cachedStatement(
                sql: """
                    UPDATE received_reading SET counted_start_ns = ?, counted_end_ns = ?, counted_steps = ?,
                        changed = changed AND NOT (start_ns = ? AND end_ns = ? AND microsteps = ?)
                    WHERE device = ? AND key = ?
                    """)
            for (row, now) in counted {
                try mark.execute(arguments: [
                    now.start.nanosecondsSinceEpoch, now.end.nanosecondsSinceEpoch, now.steps, row.startNs, row.endNs,
                    row.microsteps, row.device, row.key,
                ])
            }
            for checkpoint in checkpoints { try checkpoint.insert(db, onConflict: .replace) }
            // The slice stopped inside a device's readings: the next one starts there.
            if let resumeAt {
                typealias C = ReceivedReadingRecord.Columns
                try ReceivedReadingRecord.filter(C.device == resumeAt.device && C.key == resumeAt.key)
                    .updateAll(db, C.changed.set(to: true))
            }
        }
    }

    init(_ db: Database, now: Instant, settle: Duration, limit: Int) throws {
        watermark = try Self.watermark(db, now: now, settle: settle)
        var room = limit
        typealias C = ReceivedReadingRecord.Columns
        let devices = try String.fetchAll(
            db, ReceivedReadingRecord.filter(C.changed == true).select(C.device).distinct())
        var unreached: [String] = []
        for device in devices {
            guard room > 0 else {
                unreached.append(device)
                continue
            }
            let recounted = try Self.recount(device, db, limit: room)
            room -= recounted.looked
            if let next = recounted.resumeAt {
                marks.resumeAt = next
                moreToRead = true
            }
            if room <= 0 && device != devices.last { moreToRead = true }
            if let checkpoint = recounted.checkpoint { marks.checkpoints.append(checkpoint) }
            var change: [Int64: Int] = [:]  // built here and stored once: no copy of it per reading
            for (row, now) in recounted.changed {
                if let before = row.counted {
                    before.stepsPerSecond { change[$0, default: 0] -= $1 }
                }
                now.stepsPerSecond { change[$0, default: 0] += $1 }
                marks.counted.append((row, now))
            }
            deviceBuckets[device] = change
        }
        // A backlog left for the next slice or fetch holds the window back to its earliest reading: closing past it
        // would post time whose steps are not counted yet, and they would come later as late steps.
        if moreToRead, let earliest = try Self.backlogStart(db, resumeAt: marks.resumeAt, unreached: unreached) {
            watermark = min(watermark, Instant(nanosecondsSinceEpoch: earliest))
        }
        deviceBuckets = deviceBuckets.mapValues { $0.filter { $0.value != 0 } }.filter { !$0.value.isEmpty }
        firstData = marks.counted.map(\.1.start).min()
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
    static func recount(_ device: String, _ db: Database, limit: Int) throws -> (
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
            let now = StepReading(
                start: Instant(nanosecondsSinceEpoch: row.startNs), end: Instant(nanosecondsSinceEpoch: row.endNs),
                steps: roundedNow - roundedBefore)
            roundedBefore = roundedNow
            if row.changed || row.counted != now { out.append((row, now)) }
        }
        return (out, looked, nil, ReceivedCheckpointRecord(device: device, beforeNs: start + 1, microsteps: micro))
    }

    static func rounded(_ microsteps: Int64) -> Int {
        Int((microsteps + (microsteps >= 0 ? 500_000 : -500_000)) / 1_000_000)
    }

    /// The earliest end of data of the devices heard within `settle`; `now` when none is.
    static func watermark(_ db: Database, now: Instant, settle: Duration) throws -> Instant {
        let active = try ReceivedDevice.filter(ReceivedDevice.Columns.lastHeard >= now - settle).fetchAll(db)
        return active.compactMap(\.dataEnd).min().map { min($0, now) } ?? now
    }
}
