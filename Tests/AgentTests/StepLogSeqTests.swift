import Foundation
import GRDB
import TestSupport
import Testing
import WallTime

@testable import Agent
@testable import Ingestion
@testable import Store

/// A step-log writer's `seq` names a line of its stream, but a writer reinstalled on the same boot (its `boot_id`
/// is the system's) starts `seq` again at 1: its new lines must not replace the old ones it sent before.
@Suite struct StepLogSeqTests {
    static let t0 = 1_795_222_800  // 2026-11-21T01:00:00Z

    /// `count` lines of 100 steps a minute from `minute`, `seq` from `seq`, boot `boot`.
    static func body(fromMinute minute: Int, count: Int, boot: String = "b1", seq: Int = 1) -> Data {
        Data(
            (0..<count).map { i in
                let ts = ISO8601DateFormatter().string(
                    from: Date(timeIntervalSince1970: TimeInterval(t0 + (minute + i) * 60)))
                return
                    #"{"v": 1, "ts": "\#(ts)", "steps": 100, "src": "pixel", "boot_id": "\#(boot)", "seq": \#(i + seq)}"#
            }.joined(separator: "\n").utf8)
    }

    /// Two walks of 3,000 steps, the second after a reinstall on the same boot (`seq` from 1 again).
    static let twoWalks = body(fromMinute: 0, count: 30) + Data("\n".utf8) + body(fromMinute: 360, count: 30)
    /// The same walks sent again by the writer reinstalled after a reboot: a new `boot_id`, new `seq` numbers.
    static let twoWalksAgain =
        body(fromMinute: 0, count: 30, boot: "b2", seq: 1001) + Data("\n".utf8)
        + body(fromMinute: 360, count: 30, boot: "b2", seq: 1031)

    static func stored(_ store: StateStore) throws -> Int64 {
        try store.writer.read { db in
            try Int64.fetchOne(db, sql: "SELECT COALESCE(SUM(microsteps), 0) FROM received_reading") ?? 0
        } / 1_000_000
    }

    @Test func aWriterWhoseSeqStartsAgainLosesNothingAndAResendAddsNothing() throws {
        let dir = try TempDir()
        let store = try StateStore(path: dir.path("state.sqlite"))
        let now = Instant(nanosecondsSinceEpoch: Int64(Self.t0 + 86_400) * 1_000_000_000)
        let morning = Self.body(fromMinute: 0, count: 30)
        let afternoon = Self.body(fromMinute: 360, count: 30)  // reinstalled: seq 1 again
        _ = try store.commit(try PushApps.parse(body: morning, format: nil), now: now)
        _ = try store.commit(try PushApps.parse(body: afternoon, format: nil), now: now)
        #expect(try Self.stored(store) == 6_000)
        let resent = try store.commit(try PushApps.parse(body: morning, format: nil), now: now)
        #expect(resent.readings == 0 && resent.duplicates == 30)
        #expect(try Self.stored(store) == 6_000)
    }

    /// A line stored before its key carried its time is still replaced, not added, by a resend after the upgrade.
    @Test func aSeqLineStoredBeforeTheUpgradeIsNotAddedAgainOnAResend() throws {
        let dir = try TempDir()
        let path = dir.path("state.sqlite")
        let old = try DatabaseQueue(path: path)
        try Migrations.migrator.migrate(old, upTo: "v22-outbox-last-attempt")
        let t = Int64(Self.t0) * 1_000_000_000
        try old.write { db in
            try db.execute(
                sql: """
                    INSERT INTO received_reading (device, key, start_ns, end_ns, microsteps, changed)
                    VALUES ('pixel', 'b1 seq 1', ?, ?, 100000000, 1), ('pixel', 'b1 seq 2', ?, ?, 100000000, 1)
                    """, arguments: [t, t, t, t + 60_000_000_000])
        }
        try old.close()
        let store = try StateStore(path: path)
        let now = Instant(nanosecondsSinceEpoch: t + 86_400_000_000_000)
        let resent = try store.commit(
            try PushApps.parse(body: Self.body(fromMinute: 0, count: 2), format: nil), now: now)
        #expect(resent.readings == 0)
        #expect(try Self.stored(store) == 200)
    }

    /// A writer reinstalled with a new `boot_id` sends its history again with new `seq` numbers, through the
    /// receiver: its lines are the ones it sent before (same device, same times), not new ones. A corrected line
    /// (another count at the same time) still replaces.
    @Test func aHistoryResentWithANewBootAndNewSeqAddsNothing() async throws {
        let dir = try TempDir()
        let receiver = ReceiverTests()
        let r = try await receiver.start(dir: dir)
        let first = try await receiver.post(r.port, Self.twoWalks, token: receiver.token)
        #expect(first.status == 200 && first.answer["readings"] as? Int == 60, "\(first.answer)")
        let again = try await receiver.post(r.port, Self.twoWalksAgain, token: receiver.token)
        #expect(again.answer["readings"] as? Int == 0 && again.answer["duplicates"] as? Int == 60, "\(again.answer)")
        #expect(try Self.stored(r.store) == 6_000)
        let corrected = Data(
            #"{"v": 1, "ts": "2026-11-21T01:00:00Z", "steps": 130, "src": "pixel", "boot_id": "b2", "seq": 1001}"#.utf8)
        let fixed = try await receiver.post(r.port, corrected, token: receiver.token)
        #expect(fixed.answer["readings"] as? Int == 1, "\(fixed.answer)")
        #expect(try Self.stored(r.store) == 6_030)
        // Another device at the same times is its own.
        let other = try await receiver.post(
            r.port,
            Data(String(decoding: Self.twoWalks, as: UTF8.self).replacingOccurrences(of: "pixel", with: "watch").utf8),
            token: receiver.token)
        #expect(other.answer["readings"] as? Int == 60, "\(other.answer)")
        await r.stop()
    }

    /// Lines stored under `STREAM seq N at TS` (from `v23-step-log-seq-at` on) are rekeyed by
    /// `v25-step-log-seq-device-ts`: the history sent again with a new boot after the upgrade adds nothing.
    @Test func aHistoryStoredBeforeTheUpgradeIsNotAddedAgainUnderANewBoot() throws {
        let dir = try TempDir()
        let path = dir.path("state.sqlite")
        let old = try DatabaseQueue(path: path)
        try Migrations.migrator.migrate(old, upTo: "v23-step-log-seq-at")
        let t = Int64(Self.t0) * 1_000_000_000
        let minute: Int64 = 60_000_000_000
        try old.write { db in
            for i in Int64(0)..<30 {
                try db.execute(
                    sql: """
                        INSERT INTO received_reading (device, key, start_ns, end_ns, microsteps, changed)
                        VALUES ('pixel', ?, ?, ?, 100000000, 1)
                        """,
                    arguments: ["b1 seq \(i + 1) at \(t + i * minute)", t + max(i - 1, 0) * minute, t + i * minute])
            }
        }
        try old.close()
        let store = try StateStore(path: path)
        let now = Instant(nanosecondsSinceEpoch: t + 86_400_000_000_000)
        let resent = try store.commit(
            try PushApps.parse(body: Self.body(fromMinute: 0, count: 30, boot: "b2", seq: 1001), format: nil), now: now)
        #expect(resent.readings == 0 && resent.duplicates == 30)
        #expect(try Self.stored(store) == 3_000)
    }
}
