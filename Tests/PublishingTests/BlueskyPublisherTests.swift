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
    let accessExp: Int
    var expireNextCreate = false

    init(accessExp: Int) { self.accessExp = accessExp }

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
        later.windowStart = samplePost.windowStart.addingTimeInterval(1800)
        later.idempotencyKey = Post.idempotencyKey(windowStart: later.windowStart, windowEnd: later.windowEnd)
        #expect(BlueskyPublisher.recordKey(for: later) > key)  // TIDs sort by time
        var sameStart = samplePost
        sameStart.idempotencyKey = Post.idempotencyKey(
            windowStart: samplePost.windowStart, windowEnd: samplePost.windowEnd.addingTimeInterval(60))
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
        second.windowStart = samplePost.windowEnd
        second.windowEnd = samplePost.windowEnd.addingTimeInterval(1800)
        second.idempotencyKey = Post.idempotencyKey(windowStart: second.windowStart, windowEnd: second.windowEnd)
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
        plain.windowStart = plain.windowStart.addingTimeInterval(1800)
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
        later.windowStart = later.windowStart.addingTimeInterval(7200)
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
        later.windowStart = later.windowStart.addingTimeInterval(7200)
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
        later.windowStart = later.windowStart.addingTimeInterval(1800)
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
