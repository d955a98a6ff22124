import Clocks
import FlyingFox
import Foundation
import Testing

@testable import Publishing

/// One HTTP target as the shared scenarios see it: how to make it against a server, which request is "the post",
/// what success looks like, and where its idempotency key travels (nil for targets without one).
struct TargetCase: Sendable, CustomTestStringConvertible {
    let kind: String
    let make: @Sendable (FakeHTTPServer) -> any Publisher
    let isPost: @Sendable (SeenRequest) -> Bool
    let success: @Sendable () -> HTTPResponse
    let expectedID: String?
    let key: @Sendable (SeenRequest) -> String?
    let auth: @Sendable (SeenRequest) -> Bool

    var testDescription: String { kind }

    /// Answers the requests that are not the post itself (Bluesky's login and getRecord).
    static func auxiliary(_ request: SeenRequest) -> HTTPResponse? {
        switch request.path {
        case "/xrpc/com.atproto.server.createSession":
            return jsonResponse(
                200, ["accessJwt": fakeJWT(exp: 4_000_000_000, tag: "a"), "refreshJwt": "r", "did": "did:plc:t"])
        case "/xrpc/com.atproto.repo.getRecord":
            return jsonResponse(400, ["error": "RecordNotFound", "message": "Could not locate record"])
        default:
            return nil
        }
    }

    static let all: [TargetCase] = [
        TargetCase(
            kind: "mastodon", make: { MastodonPublisher(baseURL: $0.baseURL, token: "tok", context: $0.context) },
            isPost: { $0.path == "/api/v1/statuses" }, success: { jsonResponse(200, ["id": "11"]) }, expectedID: "11",
            key: { $0.headers["idempotency-key"] }, auth: { $0.headers["authorization"] == "Bearer tok" }),
        TargetCase(
            kind: "x", make: { XPublisher(baseURL: $0.baseURL, authentication: .bearer("tok"), context: $0.context) },
            isPost: { $0.path == "/2/tweets" }, success: { jsonResponse(201, ["data": ["id": "12", "text": "t"]]) },
            expectedID: "12", key: { _ in nil }, auth: { $0.headers["authorization"] == "Bearer tok" }),
        TargetCase(
            kind: "matrix",
            make: { MatrixPublisher(baseURL: $0.baseURL, token: "tok", roomID: "!r:hs", context: $0.context) },
            isPost: { $0.method == "PUT" }, success: { jsonResponse(200, ["event_id": "$13"]) }, expectedID: "$13",
            key: { $0.path.components(separatedBy: "/").last }, auth: { $0.headers["authorization"] == "Bearer tok" }),
        TargetCase(
            kind: "bluesky",
            make: { BlueskyPublisher(baseURL: $0.baseURL, identifier: "h", password: "pw", context: $0.context) },
            isPost: { $0.path == "/xrpc/com.atproto.repo.createRecord" },
            success: { jsonResponse(200, ["uri": "at://did:plc:t/app.bsky.feed.post/14", "cid": "c"]) },
            expectedID: "at://did:plc:t/app.bsky.feed.post/14", key: { $0.json?["rkey"] as? String },
            auth: { $0.headers["authorization"] == "Bearer " + fakeJWT(exp: 4_000_000_000, tag: "a") }),
        TargetCase(
            kind: "discord", make: { DiscordPublisher(url: $0.url("/api/webhooks/1/tok"), context: $0.context) },
            isPost: { $0.path == "/api/webhooks/1/tok" }, success: { jsonResponse(200, ["id": "15"]) },
            expectedID: "15",
            key: { _ in nil }, auth: { $0.query["wait"] == "true" }),
        TargetCase(
            kind: "slack", make: { SlackPublisher(url: $0.url("/services/T/B/tok"), context: $0.context) },
            isPost: { $0.path == "/services/T/B/tok" }, success: { textResponse(200, "ok") }, expectedID: nil,
            key: { _ in nil }, auth: { _ in true }),
        TargetCase(
            kind: "ntfy",
            make: { NtfyPublisher(baseURL: $0.baseURL, topic: "steps", token: "tok", context: $0.context) },
            isPost: { $0.path == "/" }, success: { jsonResponse(200, ["id": "16"]) }, expectedID: "16",
            key: { _ in nil }, auth: { $0.headers["authorization"] == "Bearer tok" }),
        TargetCase(
            kind: "webhook",
            make: {
                WebhookPublisher(
                    url: $0.url("/hook"), bodyTemplate: try! WebhookBodyTemplate(),
                    headers: ["Authorization": "Token tok"], context: $0.context)
            },
            isPost: { $0.path == "/hook" }, success: { jsonResponse(202, ["id": "17"]) }, expectedID: "17",
            key: { $0.headers["idempotency-key"] }, auth: { $0.headers["authorization"] == "Token tok" }),
        TargetCase(
            kind: "misskey", make: { MisskeyPublisher(baseURL: $0.baseURL, token: "tok", context: $0.context) },
            isPost: { $0.path == "/api/notes/create" }, success: { jsonResponse(200, ["createdNote": ["id": "9x1"]]) },
            expectedID: "9x1", key: { _ in nil }, auth: { $0.json?["i"] as? String == "tok" }),
    ]

