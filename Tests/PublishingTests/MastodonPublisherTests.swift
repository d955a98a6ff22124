import Clocks
import FlyingFox
import Foundation
import Messages
import Testing
import WallTime

@testable import Publishing

@Suite struct MastodonPublisherTests {
    let fixedNow = Date(timeIntervalSince1970: 1_795_316_400)  // 2026-11-22T03:00:00Z

    @Test func postsJSONWithBearerTokenAndIdempotencyKey() async throws {
        let server = try await FakeHTTPServer.start { _, _ in jsonResponse(200, ["id": "109", "content": "<p>…</p>"]) }
        defer { Task { await server.stop() } }
        let publisher = MastodonPublisher(
            baseURL: server.baseURL, token: "tok-secret-1", visibility: "unlisted", language: "ja", maxCharacters: 500,
            context: server.context)
        let outcome = await publisher.publish(samplePost, deadline: soon())
        #expect(outcome == .delivered(remoteID: "109"))
        let seen = try #require(await server.requests.first)
        #expect(seen.method == "POST")
        #expect(seen.path == "/api/v1/statuses")
        #expect(seen.headers["authorization"] == "Bearer tok-secret-1")
        #expect(seen.headers["idempotency-key"] == "steps-20251121T010000Z-20251121T013000Z")
        #expect(seen.headers["content-type"]?.hasPrefix("application/json") == true)
        #expect(seen.json?["status"] as? String == samplePost.text)
        #expect(seen.json?["visibility"] as? String == "unlisted")
        #expect(seen.json?["language"] as? String == "ja")
    }

    @Test func a5xxThenSuccessReusesTheSameKey() async throws {
        let server = try await FakeHTTPServer.start { _, n in
            n == 1 ? jsonResponse(503, ["error": "Service Unavailable"]) : jsonResponse(200, ["id": "7"])
        }
        defer { Task { await server.stop() } }
        let publisher = MastodonPublisher(
            baseURL: server.baseURL, token: "tok", maxCharacters: 500, context: server.context)
        let first = await publisher.publish(samplePost, deadline: soon())
        guard case .retryable(let reason, nil, _) = first else {
            Issue.record("expected retryable, got \(first)")
            return
        }
        #expect(reason == "HTTP 503: Service Unavailable")
        #expect(await publisher.publish(samplePost, deadline: soon()) == .delivered(remoteID: "7"))
        let keys = await server.requests.map { $0.headers["idempotency-key"] }
        #expect(keys.count == 2)
        #expect(keys[0] == keys[1] && keys[0] == samplePost.idempotencyKey)
    }

    @Test func rateLimitResetIsAnISO8601Time() async throws {
        let server = try await FakeHTTPServer.start { _, _ in
            jsonResponse(
                429, ["error": "Too many requests"],
                headers: ["X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "2026-11-22T03:05:00.000000Z"])
        }
        defer { Task { await server.stop() } }
        let now = fixedNow
        let publisher = MastodonPublisher(
            baseURL: server.baseURL, token: "tok", maxCharacters: 500,
            context: server.context(clock: WallClock(ImmediateClock(), startingAt: now)))
        #expect(
            await publisher.publish(samplePost, deadline: soon())
                == .retryable(reason: "HTTP 429: Too many requests", retryAfter: 300))
    }

    @Test func unauthorizedIsPermanentWithTheServersMessageAndNoToken() async throws {
        let server = try await FakeHTTPServer.start { _, _ in
            jsonResponse(401, ["error": "The access token is invalid (got Bearer tok-very-secret)"])
        }
        defer { Task { await server.stop() } }
        let outcome = await MastodonPublisher(
            baseURL: server.baseURL, token: "tok-very-secret", maxCharacters: 500, context: server.context
        ).publish(samplePost, deadline: soon())
        guard case .permanent(let reason) = outcome else {
            Issue.record("expected permanent, got \(outcome)")
            return
        }
        #expect(reason.hasPrefix("HTTP 401: The access token is invalid"))
        #expect(!reason.contains("tok-very-secret"))
    }

    @Test func overLongTextFailsBeforeAnyRequestUnlessShortening() async throws {
        let server = try await FakeHTTPServer.start { request, _ in jsonResponse(200, ["id": "1"]) }
        defer { Task { await server.stop() } }
        var post = samplePost
        post.text = String(repeating: "歩", count: 600)
        let strict = MastodonPublisher(
            baseURL: server.baseURL, token: "tok", maxCharacters: 500, context: server.context)
        guard case .permanent(let reason) = await strict.publish(post, deadline: soon()) else {
            Issue.record("not permanent")
            return
        }
        #expect(reason.contains("600 > 500"))
        #expect(await server.requests.isEmpty)

        let shortening = MastodonPublisher(
            baseURL: server.baseURL, token: "tok", shorten: true, maxCharacters: 500, context: server.context)
        #expect(await shortening.publish(post, deadline: soon()) == .delivered(remoteID: "1"))
        let sent = try #require(await server.requests.first?.json?["status"] as? String)
        #expect(sent == String(repeating: "歩", count: 499) + "…")
    }

    @Test func descriptionHidesTheToken() {
        let publisher = MastodonPublisher(baseURL: URL(string: "https://mastodon.example/")!, token: "tok-abc-123")
        #expect(!publisher.redactedDescription.contains("tok-abc-123"))
        #expect(publisher.redactedDescription.contains("https://mastodon.example"))
    }

    @Test func anInstanceWithAHigherLimitTakesLongerTexts() async throws {
        let server = try await FakeHTTPServer.start { _, _ in jsonResponse(200, ["id": "9"]) }
        defer { Task { await server.stop() } }
        var post = samplePost
        post.text = String(repeating: "歩", count: 700)
        let standard = MastodonPublisher(
            baseURL: server.baseURL, token: "t", maxCharacters: 500, context: server.context)
        #expect(
            await standard.publish(post, deadline: soon())
                == .permanent(
                    reason: "text too long for Mastodon (500 characters): 700 > 500 (set shorten = true to cut it)"))
        let set = try PublisherFactory.make(
            toml: """
                [[publish]]
                kind = "mastodon"
                base_url = "\(server.baseURL.absoluteString)"
                token_env = "T"
                max_characters = 1000
                """, environment: ["T": "t"], context: server.context)
        let roomy = try #require(set.publishers.first)
        #expect(roomy.lengthRule == .mastodonInstance(1000))
        #expect(await roomy.publish(post, deadline: soon()) == .delivered(remoteID: "9"))
        // the refused text was never sent
        #expect(await server.requests.filter { $0.path == "/api/v1/statuses" }.count == 1)
    }
}
