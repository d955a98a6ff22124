import Clocks
import Foundation
import GRDB
import Messages
import TestSupport
import Testing
import WallTime

@testable import Agent

/// A sample stream's samples are removed once a fetch has fed them: a resend of them afterwards is a duplicate in the
/// answer and is not stored, so the next fetch does not warn of it as late; a sample that is new and merely late (a
/// message that missed its fetch) is stored, and left out by the next fetch with its warning.
@Suite(.timeLimit(.minutes(1))) struct ReceivedStreamResendTests {
    let receiver = ReceiverTests()

    /// Second `second` of a Sensor Logger recording: 50 total-acceleration readings.
    static func message(_ second: Int) -> Data {
        let base = Timestamps.nanoseconds(ReceiverTests.t0) + Int64(second) * 1_000_000_000
        let readings = (0..<50).map { i in
            #"{"name":"totalacceleration","time":\#(base + Int64(i) * 20_000_000),"values":{"x":0.1,"y":9.8,"z":\#(Double(i % 5) / 10)},"accuracy":3}"#
        }
        return Data(
            #"{"messageId":\#(second),"sessionId":"session-1","deviceId":"pixel","payload":[\#(readings.joined(separator: ","))]}"#
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
        let first = await r.fetcher.fetch(now: t0.addingTimeInterval(60), trigger: [.manual])
        #expect(first.warnings.isEmpty, "\(first.line)")
        #expect(try samplesWaiting(r.store) == 0)

        let resend = try await receiver.post(r.port, Self.message(2), token: token)
        #expect(resend.status == 200, "\(resend.answer)")
        #expect(resend.answer["samples"] as? Int == 0 && resend.answer["duplicates"] as? Int == 50, "\(resend.answer)")
        #expect(try samplesWaiting(r.store) == 0)
        let second = await r.fetcher.fetch(now: t0.addingTimeInterval(120), trigger: [.manual])
        #expect(!second.warnings.contains { $0.contains("reorder allowance") }, "\(second.line)")

        let late = try await receiver.post(r.port, Self.message(4), token: token)
        #expect(late.answer["samples"] as? Int == 50, "new, though late: \(late.answer)")
        let third = await r.fetcher.fetch(now: t0.addingTimeInterval(180), trigger: [.manual])
        #expect(
            third.warnings.contains { $0.hasPrefix("50 samples of") && $0.contains("reorder allowance") },
            "\(third.line)")
        await r.stop()
    }
}
