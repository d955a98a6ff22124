import Foundation
import GRDB
import Messages
import SensorInput
import StepDetection

/// A device that pushed to the receiver (`received_device`): what `status` lists, and what the received source's
/// watermark waits for.
public struct ReceivedDevice: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "received_device"
    public static let databaseColumnDecodingStrategy = DatabaseColumnDecodingStrategy.convertFromSnakeCase
    public static let databaseColumnEncodingStrategy = DatabaseColumnEncodingStrategy.convertToSnakeCase
    public enum Columns {
        static let device = Column("device")
        static let lastHeardNs = Column("last_heard_ns")
    }
    /// The device as its app names it (a Health Auto Export source, a Health Connect app, an OwnTracks user).
    public var device: String
    /// The payload format it sends.
    public var format: String
    public var firstHeardNs: Int64
    public var lastHeardNs: Int64
    /// The end of the latest data it sent: up to here its data has arrived.
    public var dataEndNs: Int64?
    /// Readings received (resends included) and samples received.
    public var readings: Int
    public var samples: Int
    /// When its latest payload with items left out (or refused whole and answered 2xx, OwnTracks) came, and what was
    /// left out: set in the commit's transaction, the row created when every item was refused (migration
    /// `v15-received-refusal`).
    public var lastRefusalNs: Int64?
    public var lastRefusal: String?

    static func migrateRefusal(_ db: Database) throws {
        try db.execute(
            sql: """
                ALTER TABLE received_device ADD COLUMN last_refusal_ns INTEGER;
                ALTER TABLE received_device ADD COLUMN last_refusal TEXT;
                """)
    }

    static func migrate(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE received_device (
                    device TEXT PRIMARY KEY, format TEXT NOT NULL, first_heard_ns INTEGER NOT NULL,
                    last_heard_ns INTEGER NOT NULL, data_end_ns INTEGER, readings INTEGER NOT NULL DEFAULT 0,
                    samples INTEGER NOT NULL DEFAULT 0);
                CREATE TABLE received_reading (
                    device TEXT NOT NULL, key TEXT NOT NULL, start_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL,
                    microsteps INTEGER NOT NULL, changed INTEGER NOT NULL DEFAULT 1,
                    counted_start_ns INTEGER, counted_end_ns INTEGER, counted_steps INTEGER NOT NULL DEFAULT 0,
                    PRIMARY KEY (device, key)) WITHOUT ROWID;
                CREATE INDEX received_reading_time ON received_reading (device, start_ns, key);
                CREATE INDEX received_reading_changed ON received_reading (changed) WHERE changed = 1;
                CREATE TABLE received_stream (
                    stream TEXT PRIMARY KEY, device TEXT NOT NULL, last_heard_ns INTEGER NOT NULL,
                    newest_ns INTEGER NOT NULL, last_total INTEGER);
                CREATE TABLE received_sample (
                    stream TEXT NOT NULL, time_ns INTEGER NOT NULL, x REAL NOT NULL, y REAL NOT NULL, z REAL NOT NULL,
                    PRIMARY KEY (stream, time_ns)) WITHOUT ROWID;
                """)
    }
}

/// A stream of acceleration samples a device pushes (`received_stream`; Sensor Logger: one per recording session):
/// its own detector runs over it, in time order, holding back the newest `reorder` seconds for messages that come
/// out of order. Its samples wait in `received_sample` until a fetch has fed them to the detector.
struct ReceivedStreamRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "received_stream"
    static let databaseColumnDecodingStrategy = DatabaseColumnDecodingStrategy.convertFromSnakeCase
    static let databaseColumnEncodingStrategy = DatabaseColumnEncodingStrategy.convertToSnakeCase
    var stream: String
    var device: String
    var lastHeardNs: Int64
    /// The newest sample time received.
    var newestNs: Int64
    /// The last running step total, as kept before `received_total` (migration v14, which starts from it); no longer
    /// written.
    var lastTotal: Int?
}

/// The spans of a stream's samples that a fetch has fed to its detector and removed (`received_counted`, migration
/// `v18-received-counted`): a sample received again inside one is a resend of one already counted, answered as a
/// duplicate and not stored, where a new sample that came too late (in a gap between spans, or after a stream's
/// spans were lost) is stored and left out by the next fetch with its warning. Consecutive fed samples closer than
/// `gapNs` are one span, so a stream has a span per gap in its samples (a message lost or late), not per sample.
enum ReceivedCounted {
    /// Longer than any sample interval used for steps, shorter than a message's batch period (1 s recommended), so
    /// that a message missing when its neighbours were fed leaves a gap its late samples fall into.
    static let gapNs: Int64 = 500_000_000

    static func migrate(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE received_counted (
                    stream TEXT NOT NULL, start_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL,
                    PRIMARY KEY (stream, start_ns)) WITHOUT ROWID;
                """)
    }

    /// Extends `spans` by a sample fed at `t` (ascending): the last span when within `gapNs` of its end, else a new one.
    static func extend(_ spans: inout [(start: Int64, end: Int64)], _ t: Int64) {
        if let last = spans.last, t - last.end <= gapNs { spans[spans.count - 1].end = t } else { spans.append((t, t)) }
    }

    /// Adds the spans of samples just fed, the first joined to the stream's latest span when close enough.
    static func add(_ spans: [(start: Int64, end: Int64)], stream: String, _ db: Database) throws {
        guard var first = spans.first else { return }
        if let latest = try Row.fetchOne(
            db, sql: "SELECT start_ns, end_ns FROM received_counted WHERE stream = ? ORDER BY start_ns DESC LIMIT 1",
            arguments: [stream]), first.start - (latest[1] as Int64) <= gapNs, first.start >= (latest[0] as Int64)
        {
            first.start = latest[0]
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
        try Int64.fetchOne(db, sql: "SELECT MAX(end_ns) FROM received_counted WHERE stream = ?", arguments: [stream])
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
        lastHeard = Timestamps.date(nanoseconds: d.lastHeardNs)
        dataUntil = d.dataEndNs.map { Timestamps.date(nanoseconds: $0) }
        readings = d.readings
        samples = d.samples
        lastRefusal = d.lastRefusalNs.map { Timestamps.date(nanoseconds: $0) }
        lastRefusalText = d.lastRefusal
    }

    /// `Watch  health-auto-export: last heard …, data up to …, 10 readings, 0 samples`, then `; last refusal …: what`
    /// when a payload had items left out, times in `zone`.
    public func line(zone: TimeZone) -> String {
        let f = { (d: Date) in Timestamps.format(d, zone: zone) }
        let plural = { (n: Int, noun: String) in "\(n) \(noun)\(n == 1 ? "" : "s")" }
        return "\(device)  \(format): last heard \(f(lastHeard))" + (dataUntil.map { ", data up to \(f($0))" } ?? "")
            + ", \(plural(readings, "reading")), \(plural(samples, "sample"))"
            + (lastRefusal.map { "; last refusal \(f($0)): \(lastRefusalText ?? "")" } ?? "")
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

    /// What the steps table holds for it, as a reading.
    var counted: StepReading? {
        guard let start = countedStartNs, let end = countedEndNs else { return nil }
        return StepReading(startNs: start, endNs: end, steps: countedSteps)
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
    var device: String
    var beforeNs: Int64
    var microsteps: Int64

    static func migrate(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE received_checkpoint (
                    device TEXT PRIMARY KEY, before_ns INTEGER NOT NULL, microsteps INTEGER NOT NULL) WITHOUT ROWID;
                """)
    }
}

/// What one payload changed in the state, for the receiver's answer.
public struct ReceivedCommit: Sendable, Equatable {
    public var readings = 0
    public var samples = 0
    /// Items already received with the same value (a resend), or sent before the value kept, which changed nothing.
    public var duplicates = 0
    /// The devices the payload was about.
    public var devices: [String] = []
}

extension StateStore {
    /// Stores what a payload holds in one transaction, before the receiver answers: a reading replaces the device's
    /// earlier one with the same key (a resend with the same value is a duplicate), and marks it for the next fetch.
    public func commit(_ payload: Payload, nowNs: Int64) throws -> ReceivedCommit {
        try writer.write { db in try Self.commit(payload, nowNs: nowNs, db) }
    }

    static func commit(_ payload: Payload, nowNs: Int64, _ db: Database) throws -> ReceivedCommit {
        var batch = try ReceivedBatch(db, nowNs: nowNs)
        for item in payload.items {
            switch item {
            case .replacing(let device, let key, let reading, let microsteps):
                try batch.reading(device: device, key: key, reading, microsteps: microsteps, sentNs: payload.sentNs)
            case .adding(let device, let reading):
                // An adding reading has no key of its own: one with the same end and steps as one received is a
                // resend. Not its start, which is the line before it, so a body resent with a bad line fixed
                // replaces the line after that one rather than adding it again.
                try batch.reading(
                    device: device, key: addingKey(endNs: reading.endNs, steps: reading.steps), reading,
                    microsteps: Int64(reading.steps) * 1_000_000)
            case .sample(let device, let stream, let sample):
                try batch.sample(device: device, stream: stream, sample)
            case .runningTotal(let device, let stream, let timeNs, let total):
                try Self.heardStream(device + "/" + stream, device: device, newestNs: timeNs, nowNs: nowNs, db)
                try batch.total(device: device, session: stream, timeNs: timeNs, total: total)
            }
        }
        let committed = try batch.finish(format: payload.format)
        for (device, text) in refusals(of: payload) {
            try ReceivedDevice.refused(db, device: device, format: payload.format, nowNs: nowNs, text: text)
        }
        return committed
    }

    /// When the app sent each reading, as the payload says (Health Connect's `timestamp`): a send older than the
    /// one a reading was kept from does not replace it (migration `v17-reading-sent`); NULL where the app says not.
    static func migrateReadingSent(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE received_reading ADD COLUMN sent_ns INTEGER")
    }

    /// The key of an adding reading (a step-log line without `seq`): its end and steps.
    static func addingKey(endNs: Int64, steps: Int) -> String { "at \(endNs) steps \(steps)" }

    /// Adding readings stored before `addingKey` were keyed `START-END-STEPS`: rekeyed, so that a resend across the
    /// upgrade replaces them rather than adding them again (migration `v16-adding-key`). Two such readings with the
    /// same end and steps (already counted twice) keep the second's old key: the rekeying changes no count.
    static func migrateAddingKey(_ db: Database) throws {
        try db.execute(
            sql: """
                UPDATE OR IGNORE received_reading SET key = 'at ' || end_ns || ' steps ' || (microsteps / 1000000)
                WHERE key = start_ns || '-' || end_ns || '-' || (microsteps / 1000000)
                """)
    }

    /// What `payload` left out, per device (a refusal naming none is the format's own device, as its items'):
    /// "left out 2 that cannot be read: FIELD: why, and 1 more".
    static func refusals(of payload: Payload) -> [(device: String, text: String)] {
        var byDevice: [String: [PayloadError]] = [:]
        for e in payload.refused { byDevice[e.device ?? payload.format, default: []].append(e) }
        return byDevice.sorted { $0.key < $1.key }.map { device, errors in
            let n = byDevice.count == 1 ? payload.refusedCount : errors.count
            return (device, "left out \(n) that cannot be read: \(errors[0])" + (n > 1 ? ", and \(n - 1) more" : ""))
        }
    }

    /// Keeps a refusal that was answered 2xx (`AppConvention.unreadable`) for `status`.
    public func refused(device: String, format: String, nowNs: Int64, text: String) throws {
        try writer.write { db in
            try ReceivedDevice.refused(db, device: device, format: format, nowNs: nowNs, text: text)
        }
    }

    /// The stream's record, created or brought up to date.
    @discardableResult
    static func heardStream(_ stream: String, device: String, newestNs: Int64, nowNs: Int64, _ db: Database) throws
        -> ReceivedStreamRecord
    {
        var row =
            try ReceivedStreamRecord.fetchOne(db, key: stream)
            ?? ReceivedStreamRecord(stream: stream, device: device, lastHeardNs: nowNs, newestNs: newestNs)
        row.lastHeardNs = nowNs
        row.newestNs = max(row.newestNs, newestNs)
        try row.save(db)
        return row
    }

    /// The devices that pushed, most recently heard first.
    public func receivedDevices() throws -> [ReceivedDeviceListing] {
        try writer.read { db in
            try ReceivedDevice.order(ReceivedDevice.Columns.lastHeardNs.desc).fetchAll(db).map(
                ReceivedDeviceListing.init)
        }
    }
}

/// One payload being stored: its statements prepared once, and what it changed, per device and stream.
private struct ReceivedBatch {
    let db: Database
    let nowNs: Int64
    let insertReading: Statement
    let insertSample: Statement
    var result = ReceivedCommit()
    var heard: [String: (readings: Int, samples: Int, dataEnd: Int64?)] = [:]
    /// The newest sample time of each stream in this payload, and its device.
    var streams: [String: (device: String, newestNs: Int64)] = [:]
    /// The last sample's stream key, so that a run of samples of one stream builds it once, and the end of its
    /// counted spans.
    var lastStream: (device: String, stream: String, key: String, countedThrough: Int64?)?

    init(_ db: Database, nowNs: Int64) throws {
        self.db = db
        self.nowNs = nowNs
        // A new key is inserted, a changed value replaces the old and is marked for the next fetch, the same value
        // again changes nothing (a duplicate), and so does a value sent before the one kept (`sent_ns`, when the app
        // says when it sent: Health Connect retries failed sends, which may come after a newer one).
        insertReading = try db.cachedStatement(
            sql: """
                INSERT INTO received_reading (device, key, start_ns, end_ns, microsteps, changed, sent_ns)
                VALUES (?, ?, ?, ?, ?, 1, ?)
                ON CONFLICT (device, key) DO UPDATE SET start_ns = excluded.start_ns, end_ns = excluded.end_ns,
                    microsteps = excluded.microsteps, changed = 1, sent_ns = excluded.sent_ns
                WHERE (start_ns != excluded.start_ns OR end_ns != excluded.end_ns OR microsteps != excluded.microsteps)
                    AND (sent_ns IS NULL OR excluded.sent_ns IS NULL OR excluded.sent_ns >= sent_ns)
                """)
        insertSample = try db.cachedStatement(
            sql: "INSERT OR IGNORE INTO received_sample (stream, time_ns, x, y, z) VALUES (?, ?, ?, ?, ?)")
    }

    mutating func reading(
        device: String, key: String, _ reading: StepReading, microsteps: Int64, sentNs: Int64? = nil
    ) throws {
        var entry = heard[device] ?? (0, 0, nil)
        entry.readings += 1
        // An app that pushes readings sends all it has up to the moment it sends (Health Auto Export's period, Health
        // Connect's day so far): its data is complete up to now, though its last reading is older (minutes without
        // steps have no point), so a phone that is heard but still does not hold windows back.
        entry.dataEnd = max(entry.dataEnd ?? reading.endNs, reading.endNs, nowNs)
        heard[device] = entry
        try insertReading.execute(arguments: [device, key, reading.startNs, reading.endNs, microsteps, sentNs])
        if db.changesCount > 0 {
            result.readings += 1
            return
        }
        result.duplicates += 1
        if let sentNs {
            // The same value sent later: kept as sent then, so that a send between the two cannot replace it.
            try db.cachedStatement(
                sql: "UPDATE received_reading SET sent_ns = ? WHERE device = ? AND key = ? AND sent_ns < ?"
            ).execute(arguments: [sentNs, device, key, sentNs])
        }
    }

    /// A running total (`ReceivedTotalRecord`): kept at its time, counted as its difference from the total before
    /// it, and setting the difference of the one after it. The same total again is a duplicate.
    mutating func total(device: String, session: String, timeNs: Int64, total: Int) throws {
        let stream = device + "/" + session
        let record = ReceivedTotalRecord(stream: stream, timeNs: timeNs, total: total)
        if try ReceivedTotalRecord.fetchOne(db, key: ["stream": stream, "time_ns": timeNs]) == record {
            result.duplicates += 1
            var entry = heard[device] ?? (0, 0, nil)
            entry.dataEnd = max(entry.dataEnd ?? timeNs, timeNs, nowNs)
            heard[device] = entry
            return
        }
        try record.save(db)
        let (before, after) = try ReceivedTotalRecord.neighbours(db, stream: stream, timeNs: timeNs)
        let counted = ReceivedTotalRecord.reading(of: record, after: before)
        try reading(
            device: device, key: ReceivedTotalRecord.readingKey(session: session, timeNs: timeNs), counted,
            microsteps: Int64(counted.steps) * 1_000_000)
        if let after {
            let next = ReceivedTotalRecord.reading(of: after, after: record)
            try insertReading.execute(arguments: [
                device, ReceivedTotalRecord.readingKey(session: session, timeNs: after.timeNs), next.startNs,
                next.endNs, Int64(next.steps) * 1_000_000, nil,
            ])
        }
    }

    mutating func sample(device: String, stream: String, _ sample: AccelerationSample) throws {
        if lastStream?.device != device || lastStream?.stream != stream {
            let key = device + "/" + stream
            lastStream = (device, stream, key, try ReceivedCounted.countedThrough(stream: key, db))
        }
        let key = lastStream?.key ?? device + "/" + stream
        // A sample in a span already fed to the detector is a resend: not stored again, so that the next fetch does
        // not take it for one that came too late.
        let counted =
            try lastStream?.countedThrough.map { sample.timeNs <= $0 } == true
            && ReceivedCounted.covers(stream: key, timeNs: sample.timeNs, db)
        if !counted { try insertSample.execute(arguments: [key, sample.timeNs, sample.x, sample.y, sample.z]) }
        var entry = heard[device] ?? (0, 0, nil)
        entry.dataEnd = max(entry.dataEnd ?? sample.timeNs, sample.timeNs)
        if counted || db.changesCount == 0 {
            result.duplicates += 1
        } else {
            entry.samples += 1
            result.samples += 1
        }
        heard[device] = entry
        streams[key] = (device, max(streams[key]?.newestNs ?? sample.timeNs, sample.timeNs))
    }

    /// Brings the streams' and devices' records up to date; what the payload changed.
    mutating func finish(format: String) throws -> ReceivedCommit {
        for (stream, seen) in streams {
            try db.cachedStatement(
                sql: """
                    INSERT INTO received_stream (stream, device, last_heard_ns, newest_ns) VALUES (?, ?, ?, ?)
                    ON CONFLICT (stream) DO UPDATE SET last_heard_ns = excluded.last_heard_ns,
                        newest_ns = MAX(newest_ns, excluded.newest_ns)
                    """
            ).execute(arguments: [stream, seen.device, nowNs, seen.newestNs])
        }
        for (device, entry) in heard.sorted(by: { $0.key < $1.key }) {
            try ReceivedDevice.heard(
                db, device: device, format: format, nowNs: nowNs, dataEndNs: entry.dataEnd, readings: entry.readings,
                samples: entry.samples)
            result.devices.append(device)
        }
        return result
    }
}

extension ReceivedDevice {
    /// Records that `device` was heard at `nowNs` (created on first word): its data has arrived up to `dataEndNs`
    /// (never moved back), and `readings` and `samples` more were received. Phones that push and phones that are
    /// pulled (phyphox) are listed alike.
    static func heard(
        _ db: Database, device: String, format: String, nowNs: Int64, dataEndNs: Int64?, readings: Int, samples: Int
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
        ).execute(arguments: [device, format, nowNs, nowNs, dataEndNs, readings, samples])
    }

    /// Records that a payload of `device` at `nowNs` had items left out (`text` says which), creating its row when
    /// nothing of it was stored. Its last heard time and data end are left as they were: a refusal is no data, and
    /// must not hold windows back for a device whose data has stopped arriving.
    static func refused(_ db: Database, device: String, format: String, nowNs: Int64, text: String) throws {
        try db.cachedStatement(
            sql: """
                INSERT INTO received_device (device, format, first_heard_ns, last_heard_ns, last_refusal_ns, last_refusal)
                VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (device) DO UPDATE SET last_refusal_ns = excluded.last_refusal_ns,
                    last_refusal = excluded.last_refusal
                """
        ).execute(arguments: [device, format, nowNs, nowNs, nowNs, text])
    }
}
