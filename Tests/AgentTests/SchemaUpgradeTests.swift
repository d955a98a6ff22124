import Foundation
import GRDB
import SensorInput
import TestSupport
import Testing
import WallTime

@testable import Agent
@testable import Store

/// A state database written by the schema of 2026-11-23 (`fixtures/state-schema-2026-11-23.sqlite`: one fetch of the
/// demo walk whose post to an unreachable webhook stayed pending) must open with today's migrations and keep its
/// cursor, steps, outbox row and history. Kept before the schema moves to typed records, so that change is tested
/// against a real old database.
@Suite struct SchemaUpgradeTests {
    @Test func aDatabaseFromTheOldSchemaOpensWithEverythingKept() throws {
        let fixture = SharedData.packageRoot.appendingPathComponent("fixtures/state-schema-2026-11-23.sqlite").path
        let dir = try TempDir()
        let path = dir.path("state.sqlite")
        try FileManager.default.copyItem(atPath: fixture, toPath: path)
        let store = try StateStore(path: path)
        let saved = try store.savedSource("/work/wt-arch/fixtures/demo_walk_50hz.csv")
        #expect(saved.cursor != nil)
        #expect(saved.detector != nil)
        #expect(try store.stepRange() != nil)
        #expect(try store.steps(in: TimeWindow(fromNs: 0, toNs: 4_000_000_000_000_000_000)) == 112)
        let pending = try store.outbox(status: .pending)
        #expect(pending.map(\.target) == ["gone"])
        #expect(pending.map(\.attempts) == [1])
        #expect(pending.map(\.window.idempotencyKey) == ["steps-20261121T010200Z-20261123T013037Z"])
        #expect(pending.first?.window.steps == 112)
        #expect(try store.history().map(\.result) == [.failed])
    }

    @Test func theKeyValueAgentStateBecomesTheSingleRowAgentStatus() throws {
        let fixture = SharedData.packageRoot.appendingPathComponent("fixtures/state-schema-2026-11-23.sqlite").path
        let dir = try TempDir()
        let path = dir.path("state.sqlite")
        try FileManager.default.copyItem(atPath: fixture, toPath: path)
        // What an agent of that version wrote: key/value rows.
        let old = try DatabaseQueue(path: path)
        try old.write { db in
            for (key, value) in [
                ("pid", "4242"), ("state", "idle"), ("next_fetch", "2026-11-23T02:00:00Z"),
                ("last_result", "NewData"), ("consecutive_failures", "0"),
            ] {
                try db.execute(sql: "INSERT INTO agent_state (key, value) VALUES (?, ?)", arguments: [key, value])
            }
        }
        try old.close()
        let store = try StateStore(path: path)
        let status = try store.agentStatus()
        #expect(status.pid == 4242)
        #expect(status.state == .idle)
        #expect(status.nextFetch == "2026-11-23T02:00:00Z")
        #expect(status.lastResult == "NewData")
        #expect(status.consecutiveFailures == 0)
        try store.updateAgentStatus { $0.state = .fetching }
        #expect(try store.agentStatus().state == .fetching)
        #expect(try store.agentStatus().pid == 4242, "one row, changed in place")
    }

    /// Received readings counted before devices were told apart: the upgrade keeps each device's steps and decides
    /// each minute, so that a later resend changes a minute by its difference from the device that counts.
    @Test func receivedReadingsCountedBeforeTheOverlapRuleAreKeptPerDevice() throws {
        let dir = try TempDir()
        let path = dir.path("state.sqlite")
        let old = try DatabaseQueue(path: path)
        try Migrations.migrator.migrate(old, upTo: "v8-received")
        try old.write { db in
            for (device, steps) in [("phone", 30), ("watch", 50)] {
                try db.execute(
                    sql: """
                        INSERT INTO received_reading (device, key, start_ns, end_ns, microsteps, changed,
                            counted_start_ns, counted_end_ns, counted_steps)
                        VALUES (?, 'm0', 0, 60000000000, ?, 0, 0, 60000000000, ?)
                        """, arguments: [device, steps * 1_000_000, steps])
            }
        }
        try old.close()
        let store = try StateStore(path: path)
        let (perDevice, chosen) = try store.writer.read { db in
            (
                try Row.fetchAll(db, sql: "SELECT device, seconds FROM device_minute ORDER BY device")
                    .map { "\($0[0] as String)=\(DeviceOverlap.MinuteSteps(blob: $0[1]).total)" },
                try String.fetchAll(db, sql: "SELECT device FROM minute_choice")
            )
        }
        #expect(perDevice == ["phone=30", "watch=50"])
        #expect(chosen == ["watch"])
        // The phone's minute grows past the watch's: the minute changes by 70 - 50.
        let change = try store.writer.write { db in try DeviceOverlap().resolve(db, ["phone": [0: 40]]) }
        #expect(change.values.reduce(0, +) == 20)
    }

