import Foundation
import GRDB
import SensorInput
import StepDetection
import WallTime

/// A device that pushed to the receiver (`received_device`): what `status` lists, and what the received source's
/// watermark waits for.
public struct ReceivedDevice: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "received_device"
    enum CodingKeys: String, CodingKey {
        case device, format, readings, samples
        case firstHeard = "first_heard_ns"
        case lastHeard = "last_heard_ns"
        case dataEnd = "data_end_ns"
        case lastRefusal = "last_refusal_ns"
        case lastRefusalText = "last_refusal"
    }
    public enum Columns {
        static let device = Column(CodingKeys.device)
        static let lastHeard = Column(CodingKeys.lastHeard)
    }
    /// The device as its app names it (a Health Auto Export source, a Health Connect app, an OwnTracks user).
    public var device: String
    /// The payload format it sends.
    public var format: String
    public var firstHeard: Instant
    public var lastHeard: Instant
    /// The end of the latest data it sent: up to here its data has arrived.
    public var dataEnd: Instant?
    /// Readings received (resends included) and samples received.
    public var readings: Int
    public var samples: Int
    /// When its latest payload with items left out (or refused whole and answered 2xx, OwnTracks) came, and what was
    /// left out: set in the commit's transaction, the row created when every item was refused (migration
    /// `v15-received-refusal`).
    public var lastRefusal: Instant?
    public var lastRefusalText: String?
}

/// A stream of acceleration samples a device pushes (`received_stream`; Sensor Logger: one per recording session):
/// its own detector runs over it, in time order, holding back the newest `reorder` seconds for messages that come
/// out of order. Its samples wait in `received_sample` until a fetch has fed them to the detector.
package struct ReceivedStreamRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    package static let databaseTableName = "received_stream"
    enum CodingKeys: String, CodingKey {
        case stream, device
        case lastHeard = "last_heard_ns"
        case newest = "newest_ns"
        case lastTotal = "last_total"
    }
    package var stream: String
    package var device: String
    package var lastHeard: Instant
    /// The newest sample time received.
    package var newest: Instant
    /// The last running step total, as kept before `received_total` (migration v14, which starts from it); no longer
    /// written.
    var lastTotal: Int?

    /// The streams a fetch still has work for: samples waiting, or not yet read since it went quiet (its detector's
    /// walk is closed by the first read after `reorder` of quiet, `ReceivedStreamSource`). A session that ended is
    /// read once more and then left alone, so the work of a fetch does not grow with every session ever recorded; a
    /// message that comes for it later makes it active again.
    static func active(_ db: Database, reorder: Duration) throws -> [String] {
        try String.fetchAll(
            db,
            sql: """
                SELECT s.stream FROM received_stream s LEFT JOIN source_cursor c ON c.source = 'receive/' || s.stream
                WHERE c.updated_ns IS NULL OR c.updated_ns - s.last_heard_ns <= ?
                    OR EXISTS (SELECT 1 FROM received_sample r WHERE r.stream = s.stream)
                ORDER BY s.stream
                """, arguments: [reorder.nanoseconds])
    }
}

/// A pushed acceleration sample waiting for a fetch to feed it to its stream's detector (`received_sample`). Hot:
/// inserted through a prepared statement (`ReceivedBatch`), read by a cursor without a record per row.
struct ReceivedSampleRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "received_sample"
    enum CodingKeys: String, CodingKey {
        case stream
        case timeNs = "time_ns"
        case x, y, z
    }
    enum Columns {
        static let stream = Column(CodingKeys.stream)
        static let timeNs = Column(CodingKeys.timeNs)
        static let x = Column(CodingKeys.x)
        static let y = Column(CodingKeys.y)
        static let z = Column(CodingKeys.z)
    }
    var stream: String
    var timeNs: Int64
    var x: Double
    var y: Double
    var z: Double

    /// Calls `body` with each sample of `stream` in `(after, through]`, in time order.
    static func forEach(
        _ db: Database, stream: String, after: Instant, through: Instant, _ body: (AccelerationSample) throws -> Void
    ) throws {
        let request = filter(Columns.stream == stream && Columns.timeNs > after && Columns.timeNs <= through)
            .select(Columns.timeNs, Columns.x, Columns.y, Columns.z).order(Columns.timeNs)
        let rows = try Row.fetchCursor(db, request)
        while let row = try rows.next() {
            try body(AccelerationSample(time: Instant(nanosecondsSinceEpoch: row[0]), x: row[1], y: row[2], z: row[3]))
        }
    }

    /// How many samples of `stream` at or before `through` wait.
    static func count(_ db: Database, stream: String, through: Instant) throws -> Int {
        try filter(Columns.stream == stream && Columns.timeNs <= through).fetchCount(db)
    }

    /// Removes the samples of `stream` fed through `through`.
    static func remove(_ db: Database, stream: String, through: Instant) throws {
        _ = try filter(Columns.stream == stream && Columns.timeNs <= through).deleteAll(db)
    }
}

