import Clocks
import FlyingFox
import Foundation
import TestSupport
import Testing
import WallTime

@testable import Publishing

/// A JWT with only an `exp` claim (the publisher reads `exp`; it never verifies signatures).
func fakeJWT(exp: Int, tag: String) -> String {
    func b64(_ s: String) -> String {
        Data(s.utf8).base64EncodedString().replacingOccurrences(of: "=", with: "")
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
    }
    return b64(#"{"alg":"ES256K"}"#) + "." + b64(#"{"exp":\#(exp),"sub":"\#(tag)"}"#) + ".sig"
}

/// A small PDS: sessions, refresh, createRecord that refuses an rkey it already holds (as the MST does, with a 500),
/// and getRecord.
actor FakePDS {
    var records: [String: String] = [:]  // rkey -> text
    var accessTokens: Set<String> = []
    var refreshTokens: Set<String> = []
    var sessionsCreated = 0
    var refreshes = 0
    /// The `exp` of the access JWTs it issues from now on.
    var accessExp: Int
    var expireNextCreate = false

    init(accessExp: Int) { self.accessExp = accessExp }

    func issueAccessJWTs(expiringAt exp: Int) { accessExp = exp }

    func setExpireNextCreate() { expireNextCreate = true }
    func forgetRefreshTokens() { refreshTokens = [] }

    func newSession() -> [String: Any] {
        let n = sessionsCreated + refreshes
        let access = fakeJWT(exp: accessExp, tag: "access\(n)")
        let refresh = fakeJWT(exp: accessExp + 7_776_000, tag: "refresh\(n)")
        accessTokens.insert(access)
        refreshTokens.insert(refresh)
        return ["accessJwt": access, "refreshJwt": refresh, "did": "did:plc:abc123", "handle": "steps.test"]
    }

    func handle(_ r: SeenRequest) -> HTTPResponse {
        let bearer = r.headers["authorization"].map { String($0.dropFirst("Bearer ".count)) } ?? ""
        switch r.path {
        case "/xrpc/com.atproto.server.createSession":
            guard r.json?["identifier"] as? String == "steps.test", r.json?["password"] as? String == "app-pass-xyz"
            else {
                return jsonResponse(
                    401, ["error": "AuthenticationRequired", "message": "Invalid identifier or password"])
            }
            sessionsCreated += 1
            return jsonResponse(200, newSession())
        case "/xrpc/com.atproto.server.refreshSession":
            guard refreshTokens.remove(bearer) != nil else {
                return jsonResponse(400, ["error": "ExpiredToken", "message": "Token has expired"])
            }
            refreshes += 1
            return jsonResponse(200, newSession())
        case "/xrpc/com.atproto.repo.createRecord":
            if expireNextCreate {
                expireNextCreate = false
                accessTokens.remove(bearer)
            }
            guard accessTokens.contains(bearer) else {
                return jsonResponse(400, ["error": "ExpiredToken", "message": "Token has expired"])
            }
            guard let rkey = r.json?["rkey"] as? String, let record = r.json?["record"] as? [String: Any],
                let text = record["text"] as? String, r.json?["repo"] as? String == "did:plc:abc123",
                record["$type"] as? String == "app.bsky.feed.post", record["createdAt"] is String
            else {
                return jsonResponse(400, ["error": "InvalidRequest", "message": "bad record"])
            }
            if records[rkey] != nil {
                return jsonResponse(500, ["error": "InternalServerError", "message": "Internal Server Error"])
            }
            records[rkey] = text
            return jsonResponse(200, ["uri": "at://did:plc:abc123/app.bsky.feed.post/\(rkey)", "cid": "bafyrei"])
        case "/xrpc/com.atproto.repo.getRecord":
            guard let rkey = r.query["rkey"], records[rkey] != nil else {
                return jsonResponse(400, ["error": "RecordNotFound", "message": "Could not locate record"])
            }
            return jsonResponse(
                200, ["uri": "at://did:plc:abc123/app.bsky.feed.post/\(rkey)", "value": [:] as [String: String]])
        default:
            return jsonResponse(404, ["error": "MethodNotImplemented"])
        }
    }
}

@Suite struct BlueskyPublisherTests {
    static let start = Date(timeIntervalSince1970: 1_795_316_400)

    func make(_ pds: FakePDS, clock: ManualClock) async throws -> (FakeHTTPServer, BlueskyPublisher) {
        let server = try await FakeHTTPServer.start { request, _ in await pds.handle(request) }
        let publisher = BlueskyPublisher(
            baseURL: server.baseURL, identifier: "steps.test", password: "app-pass-xyz",
            language: "ja", context: server.context(clock: clock.wall))
        return (server, publisher)
    }

    @Test func recordKeyIsADeterministicTID() {
        let key = BlueskyPublisher.recordKey(for: samplePost)
        #expect(key.count == 13)
        #expect(key == BlueskyPublisher.recordKey(for: samplePost))
        #expect(key.allSatisfy { "234567abcdefghijklmnopqrstuvwxyz".contains($0) })
        #expect("234567abcdefghij".contains(key.first!))  // the top bit is 0
        var later = samplePost
        later.window.start = samplePost.window.start + .seconds(1800)
        later.idempotencyKey = Post.idempotencyKey(for: later.window)
        #expect(BlueskyPublisher.recordKey(for: later) > key)  // TIDs sort by time
        var sameStart = samplePost
        sameStart.idempotencyKey = Post.idempotencyKey(
            for: TimeWindow(start: samplePost.window.start, end: samplePost.window.end + .seconds(60)))
        #expect(BlueskyPublisher.recordKey(for: sameStart) != key)
    }

    @Test func logsInOnceAndPostsWithTheDeterministicKey() async throws {
        let pds = FakePDS(accessExp: Int(Self.start.timeIntervalSince1970) + 7200)
        let clock = ManualClock(Self.start)
        let (server, publisher) = try await make(pds, clock: clock)
        defer { Task { await server.stop() } }
        let rkey = BlueskyPublisher.recordKey(for: samplePost)
        #expect(
            await publisher.publish(samplePost, deadline: soon())
                == .delivered(remoteID: "at://did:plc:abc123/app.bsky.feed.post/\(rkey)"))
        var second = samplePost
        second.window.start = samplePost.window.end
        second.window.end = samplePost.window.end + .seconds(1800)
        second.idempotencyKey = Post.idempotencyKey(for: second.window)
        guard case .delivered = await publisher.publish(second, deadline: soon()) else {
            Issue.record("second post")
            return
        }
        #expect(await pds.sessionsCreated == 1)
        #expect(await pds.records[rkey] == samplePost.text)
        let create = try #require(await server.requests.first { $0.path.hasSuffix("createRecord") })
        #expect((create.json?["record"] as? [String: Any])?["langs"] as? [String] == ["ja"])
        #expect(create.json?["collection"] as? String == "app.bsky.feed.post")
    }

    /// Bluesky does not find links in `text`: a link needs a facet with UTF-8 byte offsets (posting-targets.md §4),
    /// or it shows as plain text. Each URL (with `https://` added when written without) gets one.
    @Test func linksInTheTextGetLinkFacetsAtTheirByteOffsets() async throws {
        let pds = FakePDS(accessExp: Int(Self.start.timeIntervalSince1970) + 7200)
        let (server, publisher) = try await make(pds, clock: ManualClock(Self.start))
        defer { Task { await server.stop() } }
        var post = samplePost
        post.text = "今日は 1234 歩 〜 https://example.com/steps?d=1 と example.org 👟"
        guard case .delivered = await publisher.publish(post, deadline: soon()) else {
            Issue.record("not delivered")
            return
        }
        let create = try #require(await server.requests.first { $0.path.hasSuffix("createRecord") })
        let record = try #require(create.json?["record"] as? [String: Any])
        let facets = try #require(record["facets"] as? [[String: Any]])
        let bytes = Array(post.text.utf8)
        let links = facets.map { facet -> (text: String, uri: String?) in
            let index = facet["index"] as? [String: Any]
            let start = index?["byteStart"] as? Int ?? 0
            let end = index?["byteEnd"] as? Int ?? 0
            let feature = (facet["features"] as? [[String: Any]])?.first
            #expect(feature?["$type"] as? String == "app.bsky.richtext.facet#link")
            let text = start < end && end <= bytes.count ? String(decoding: bytes[start..<end], as: UTF8.self) : ""
            return (text, feature?["uri"] as? String)
        }
        #expect(links.map(\.text) == ["https://example.com/steps?d=1", "example.org"])
        #expect(links.map(\.uri) == ["https://example.com/steps?d=1", "https://example.org"])
        // A text without a link has no facets.
        var plain = samplePost
        plain.idempotencyKey = "plain"
        plain.window.start = plain.window.start + .seconds(1800)
        _ = await publisher.publish(plain, deadline: soon())
        let second = try #require(await server.requests.last { $0.path.hasSuffix("createRecord") })
        #expect((second.json?["record"] as? [String: Any])?["facets"] == nil)
    }

    @Test func aRepeatedPostIsFoundInsteadOfDuplicated() async throws {
        let pds = FakePDS(accessExp: Int(Self.start.timeIntervalSince1970) + 7200)
        let (server, publisher) = try await make(pds, clock: ManualClock(Self.start))
        defer { Task { await server.stop() } }
        guard case .delivered(let uri) = await publisher.publish(samplePost, deadline: soon()) else {
            Issue.record("first")
            return
        }
        #expect(await publisher.publish(samplePost, deadline: soon()) == .alreadyDelivered(remoteID: uri))
        #expect(await pds.records.count == 1)
    }

    @Test func expiredAccessTokenIsRefreshedByItsExpiry() async throws {
        let pds = FakePDS(accessExp: Int(Self.start.timeIntervalSince1970) + 7200)
        let clock = ManualClock(Self.start)
        let (server, publisher) = try await make(pds, clock: clock)
        defer { Task { await server.stop() } }
        guard case .delivered = await publisher.publish(samplePost, deadline: soon()) else {
            Issue.record("first")
            return
        }
        await clock.advance(by: 7200)  // the access JWT's exp has passed
        var later = samplePost
        later.window.start = later.window.start + .seconds(7200)
        later.idempotencyKey = "later"
        guard case .delivered = await publisher.publish(later, deadline: soon()) else {
            Issue.record("after expiry")
            return
        }
        #expect(await pds.refreshes == 1)
        #expect(await pds.sessionsCreated == 1)
        let refresh = try #require(await server.requests.first { $0.path.hasSuffix("refreshSession") })
        let refreshJwt = fakeJWT(exp: Int(Self.start.timeIntervalSince1970) + 7200 + 7_776_000, tag: "refresh1")
        #expect(refresh.headers["authorization"] == "Bearer \(refreshJwt)")
    }

    /// A refresh token the server no longer takes (expired after 90 days, revoked): the publisher logs in again
    /// and posts, instead of failing every post until it is restarted.
    @Test func aRefusedRefreshLogsInAgain() async throws {
        let pds = FakePDS(accessExp: Int(Self.start.timeIntervalSince1970) + 7200)
        let clock = ManualClock(Self.start)
        let (server, publisher) = try await make(pds, clock: clock)
        defer { Task { await server.stop() } }
        guard case .delivered = await publisher.publish(samplePost, deadline: soon()) else {
            Issue.record("first")
            return
        }
        await pds.forgetRefreshTokens()
        await clock.advance(by: 7200)
        var later = samplePost
        later.window.start = later.window.start + .seconds(7200)
        later.idempotencyKey = "later"
        guard case .delivered = await publisher.publish(later, deadline: soon()) else {
            Issue.record("after the refresh was refused")
            return
        }
        #expect(await pds.refreshes == 0)
        #expect(await pds.sessionsCreated == 2)
        #expect(await pds.records.count == 2)
        #expect(await server.requests.contains { $0.path.hasSuffix("refreshSession") })
    }

    @Test func serverSideExpiredTokenRefreshesAndRetriesOnce() async throws {
        let pds = FakePDS(accessExp: Int(Self.start.timeIntervalSince1970) + 7200)
        let (server, publisher) = try await make(pds, clock: ManualClock(Self.start))
        defer { Task { await server.stop() } }
        guard case .delivered = await publisher.publish(samplePost, deadline: soon()) else {
            Issue.record("first")
            return
        }
        await pds.setExpireNextCreate()
        var later = samplePost
        later.idempotencyKey = "later"
        later.window.start = later.window.start + .seconds(1800)
        guard case .delivered = await publisher.publish(later, deadline: soon()) else {
            Issue.record("after ExpiredToken")
            return
        }
        #expect(await pds.refreshes == 1)
        #expect(await pds.records.count == 2)
    }

    @Test func wrongPasswordIsPermanentAndNotShown() async throws {
        let pds = FakePDS(accessExp: Int(Self.start.timeIntervalSince1970) + 7200)
        let server = try await FakeHTTPServer.start { request, _ in await pds.handle(request) }
        defer { Task { await server.stop() } }
        let publisher = BlueskyPublisher(
            baseURL: server.baseURL, identifier: "steps.test", password: "wrong-pass-1", context: server.context)
        let outcome = await publisher.publish(samplePost, deadline: soon())
        #expect(
            outcome
                == .permanent(reason: "login failed: HTTP 401: AuthenticationRequired Invalid identifier or password"))
        #expect(!publisher.redactedDescription.contains("wrong-pass-1"))
    }

    @Test func over300GraphemesIsRefusedBeforeLoggingIn() async throws {
        let pds = FakePDS(accessExp: 0)
        let (server, publisher) = try await make(pds, clock: ManualClock(Self.start))
        defer { Task { await server.stop() } }
        var post = samplePost
        post.text = String(repeating: "👨‍👩‍👧", count: 301)
        guard case .permanent = await publisher.publish(post, deadline: soon()) else {
            Issue.record("not permanent")
            return
        }
        #expect(await server.requests.isEmpty)
    }
}