    /// A step-log line without `seq` stored before its key was its end and steps (it was `START-END-STEPS`) is not
    /// added again when the same body comes after the upgrade.
    @Test func anAddingReadingStoredBeforeTheUpgradeIsNotAddedAgainOnAResend() throws {
        let dir = try TempDir()
        let path = dir.path("state.sqlite")
        let old = try DatabaseQueue(path: path)
        try Migrations.migrator.migrate(old, upTo: "v15-received-refusal")
        let t: Int64 = 1_763_000_000_000_000_000
        try old.write { db in
            try db.execute(
                sql: """
                    INSERT INTO received_reading (device, key, start_ns, end_ns, microsteps, changed)
                    VALUES ('steplog', ? || '-' || ? || '-5', ?, ?, 5000000, 1)
                    """, arguments: [t, t + 60_000_000_000, t, t + 60_000_000_000])
        }
        try old.close()
        let store = try StateStore(path: path)
        let resend = try store.commit(
            Payload(
                format: "steplog",
                items: [
                    .adding(
                        device: "steplog",
                        reading: StepReading(
                            start: Instant(nanosecondsSinceEpoch: t),
                            end: Instant(nanosecondsSinceEpoch: t + 60_000_000_000), steps: 5))
                ]),
            now: Instant(nanosecondsSinceEpoch: t + 120_000_000_000))
        #expect(resend.readings == 0 && resend.duplicates == 1)
        let steps = try store.writer.read { db in
            try Int64.fetchOne(db, sql: "SELECT SUM(microsteps) FROM received_reading")
        }
        #expect(steps == 5_000_000)
    }

    /// A recording whose pedometer totals were differenced with only the last total kept goes on from it after the
    /// upgrade: the next total counts its difference from the last one, not whole.
    @Test func aRecordingInProgressGoesOnFromItsLastTotal() throws {
        let dir = try TempDir()
        let path = dir.path("state.sqlite")
        let old = try DatabaseQueue(path: path)
        try Migrations.migrator.migrate(old, upTo: "v13-received-checkpoint")
        let t: Int64 = 1_763_000_000_000_000_000
        try old.write { db in
            try db.execute(
                sql: """
                    INSERT INTO received_stream (stream, device, last_heard_ns, newest_ns, last_total)
                    VALUES ('Phone/s1', 'Phone', ?, ?, 40);
                    INSERT INTO received_reading (device, key, start_ns, end_ns, microsteps, changed, counted_start_ns,
                        counted_end_ns, counted_steps)
                    VALUES ('Phone', 'total:s1:' || ?, ?, ?, 12000000, 0, ?, ?, 12);
                    """, arguments: [t + 9_000_000_000, t + 9_000_000_000, t, t, t, t, t])
        }
        try old.close()
        let store = try StateStore(path: path)
        let kept = try store.writer.read { db in try ReceivedTotalRecord.fetchAll(db) }
        #expect(kept == [ReceivedTotalRecord(stream: "Phone/s1", timeNs: t, total: 40)])
        _ = try store.commit(
            Payload(
                format: "sensor-logger",
                items: [.runningTotal(device: "Phone", stream: "s1", timeNs: t + 10_000_000_000, total: 55)]),
            now: Instant(nanosecondsSinceEpoch: t + 20_000_000_000))
        let next = try store.writer.read { db in
            try ReceivedReadingRecord.fetchOne(db, key: ["device": "Phone", "key": "total:s1:\(t + 10_000_000_000)"])
        }
        #expect(next?.microsteps == 15_000_000)
    }
}
