import Foundation
import GRDB
import TestSupport
import Testing
import WallTime

@testable import Ingestion
@testable import Store

/// A step-log writer's `seq` names a line of its stream, but a writer reinstalled on the same boot (its `boot_id`
/// is the system's) starts `seq` again at 1: its new lines must not replace the old ones it sent before.
@Suite struct StepLogSeqTests {
    static let t0 = 1_795_222_800  // 2026-11-21T01:00:00Z

    /// `count` lines of 100 steps a minute from `minute`, `seq` from 1, boot `b1`.
    static func body(fromMinute minute: Int, count: Int) -> Data {
        Data(
            (0..<count).map { i in
                let ts = ISO8601DateFormatter().string(
                    from: Date(timeIntervalSince1970: TimeInterval(t0 + (minute + i) * 60)))
                return #"{"v": 1, "ts": "\#(ts)", "steps": 100, "src": "pixel", "boot_id": "b1", "seq": \#(i + 1)}"#
            }.joined(separator: "\n").utf8)
    }

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
}