/// Wakes whoever waits for a named event once it has happened (or at once if it has).
actor Events {
    private var happened: Set<String> = []
    private var waiting: [String: [CheckedContinuation<Void, Never>]] = [:]

    func happen(_ event: String) {
        happened.insert(event)
        for waiter in waiting.removeValue(forKey: event) ?? [] { waiter.resume() }
    }

    func wait(_ event: String) async {
        if happened.contains(event) { return }
        await withCheckedContinuation { waiting[event, default: []].append($0) }
    }
}

/// A store that says when it has stored its `n`th entry (`stored n`).
actor SignallingTargetInfoCache: TargetInfoCache {
    let inner = InMemoryTargetInfoCache()
    let events: Events
    var stores = 0

    init(events: Events) { self.events = events }

    func readInfo(_ key: String) async throws -> TargetInfo? { await inner.readInfo(key) }
    func storeDurably(_ info: TargetInfo, for key: String) async throws {
        await inner.storeDurably(info, for: key)
        stores += 1
        await events.happen("stored \(stores)")
    }
}

/// The session outlives the process: a `steptweet fetch` from cron is a new process every few minutes, and
/// createSession allows 30 per 5 minutes and 300 a day. Each publisher here is a new process on one store (the
/// state database in the agent), against a PDS on 127.0.0.1.
@Suite(.timeLimit(.minutes(1))) struct BlueskyStoredSessionTests {
    static let start = BlueskyPublisherTests.start
    static let accessExp = Int(start.timeIntervalSince1970) + 7200

    func post(_ n: Int) -> Post {
        var post = samplePost
        post.window.start = samplePost.window.start + .seconds(Double(n) * 1800)
        post.window.end = post.window.start + .seconds(1800)
        post.idempotencyKey = Post.idempotencyKey(for: post.window)
        return post
    }

    func process(
        _ server: LoopbackServer, _ cache: any TargetInfoCache, _ clock: ManualClock, password: String = "app-pass-xyz"
    )
        -> BlueskyPublisher
    {
        BlueskyPublisher(
            baseURL: server.baseURL, identifier: "steps.test", password: password,
            context: HTTPContext(clock: clock.wall, infoCache: cache))
    }

    func delivered(_ outcome: DeliveryOutcome) -> Bool {
        if case .delivered = outcome { return true }
        Issue.record("\(outcome)")
        return false
    }

    @Test func aSecondProcessOnTheSameStoreDoesNotLogIn() async throws {
        let pds = FakePDS(accessExp: Self.accessExp)
        let server = try await LoopbackServer.start { request, _ in await pds.handle(request) }
        defer { Task { await server.stop() } }
        let cache = InMemoryTargetInfoCache()
        let clock = ManualClock(Self.start)
        #expect(delivered(await process(server, cache, clock).publish(post(0), deadline: soon())))
        #expect(delivered(await process(server, cache, clock).publish(post(1), deadline: soon())))
        #expect(await pds.sessionsCreated == 1)
        #expect(await pds.refreshes == 0)
        let auth = await server.requests.filter { $0.path.hasSuffix("createRecord") }.map {
            $0.headers["authorization"]
        }
        #expect(auth.count == 2 && auth[0] == auth[1], "the second process posts with the stored access JWT")
        // What is stored: the session's three fields, under the server, the account and the password's fingerprint.
        let key = BlueskyLogin(baseURL: server.baseURL, identifier: "steps.test", password: "app-pass-xyz").storageKey
        #expect(key.hasPrefix("bluesky.session \(server.baseURL.absoluteString) steps.test "))
        #expect(!key.contains("app-pass-xyz"))
        let stored = try #require(await cache.readInfo(key).flatMap { BlueskySession(json: $0.value) })
        #expect(stored.did == "did:plc:abc123")
        #expect(stored.expiresAt == Date(timeIntervalSince1970: Double(Self.accessExp)))

        // A changed app password starts afresh: it logs in, whatever the old password's session still holds.
        let otherKey = BlueskyLogin(baseURL: server.baseURL, identifier: "steps.test", password: "app-pass-new")
            .storageKey
        #expect(otherKey != key)
        let changed = await process(server, cache, clock, password: "app-pass-new").publish(post(2), deadline: soon())
        #expect(
            changed
                == .permanent(reason: "login failed: HTTP 401: AuthenticationRequired Invalid identifier or password"))
        #expect(await pds.sessionsCreated == 1)
    }

    @Test func anExpiredStoredAccessJWTIsRefreshedNotLoggedIn() async throws {
        let pds = FakePDS(accessExp: Self.accessExp)
        let server = try await LoopbackServer.start { request, _ in await pds.handle(request) }
        defer { Task { await server.stop() } }
        let cache = InMemoryTargetInfoCache()
        let clock = ManualClock(Self.start)
        #expect(delivered(await process(server, cache, clock).publish(post(0), deadline: soon())))
        await clock.advance(by: 7200 - 300)  // within the margin of its exp
        await pds.issueAccessJWTs(expiringAt: Self.accessExp + 7200)
        #expect(delivered(await process(server, cache, clock).publish(post(1), deadline: soon())))
        #expect(await pds.sessionsCreated == 1)
        #expect(await pds.refreshes == 1)
        let refresh = try #require(await server.requests.first { $0.path.hasSuffix("refreshSession") })
        #expect(
            refresh.headers["authorization"] == "Bearer " + fakeJWT(exp: Self.accessExp + 7_776_000, tag: "refresh1"))
        // The rotated refresh JWT is what the next process has.
        await clock.advance(by: 7200)
        #expect(delivered(await process(server, cache, clock).publish(post(2), deadline: soon())))
        let refreshes = await server.requests.filter { $0.path.hasSuffix("refreshSession") }
        #expect(refreshes.count == 2)
        #expect(
            refreshes.last?.headers["authorization"]
                == "Bearer " + fakeJWT(exp: Self.accessExp + 7200 + 7_776_000, tag: "refresh2"))
        #expect(await pds.sessionsCreated == 1)
    }

    /// A stored refresh JWT the server refuses (older than 90 days, revoked): the next process logs in again.
    @Test func aRefusedStoredRefreshJWTLogsInAgain() async throws {
        let pds = FakePDS(accessExp: Self.accessExp)
        let server = try await LoopbackServer.start { request, _ in await pds.handle(request) }
        defer { Task { await server.stop() } }
        let cache = InMemoryTargetInfoCache()
        let clock = ManualClock(Self.start)
        #expect(delivered(await process(server, cache, clock).publish(post(0), deadline: soon())))
        await pds.forgetRefreshTokens()
        await clock.advance(by: 7200)
        await pds.issueAccessJWTs(expiringAt: Self.accessExp + 7200)
        #expect(delivered(await process(server, cache, clock).publish(post(1), deadline: soon())))
        #expect(await pds.sessionsCreated == 2)
        #expect(await pds.refreshes == 0)
        #expect(
            await server.requests.map(\.path).suffix(3) == [
                "/xrpc/com.atproto.server.refreshSession", "/xrpc/com.atproto.server.createSession",
                "/xrpc/com.atproto.repo.createRecord",
            ])
        // The new login is stored: a third process neither refreshes nor logs in.
        #expect(delivered(await process(server, cache, clock).publish(post(2), deadline: soon())))
        #expect(await pds.sessionsCreated == 2)
        #expect(await pds.refreshes == 0)
    }

    /// Two processes find the same expired session and both refresh it. The PDS takes the first refresh and refuses
    /// the second (its refresh JWT is used). The loser takes what the winner stored; when the winner has stored
    /// nothing yet, it logs in again.
    @Test(arguments: [true, false]) func twoProcessesRefreshingAtOnce(winnerStoresFirst: Bool) async throws {
        let pds = FakePDS(accessExp: Self.accessExp)
        let events = Events()
        let arrivals = Counter()
        let server = try await LoopbackServer.start { request, _ in
            guard request.path.hasSuffix("refreshSession") else {
                if request.path.hasSuffix("createSession"), await pds.sessionsCreated == 1 {
                    await events.happen("second login")
                }
                return await pds.handle(request)
            }
            if await arrivals.next() == 1 {
                // Answered by the PDS once the second has arrived: both were sent with the same refresh JWT.
                await events.wait("second refresh")
                let answer = await pds.handle(request)
                await events.happen("first refresh handled")
                // The winner's answer is late: the loser, refused meanwhile, finds nothing newer stored.
                if !winnerStoresFirst { await events.wait("second login") }
                return answer
            }
            await events.happen("second refresh")
            await events.wait("first refresh handled")
            if winnerStoresFirst { await events.wait("stored 2") }
            return await pds.handle(request)
        }
        defer { Task { await server.stop() } }
        let cache = SignallingTargetInfoCache(events: events)
        let clock = ManualClock(Self.start)
        #expect(delivered(await process(server, cache, clock).publish(post(0), deadline: soon())))
        await clock.advance(by: 7200)
        await pds.issueAccessJWTs(expiringAt: Self.accessExp + 7200)
        async let first = process(server, cache, clock).publish(post(1), deadline: soon())
        async let second = process(server, cache, clock).publish(post(2), deadline: soon())
        let outcomes = await [first, second]
        #expect(outcomes.allSatisfy(delivered))
        #expect(await server.requests.filter { $0.path.hasSuffix("refreshSession") }.count == 2)
        #expect(await pds.refreshes == 1)
        #expect(await pds.sessionsCreated == (winnerStoresFirst ? 1 : 2))
        #expect(await pds.records.count == 3)
    }

    /// A session that cannot be stored is not used: the post is retried later (nothing was sent), and the next
    /// attempt stores it first instead of logging in again.
    @Test func aSessionThatCannotBeStoredIsStoredBeforeTheNextPost() async throws {
        let pds = FakePDS(accessExp: Self.accessExp)
        let server = try await LoopbackServer.start { request, _ in await pds.handle(request) }
        defer { Task { await server.stop() } }
        let cache = FlakyTargetInfoCache()
        let publisher = process(server, cache, ManualClock(Self.start))
        await cache.fail(2)
        let outcome = await publisher.publish(post(0), deadline: soon())
        guard case .retryable(let reason, nil, unconfirmed: false) = outcome else {
            Issue.record("\(outcome)")
            return
        }
        #expect(reason.contains("the new Bluesky session could not be stored (database or disk is full)"), "\(reason)")
        #expect(!reason.contains("eyJ"), "\(reason)")
        #expect(await pds.records.isEmpty)
        #expect(delivered(await publisher.publish(post(0), deadline: soon())))
        #expect(await pds.sessionsCreated == 1)
    }
}
