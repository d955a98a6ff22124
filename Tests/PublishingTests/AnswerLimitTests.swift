import FlyingFox
import Foundation
import HTTPTestSupport
import Testing
import WallTime

@testable import Publishing

/// A target's server that answers with an endless or enormous body (hostile, or a proxy streaming a file): the answer
/// is read up to 16 MiB and the rest is never held; the post is unconfirmed (the server may have made it), so the
/// next attempt looks it up or resends with the same key. Before, URLSession gathered it all: 2.7 GB resident in a
/// 10 s deadline over loopback.
@Suite struct AnswerLimitTests {
    func post() -> Post {
        Post(
            text: "11/21 10:00:00 〜 11/21 10:30:00 の期間に 1234 歩",
            window: TimeWindow(
                start: Instant(secondsSinceEpoch: 1_795_314_000), end: Instant(secondsSinceEpoch: 1_795_315_800)))
    }

    @Test func anAnswerOverTheLimitIsCutOffAndThePostUnconfirmed() async throws {
        let big = Data(repeating: 0x20, count: (16 << 20) + 1)
        let server = try await LoopbackServer.start { _, _ in
            HTTPResponse(statusCode: .ok, headers: [.contentType: "application/json"], body: big)
        }
        defer { Task { await server.stop() } }
        let outcome = await WebhookPublisher(
            url: server.url("/hook"), bodyTemplate: try WebhookBodyTemplate(), context: HTTPContext()
        ).publish(post(), deadline: soon(60))
        #expect(
            outcome
                == .retryable(
                    reason: "network error: the answer is longer than 16777216 bytes: not read", retryAfter: nil,
                    unconfirmed: true))
    }

    @Test func anAnswerUnderTheLimitIsReadWhole() async throws {
        let padding = String(repeating: " ", count: 1 << 20)
        let server = try await LoopbackServer.start { _, _ in
            HTTPResponse(
                statusCode: .ok, headers: [.contentType: "application/json"],
                body: Data((#"{"id": "m1", "event": "message"}"# + padding).utf8))
        }
        defer { Task { await server.stop() } }
        let ntfy = NtfyPublisher(baseURL: server.baseURL, topic: "steps", context: HTTPContext())
        #expect(await ntfy.publish(post(), deadline: soon(60)) == .delivered(remoteID: "m1"))
    }
}
