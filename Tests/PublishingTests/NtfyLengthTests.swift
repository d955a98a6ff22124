import FlyingFox
import Foundation
import Messages
import Testing

@testable import Publishing

/// ntfy's own rule for a message (`util.Peek` reports `LimitReached: read == limit`; `handlePublishBody` takes the text
/// path only when the limit was not reached): a message of exactly `limit-message-bytes` (4096 by default) is an
/// attachment, refused `40014 attachments not allowed` on a server without an attachment store (the default) and
/// turned into a file on one that has one. A JSON publish is read with twice that limit.
@Suite struct NtfyLengthTests {
    /// A fake ntfy that applies that rule to a JSON publish.
    static func fakeNtfy() async throws -> FakeHTTPServer {
        try await FakeHTTPServer.start { request, _ in
            guard request.body.count <= 8192, let message = request.json?["message"] as? String else {
                return jsonResponse(400, ["code": 40024, "http": 400, "error": "invalid request: body too large"])
            }
            if message.utf8.count >= 4096 {
                return jsonResponse(
                    400, ["code": 40014, "http": 400, "error": "invalid request: attachments not allowed"])
            }
            return jsonResponse(200, ["id": "n1", "event": "message", "topic": "steps"])
        }
    }

    @Test func aShortenedTextIsAMessageNotAnAttachment() async throws {
        let server = try await Self.fakeNtfy()
        defer { Task { await server.stop() } }
        let publisher = NtfyPublisher(baseURL: server.baseURL, topic: "steps", shorten: true, context: server.context)
        var post = samplePost
        post.text = String(repeating: "walked ", count: 1000)
        #expect(await publisher.publish(post, deadline: soon()) == .delivered(remoteID: "n1"))
        let sent = try #require(await server.requests.first?.json?["message"] as? String)
        #expect(sent.utf8.count < 4096 && sent.hasSuffix("…"))
    }

    @Test func aTextOfExactlyTheLimitIsRefusedBeforeAnyRequest() async throws {
        let server = try await Self.fakeNtfy()
        defer { Task { await server.stop() } }
        let publisher = NtfyPublisher(baseURL: server.baseURL, topic: "steps", context: server.context)
        var post = samplePost
        post.text = String(repeating: "歩", count: 1365) + "a"  // 4096 bytes
        #expect(publisher.refusal(of: post.text)?.contains("4096 > 4095") == true)
        guard case .permanent = await publisher.publish(post, deadline: soon()) else {
            Issue.record("a 4096-byte text was not refused")
            return
        }
        #expect(await server.requests.isEmpty)
        post.text = String(repeating: "歩", count: 1365)  // 4095 bytes
        #expect(await publisher.publish(post, deadline: soon()) == .delivered(remoteID: "n1"))
    }

    /// 4,000 quotes are 4,000 bytes of text but 8,000 of JSON: over ntfy's document limit with the topic around them.
    @Test func aDocumentOverTwiceTheLimitIsCutOrRefusedClearly() async throws {
        let server = try await Self.fakeNtfy()
        defer { Task { await server.stop() } }
        var post = samplePost
        post.text = String(repeating: "\"", count: 4090)
        let strict = NtfyPublisher(baseURL: server.baseURL, topic: "steps", context: server.context)
        guard case .permanent(let reason) = await strict.publish(post, deadline: soon()) else {
            Issue.record("a document over 8192 bytes was sent")
            return
        }
        #expect(reason.contains("> 8192") && reason.contains("shorten"))
        #expect(await server.requests.isEmpty)
        let cutting = NtfyPublisher(baseURL: server.baseURL, topic: "steps", shorten: true, context: server.context)
        #expect(await cutting.publish(post, deadline: soon()) == .delivered(remoteID: "n1"))
        let sent = try #require(await server.requests.first)
        #expect(sent.body.count <= 8192 && (sent.json?["message"] as? String)?.hasSuffix("…") == true)
    }
}
