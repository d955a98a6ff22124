import FlyingFox
import Foundation
import Messages
import Testing

@testable import Publishing

@Suite struct WebhookTargetsTests {
    @Test func discordWaitsForTheMessageAndSuppressesMentions() async throws {
        let server = try await FakeHTTPServer.start { _, _ in jsonResponse(200, ["id": "112233", "content": "x"]) }
        defer { Task { await server.stop() } }
        let url = server.url("/api/webhooks/123456/tok_SECRET-abc")
        let publisher = DiscordPublisher(url: url, context: server.context)
        #expect(await publisher.publish(samplePost, deadline: soon()) == .delivered(remoteID: "112233"))
        let seen = try #require(await server.requests.first)
        #expect(seen.path == "/api/webhooks/123456/tok_SECRET-abc")
        #expect(seen.query["wait"] == "true")
        #expect(seen.json?["content"] as? String == samplePost.text)
        #expect((seen.json?["allowed_mentions"] as? [String: Any])?["parse"] as? [String] == [])
        #expect(!publisher.redactedDescription.contains("tok_SECRET"))
    }

    /// Discord's API counts `content` in code points (Python's `len`; discord-api-docs#1315), not graphemes: 2000
    /// hearts written with U+FE0F are 4000 code points, refused before any request.
    @Test func discordCountsCodePoints() async throws {
        let server = try await FakeHTTPServer.start { _, _ in jsonResponse(200, ["id": "1"]) }
        defer { Task { await server.stop() } }
        let publisher = DiscordPublisher(url: server.url("/api/webhooks/1/tok"), context: server.context)
        var post = samplePost
        post.text = String(repeating: "\u{2764}\u{FE0F}", count: 2000)
        #expect(publisher.refusal(of: post.text)?.contains("4000 > 2000") == true)
        guard case .permanent = await publisher.publish(post, deadline: soon()) else {
            Issue.record("4000 code points were not refused")
            return
        }
        #expect(await server.requests.isEmpty)
        post.text = String(repeating: "\u{2764}\u{FE0F}", count: 1000)
        #expect(await publisher.publish(post, deadline: soon()) == .delivered(remoteID: "1"))
    }

    @Test func discordRetryAfterFromTheBodyAndErrorsWithoutTheWebhookToken() async throws {
        let server = try await FakeHTTPServer.start { _, n in
            n == 1
                ? jsonResponse(429, ["message": "You are being rate limited.", "retry_after": 1.5, "global": false])
                : jsonResponse(
                    404, ["message": "Unknown Webhook for /api/webhooks/123456/tok_SECRET-abc", "code": 10015])
        }
        defer { Task { await server.stop() } }
        let publisher = DiscordPublisher(
            url: server.url("/api/webhooks/123456/tok_SECRET-abc"), context: server.context)
        #expect(
            await publisher.publish(samplePost, deadline: soon())
                == .retryable(reason: "HTTP 429: You are being rate limited.", retryAfter: 1.5))
        let gone = await publisher.publish(samplePost, deadline: soon())
        guard case .permanent(let reason) = gone else {
            Issue.record("expected permanent, got \(gone)")
            return
        }
        #expect(reason.hasPrefix("HTTP 404: Unknown Webhook"))
        #expect(!reason.contains("tok_SECRET"))
    }

    @Test func slackOkAndPlainTextErrors() async throws {
        let server = try await FakeHTTPServer.start { request, _ in
            request.json?["text"] as? String == "" ? textResponse(400, "no_text") : textResponse(200, "ok")
        }
        defer { Task { await server.stop() } }
        let publisher = SlackPublisher(url: server.url("/services/T000/B000/XXXXSECRET"), context: server.context)
        #expect(await publisher.publish(samplePost, deadline: soon()) == .delivered(remoteID: nil))
        #expect(await server.requests.first?.json?["text"] as? String == samplePost.text)
        let server2 = try await FakeHTTPServer.start { _, _ in textResponse(403, "invalid_token") }
        defer { Task { await server2.stop() } }
        #expect(
            await SlackPublisher(url: server2.url("/services/T/B/X"), context: server2.context).publish(
                samplePost, deadline: soon())
                == .permanent(reason: "HTTP 403: invalid_token"))
    }

    @Test func ntfyPublishesJSONToTheRootWithBearerToken() async throws {
        let server = try await FakeHTTPServer.start { _, _ in
            jsonResponse(200, ["id": "sPs71M8A2T", "event": "message", "topic": "steps"])
        }
        defer { Task { await server.stop() } }
        let publisher = NtfyPublisher(
            baseURL: server.baseURL, topic: "steps", token: "tk_secret", title: "Steps",
            priority: 3, tags: ["walking"], context: server.context)
        #expect(await publisher.publish(samplePost, deadline: soon()) == .delivered(remoteID: "sPs71M8A2T"))
        let seen = try #require(await server.requests.first)
        #expect(seen.path == "/")
        #expect(seen.query.isEmpty)  // never ?auth=
        #expect(seen.headers["authorization"] == "Bearer tk_secret")
        #expect(seen.json?["topic"] as? String == "steps")
        #expect(seen.json?["message"] as? String == samplePost.text)
        #expect(seen.json?["title"] as? String == "Steps")
        #expect(seen.json?["priority"] as? Int == 3)
        #expect(seen.json?["tags"] as? [String] == ["walking"])
        #expect(!publisher.redactedDescription.contains("tk_secret"))
    }

    @Test func webhookRendersTheBodyTemplateWithHeadersAndKey() async throws {
        let server = try await FakeHTTPServer.start { _, _ in jsonResponse(201, ["id": 42]) }
        defer { Task { await server.stop() } }
        let template = try WebhookBodyTemplate(
            #"{"message": {{text}}, "meta": {"key": {{idempotency_key}}, "from": {{window_start}}, "to": {{window_end}}}}"#
        )
        let publisher = WebhookPublisher(
            url: server.url("/hook/SECRETPATH"), bodyTemplate: template,
            headers: ["X-Api-Key": "k-secret", "X-Source": "steptweet"], context: server.context)
        #expect(await publisher.publish(samplePost, deadline: soon()) == .delivered(remoteID: "42"))
        let seen = try #require(await server.requests.first)
        #expect(seen.headers["idempotency-key"] == samplePost.idempotencyKey)
        #expect(seen.headers["x-api-key"] == "k-secret")
        #expect(seen.headers["x-source"] == "steptweet")
        #expect(seen.json?["message"] as? String == samplePost.text)
        let meta = try #require(seen.json?["meta"] as? [String: Any])
        #expect(meta["key"] as? String == samplePost.idempotencyKey)
        #expect(meta["from"] as? String == "2025-11-21T01:00:00Z")
        #expect(meta["to"] as? String == "2025-11-21T01:30:00Z")
        #expect(!publisher.redactedDescription.contains("SECRETPATH"))
    }

    @Test func webhookTemplateErrorsAreFoundWhenItIsMade() {
        #expect(throws: ConfigurationError.self) { try WebhookBodyTemplate(#"{"t": {{txt}}}"#) }
        #expect(throws: ConfigurationError.self) { try WebhookBodyTemplate(#"{"t": {{text}}"#) }
        #expect(throws: ConfigurationError.self) { try WebhookBodyTemplate(#"{"t": {{text"#) }
        #expect(throws: Never.self) { try WebhookBodyTemplate() }
    }
}
