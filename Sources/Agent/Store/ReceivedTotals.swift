import Foundation
import GRDB
import SensorInput

/// The running totals a stream pushed (`received_total`; Sensor Logger's `pedometer`, cumulative since its recording
/// started), each kept at its time, so that each one's steps are its difference from the total before it *in time*:
/// messages arrive out of order and are sometimes sent twice, and neither may change what is counted. A total counts
/// as a reading over the time since the one before it (keyed `total:<stream>:<time>`, replacing); the first total
/// of a stream is where counting starts (a step log's counter may have run since the device started); a drop is a
/// reset (`StepReading.stepsBetween`). A total that arrives before a later one already stored also sets that later
/// one's reading.
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

    /// The stream's total just before `timeNs`, and just after it.
    static func neighbours(_ db: Database, stream: String, timeNs: Int64) throws -> (
        before: ReceivedTotalRecord?, after: ReceivedTotalRecord?
    ) {
        let mine = filter(Columns.stream == stream)
        return (
            try mine.filter(Columns.timeNs < timeNs).order(Columns.timeNs.desc).fetchOne(db),
            try mine.filter(Columns.timeNs > timeNs).order(Columns.timeNs).fetchOne(db)
        )
    }

    /// The reading a total counts as, after the total before it (nil: the stream's first).
    static func reading(of total: ReceivedTotalRecord, after before: ReceivedTotalRecord?) -> StepReading {
        guard let before else { return StepReading(startNs: total.timeNs, endNs: total.timeNs, steps: 0) }
        return StepReading(
            startNs: before.timeNs, endNs: total.timeNs,
            steps: Int(StepReading.stepsBetween(total: Int64(before.total), and: Int64(total.total))))
    }

    /// The key of the reading a stream's total at `timeNs` counts as (`session` is the stream without its device).
    static func readingKey(session: String, timeNs: Int64) -> String { "total:\(session):\(timeNs)" }

    /// `received_total`, with each stream's last total before this migration at the time of its latest reading, so
    /// that a recording in progress goes on from it.
    static func migrate(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE received_total (
                    stream TEXT NOT NULL, time_ns INTEGER NOT NULL, total INTEGER NOT NULL,
                    PRIMARY KEY (stream, time_ns)) WITHOUT ROWID;
                """)
        let streams = try Row.fetchAll(
            db, sql: "SELECT stream, device, last_total FROM received_stream WHERE last_total IS NOT NULL")
        for row in streams {
            let stream: String = row["stream"]
            let device: String = row["device"]
            let session = String(stream.dropFirst(device.count + 1))
            let latest = try Int64.fetchOne(
                db,
                sql: "SELECT MAX(end_ns) FROM received_reading WHERE device = ? AND key >= ? AND key < ?",
                arguments: [device, "total:\(session):", "total:\(session);"])
            guard let latest else { continue }
            try ReceivedTotalRecord(stream: stream, timeNs: latest, total: row["last_total"]).insert(db)
        }
    }
}
