import Clocks
import FlyingFox
import Foundation
import Testing
import WallTime

@testable import Publishing

/// X's OAuth 2.0 as the target meets it: `POST /2/oauth2/token` with the refresh-token grant, which rotates the
/// refresh token (the old one stops working), and `POST /2/tweets`, which takes only access tokens it issued and
/// has not expired. A used or unknown refresh token is answered as X does (400 `invalid_request`, "Value passed for
/// the token was invalid."); a confidential client must send HTTP Basic credentials.
actor FakeXAuthorization {
    static let clientID = "cid-123"
    static let scope = "tweet.read tweet.write users.read offline.access"
    var refreshTokens: Set<String>
    var accessTokens: Set<String> = []
    let clientSecret: String?
    var issued = 0
    var lifetime = 7200

    init(seed: String, clientSecret: String? = nil) {
        refreshTokens = [seed]
        self.clientSecret = clientSecret
    }

    /// Every access token issued so far stops working (expired early, revoked).
    func revokeAccessTokens() { accessTokens = [] }

    static func form(_ request: SeenRequest) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in request.text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? "" }
            fields[parts[0]] = parts.count > 1 ? parts[1] : ""
        }
        return fields
    }

    func answer(_ request: SeenRequest) -> HTTPResponse {
        switch request.path {
        case "/2/oauth2/token":
            if let clientSecret {
                let basic = "Basic " + Data("\(Self.clientID):\(clientSecret)".utf8).base64EncodedString()
                guard request.headers["authorization"] == basic else {
                    return jsonResponse(
                        401,
                        ["error": "unauthorized_client", "error_description": "Missing valid authorization header"])
                }
            }
            let form = Self.form(request)
            guard form["grant_type"] == "refresh_token", form["client_id"] == Self.clientID,
                let token = form["refresh_token"], refreshTokens.remove(token) != nil
            else {
                return jsonResponse(
                    400,
                    ["error": "invalid_request", "error_description": "Value passed for the token was invalid."])
            }
            issued += 1
            let access = "at-\(issued)-secret"
            let refresh = "rt-\(issued)-secret"
            accessTokens.insert(access)
            refreshTokens.insert(refresh)
            return jsonResponse(
                200,
                [
                    "token_type": "bearer", "expires_in": lifetime, "access_token": access, "scope": Self.scope,
                    "refresh_token": refresh,
                ])
        case "/2/tweets", "/2/media/upload", "/2/media/metadata":
            guard let header = request.headers["authorization"], header.hasPrefix("Bearer "),
                accessTokens.contains(String(header.dropFirst(7)))
            else {
                return jsonResponse(
                    401, ["title": "Unauthorized", "type": "about:blank", "status": 401, "detail": "Unauthorized"])
            }
            if request.path == "/2/media/upload" { return jsonResponse(200, ["data": ["id": "m\(issued)"]]) }
            if request.path == "/2/media/metadata" { return jsonResponse(200, ["data": [:] as [String: Any]]) }
            return jsonResponse(201, ["data": ["id": "186\(issued)", "text": request.json?["text"] ?? ""]])
        default:
            return jsonResponse(404, ["title": "Not Found"])
        }
    }
}

/// A `TargetInfoCache` whose stores fail while `failing` is above zero (a full disk, a locked database), and whose
/// reads return nothing while `blind` is above zero (a process that read the store before another one wrote it).
actor FlakyTargetInfoCache: TargetInfoCache {
    struct Failure: Error, CustomStringConvertible {
        var description: String { "database or disk is full" }
    }
    let inner = InMemoryTargetInfoCache()
    var failing = 0
    var blind = 0

    func fail(_ stores: Int) { failing = stores }
    func miss(_ reads: Int) { blind = reads }

    func readInfo(_ key: String) async throws -> TargetInfo? {
        if blind > 0 {
            blind -= 1
            return nil
        }
        return await inner.readInfo(key)
    }

    func storeDurably(_ info: TargetInfo, for key: String) async throws {
        if failing > 0 {
            failing -= 1
            throw Failure()
        }
        await inner.storeDurably(info, for: key)
    }
}

