import Clocks
import FlyingFox
import Foundation
import Testing
import WallTime

@testable import Publishing

@Suite struct XPublisherTests {
    static let credentials = OAuth1Credentials(
        consumerKey: "ck-123", consumerSecret: "cs-secret-456",
        token: "at-789", tokenSecret: "ts-secret-012")

    /// Verifies an OAuth 1.0a signature the way X does: rebuild the base string from the method, the URL it was
    /// sent to and the oauth_* header fields (the JSON body is not signed), and compare.
    static func signatureIsValid(_ request: SeenRequest, port: UInt16) -> Bool {
        guard let header = request.headers["authorization"], let fields = OAuth1.parseAuthorizationHeader(header),
            let signature = fields["oauth_signature"], fields["oauth_consumer_key"] == credentials.consumerKey,
            fields["oauth_token"] == credentials.token, fields["oauth_signature_method"] == "HMAC-SHA1",
            fields["oauth_nonce"]?.isEmpty == false, fields["oauth_timestamp"] != nil
        else { return false }
        let params =
            fields.filter { $0.key != "oauth_signature" }.map { ($0.key, $0.value) }
            + request.query.map { ($0.key, $0.value) }
        let base = OAuth1.signatureBaseString(
            method: request.method, baseURI: "http://127.0.0.1:\(port)\(request.path)", parameters: params)
        return OAuth1.signature(
            baseString: base, consumerSecret: credentials.consumerSecret,
            tokenSecret: credentials.tokenSecret) == signature
    }

    @Test func oauth1SignedPostIsAcceptedByAVerifyingEndpoint() async throws {
        let port = PortBox()
        let server = try await FakeHTTPServer.start { request, _ in
            guard Self.signatureIsValid(request, port: await port.value) else {
                return jsonResponse(401, ["title": "Unauthorized", "detail": "bad signature", "status": 401])
            }
            return jsonResponse(201, ["data": ["id": "1861234567890123456", "text": request.json?["text"] ?? ""]])
        }
        defer { Task { await server.stop() } }
        await port.set(server.port)
        let publisher = XPublisher(
            baseURL: server.baseURL, authentication: .oauth1(Self.credentials),
            context: server.context(
                clock: WallClock(ImmediateClock(), startingAt: Date(timeIntervalSince1970: 1_795_316_400))))
        #expect(await publisher.publish(samplePost, deadline: soon()) == .delivered(remoteID: "1861234567890123456"))
        let seen = try #require(await server.requests.first)
        #expect(seen.path == "/2/tweets")
        #expect(seen.json?["text"] as? String == samplePost.text)
        #expect(
            OAuth1.parseAuthorizationHeader(seen.headers["authorization"] ?? "")?["oauth_timestamp"] == "1795316400")

