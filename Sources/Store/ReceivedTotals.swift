import Foundation
import GRDB
import SensorInput
import WallTime

/// The running totals a stream pushed (`received_total`; Sensor Logger's `pedometer`, cumulative since its recording
/// started), each kept at its time, so that each one's steps are its difference from the total before it *in time*:
/// messages arrive out of order and are sometimes sent twice, and neither may change what is counted. A total counts
/// as a reading over the time since the one before it (keyed `total:<stream>:<time>`, replacing); the first total
/// of a stream is where counting starts (a step log's counter may have run since the device started); a drop is a
/// reset and a rise faster than anyone walks a counter glitch, not counted (`StepReading.stepsBetween`). A total that
/// arrives before later ones already stored also sets the readings it changes after it.
struct ReceivedTotalRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "received_total"
    static let databaseColumnDecodingStrategy = DatabaseColumnDecodingStrategy.convertFromSnakeCase
    static let databaseColumnEncodingStrategy = DatabaseColumnEncodingStrategy.convertToSnakeCase
    enum Columns {
        static let stream = Column("stream")
        static let timeNs = Column("time_ns")
    }
    /// The stream as `received_stream` keys it (`device/session`).
    var stream: String
    var timeNs: Int64
    var total: Int

    /// The readings that storing `record` (saved already) sets, in time order: its own, then those of the totals
    /// after it whose reading it changes. A total counts from the last total counted before it; one rising faster
    /// than anyone walks since then is a counter glitch (`StepReading.stepsBetween(total:and:over:)`, the step log
    /// reader's rule), kept as a reading of 0 steps at its time, so that which totals count depends only on the
    /// totals stored, never on the order they came in.
    static func recount(_ db: Database, device: String, session: String, from record: ReceivedTotalRecord) throws
        -> [(key: String, reading: StepReading)]
    {
        let mine = filter(Columns.stream == record.stream)
        var last = try lastCounted(db, device: device, session: session, before: record.timeNs)
        var changed: [(key: String, reading: StepReading)] = []
        let after = try mine.filter(Columns.timeNs >= record.timeNs).order(Columns.timeNs).fetchCursor(db)
        while let total = try after.next() {
            var reading = StepReading(
                start: Instant(nanosecondsSinceEpoch: total.timeNs), end: Instant(nanosecondsSinceEpoch: total.timeNs),
                steps: 0)
            var counts = true
            if let last {
                if let steps = StepReading.stepsBetween(
                    total: Int64(last.total), and: Int64(total.total), over: .nanoseconds(total.timeNs - last.timeNs))
                {
                    reading = StepReading(
                        start: Instant(nanosecondsSinceEpoch: last.timeNs),
                        end: Instant(nanosecondsSinceEpoch: total.timeNs), steps: Int(steps))
                } else {
                    counts = false
                }
            }
            let key = readingKey(session: session, timeNs: total.timeNs)
            if total.timeNs != record.timeNs,
                try ReceivedReadingRecord.received(db, device: device, key: key) == reading, counts
            {
                // Counted from the same total as before: the readings after it are as they were.
                break
            }
            changed.append((key, reading))
            if counts { last = total }
        }
        return changed
    }

    /// The last total before `timeNs` that counts: the latest whose stored reading is not a glitch (a glitch is a
    /// reading of 0 steps at its time, as is the stream's first total, which counts).
    static func lastCounted(_ db: Database, device: String, session: String, before timeNs: Int64) throws
        -> ReceivedTotalRecord?
    {
        let stream = device + "/" + session
        let before = try filter(Columns.stream == stream && Columns.timeNs < timeNs).order(Columns.timeNs.desc)
            .fetchCursor(db)
        var earliest: ReceivedTotalRecord?
        while let total = try before.next() {
            let reading = try ReceivedReadingRecord.received(
                db, device: device, key: readingKey(session: session, timeNs: total.timeNs))
            if let reading, reading.start.nanosecondsSinceEpoch == reading.end.nanosecondsSinceEpoch {
                earliest = total
                continue
            }
            return total
        }
        return earliest
    }

    /// The key of the reading a stream's total at `timeNs` counts as (`session` is the stream without its device).
    static func readingKey(session: String, timeNs: Int64) -> String { "total:\(session):\(timeNs)" }
}