@Suite(.timeLimit(.minutes(1))) struct XOAuth2Tests {
    static let seed = "rt-seed-secret"
    static let start = Date(timeIntervalSince1970: 1_795_316_400)

    /// The fake X on a loopback server, and a way to make publishers (processes) against it.
    struct Setup {
        let x: FakeXAuthorization
        let server: LoopbackServer
        let cache: any TargetInfoCache
        let clock: TestClock<Duration>
        /// One wall clock for every process: dates advance with `clock`.
        let wall: WallClock

        static func start(
            clientSecret: String? = nil, cache: any TargetInfoCache = InMemoryTargetInfoCache()
        ) async throws -> Setup {
            let x = FakeXAuthorization(seed: XOAuth2Tests.seed, clientSecret: clientSecret)
            let server = try await LoopbackServer.start { request, _ in await x.answer(request) }
            let clock = TestClock<Duration>()
            return Setup(
                x: x, server: server, cache: cache, clock: clock,
                wall: WallClock(clock, startingAt: XOAuth2Tests.start))
        }

        /// A publisher as a new process would make it from the configuration.
        func publisher(clientSecret: String? = nil, accessToken: String? = nil) -> XPublisher {
            let client = OAuth2Client(
                tokenURL: server.url("/2/oauth2/token"), clientID: FakeXAuthorization.clientID,
                clientSecret: clientSecret, refreshToken: XOAuth2Tests.seed, accessToken: accessToken)
            return XPublisher(
                baseURL: server.baseURL, authentication: .oauth2(client),
                context: HTTPContext(clock: wall, infoCache: cache))
        }

        func requests(_ path: String) async -> [SeenRequest] { await server.requests.filter { $0.path == path } }

        /// The tokens stored for the seed.
        func stored() async throws -> OAuth2Tokens? {
            let key = publisher().session!.grant.storageKey
            return try await cache.readInfo(key).flatMap { OAuth2Tokens(json: $0.value) }
        }
    }

    /// What a refused refresh waits on: a clock that moves by the pause at once.
    func steppingDeadline() -> Deadline { Deadline(in: .seconds(30), clock: SteppingClock()) }

    @Test func theFirstPostRefreshesWithTheExactFormAndStoresTheRotatedToken() async throws {
        let setup = try await Setup.start()
        defer { Task { await setup.server.stop() } }
        let outcome = await setup.publisher().publish(samplePost, deadline: soon())
        #expect(outcome == .delivered(remoteID: "1861"))
        let refresh = try #require(await setup.requests("/2/oauth2/token").first)
        #expect(refresh.method == "POST")
        #expect(refresh.headers["content-type"] == "application/x-www-form-urlencoded")
        #expect(refresh.text == "grant_type=refresh_token&refresh_token=rt-seed-secret&client_id=cid-123")
        #expect(refresh.headers["authorization"] == nil, "a public client sends no credentials")
        #expect(await setup.requests("/2/tweets").first?.headers["authorization"] == "Bearer at-1-secret")
        let stored = try #require(try await setup.stored())
        #expect(stored.refreshToken == "rt-1-secret" && stored.accessToken == "at-1-secret")
        #expect(stored.expiresAt == Self.start.addingTimeInterval(7200))
        #expect(stored.scope == FakeXAuthorization.scope)
    }

    @Test func aConfidentialClientSendsBasicCredentials() async throws {
        let setup = try await Setup.start(clientSecret: "cs-very-secret")
        defer { Task { await setup.server.stop() } }
        // Without the secret, the token endpoint refuses the client: permanent, and it says what to set.
        let refused = await setup.publisher().publish(samplePost, deadline: soon())
        guard case .permanent(let reason) = refused else {
            Issue.record("\(refused)")
            return
        }
        #expect(reason.contains("unauthorized_client") && reason.contains("client_secret_env"), "\(reason)")
        #expect(await setup.requests("/2/tweets").isEmpty)

        let outcome = await setup.publisher(clientSecret: "cs-very-secret").publish(samplePost, deadline: soon())
        #expect(outcome == .delivered(remoteID: "1861"))
        let refresh = try #require(await setup.requests("/2/oauth2/token").last)
        #expect(refresh.headers["authorization"] == "Basic Y2lkLTEyMzpjcy12ZXJ5LXNlY3JldA==")  // cid-123:cs-very-secret
        #expect(refresh.text == "grant_type=refresh_token&refresh_token=rt-seed-secret&client_id=cid-123")
    }

    @Test func theAccessTokenIsRefreshedWhenExpiresInRunsOut() async throws {
        let setup = try await Setup.start()
        defer { Task { await setup.server.stop() } }
        let publisher = setup.publisher()
        #expect(await publisher.publish(samplePost, deadline: soon()) == .delivered(remoteID: "1861"))
        #expect(await publisher.publish(samplePost, deadline: soon()) == .delivered(remoteID: "1861"))
        #expect(await setup.requests("/2/oauth2/token").count == 1, "a fresh access token is used again")
        // 7200 s, less the margin of 300: still usable with 301 s left, refreshed with 299 s left.
        await setup.clock.advance(by: .seconds(7200 - 301))
        #expect(await publisher.publish(samplePost, deadline: soon()) == .delivered(remoteID: "1861"))
        #expect(await setup.requests("/2/oauth2/token").count == 1)
        await setup.clock.advance(by: .seconds(2))
        #expect(await publisher.publish(samplePost, deadline: soon()) == .delivered(remoteID: "1862"))
        let refreshes = await setup.requests("/2/oauth2/token")
        #expect(refreshes.count == 2)
        #expect(FakeXAuthorization.form(refreshes[1])["refresh_token"] == "rt-1-secret", "the rotated one is used")
        #expect(await setup.requests("/2/tweets").count == 4)
        #expect(try await setup.stored()?.refreshToken == "rt-2-secret")
    }

    @Test func a401IsRefreshedOnceAndThePostSentOnceMore() async throws {
        let setup = try await Setup.start()
        defer { Task { await setup.server.stop() } }
        let publisher = setup.publisher()
        #expect(await publisher.publish(samplePost, deadline: soon()) == .delivered(remoteID: "1861"))
        await setup.x.revokeAccessTokens()  // unexpired by expires_in, refused by the server
        #expect(await publisher.publish(samplePost, deadline: soon()) == .delivered(remoteID: "1862"))
        let tweets = await setup.requests("/2/tweets").map { $0.headers["authorization"] }
        #expect(tweets == ["Bearer at-1-secret", "Bearer at-1-secret", "Bearer at-2-secret"])
        #expect(await setup.requests("/2/oauth2/token").count == 2)

        // A configured access token the server no longer takes: 401, refresh, success.
        let fresh = try await Setup.start()
        defer { Task { await fresh.server.stop() } }
        let given = fresh.publisher(accessToken: "at-configured-secret")
        #expect(await given.publish(samplePost, deadline: soon()) == .delivered(remoteID: "1861"))
        #expect(
            await fresh.requests("/2/tweets").map { $0.headers["authorization"] } == [
                "Bearer at-configured-secret", "Bearer at-1-secret",
            ])
    }

    /// The chart's upload is authorized the same way: a 401 there refreshes, and the whole post goes again.
    @Test func a401ToTheImageUploadRefreshesToo() async throws {
        let setup = try await Setup.start()
        defer { Task { await setup.server.stop() } }
        let publisher = XPublisher(
            baseURL: setup.server.baseURL,
            authentication: setup.publisher(accessToken: "at-configured-secret").authentication,
            image: ImageOption(chart: true, required: true), context: HTTPContext(clock: setup.wall))
        #expect(await publisher.publish(sampleImagePost, deadline: soon()) == .delivered(remoteID: "1861"))
        let seen = await setup.server.requests.map { "\($0.path) \($0.headers["authorization"] ?? "")" }
        #expect(
            seen == [
                "/2/media/upload Bearer at-configured-secret", "/2/oauth2/token ",
                "/2/media/upload Bearer at-1-secret", "/2/media/metadata Bearer at-1-secret",
                "/2/tweets Bearer at-1-secret",
            ])
        #expect(await setup.requests("/2/tweets").first?.json?["media"] as? [String: [String]] == ["media_ids": ["m1"]])
    }

    @Test func a401ToATokenJustRefreshedIsNotRefreshedAgain() async throws {
        let setup = try await Setup.start()
        defer { Task { await setup.server.stop() } }
        // The server refuses every access token (the app lacks tweet.write, say): one refresh, one post.
        let refusing = try await LoopbackServer.start { request, _ in
            request.path == "/2/tweets"
                ? jsonResponse(401, ["title": "Unauthorized", "detail": "Unauthorized"])
                : await setup.x.answer(request)
        }
        defer { Task { await refusing.stop() } }
        let client = OAuth2Client(
            tokenURL: refusing.url("/2/oauth2/token"), clientID: FakeXAuthorization.clientID, refreshToken: Self.seed)
        let outcome = await XPublisher(
            baseURL: refusing.baseURL, authentication: .oauth2(client), context: HTTPContext()
        ).publish(samplePost, deadline: soon())
        #expect(outcome == .permanent(reason: "HTTP 401: Unauthorized"))
        #expect(await refusing.requests.map(\.path) == ["/2/oauth2/token", "/2/tweets"])
    }

    @Test func theRotatedTokenIsUsedAfterARestart() async throws {
        let setup = try await Setup.start()
        defer { Task { await setup.server.stop() } }
        #expect(await setup.publisher().publish(samplePost, deadline: soon()) == .delivered(remoteID: "1861"))
        // A new process with the same configuration (the seed, used up by now) and the same store.
        let restarted = setup.publisher()
        #expect(await restarted.publish(samplePost, deadline: soon()) == .delivered(remoteID: "1861"))
        #expect(await setup.requests("/2/oauth2/token").count == 1, "the stored access token is still good")
        await setup.clock.advance(by: .seconds(7200))
        #expect(await setup.publisher().publish(samplePost, deadline: soon()) == .delivered(remoteID: "1862"))
        let refreshes = await setup.requests("/2/oauth2/token")
        #expect(refreshes.map { FakeXAuthorization.form($0)["refresh_token"] } == ["rt-seed-secret", "rt-1-secret"])
    }

    /// Two processes refresh with the same stored token: X takes the first and refuses the second, which then
    /// finds what the first stored. Here the loser had read the store before the winner wrote it.
    @Test func aRefusedRefreshAfterAnotherProcessStoredANewerTokenUsesThatOne() async throws {
        let cache = FlakyTargetInfoCache()
        let setup = try await Setup.start(cache: cache)
        defer { Task { await setup.server.stop() } }
        #expect(await setup.publisher().publish(samplePost, deadline: soon()) == .delivered(remoteID: "1861"))
        await cache.miss(1)
        #expect(await setup.publisher().publish(samplePost, deadline: soon()) == .delivered(remoteID: "1861"))
        #expect(
            await setup.requests("/2/oauth2/token").map { FakeXAuthorization.form($0)["refresh_token"] } == [
                "rt-seed-secret", "rt-seed-secret",
            ])
        #expect(await setup.requests("/2/tweets").last?.headers["authorization"] == "Bearer at-1-secret")

        // Once the winner's access token has expired too, the loser refreshes with the winner's refresh token.
        await setup.clock.advance(by: .seconds(7200))
        await cache.miss(1)
        #expect(await setup.publisher().publish(samplePost, deadline: soon()) == .delivered(remoteID: "1862"))
        #expect(
            await setup.requests("/2/oauth2/token").suffix(2).map { FakeXAuthorization.form($0)["refresh_token"] } == [
                "rt-seed-secret", "rt-1-secret",
            ])
        #expect(try await setup.stored()?.refreshToken == "rt-2-secret")

        // The winner was still storing when the loser was refused: found after the pause.
        await setup.clock.advance(by: .seconds(7200))
        await cache.miss(2)
        #expect(
            await setup.publisher().publish(samplePost, deadline: steppingDeadline()) == .delivered(remoteID: "1863"))
        #expect(try await setup.stored()?.refreshToken == "rt-3-secret")
    }

    @Test func aRefusedRefreshWithNothingNewerStoredIsPermanentAndSaysWhatToDo() async throws {
        let setup = try await Setup.start()
        defer { Task { await setup.server.stop() } }
        #expect(await setup.publisher().publish(samplePost, deadline: soon()) == .delivered(remoteID: "1861"))
        // The stored refresh token is revoked at X (the person removed the app's access, say).
        let stored = try #require(try await setup.stored())
        _ = await setup.x.answer(
            SeenRequest(
                method: "POST", path: "/2/oauth2/token", query: [:], headers: [:],
                body: Data("grant_type=refresh_token&refresh_token=\(stored.refreshToken)&client_id=cid-123".utf8)))
        await setup.clock.advance(by: .seconds(7200))
        let outcome = await setup.publisher().publish(samplePost, deadline: steppingDeadline())
        guard case .permanent(let reason) = outcome else {
            Issue.record("\(outcome)")
            return
        }
        #expect(reason.contains("HTTP 400: invalid_request: Value passed for the token was invalid."), "\(reason)")
        #expect(reason.contains("Authorize the app again with the offline.access scope"), "\(reason)")
        #expect(reason.contains("refresh_token_env or refresh_token_file"), "\(reason)")
        #expect(!reason.contains("-secret"), "\(reason)")
        #expect(await setup.requests("/2/tweets").count == 1, "nothing was posted with a refused token")
    }

    /// A rotated refresh token that cannot be stored is reported, and nothing is posted with its access token until
    /// it is stored: the next attempt stores it first, without a second refresh.
    @Test func aRotatedTokenThatCannotBeStoredIsReportedAndStoredBeforeTheNextPost() async throws {
        let cache = FlakyTargetInfoCache()
        let setup = try await Setup.start(cache: cache)
        defer { Task { await setup.server.stop() } }
        let publisher = setup.publisher()
        await cache.fail(2)
        let outcome = await publisher.publish(samplePost, deadline: soon())
        guard case .retryable(let reason, _, let unconfirmed) = outcome else {
            Issue.record("\(outcome)")
            return
        }
        #expect(reason.contains("could not be stored (database or disk is full)"), "\(reason)")
        #expect(!unconfirmed, "nothing was posted")
        #expect(!reason.contains("-secret"), "\(reason)")
        #expect(await setup.requests("/2/tweets").isEmpty)
        #expect(try await setup.stored() == nil)

        #expect(await publisher.publish(samplePost, deadline: soon()) == .delivered(remoteID: "1861"))
        #expect(await setup.requests("/2/oauth2/token").count == 1)
        #expect(try await setup.stored()?.refreshToken == "rt-1-secret")
    }

    /// A refresh without an answer before the deadline, or a busy token endpoint: retried later, and never
    /// unconfirmed (the post was not sent).
    @Test func aRefreshThatFailsForNowIsRetryableAndNotUnconfirmed() async throws {
        let clock = TestClock<Duration>()
        let silent = try await FakeHTTPServer.start { _, _ in
            await clock.advance(by: .seconds(2))
            return try await neverAnswer()
        }
        let client = OAuth2Client(tokenURL: silent.url("/2/oauth2/token"), clientID: "cid", refreshToken: Self.seed)
        let timedOut = await XPublisher(
            baseURL: silent.baseURL, authentication: .oauth2(client), context: silent.context
        )
        .publish(samplePost, deadline: Deadline(in: .seconds(1), clock: clock))
        #expect(
            timedOut
                == .retryable(
                    reason: "refreshing the OAuth 2.0 token: deadline passed before a response (request cancelled)",
                    retryAfter: nil))

        let busy = try await FakeHTTPServer.start { _, _ in
            jsonResponse(503, ["title": "Service Unavailable"], headers: ["Retry-After": "30"])
        }
        let outcome = await XPublisher(
            baseURL: busy.baseURL, authentication: .oauth2(client), context: busy.context
        ).publish(samplePost, deadline: soon())
        #expect(
            outcome
                == .retryable(
                    reason: "refreshing the OAuth 2.0 token: HTTP 503: Service Unavailable", retryAfter: 30))
        #expect(await busy.requests.map(\.path) == ["/2/oauth2/token"])
    }

    @Test func noTokenOrSecretInAnyErrorText() async throws {
        let secrets = ["rt-seed-secret", "cs-very-secret", "rt-1-secret", "at-1-secret"]
        let server = try await LoopbackServer.start { request, n in
            // A token endpoint and a post endpoint that echo what they were sent.
            if request.path == "/2/oauth2/token" {
                if n == 1 {
                    return jsonResponse(
                        200, ["access_token": "at-1-secret", "refresh_token": "rt-1-secret", "expires_in": 7200])
                }
                return jsonResponse(400, ["error": "invalid_grant", "error_description": "bad token \(request.text)"])
            }
            return jsonResponse(
                403, ["detail": "not allowed for \(request.headers["authorization"] ?? "") (at-1-secret)"])
        }
        defer { Task { await server.stop() } }
        let client = OAuth2Client(
            tokenURL: server.url("/2/oauth2/token"), clientID: "cid", clientSecret: "cs-very-secret",
            refreshToken: Self.seed)
        let clock = TestClock<Duration>()
        let publisher = XPublisher(
            baseURL: server.baseURL, authentication: .oauth2(client),
            context: HTTPContext(clock: WallClock(clock, startingAt: Self.start)))
        var reasons: [String] = []
        for _ in 0..<2 {
            if case .permanent(let reason) = await publisher.publish(samplePost, deadline: steppingDeadline()) {
                reasons.append(reason)
            }
            await clock.advance(by: .seconds(7200))
        }
        #expect(reasons.count == 2)
        #expect(reasons.first?.hasPrefix("HTTP 403: not allowed for ") == true, "\(reasons)")
        #expect(reasons.last?.contains("invalid_grant") == true, "\(reasons)")
        for reason in reasons {
            for secret in secrets { #expect(!reason.contains(secret), "\(reason)") }
        }
        #expect(!publisher.redactedDescription.contains("-secret"), "\(publisher.redactedDescription)")
    }
}
