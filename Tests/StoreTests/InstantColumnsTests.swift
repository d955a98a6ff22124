import Foundation
import GRDB
import TestSupport
import Testing
import WallTime

@testable import Store

/// The records that speak `Instant` (a pushing device, a sample stream, a source's saved position) over the `…_ns`
/// columns an older version wrote as integers: a database written before reads as the same instants, and a row
/// written back holds the same integers.
@Suite struct InstantColumnsTests {
    /// 2026-11-21T10:00:00.123456789+09:00 and times around it, with nanoseconds a `Date` could not keep.
    let base: Int64 = 1_763_686_800_123_456_789

    /// Every row of `table`, its columns as SQLite holds them (integers stay integers, NULL stays NULL).
    func rows(_ store: StateStore, _ table: String) throws -> [[DatabaseValue]] {
        try store.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM \(table) ORDER BY 1").map { Array($0.databaseValues) }
        }
    }

    /// A state written by an older version (its columns as that version wrote them), opened by this one.
    func oldState(_ dir: TempDir) throws -> StateStore {
        let store = try StateStore(path: dir.path("state.sqlite"))
        try store.writer.write { db in
            try db.execute(
                sql: """
                    INSERT INTO received_device (device, format, first_heard_ns, last_heard_ns, data_end_ns, readings,
                        samples, last_refusal_ns, last_refusal)
                    VALUES ('Watch', 'health-auto-export', ?, ?, ?, 10, 0, ?, 'left out 1'),
                        ('Pixel', 'health-connect', ?, ?, NULL, 3, 0, NULL, NULL);
                    INSERT INTO received_stream (stream, device, last_heard_ns, newest_ns, last_total)
                    VALUES ('phone/session-1', 'phone', ?, ?, NULL);
                    INSERT INTO source_cursor (source, cursor, detector, last_sample_ns, first_data_ns, updated_ns,
                        last_reading_end_ns, skip_readings_through_ns, skipped_lines, remote_position)
                    VALUES ('steps.jsonl', NULL, NULL, ?, ?, ?, ?, NULL, NULL, NULL);
                    """,
                arguments: [
                    base, base + 1, base - 7, base + 2, base - 60, base - 59, base + 3, base - 1, base - 9, base - 99,
                    base + 4, base - 5,
                ])
        }
        return store
    }

    @Test func anOldStateReadsAsTheSameInstants() throws {
        let dir = try TempDir()
        let store = try oldState(dir)
        let at = { (ns: Int64) in Instant(nanosecondsSinceEpoch: ns) }
        let (devices, stream, cursor) = try store.writer.read { db in
            (
                try ReceivedDevice.order(ReceivedDevice.Columns.device).fetchAll(db),
                try ReceivedStreamRecord.fetchOne(db, key: "phone/session-1"),
                try SourceCursorRecord.fetchOne(db, key: "steps.jsonl")
            )
        }
        #expect(devices.map(\.device) == ["Pixel", "Watch"])
        #expect(devices[1].firstHeard == at(base) && devices[1].lastHeard == at(base + 1))
        #expect(devices[1].dataEnd == at(base - 7) && devices[1].lastRefusal == at(base + 2))
        #expect(devices[1].lastRefusalText == "left out 1")
        #expect(devices[0].dataEnd == nil && devices[0].lastRefusal == nil && devices[0].lastHeard == at(base - 59))
        #expect(stream?.lastHeard == at(base + 3) && stream?.newest == at(base - 1))
        #expect(cursor?.lastSample == at(base - 9) && cursor?.firstData == at(base - 99))
        #expect(cursor?.updated == at(base + 4) && cursor?.lastReadingEnd == at(base - 5))
        #expect(cursor?.skipReadingsThrough == nil)
        // `status` lists them most recently heard first, at their dates.
        let listed = try store.receivedDevices()
        #expect(listed.map(\.device) == ["Watch", "Pixel"])
        #expect(listed[0].lastHeard == at(base + 1).date && listed[0].dataUntil == at(base - 7).date)
    }

    @Test func rowsWrittenBackHoldTheSameIntegers() throws {
        let dir = try TempDir()
        let store = try oldState(dir)
        let tables = ["received_device", "received_stream", "source_cursor"]
        let before = try tables.map { try rows(store, $0) }
        try store.writer.write { db in
            for device in try ReceivedDevice.fetchAll(db) { try device.update(db) }
            for stream in try ReceivedStreamRecord.fetchAll(db) { try stream.update(db) }
            for cursor in try SourceCursorRecord.fetchAll(db) { try cursor.update(db) }
        }
        #expect(try tables.map { try rows(store, $0) } == before)
        #expect(before[0][1][2] == base.databaseValue, "first_heard_ns is the integer of nanoseconds")
    }

    /// A device heard through the transaction's API (a pulled phone) is kept as the integers the receiver writes.
    @Test func aHeardDeviceKeepsItsInstantsAsNanoseconds() throws {
        let dir = try TempDir()
        let store = try StateStore(path: dir.path("state.sqlite"))
        let now = Instant(nanosecondsSinceEpoch: base)
        try store.writer.write { db in
            try ReceivedDevice.heard(
                db, device: "phone", format: "phyphox", now: now, dataEnd: now - .seconds(2), readings: 0, samples: 5)
            try ReceivedDevice.heard(
                db, device: "phone", format: "phyphox", now: now + .seconds(60), dataEnd: now - .seconds(30),
                readings: 0, samples: 1)
        }
        let row = try rows(store, "received_device")[0]
        #expect(row[2] == base.databaseValue && row[3] == (base + 60_000_000_000).databaseValue)
        #expect(row[4] == (base - 2_000_000_000).databaseValue, "the data's end never moves back")
        #expect(row[6] == 6.databaseValue)
    }
}
