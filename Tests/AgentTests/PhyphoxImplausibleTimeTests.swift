import Foundation
import HTTPTestSupport
import Messages
import Testing
import WallTime

@testable import Agent
@testable import Store

/// A phone (or anything at `source.url`) answering times that do not fit nanoseconds: before, the fetch crashed
/// (a Double too large for Int64) on a `/time` wall time past year 2262 or a buffer time of centuries, and so did
/// every later fetch of the agent. Now the first is a malformed answer named in a warning (NoData, the phone's buffers
/// kept), and a sample at such a time is left out.
@Suite(.timeLimit(.minutes(1))) struct PhyphoxImplausibleTimeTests {
    static let t0 = Timestamps.parse("2026-11-21T10:00:00+09:00")!

    /// A phone serving `times` (acc_time) with a constant 9.8 m/s² on z, and `events` as `/time`.
    static func phone(times: [String], events: String) async throws -> LoopbackServer {
        let axis = { (v: String) in "[" + Array(repeating: v, count: times.count).joined(separator: ",") + "]" }
        let get = """
            {"buffer": {"accX": {"size": 0, "updateMode": "full", "buffer": \(axis("0"))},
            "accY": {"size": 0, "updateMode": "full", "buffer": \(axis("0"))},
            "accZ": {"size": 0, "updateMode": "full", "buffer": \(axis("9.8"))},
            "acc_time": {"size": 0, "updateMode": "full", "buffer": [\(times.joined(separator: ","))]}},
            "status": {"session": "s", "measuring": true}}
            """
        return try await LoopbackServer.start { request, _ in
            request.path == "/time" ? textResponse(200, events) : textResponse(200, get)
        }
    }

    @Test(arguments: ["1e15", "9e10", "1e300", "-5"])
    func aWallTimeThatCannotBeATimeIsAMalformedAnswer(systemTime: String) async throws {
        let phone = try await Self.phone(
            times: ["0.01", "0.02"], events: #"[{"event": "START", "experimentTime": 0, "systemTime": \#(systemTime)}]"#
        )
        let dir = try TempDir()
        let (fetcher, store) = try PhyphoxPullTests.fetcher(dir, url: phone.baseURL)
        let report = await fetcher.fetch(now: Instant(Self.t0.addingTimeInterval(60)), trigger: [.manual])
        #expect(report.result == .noData, "\(report.line)")
        #expect(
            report.warnings.contains { $0.contains("/time") && $0.contains("[0]: systemTime") },
            "\(report.warnings)")
        #expect(try store.steps(in: .sinceEpoch) == 0)
        await phone.stop()
    }

    @Test func aBufferTimeOfCenturiesIsLeftOut() async throws {
        let start = Self.t0.timeIntervalSince1970
        let phone = try await Self.phone(
            times: ["0.01", "1e300", "0.03"],
            events: #"[{"event": "START", "experimentTime": 0, "systemTime": \#(start)}]"#)
        let dir = try TempDir()
        let (fetcher, store) = try PhyphoxPullTests.fetcher(dir, url: phone.baseURL)
        let report = await fetcher.fetch(now: Instant(Self.t0.addingTimeInterval(60)), trigger: [.manual])
        #expect(report.result != .failed, "\(report.line)")
        // The next pull asks for what follows the last time placed, not for what follows 1e300.
        let saved = try await store.savedSource(phone.baseURL.absoluteString)
        #expect(saved.remotePosition?.lastBufferTime == 0.03)
        let events = [PhyphoxTimeEvent(event: "START", experimentTime: 0, systemTime: start)]
        #expect(PhyphoxTimeEvent.wallNs(1e300, events) == nil)
        #expect(PhyphoxTimeEvent.wallNs(-1e300, events) == nil)
        #expect(PhyphoxTimeEvent.wallNs(0.5, events) == Int64(start * 1e9) + 500_000_000)
        await phone.stop()
    }
}
