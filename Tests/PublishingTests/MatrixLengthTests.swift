import FlyingFox
import Foundation
import Messages
import Testing

@testable import Publishing

/// A homeserver's own rule for an event (Synapse `check_size_limits`: the event's JSON, with the envelope it adds,
/// at most 65,536 bytes, else `413 M_TOO_LARGE`): a text under the 60,000-byte text limit whose escaping passes it
/// was refused for good after one attempt, `shorten` or not.
@Suite struct MatrixLengthTests {
    /// A fake homeserver that applies that rule to what it is sent, with 600 bytes for the envelope (a small room's).
    static func fakeHomeserver() async throws -> FakeHTTPServer {
        try await FakeHTTPServer.start { request, _ in
            guard request.body.count + 600 <= 65_536 else {
                return jsonResponse(413, ["errcode": "M_TOO_LARGE", "error": "event too large"])
            }
            return jsonResponse(200, ["event_id": "$e1"])
        }
    }

    /// 29,990 lines of `a`: 59,980 bytes of text, about 90,000 of JSON.
    static let escapedOver = String(repeating: "a\n", count: 29_990)

    @Test func anEventWhoseEscapingPassesTheLimitIsRefusedBeforeAnyRequest() async throws {
        let server = try await Self.fakeHomeserver()
        defer { Task { await server.stop() } }
        let publisher = MatrixPublisher(baseURL: server.baseURL, token: "t", roomID: "!r:hs", context: server.context)
        var post = samplePost
        post.text = Self.escapedOver
        #expect(publisher.refusal(of: post.text)?.contains("> 60000") == true)
        guard case .permanent(let reason) = await publisher.publish(post, deadline: soon()) else {
            Issue.record("an event over the limit was not refused")
            return
        }
        #expect(reason.contains("> 60000") && reason.contains("shorten"))
        #expect(await server.requests.isEmpty)
    }

    @Test func withShortenItIsCutUntilTheEventFits() async throws {
        let server = try await Self.fakeHomeserver()
        defer { Task { await server.stop() } }
        let publisher = MatrixPublisher(
            baseURL: server.baseURL, token: "t", roomID: "!r:hs", shorten: true, context: server.context)
        var post = samplePost
        post.text = Self.escapedOver
        #expect(publisher.refusal(of: post.text) == nil)
        #expect(await publisher.publish(post, deadline: soon()) == .delivered(remoteID: "$e1"))
        let sent = try #require(await server.requests.first)
        let body = try #require(sent.json?["body"] as? String)
        #expect(sent.body.count <= MatrixPublisher.contentLimit && body.hasSuffix("…"))
        // Cut no more than it must: another line would not fit.
        #expect(sent.body.count + 4 > MatrixPublisher.contentLimit)
        // A text whose escaping fits is sent whole.
        post.text = String(repeating: "a\n", count: 19_000)
        #expect(await publisher.publish(post, deadline: soon()) == .delivered(remoteID: "$e1"))
        #expect(await server.requests.last?.json?["body"] as? String == post.text)
    }
}