/// The spans of a stream's samples that a fetch has fed to its detector and removed (`received_counted`, migration
/// `v18-received-counted`): a sample received again inside one is a resend of one already counted, answered as a
/// duplicate and not stored, where a new sample that came too late (in a gap between spans, or after a stream's
/// spans were lost) is stored and left out by the next fetch with its warning. Consecutive fed samples closer than
/// `gapNs` are one span, so a stream has a span per gap in its samples (a message lost or late), not per sample.
package enum ReceivedCounted {
    /// Longer than any sample interval used for steps, shorter than a message's batch period (1 s recommended), so
    /// that a message missing when its neighbours were fed leaves a gap its late samples fall into.
    static let gapNs: Int64 = 500_000_000

    /// Adds the spans of samples just fed, the first joined to the stream's latest span when close enough.
    static func add(_ fed: CountedSpans, stream: String, _ db: Database) throws {
        let spans = fed.spans
        guard var first = spans.first else { return }
        typealias C = ReceivedCountedRecord.Columns
        if let latest = try ReceivedCountedRecord.filter(C.stream == stream).order(C.startNs.desc).fetchOne(db),
            first.start - latest.endNs <= gapNs, first.start >= latest.startNs
        {
            first.start = latest.startNs
        }
        for span in [first] + spans.dropFirst() {
            try db.execute(
                sql: """
                    INSERT INTO received_counted (stream, start_ns, end_ns) VALUES (?, ?, ?)
                    ON CONFLICT (stream, start_ns) DO UPDATE SET end_ns = MAX(end_ns, excluded.end_ns)
                    """, arguments: [stream, span.start, span.end])
        }
    }

    /// Whether a sample at `timeNs` of `stream` lies in a span already counted.
    static func covers(stream: String, timeNs: Int64, _ db: Database) throws -> Bool {
        let end = try Int64.fetchOne(
            db.cachedStatement(
                sql:
                    "SELECT end_ns FROM received_counted WHERE stream = ? AND start_ns <= ? ORDER BY start_ns DESC LIMIT 1"
            ),
            arguments: [stream, timeNs])
        return end.map { $0 >= timeNs } ?? false
    }

    /// The end of a stream's latest counted span: a sample after it is new.
    static func countedThrough(stream: String, _ db: Database) throws -> Int64? {
        typealias C = ReceivedCountedRecord.Columns
        return try Int64.fetchOne(db, ReceivedCountedRecord.filter(C.stream == stream).select(max(C.endNs)))
    }

    /// How long after a stream was last heard its spans are kept. Sensor Logger does not resend by itself: a resend
    /// comes from a proxy (within minutes) or a person pushing a recording's messages again (within days), so a week
    /// covers them with room to spare. A resend after that is not counted twice either: its samples are stored as
    /// new, then left out by the next fetch as late (they are behind what the stream's detector was fed), with a
    /// warning.
    static let keepNs: Int64 = 7 * 86_400 * 1_000_000_000
    /// Spans removed per fetch at most: a backlog (the first fetch after an upgrade) goes over several fetches, each
    /// a short write.
    static let pruneLimit = 10_000

    /// Removes at most `limit` spans of streams last heard more than `keepNs` before `nowNs`; how many it removed.
    @discardableResult
    static func prune(nowNs: Int64, limit: Int = pruneLimit, _ db: Database) throws -> Int {
        try db.execute(
            sql: """
                DELETE FROM received_counted WHERE (stream, start_ns) IN (
                    SELECT c.stream, c.start_ns FROM received_stream s JOIN received_counted c ON c.stream = s.stream
                    WHERE s.last_heard_ns < ? LIMIT ?)
                """, arguments: [nowNs - keepNs, limit])
        return db.changesCount
    }
}

