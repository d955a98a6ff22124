import Foundation
import GRDB
import SensorInput
import StepDetection
import WallTime

/// What one payload changed in the state, for the receiver's answer.
public struct ReceivedCommit: Sendable, Equatable {
    public var readings = 0
    public var samples = 0
    /// Items already received with the same value (a resend), or sent before the value kept, which changed nothing.
    public var duplicates = 0
    /// The devices the payload was about.
    public var devices: [String] = []

    public init() {}
}

extension StateStore {
    /// Stores what a payload holds in one transaction, before the receiver answers: a reading replaces the device's
    /// earlier one with the same key (a resend with the same value is a duplicate), and marks it for the next fetch.
    public func commit(_ payload: Payload, now: Instant) throws -> ReceivedCommit {
        try writer.write { db in try Self.commit(payload, now: now, db) }
    }

    static func commit(_ payload: Payload, now: Instant, _ db: Database) throws -> ReceivedCommit {
        var batch = try ReceivedBatch(db, now: now, replacesOverlaps: payload.replacesOverlaps)
        for item in payload.items {
            switch item {
            case .replacing(let device, let key, let reading, let microsteps):
                try batch.reading(
                    device: device, key: key, reading, microsteps: microsteps,
                    sentNs: payload.sent?.nanosecondsSinceEpoch)
            case .adding(let device, let reading):
                // An adding reading has no key of its own: one with the same end and steps as one received is a
                // resend. Not its start, which is the line before it, so a body resent with a bad line fixed
                // replaces the line after that one rather than adding it again.
                try batch.reading(
                    device: device, key: addingKey(endNs: reading.end.nanosecondsSinceEpoch, steps: reading.steps),
                    reading,
                    microsteps: Int64(reading.steps) * 1_000_000)
            case .sample(let device, let stream, let sample):
                try batch.sample(device: device, stream: stream, sample)
            case .runningTotal(let device, let stream, let timeNs, let total):
                try Self.heardStream(
                    device + "/" + stream, device: device, newest: Instant(nanosecondsSinceEpoch: timeNs), now: now,
                    db)
                try batch.total(device: device, session: stream, timeNs: timeNs, total: total)
            }
        }
        let committed = try batch.finish(format: payload.format)
        for (device, text) in refusals(of: payload) {
            try ReceivedDevice.refused(db, device: device, format: payload.format, now: now, text: text)
        }
        return committed
    }

    /// The key of an adding reading (a step-log line without `seq`): its end and steps.
    static func addingKey(endNs: Int64, steps: Int) -> String { "at \(endNs) steps \(steps)" }

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
    public func refused(device: String, format: String, now: Instant, text: String) throws {
        try writer.write { db in
            try ReceivedDevice.refused(db, device: device, format: format, now: now, text: text)
        }
    }

    /// The stream's record, created or brought up to date.
    @discardableResult
    static func heardStream(_ stream: String, device: String, newest: Instant, now: Instant, _ db: Database) throws
        -> ReceivedStreamRecord
    {
        var row =
            try ReceivedStreamRecord.fetchOne(db, key: stream)
            ?? ReceivedStreamRecord(stream: stream, device: device, lastHeard: now, newest: newest)
        row.lastHeard = now
        row.newest = max(row.newest, newest)
        try row.save(db)
        return row
    }

    /// The devices that pushed, most recently heard first.
    public func receivedDevices() throws -> [ReceivedDeviceListing] {
        try writer.read { db in
            try ReceivedDevice.order(ReceivedDevice.Columns.lastHeard.desc).fetchAll(db).map(
                ReceivedDeviceListing.init)
        }
    }
}

/// One payload being stored: its statements prepared once, and what it changed, per device and stream.
private struct ReceivedBatch {
    let db: Database
    let now: Instant
    /// `now`'s nanoseconds, which the data ends of readings and samples are compared with.
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
    /// Whether a reading replaces the parts of earlier ones it covers (`ReceivedOverlap`); the keys of each device
    /// this payload holds, which it spares; each device's longest reading.
    let replacesOverlaps: Bool
    var keysSent: [String: Set<String>] = [:]
    var longest: [String: Int64] = [:]

