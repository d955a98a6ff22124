import Foundation
import GRDB
import SensorInput
import TestSupport
import Testing
import WallTime

@testable import Agent
@testable import Store

/// A device's readings are recounted from the last checkpoint, not from the start of its history, and every count
/// stays what a recount from the start gives: fractional counts summed, then rounded.
@Suite struct ReceivedCheckpointTests {
    let minute: Int64 = 60_000_000_000
    let t0: Int64 = 1_763_000_000_000_000_000
    let now: Int64 = 1_763_100_000_000_000_000

    /// A Health Auto Export-like reading of `micro` millionths of a step over minute `m`, keyed by `key`.
    func reading(_ m: Int64, micro: Int64, key: String? = nil) -> PayloadItem {
        .replacing(
            device: "Phone", key: key ?? "steps \(m)",
            reading: StepReading(
                start: Instant(nanosecondsSinceEpoch: t0 + m * minute),
                end: Instant(nanosecondsSinceEpoch: t0 + (m + 1) * minute), steps: 0), microsteps: micro)
    }

    func push(_ items: [PayloadItem], to store: StateStore) throws -> Int {
        try ReceivedCounting.push(Payload(format: "health-auto-export", items: items), to: store, nowNs: now)
    }

    @Test func countsFromTheCheckpointAreThoseOfACountFromTheStart() throws {
        let dir = try TempDir()
        let store = try StateStore(path: dir.path("state.sqlite"))
        #expect(try push((0..<10).map { reading($0, micro: 300_000) }, to: store) == 3)
        let checkpoint = try store.writer.read { db in try ReceivedCheckpointRecord.fetchOne(db, key: "Phone") }
        #expect(checkpoint?.beforeNs == t0 + 9 * minute + 1 && checkpoint?.microsteps == 3_000_000)
        // Later readings start from it; the rounding carries on where it was (0.3 a minute: 6.0 after 20).
        #expect(try push((10..<20).map { reading($0, micro: 300_000) }, to: store) == 6)
        // A resend of an early minute comes before the checkpoint: the sum starts afresh (7.0).
        #expect(try push([reading(5, micro: 1_300_000)], to: store) == 7)
        // A second reading starting with the last one (another key) is not inside the checkpoint: 7.6 → 8.
        #expect(try push([reading(19, micro: 600_000, key: "steps 19 watch")], to: store) == 8)
        // The same steps counted from the start, without the checkpoint, change nothing.
        try store.writer.write { db in _ = try ReceivedCheckpointRecord.deleteAll(db) }
        try store.writer.write { db in
            try db.execute(sql: "UPDATE received_reading SET changed = 1")
            let recount = try ReceivedRecount.recount("Phone", db, limit: .max)
            #expect(recount.changed.allSatisfy { !$0.0.changed || $0.0.counted == $0.1 })
            #expect(recount.looked == 21)
        }
    }

    /// `status` lists each device with its readings: the same ten readings sent three times are ten, not thirty; a
    /// changed value is one more (issue 44).
    @Test func aDevicesReadingsCountNoDuplicate() throws {
        let dir = try TempDir()
        let store = try StateStore(path: dir.path("state.sqlite"))
        let ten = (0..<10).map { reading($0, micro: 1_000_000) }
        for _ in 0..<3 {
            _ = try store.commit(
                Payload(format: "health-auto-export", items: ten), now: Instant(nanosecondsSinceEpoch: now))
        }
        let device = try #require(try store.receivedDevices().first)
        #expect(device.readings == 10)
        #expect(device.line(zone: TimeZone(identifier: "UTC")!).contains(", 10 readings, "), "\(device)")
        _ = try store.commit(
            Payload(format: "health-auto-export", items: [reading(0, micro: 4_000_000)]),
            now: Instant(nanosecondsSinceEpoch: now))
        #expect(try store.receivedDevices().first?.readings == 11)
    }

    /// A new reading after the checkpoint reads none of the history before it: a history changed behind the
    /// checkpoint's back (never so in use: a change marks its reading) does not move the new reading's count.
    @Test func aNewReadingDoesNotSumTheHistoryAgain() throws {
        let dir = try TempDir()
        let store = try StateStore(path: dir.path("state.sqlite"))
        #expect(try push((0..<100).map { reading($0, micro: 2_000_000) }, to: store) == 200)
        try store.writer.write { db in
            try db.execute(sql: "UPDATE received_reading SET microsteps = microsteps + 5000000 WHERE key = 'steps 0'")
        }
        #expect(try push([reading(100, micro: 3_000_000)], to: store) == 203)
    }
}

/// What the receiver stores and a fetch counts, without HTTP: a payload committed as the receiver commits it, then the
/// received readings counted as a fetch counts them.
enum ReceivedCounting {
    /// Commits `payload`, counts what changed, and returns every step the steps table holds.
    static func push(_ payload: Payload, to store: StateStore, nowNs: Int64) throws -> Int {
        _ = try store.commit(payload, now: Instant(nanosecondsSinceEpoch: nowNs))
        let now = Instant(nanosecondsSinceEpoch: nowNs)
        let source = ReceivedStepSource(store: store, settle: .zero)
        let saved = try store.savedSource(source.name)
        let read = try source.read(after: saved, now: now, byteLimit: nil, observeDevice: false)
        let slice = try read.slice(source: source.name, now: now, boutsHandled: true, prefer: [])
        try store.write { tx in _ = try tx.save(slice, now: now) }
        return try store.steps(in: .sinceEpoch)
    }
}