/// The spans of the samples one read fed to a stream's detector, built sample by sample and kept by the transaction
/// that saves the read (`ReceivedCounted.add`).
package struct CountedSpans: Sendable {
    var spans: [(start: Int64, end: Int64)] = []

    package init() {}

    /// Extends the spans by a sample fed at `time` (ascending): the last span when within `gapNs` of its end, else a
    /// new one.
    package mutating func extend(_ time: Instant) {
        let t = time.nanosecondsSinceEpoch
        if let last = spans.last, t - last.end <= ReceivedCounted.gapNs {
            spans[spans.count - 1].end = t
        } else {
            spans.append((t, t))
        }
    }
}

/// A span of a stream's samples already fed and removed (`received_counted`, `ReceivedCounted`). Hot: looked up by
/// a prepared statement for each resent sample.
struct ReceivedCountedRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "received_counted"
    enum CodingKeys: String, CodingKey {
        case stream
        case startNs = "start_ns"
        case endNs = "end_ns"
    }
    enum Columns {
        static let stream = Column(CodingKeys.stream)
        static let startNs = Column(CodingKeys.startNs)
        static let endNs = Column(CodingKeys.endNs)
    }
    var stream: String
    var startNs: Int64
    var endNs: Int64
}

extension StateStore {
    /// Forgets the counted spans of sample streams not heard for a week (`ReceivedCounted.prune`), a bounded number
    /// per call.
    package func pruneCountedSpans(now: Instant) throws {
        _ = try writer.write { db in try ReceivedCounted.prune(nowNs: now.nanosecondsSinceEpoch, db) }
    }
}

/// A device that pushed, as `status` and `devices --received` show it: times as dates.
public struct ReceivedDeviceListing: Codable, Sendable, Equatable {
    public var device: String
    public var format: String
    public var lastHeard: Date
    /// The end of the latest data it sent.
    public var dataUntil: Date?
    public var readings: Int
    public var samples: Int
    /// When its latest payload with items left out came, and what was left out.
    public var lastRefusal: Date?
    public var lastRefusalText: String?

    init(_ d: ReceivedDevice) {
        device = d.device
        format = d.format
        lastHeard = d.lastHeard.date
        dataUntil = d.dataEnd?.date
        readings = d.readings
        samples = d.samples
        lastRefusal = d.lastRefusal?.date
        lastRefusalText = d.lastRefusalText
    }
}

