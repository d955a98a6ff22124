import Clocks
import Foundation
import GRDB
import Messages
import TestSupport
import Testing
import WallTime

@testable import Agent
@testable import Store

/// A sample stream's samples are removed once a fetch has fed them: a resend of them afterwards is a duplicate in the
/// answer and is not stored, so the next fetch does not warn of it as late; a sample that is new and merely late (a
/// message that missed its fetch) is stored, and left out by the next fetch with its warning.
@Suite(.timeLimit(.minutes(1))) struct ReceivedStreamResendTests {
    let receiver = ReceiverTests()

    /// Second `second` of a Sensor Logger recording: 50 total-acceleration readings.
    static func message(_ second: Int, session: String = "session-1") -> Data {
        let base = Timestamps.nanoseconds(ReceiverTests.t0) + Int64(second) * 1_000_000_000
        let readings = (0..<50).map { i in
            #"{"name":"totalacceleration","time":\#(base + Int64(i) * 20_000_000),"values":{"x":0.1,"y":9.8,"z":\#(Double(i % 5) / 10)},"accuracy":3}"#
        }
        return Data(
            #"{"messageId":\#(second),"sessionId":"\#(session)","deviceId":"pixel","payload":[\#(readings.joined(separator: ","))]}"#
                .utf8)
    }

    func samplesWaiting(_ store: StateStore) throws -> Int {
        try store.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM received_sample") ?? -1 }
    }

    @Test func aResendAfterTheFetchIsADuplicateAndALateMessageIsStillWarnedOf() async throws {
        let dir = try TempDir()
        let t0 = ReceiverTests.t0
        let r = try await receiver.start(
            dir: dir, clock: WallClock(ImmediateClock(), startingAt: t0.addingTimeInterval(11)))
        let token = receiver.token
        for second in 0..<10 where second != 4 {
            let answer = try await receiver.post(r.port, Self.message(second), token: token)
            #expect(answer.status == 200 && answer.answer["samples"] as? Int == 50, "\(answer.answer)")
        }
        let first = await r.fetcher.fetch(now: Instant(t0.addingTimeInterval(60)), trigger: [.manual])
        #expect(first.warnings.isEmpty, "\(first.line)")
        #expect(try samplesWaiting(r.store) == 0)

        let resend = try await receiver.post(r.port, Self.message(2), token: token)
        #expect(resend.status == 200, "\(resend.answer)")
        #expect(resend.answer["samples"] as? Int == 0 && resend.answer["duplicates"] as? Int == 50, "\(resend.answer)")
        #expect(try samplesWaiting(r.store) == 0)
        let second = await r.fetcher.fetch(now: Instant(t0.addingTimeInterval(120)), trigger: [.manual])
        #expect(!second.warnings.contains { $0.contains("reorder allowance") }, "\(second.line)")

        let late = try await receiver.post(r.port, Self.message(4), token: token)
        #expect(late.answer["samples"] as? Int == 50, "new, though late: \(late.answer)")
        let third = await r.fetcher.fetch(now: Instant(t0.addingTimeInterval(180)), trigger: [.manual])
        #expect(
            third.warnings.contains { $0.hasPrefix("50 samples of") && $0.contains("reorder allowance") },
            "\(third.line)")
        await r.stop()
    }

    func spans(_ store: StateStore) throws -> [String: Int] {
        try store.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT stream, COUNT(*) AS n FROM received_counted GROUP BY stream")
                .reduce(into: [:]) { $0[$1["stream"] as String] = $1["n"] as Int }
        }
    }

    @Test func theSpansOfAStreamQuietForAWeekAreForgottenAndRecentOnesKept() async throws {
        let dir = try TempDir()
        let t0 = ReceiverTests.t0
        let clock = TestClock()
        let r = try await receiver.start(dir: dir, clock: WallClock(clock, startingAt: t0.addingTimeInterval(11)))
        let token = receiver.token
        for second in [0, 1, 3] { _ = try await receiver.post(r.port, Self.message(second), token: token) }
        _ = await r.fetcher.fetch(now: Instant(t0.addingTimeInterval(60)), trigger: [.manual])
        #expect(try spans(r.store) == ["pixel/session-1": 2])

        // Eight days later a new session: the first one was last heard more than a week before this fetch.
        await clock.advance(by: .seconds(8 * 86_400))
        let later = 8 * 86_400
        for second in [0, 1, 3] {
            _ = try await receiver.post(r.port, Self.message(later + second, session: "session-2"), token: token)
        }
        let fetched = await r.fetcher.fetch(now: Instant(t0.addingTimeInterval(Double(later + 60))), trigger: [.manual])
        #expect(fetched.warnings.isEmpty, "\(fetched.line)")
        #expect(try spans(r.store) == ["pixel/session-2": 2])
        let steps = try r.store.steps(in: .sinceEpoch)

        // A resend inside a kept span is still a duplicate.
        let resend = try await receiver.post(r.port, Self.message(later + 1, session: "session-2"), token: token)
        #expect(resend.answer["samples"] as? Int == 0 && resend.answer["duplicates"] as? Int == 50, "\(resend.answer)")
        // One of the forgotten stream is stored as new, and the next fetch leaves it out as late: never counted twice.
        let old = try await receiver.post(r.port, Self.message(1), token: token)
        #expect(old.answer["samples"] as? Int == 50, "\(old.answer)")
        let next = await r.fetcher.fetch(now: Instant(t0.addingTimeInterval(Double(later + 120))), trigger: [.manual])
        #expect(
            next.warnings.contains {
                $0.hasPrefix("50 samples of pixel/session-1") && $0.contains("reorder allowance")
            },
            "\(next.line)")
        #expect(try r.store.steps(in: .sinceEpoch) == steps)
        #expect(try samplesWaiting(r.store) == 0)
        await r.stop()
    }

    @Test func pruningIsBoundedPerCallAndLeavesStreamsHeardWithinAWeek() async throws {
        let dir = try TempDir()
        let store = try StateStore(path: dir.path("state.sqlite"))
        let nowNs: Int64 = 1_800_000_000 * 1_000_000_000
        let old = nowNs - ReceivedCounted.keepNs - 1
        let recent = nowNs - ReceivedCounted.keepNs + 1
        try await store.writer.write { db in
            for (stream, heard) in [("p/old", old), ("p/recent", recent)] {
                try db.execute(
                    sql: "INSERT INTO received_stream (stream, device, last_heard_ns, newest_ns) VALUES (?, 'p', ?, ?)",
                    arguments: [stream, heard, heard])
                for i in Int64(0)..<5 {
                    try db.execute(
                        sql: "INSERT INTO received_counted (stream, start_ns, end_ns) VALUES (?, ?, ?)",
                        arguments: [stream, i * 10_000_000_000, i * 10_000_000_000 + 1])
                }
            }
        }
        let removed = try await store.writer.write { db in
            [
                try ReceivedCounted.prune(nowNs: nowNs, limit: 3, db),
                try ReceivedCounted.prune(nowNs: nowNs, limit: 3, db),
                try ReceivedCounted.prune(nowNs: nowNs, limit: 3, db),
            ]
        }
        #expect(removed == [3, 2, 0])
        #expect(try spans(store) == ["p/recent": 5])
        try store.pruneCountedSpans(now: Instant(nanosecondsSinceEpoch: nowNs))
        #expect(try spans(store) == ["p/recent": 5])
    }
}