    /// A server where the n-th post request gets `answer(n)`.
    func server(_ answer: @escaping @Sendable (Int) async throws -> HTTPResponse) async throws -> FakeHTTPServer {
        let posts = Counter()
        let isPost = self.isPost
        return try await FakeHTTPServer.start { request, _ in
            if let aux = TargetCase.auxiliary(request) { return aux }
            guard isPost(request) else {
                return jsonResponse(404, ["error": "unexpected \(request.method) \(request.path)"])
            }
            return try await answer(await posts.next())
        }
    }
}

actor Counter {
    var value = 0
    func next() -> Int {
        value += 1
        return value
    }
}

/// The scenarios every HTTP target must pass: request shape and auth, 5xx then success with the same key,
/// Retry-After, 401, no answer before the deadline (on a test clock), a slow answer inside it.
@Suite struct TargetConformanceTests {
    @Test func everyHTTPKindTheFactoryListsHasItsScenarios() {
        let declared = Set(PublisherFactory.targets.filter(\.usesHTTP).map(\.name))
        #expect(declared == Set(TargetCase.all.map(\.kind)))
        #expect(PublisherFactory.kinds.count == Set(PublisherFactory.kinds).count, "a kind is listed twice")
    }

    @Test(arguments: TargetCase.all)
    func serverErrorThenSuccessWithTheSameKey(_ target: TargetCase) async throws {
        let server = try await target.server { n in n == 1 ? jsonResponse(503, ["error": "busy"]) : target.success() }
        defer { Task { await server.stop() } }
        let publisher = target.make(server)
        let first = await publisher.publish(samplePost, deadline: soon())
        guard case .retryable(let reason, _, _) = first else {
            Issue.record("\(target.kind): \(first)")
            return
        }
        #expect(reason.hasPrefix("HTTP 503"))
        #expect(await publisher.publish(samplePost, deadline: soon()) == .delivered(remoteID: target.expectedID))
        let posts = await server.requests.filter(target.isPost)
        #expect(posts.count == 2)
        #expect(posts.allSatisfy(target.auth), "\(target.kind): authentication missing")
        #expect(posts.allSatisfy { $0.text.contains("1234 歩") }, "\(target.kind): text missing from the body")
        if let key = target.key(posts[0]) {
            #expect(target.key(posts[1]) == key, "\(target.kind): the retry changed the idempotency key")
            #expect(key == samplePost.idempotencyKey || key == BlueskyPublisher.recordKey(for: samplePost))
        }
    }

