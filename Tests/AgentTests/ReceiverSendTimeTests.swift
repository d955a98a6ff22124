import Foundation
import GRDB
import TestSupport
import Testing

@testable import Agent
@testable import Store

/// Health Connect retries failed sends, so an older send may arrive after a newer one: where the payload says when it
/// was sent (its top-level `timestamp`), the older value does not replace the newer; where it does not, the last
/// received replaces (README).
@Suite(.timeLimit(.minutes(1))) struct ReceiverSendTimeTests {
    let receiver = ReceiverTests()

    /// Today's record as sent at `sent` (nil: no `timestamp`) with `count` steps.
    static func today(count: Int, sent: String?) -> Data {
        Data(
            (#"{"app_version": "1.4.0", "#
                + (sent.map { #""timestamp": "\#($0)", "# } ?? "")
                + #""steps": [{"count": \#(count), "start_time": "2026-11-20T15:00:00Z", "end_time": "2026-11-21T03:14:00Z"}]}"#)
                .utf8)
    }

    func steps(_ store: StateStore) throws -> Int64? {
        try store.writer.read { db in try Int64.fetchOne(db, sql: "SELECT SUM(microsteps) FROM received_reading") }
    }

    @Test func anOlderSendArrivingLateDoesNotReplaceANewerOne() async throws {
        let dir = try TempDir()
        let r = try await receiver.start(dir: dir)
        let token = receiver.token
        let newer = try await receiver.post(r.port, Self.today(count: 5230, sent: "2026-11-21T03:15:00Z"), token: token)
        #expect(newer.status == 200 && newer.answer["readings"] as? Int == 1, "\(newer.answer)")
        let retried = try await receiver.post(
            r.port, Self.today(count: 4100, sent: "2026-11-21T03:00:00Z"), token: token)
        #expect(retried.status == 200 && retried.answer["duplicates"] as? Int == 1, "\(retried.answer)")
        #expect(try steps(r.store) == 5_230_000_000)
        // The same count sent again later is kept as sent then: a send between the two does not replace it either.
        _ = try await receiver.post(r.port, Self.today(count: 5230, sent: "2026-11-21T03:45:00Z"), token: token)
        _ = try await receiver.post(r.port, Self.today(count: 5100, sent: "2026-11-21T03:30:00Z"), token: token)
        #expect(try steps(r.store) == 5_230_000_000)
        // A newer send replaces.
        let grown = try await receiver.post(r.port, Self.today(count: 6000, sent: "2026-11-21T04:00:00Z"), token: token)
        #expect(grown.answer["readings"] as? Int == 1)
        #expect(try steps(r.store) == 6_000_000_000)
        await r.stop()
    }

    /// Without a `timestamp`, or with one that is not a time (noted in `ignored`), the last received replaces.
    @Test func withoutASendTimeTheLastReceivedReplaces() async throws {
        let dir = try TempDir()
        let r = try await receiver.start(dir: dir)
        let token = receiver.token
        _ = try await receiver.post(r.port, Self.today(count: 5230, sent: nil), token: token)
        _ = try await receiver.post(r.port, Self.today(count: 4100, sent: nil), token: token)
        #expect(try steps(r.store) == 4_100_000_000)
        let odd = try await receiver.post(r.port, Self.today(count: 3000, sent: "lunchtime"), token: token)
        #expect(odd.status == 200 && odd.answer["readings"] as? Int == 1, "\(odd.answer)")
        let ignored = try #require(odd.answer["ignored"] as? [String])
        #expect(ignored.contains { $0.hasPrefix("timestamp: ") && $0.contains("lunchtime") }, "\(ignored)")
        #expect(try steps(r.store) == 3_000_000_000)
        await r.stop()
    }
}
