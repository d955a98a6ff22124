import Foundation
import GRDB
import TestSupport
import Testing
import WallTime

@testable import Agent
@testable import Store

/// Apps that send their totals again over intervals that moved with the phone's time zone (Health Connect's day so
/// far from local midnight, Health Auto Export's aggregated buckets on local hours): a newer reading replaces the part
/// of the same device's older ones it covers, through the receiver, and the fetch counts what is left once.
@Suite(.timeLimit(.minutes(1))) struct ReceivedOverlapTests {
    let receiver = ReceiverTests()

    /// Health Connect records of Google Fit on a Pixel 8 (unless `origin` says otherwise), sent at `sent`.
    static func healthConnect(
        sent: String, _ records: [(start: String, end: String, count: Int)],
        origin: String =
            "com.google.android.apps.fitness"
    ) -> Data {
        let items = records.map { r in
            #"{"count": \#(r.count), "start_time": "\#(r.start)", "end_time": "\#(r.end)", "metadata": "#
                + #"{"data_origin": "\#(origin)", "device": {"model": "Pixel 8"}}}"#
        }
        return Data(
            #"{"timestamp": "\#(sent)", "app_version": "1.4", "steps": [\#(items.joined(separator: ","))]}"#.utf8)
    }

    /// Health Auto Export hourly `step_count` buckets of `source`.
    static func autoExport(_ buckets: [(date: String, qty: Int)], source: String = "Taro's iPhone") -> Data {
        let points = buckets.map { #"{"date": "\#($0.date)", "qty": \#($0.qty), "source": "\#(source)"}"# }
        return Data(
            #"{"data": {"metrics": [{"name": "step_count", "units": "count", "data": [\#(points.joined(separator: ","))]}]}}"#
                .utf8)
    }

    static func received(_ store: StateStore, device: String) throws -> Int64 {
        try store.writer.read { db in
            try Int64.fetchOne(
                db, sql: "SELECT COALESCE(SUM(microsteps), 0) FROM received_reading WHERE device = ?",
                arguments: [device]) ?? 0
        } / 1_000_000
    }

    static func counted(_ store: StateStore) throws -> Int {
        try store.writer.read { db in try Int.fetchOne(db, sql: "SELECT COALESCE(SUM(count), 0) FROM steps") ?? 0 }
    }

    static func at(_ text: String) throws -> Instant {
        Instant(try #require(ISO8601DateFormatter().date(from: text)))
    }

    /// audit37b: today's record from midnight at +0000 (00:00-12:00Z, 7,200 steps), then, the phone at -0500, from
    /// the new local midnight (05:00-23:00Z, 8,800): 16,000 counted for a day of 10,800. The older record keeps the
    /// five hours the newer does not cover (7,200 spread evenly: 3,000); a retry of its send changes nothing.
    @Test func aDaySoFarFromANewLocalMidnightReplacesTheOlderRecordsPartItCovers() async throws {
        let dir = try TempDir()
        let r = try await receiver.start(dir: dir)
        let old = Self.healthConnect(
            sent: "2026-11-20T12:00:00Z", [("2026-11-20T00:00:00Z", "2026-11-20T12:00:00Z", 7200)])
        #expect(try await receiver.post(r.port, old, token: receiver.token).answer["readings"] as? Int == 1)
        _ = await r.fetcher.fetch(now: try Self.at("2026-11-20T12:30:00Z"), trigger: [.manual])
        #expect(try Self.counted(r.store) == 7_200)
        let new = Self.healthConnect(
            sent: "2026-11-20T23:00:00Z", [("2026-11-20T05:00:00Z", "2026-11-20T23:00:00Z", 8800)])
        #expect(try await receiver.post(r.port, new, token: receiver.token).answer["readings"] as? Int == 1)
        let retried = try await receiver.post(r.port, old, token: receiver.token)
        #expect(retried.answer["duplicates"] as? Int == 1, "\(retried.answer)")
        _ = await r.fetcher.fetch(now: try Self.at("2026-11-21T06:00:00Z"), trigger: [.manual])
        #expect(try Self.received(r.store, device: "com.google.android.apps.fitness (Pixel 8)") == 11_800)
        #expect(try Self.counted(r.store) == 11_800)
        // The day growing replaces the newer record by its key, and takes nothing more off the older.
        let grown = Self.healthConnect(
            sent: "2026-11-20T23:50:00Z", [("2026-11-20T05:00:00Z", "2026-11-20T23:50:00Z", 9000)])
        _ = try await receiver.post(r.port, grown, token: receiver.token)
        _ = await r.fetcher.fetch(now: try Self.at("2026-11-21T07:00:00Z"), trigger: [.manual])
        #expect(try Self.counted(r.store) == 12_000)
        await r.stop()
    }

    /// The same two Health Connect sends the other way round: the older send (a retry of a send that failed) arrives
    /// after the newer one. Its record is cut by the newer's, as if it had arrived first: 11,800, not 16,000; a
    /// further retry of it is a duplicate.
    @Test func anOlderSendArrivingAfterTheNewerIsCutByIt() async throws {
        let dir = try TempDir()
        let r = try await receiver.start(dir: dir)
        let device = "com.google.android.apps.fitness (Pixel 8)"
        let new = Self.healthConnect(
            sent: "2026-11-20T23:00:00Z", [("2026-11-20T05:00:00Z", "2026-11-20T23:00:00Z", 8800)])
        #expect(try await receiver.post(r.port, new, token: receiver.token).answer["readings"] as? Int == 1)
        _ = await r.fetcher.fetch(now: try Self.at("2026-11-20T23:30:00Z"), trigger: [.manual])
        #expect(try Self.counted(r.store) == 8_800)
        let old = Self.healthConnect(
            sent: "2026-11-20T12:00:00Z", [("2026-11-20T00:00:00Z", "2026-11-20T12:00:00Z", 7200)])
        #expect(try await receiver.post(r.port, old, token: receiver.token).answer["readings"] as? Int == 1)
        #expect(try Self.received(r.store, device: device) == 11_800)
        let retried = try await receiver.post(r.port, old, token: receiver.token)
        #expect(retried.answer["duplicates"] as? Int == 1, "\(retried.answer)")
        _ = await r.fetcher.fetch(now: try Self.at("2026-11-21T06:00:00Z"), trigger: [.manual])
        #expect(try Self.received(r.store, device: device) == 11_800)
        #expect(try Self.counted(r.store) == 11_800)
        await r.stop()
    }

    /// Three sends of one device arriving in the order sent, and with the oldest last: the same readings stored
    /// (12,100: the oldest keeps 00-06Z, half its steps; the middle one loses the two hours the newest covers).
    @Test func theOldestOfThreeSendsArrivingLastStoresWhatTheOrderSentStores() async throws {
        let sends = [
            Self.healthConnect(sent: "2026-11-20T12:00:00Z", [("2026-11-20T00:00:00Z", "2026-11-20T12:00:00Z", 7200)]),
            Self.healthConnect(sent: "2026-11-20T22:00:00Z", [("2026-11-20T06:00:00Z", "2026-11-20T23:00:00Z", 8500)]),
            Self.healthConnect(sent: "2026-11-20T23:00:00Z", [("2026-11-20T08:00:00Z", "2026-11-20T10:00:00Z", 1000)]),
        ]
        var stored: [Int64] = []
        for order in [[0, 1, 2], [1, 2, 0]] {
            let dir = try TempDir()
            let r = try await receiver.start(dir: dir)
            for i in order { _ = try await receiver.post(r.port, sends[i], token: receiver.token) }
            stored.append(try Self.received(r.store, device: "com.google.android.apps.fitness (Pixel 8)"))
            await r.stop()
        }
        #expect(stored == [12_100, 12_100])
    }

    /// Health Auto Export says not when it sent: the bucket received last replaces what it covers, so the Berlin
    /// buckets arriving after the Delhi ones cut those (10,000 - 5,500 + 7,000 = 11,500), counted once either way.
    @Test func hourlyBucketsArrivingInTheOtherOrderCountOnce() async throws {
        let dir = try TempDir()
        let r = try await receiver.start(dir: dir)
        let delhi = Self.autoExport([
            ("2026-11-20 07:00:00 +0530", 2000), ("2026-11-20 08:00:00 +0530", 1000),
            ("2026-11-20 12:00:00 +0530", 4000), ("2026-11-20 19:00:00 +0530", 3000),
        ])
        _ = try await receiver.post(r.port, delhi, token: receiver.token)
        let berlin = Self.autoExport([
            ("2026-11-20 03:00:00 +0100", 3000), ("2026-11-20 07:00:00 +0100", 2000),
            ("2026-11-20 08:00:00 +0100", 2000),
        ])
        _ = try await receiver.post(r.port, berlin, token: receiver.token)
        #expect(try Self.received(r.store, device: "Taro's iPhone") == 11_500)
        _ = await r.fetcher.fetch(now: try Self.at("2026-11-20T20:00:00Z"), trigger: [.manual])
        #expect(try Self.counted(r.store) == 11_500)
        await r.stop()
    }

    /// Another app's records, and records of one payload, are not cut: only a device's older sends are.
    @Test func anotherAppsRecordsAndOnePayloadsRecordsAreKept() async throws {
        let dir = try TempDir()
        let r = try await receiver.start(dir: dir)
        let samsung = Self.healthConnect(
            sent: "2026-11-20T12:00:00Z", [("2026-11-20T00:00:00Z", "2026-11-20T12:00:00Z", 5000)],
            origin: "com.sec.android.app.shealth")
        _ = try await receiver.post(r.port, samsung, token: receiver.token)
        let both = Self.healthConnect(
            sent: "2026-11-20T13:00:00Z",
            [
                ("2026-11-20T00:00:00Z", "2026-11-20T12:00:00Z", 4000),
                ("2026-11-20T06:00:00Z", "2026-11-20T13:00:00Z", 700),
            ])
        #expect(try await receiver.post(r.port, both, token: receiver.token).answer["readings"] as? Int == 2)
        #expect(try Self.received(r.store, device: "com.sec.android.app.shealth (Pixel 8)") == 5_000)
        #expect(try Self.received(r.store, device: "com.google.android.apps.fitness (Pixel 8)") == 4_700)
        await r.stop()
    }

    /// audit37b: hourly buckets at +0100 (Berlin), then the day again on +0530's hours (Delhi), which start at :30
    /// UTC: 17,000 counted for 10,000. Each Delhi bucket replaces the part of the Berlin buckets it covers; what is
    /// left is the half hours no Delhi bucket covers (no steps there, so none sent: 06:00-06:30Z and 07:30-08:00Z,
    /// 1,000 each spread evenly). Another source's buckets are kept; the Delhi buckets resent change nothing.
    @Test func hourlyBucketsOnNewHalfHoursReplaceTheOlderBucketsTheyCover() async throws {
        let dir = try TempDir()
        let r = try await receiver.start(dir: dir)
        let berlin = Self.autoExport([
            ("2026-11-20 03:00:00 +0100", 3000), ("2026-11-20 07:00:00 +0100", 2000),
            ("2026-11-20 08:00:00 +0100", 2000),
        ])
        _ = try await receiver.post(r.port, berlin, token: receiver.token)
        let watch = Self.autoExport(
            [("2026-11-20 07:00:00 +0100", 1800), ("2026-11-20 08:00:00 +0100", 1900)], source: "Taro's Apple Watch")
        _ = try await receiver.post(r.port, watch, token: receiver.token)
        _ = await r.fetcher.fetch(now: try Self.at("2026-11-20T08:30:00Z"), trigger: [.manual])
        let delhi = Self.autoExport([
            ("2026-11-20 07:00:00 +0530", 2000), ("2026-11-20 08:00:00 +0530", 1000),
            ("2026-11-20 12:00:00 +0530", 4000),
            ("2026-11-20 19:00:00 +0530", 3000),
        ])
        #expect(try await receiver.post(r.port, delhi, token: receiver.token).answer["readings"] as? Int == 4)
        #expect(try Self.received(r.store, device: "Taro's iPhone") == 12_000)
        #expect(try Self.received(r.store, device: "Taro's Apple Watch") == 3_700)
        let again = try await receiver.post(r.port, delhi, token: receiver.token)
        #expect(again.answer["duplicates"] as? Int == 4, "\(again.answer)")
        #expect(try Self.received(r.store, device: "Taro's iPhone") == 12_000)
        await r.stop()
    }
}