    /// A 2xx is a post only with its id (posting-targets.md §6.4: Mastodon `id`, X `data.id`, Matrix `event_id`,
    /// Bluesky `uri`, ntfy's message, Misskey's `createdNote`): a 2xx without one (a proxy's page, a wrong `base_url`) is
    /// unconfirmed, never delivered, so the post is looked up (or sent again under its key) rather than lost. Slack
    /// answers `ok` and the generic webhook any 2xx: no id to ask for; Discord cannot be looked up, so an unconfirmed
    /// 2xx would be resent at every retry (`ChatWebhook.publish`).
    @Test(
        arguments: TargetCase.all.filter {
            ["mastodon", "x", "matrix", "bluesky", "ntfy", "misskey"].contains($0.kind)
        })
    func aSuccessWithoutThePostsIDIsUnconfirmed(_ target: TargetCase) async throws {
        let server = try await target.server { _ in textResponse(200, "<html><body>Welcome</body></html>") }
        defer { Task { await server.stop() } }
        let outcome = await target.make(server).publish(samplePost, deadline: soon())
        guard case .retryable(let reason, nil, unconfirmed: true) = outcome else {
            Issue.record("\(target.kind): \(outcome)")
            return
        }
        #expect(reason.contains("HTTP 200") && reason.contains("id"), "\(target.kind): \(reason)")
        let empty = try await target.server { _ in jsonResponse(200, [:] as [String: String]) }
        defer { Task { await empty.stop() } }
        let second = await target.make(empty).publish(samplePost, deadline: soon())
        guard case .retryable(_, nil, unconfirmed: true) = second else {
            Issue.record("\(target.kind) with {}: \(second)")
            return
        }
    }

    @Test(arguments: TargetCase.all)
    func retryAfterIsPassedOn(_ target: TargetCase) async throws {
        let server = try await target.server { _ in
            jsonResponse(429, ["error": "slow down"], headers: ["Retry-After": "7"])
        }
        defer { Task { await server.stop() } }
        let outcome = await target.make(server).publish(samplePost, deadline: soon())
        guard case .retryable(_, let wait, _) = outcome else {
            Issue.record("\(target.kind): \(outcome)")
            return
        }
        #expect(wait == 7)
    }

    @Test(arguments: TargetCase.all)
    func unauthorizedIsPermanent(_ target: TargetCase) async throws {
        let server = try await target.server { _ in jsonResponse(401, ["error": "invalid credentials"]) }
        defer { Task { await server.stop() } }
        let outcome = await target.make(server).publish(samplePost, deadline: soon())
        guard case .permanent(let reason) = outcome else {
            Issue.record("\(target.kind): \(outcome)")
            return
        }
        #expect(reason.contains("HTTP 401"))
        // The secret is "tok"; the word "token" in a hint (X's OAuth 2.0 expiry) is not it.
        #expect(!reason.replacingOccurrences(of: "token", with: "").contains("tok"))
    }

    @Test(arguments: TargetCase.all)
    func noAnswerBeforeTheDeadlineIsRetryableAndUnconfirmed(_ target: TargetCase) async throws {
        // The clock passes the deadline while the post is in flight; the answer never comes.
        let clock = TestClock<Duration>()
        let server = try await target.server { _ in
            await clock.advance(by: .seconds(2))
            return try await neverAnswer()
        }
        let outcome = await target.make(server).publish(samplePost, deadline: Deadline(in: .seconds(1), clock: clock))
        #expect(
            outcome == .retryable(reason: DeadlineTests.deadlineReason, retryAfter: nil, unconfirmed: true),
            "\(target.kind)")
    }

    @Test(arguments: TargetCase.all)
    func aSlowAnswerInsideTheDeadlineIsDelivered(_ target: TargetCase) async throws {
        // The answer comes with 1 s of 30 left, on the test clock. A deadline of seconds would make URLSession's idle
        // backstop (the deadline + 10 s of real time) barely longer than a loaded machine can starve the server.
        let clock = TestClock<Duration>()
        let server = try await target.server { _ in
            await clock.advance(by: .seconds(29))
            return target.success()
        }
        let outcome = await target.make(server).publish(samplePost, deadline: Deadline(in: .seconds(30), clock: clock))
        #expect(outcome == .delivered(remoteID: target.expectedID), "\(target.kind)")
    }
}