/// A step reading a device pushed (`received_reading`), keyed by what makes a resend a replacement: Health Auto
/// Export's metric and start, Health Connect's `start_time`, OwnTracks' `from`. `changed` until a fetch has counted
/// its latest value; `counted_*` is what the steps table holds for it.
struct ReceivedReadingRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "received_reading"
    static let databaseColumnDecodingStrategy = DatabaseColumnDecodingStrategy.convertFromSnakeCase
    static let databaseColumnEncodingStrategy = DatabaseColumnEncodingStrategy.convertToSnakeCase
    enum Columns {
        static let device = Column("device")
        static let key = Column("key")
        static let startNs = Column("start_ns")
        static let endNs = Column("end_ns")
        static let microsteps = Column("microsteps")
        static let changed = Column("changed")
        static let countedStartNs = Column("counted_start_ns")
        static let countedEndNs = Column("counted_end_ns")
        static let countedSteps = Column("counted_steps")
    }
    var device: String
    var key: String
    var startNs: Int64
    var endNs: Int64
    /// Steps in millionths (Health Auto Export's aggregated counts are fractional: summed, then rounded).
    var microsteps: Int64
    var changed: Bool
    var countedStartNs: Int64?
    var countedEndNs: Int64?
    var countedSteps: Int

    /// Read by column rather than through `Decodable`: counting a backlog reads every reading of it.
    init(row: Row) {
        device = row[Columns.device]
        key = row[Columns.key]
        startNs = row[Columns.startNs]
        endNs = row[Columns.endNs]
        microsteps = row[Columns.microsteps]
        changed = row[Columns.changed]
        countedStartNs = row[Columns.countedStartNs]
        countedEndNs = row[Columns.countedEndNs]
        countedSteps = row[Columns.countedSteps]
    }

    /// The reading last received under `key`, its steps whole (a running total's always are).
    static func received(_ db: Database, device: String, key: String) throws -> StepReading? {
        try filter(Columns.device == device && Columns.key == key).fetchOne(db).map {
            StepReading(
                start: Instant(nanosecondsSinceEpoch: $0.startNs), end: Instant(nanosecondsSinceEpoch: $0.endNs),
                steps: Int($0.microsteps / 1_000_000))
        }
    }

    /// What the steps table holds for it, as a reading.
    var counted: StepReading? {
        guard let start = countedStartNs, let end = countedEndNs else { return nil }
        return StepReading(
            start: Instant(nanosecondsSinceEpoch: start), end: Instant(nanosecondsSinceEpoch: end), steps: countedSteps)
    }
}

/// Where a device's readings were last recounted up to (`received_checkpoint`): the microsteps of its readings that
/// start before `beforeNs`, as counted. A recount that starts at or after `beforeNs` adds only the readings between,
/// rather than summing the device's whole history again at every fetch. It holds while no reading before `beforeNs`
/// has changed: a changed one is marked `changed`, so the next recount starts before `beforeNs` and sums afresh.
struct ReceivedCheckpointRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "received_checkpoint"
    static let databaseColumnDecodingStrategy = DatabaseColumnDecodingStrategy.convertFromSnakeCase
    static let databaseColumnEncodingStrategy = DatabaseColumnEncodingStrategy.convertToSnakeCase
    enum Columns {
        static let device = Column("device")
        static let beforeNs = Column("before_ns")
    }
    var device: String
    var beforeNs: Int64
    var microsteps: Int64
}

extension ReceivedDevice {
    /// Records that `device` was heard `now` (created on first word): its data has arrived up to `dataEnd` (never
    /// moved back), and `readings` and `samples` more were received. Phones that push and phones that are pulled
    /// (phyphox) are listed alike.
    static func heard(
        _ db: Database, device: String, format: String, now: Instant, dataEnd: Instant?, readings: Int, samples: Int
    ) throws {
        try db.cachedStatement(
            sql: """
                INSERT INTO received_device (device, format, first_heard_ns, last_heard_ns, data_end_ns, readings,
                    samples)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (device) DO UPDATE SET format = excluded.format, last_heard_ns = excluded.last_heard_ns,
                    data_end_ns = MAX(COALESCE(data_end_ns, excluded.data_end_ns),
                        COALESCE(excluded.data_end_ns, data_end_ns)),
                    readings = readings + excluded.readings, samples = samples + excluded.samples
                """
        ).execute(arguments: [device, format, now, now, dataEnd, readings, samples])
    }

    /// Records that a payload of `device` that came `now` had items left out (`text` says which), creating its row
    /// when nothing of it was stored. Its last heard time and data end are left as they were: a refusal is no data,
    /// and must not hold windows back for a device whose data has stopped arriving.
    static func refused(_ db: Database, device: String, format: String, now: Instant, text: String) throws {
        try db.cachedStatement(
            sql: """
                INSERT INTO received_device (device, format, first_heard_ns, last_heard_ns, last_refusal_ns, last_refusal)
                VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (device) DO UPDATE SET last_refusal_ns = excluded.last_refusal_ns,
                    last_refusal = excluded.last_refusal
                """
        ).execute(arguments: [device, format, now, now, now, text])
    }
}