    init(_ db: Database, now: Instant, replacesOverlaps: Bool = false) throws {
        self.db = db
        self.replacesOverlaps = replacesOverlaps
        self.now = now
        self.nowNs = now.nanosecondsSinceEpoch
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
        // An app that pushes readings sends all it has up to the moment it sends (Health Auto Export's period, Health
        // Connect's day so far): its data is complete up to now, though its last reading is older (minutes without
        // steps have no point), so a phone that is heard but still does not hold windows back.
        entry.dataEnd = max(
            entry.dataEnd ?? reading.end.nanosecondsSinceEpoch, reading.end.nanosecondsSinceEpoch, nowNs)
        try insertReading.execute(arguments: [
            device, key, reading.start.nanosecondsSinceEpoch, reading.end.nanosecondsSinceEpoch, microsteps, sentNs,
        ])
        if replacesOverlaps { keysSent[device, default: []].insert(key) }
        if db.changesCount > 0 {
            if replacesOverlaps {
                try ReceivedOverlap.replaceCovered(
                    db, device: device, key: key, startNs: reading.start.nanosecondsSinceEpoch,
                    endNs: reading.end.nanosecondsSinceEpoch, microsteps: microsteps, sentNs: sentNs,
                    spared: keysSent[device] ?? [],
                    longest: &longest)
            }
            // The device's count is what `status` shows: readings stored or changed, as the answer's `readings`, not
            // every reading sent (the same ten sent three times are ten).
            entry.readings += 1
            heard[device] = entry
            result.readings += 1
            return
        }
        heard[device] = entry
        result.duplicates += 1
        if let sentNs {
            // The same value sent later: kept as sent then, so that a send between the two cannot replace it.
            try db.cachedStatement(
                sql: "UPDATE received_reading SET sent_ns = ? WHERE device = ? AND key = ? AND sent_ns < ?"
            ).execute(arguments: [sentNs, device, key, sentNs])
        }
    }

    /// A running total (`ReceivedTotalRecord`): kept at its time, counted as its difference from the total counted
    /// before it, and setting the readings it changes after it. The same total again is a duplicate.
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
        let changed = try ReceivedTotalRecord.recount(db, device: device, session: session, from: record)
        for (i, (key, counted)) in changed.enumerated() {
            let microsteps = Int64(counted.steps) * 1_000_000
            if i == 0 {
                try reading(device: device, key: key, counted, microsteps: microsteps)
            } else {
                try insertReading.execute(arguments: [
                    device, key, counted.start.nanosecondsSinceEpoch, counted.end.nanosecondsSinceEpoch, microsteps,
                    nil,
                ])
            }
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
            try lastStream?.countedThrough.map { sample.time.nanosecondsSinceEpoch <= $0 } == true
            && ReceivedCounted.covers(stream: key, timeNs: sample.time.nanosecondsSinceEpoch, db)
        if !counted {
            try insertSample.execute(arguments: [key, sample.time.nanosecondsSinceEpoch, sample.x, sample.y, sample.z])
        }
        var entry = heard[device] ?? (0, 0, nil)
        entry.dataEnd = max(entry.dataEnd ?? sample.time.nanosecondsSinceEpoch, sample.time.nanosecondsSinceEpoch)
        if counted || db.changesCount == 0 {
            result.duplicates += 1
        } else {
            entry.samples += 1
            result.samples += 1
        }
        heard[device] = entry
        streams[key] = (
            device, max(streams[key]?.newestNs ?? sample.time.nanosecondsSinceEpoch, sample.time.nanosecondsSinceEpoch)
        )
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
            ).execute(arguments: [stream, seen.device, now, seen.newestNs])
        }
        for (device, entry) in heard.sorted(by: { $0.key < $1.key }) {
            try ReceivedDevice.heard(
                db, device: device, format: format, now: now,
                dataEnd: entry.dataEnd.map(Instant.init(nanosecondsSinceEpoch:)), readings: entry.readings,
                samples: entry.samples)
            result.devices.append(device)
        }
        return result
    }
}