        // The same endpoint refuses a request signed with the wrong secret.
        var wrong = Self.credentials
        wrong.tokenSecret = "not-the-secret"
        let refused = await XPublisher(baseURL: server.baseURL, authentication: .oauth1(wrong), context: server.context)
            .publish(samplePost, deadline: soon())
        #expect(refused == .permanent(reason: "HTTP 401: bad signature"))
    }

    @Test func duplicateContent403MeansAlreadyPosted() async throws {
        let server = try await FakeHTTPServer.start { _, _ in
            jsonResponse(
                403,
                [
                    "detail": "You are not allowed to create a Tweet with duplicate content.",
                    "type": "about:blank", "title": "Forbidden", "status": 403,
                ])
        }
        defer { Task { await server.stop() } }
        let publisher = XPublisher(
            baseURL: server.baseURL, authentication: .bearer("user-token"), context: server.context)
        #expect(await publisher.publish(samplePost, deadline: soon()) == .alreadyDelivered(remoteID: nil))
        #expect(await server.requests.first?.headers["authorization"] == "Bearer user-token")
    }

    /// A 2xx without `data.id` (a proxy's or captive portal's 200 page, a wrong `base_url`) is unconfirmed, not a post.
    /// X needs no look-up before the resend: when the first request did post, X refuses the repeat as duplicate
    /// content (already delivered); when it never arrived, the resend posts it. Either way one post.
    @Test(arguments: [true, false]) func aSuccessWithoutAnIDIsResentAndADuplicateMeansPosted(firstArrived: Bool)
        async throws
    {
        let posted = Counter()
        let server = try await LoopbackServer.start { request, n in
            let duplicate = jsonResponse(
                403,
                [
                    "detail": "You are not allowed to create a Tweet with duplicate content.",
                    "type": "about:blank", "title": "Forbidden", "status": 403,
                ])
            if n == 1 {
                if firstArrived { _ = await posted.next() }
                return textResponse(200, "<html><body>Welcome to the hotel network</body></html>")
            }
            if await posted.value > 0 { return duplicate }
            return jsonResponse(201, ["data": ["id": "186\(await posted.next())", "text": "t"]])
        }
        defer { Task { await server.stop() } }
        let publisher = XPublisher(
            baseURL: server.baseURL, authentication: .bearer("user-token"), context: HTTPContext())
        let first = await publisher.publish(samplePost, deadline: soon())
        guard case .retryable(let reason, nil, unconfirmed: true) = first else {
            Issue.record("\(first)")
            return
        }
        #expect(reason.contains("HTTP 200") && reason.contains("no id of the post"), "\(reason)")
        let second = await publisher.publish(samplePost, deadline: soon())
        #expect(second == (firstArrived ? .alreadyDelivered(remoteID: nil) : .delivered(remoteID: "1861")))
        #expect(await posted.value == 1)
        #expect(await server.requests.map(\.path) == ["/2/tweets", "/2/tweets"])
    }

    @Test func another403IsPermanent() async throws {
        let server = try await FakeHTTPServer.start { _, _ in
            jsonResponse(403, ["detail": "You are not permitted to perform this action.", "title": "Forbidden"])
        }
        defer { Task { await server.stop() } }
        let outcome = await XPublisher(baseURL: server.baseURL, authentication: .bearer("t0k"), context: server.context)
            .publish(samplePost, deadline: soon())
        #expect(outcome == .permanent(reason: "HTTP 403: You are not permitted to perform this action."))
    }

    /// An OAuth 2.0 user token alone lives two hours (posting-targets.md §2), so an agent given one fails with 401
    /// after two hours: the error says so and names the lasting ways, a refresh token (`XOAuth2Tests`) or OAuth 1.0a.
    /// A 401 with OAuth 1.0a keys says nothing of the kind.
    @Test func a401WithAnOAuth2TokenSaysItExpiresAndNamesOAuth1() async throws {
        let server = try await FakeHTTPServer.start { _, _ in
            jsonResponse(
                401, ["title": "Unauthorized", "type": "about:blank", "status": 401, "detail": "Unauthorized"])
        }
        defer { Task { await server.stop() } }
        let bearer = await XPublisher(
            baseURL: server.baseURL, authentication: .bearer("t0k"), context: server.context
        ).publish(samplePost, deadline: soon())
        guard case .permanent(let reason) = bearer else {
            Issue.record("\(bearer)")
            return
        }
        #expect(reason.hasPrefix("HTTP 401: Unauthorized"), "\(reason)")
        #expect(reason.contains("2 hours") && reason.contains("OAuth 1.0a"), "\(reason)")
        #expect(reason.contains("client_id and refresh_token (the offline.access scope)"), "\(reason)")
        let signed = await XPublisher(
            baseURL: server.baseURL, authentication: .oauth1(Self.credentials), context: server.context
        ).publish(samplePost, deadline: soon())
        #expect(signed == .permanent(reason: "HTTP 401: Unauthorized"))
    }

    @Test func rateLimitResetIsEpochSeconds() async throws {
        let server = try await FakeHTTPServer.start { _, _ in
            jsonResponse(
                429, ["title": "Too Many Requests"],
                headers: ["x-rate-limit-remaining": "0", "x-rate-limit-reset": "1795316520"])
        }
        defer { Task { await server.stop() } }
        let publisher = XPublisher(
            baseURL: server.baseURL, authentication: .bearer("t0k"),
            context: server.context(
                clock: WallClock(ImmediateClock(), startingAt: Date(timeIntervalSince1970: 1_795_316_400))))
        let outcome = await publisher.publish(samplePost, deadline: soon())
        #expect(outcome == .retryable(reason: "HTTP 429: Too Many Requests", retryAfter: 120))
    }

    @Test func weightedLengthOver280IsRefusedBeforeSending() async throws {
        let server = try await FakeHTTPServer.start { _, _ in jsonResponse(201, ["data": ["id": "1"]]) }
        defer { Task { await server.stop() } }
        var post = samplePost
        post.text = String(repeating: "歩", count: 141)  // 282 weighted
        let outcome = await XPublisher(baseURL: server.baseURL, authentication: .bearer("t"), context: server.context)
            .publish(post, deadline: soon())
        guard case .permanent = outcome else {
            Issue.record("expected permanent, got \(outcome)")
            return
        }
        #expect(await server.requests.isEmpty)
    }
}

/// Hands the server's port to its own handler.
actor PortBox {
    var value: UInt16 = 0
    func set(_ port: UInt16) { value = port }
}
