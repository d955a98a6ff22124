import Agent
import Clocks
import FlyingFox
import Foundation
import Publishing
import Testing
import WallTime

@testable import Store

/// Mastodon's real limit is read from `/api/v2/instance` once and kept in the state database for a day, so that
/// one-shot fetches (cron, a timer: a new process each time) do not ask on every run.
@Suite(.timeLimit(.minutes(1))) struct TargetInfoCacheTests {
    @Test func theInstanceLimitIsAskedOnceAcrossProcessesAndKeptInTheStateDatabase() async throws {
        let dir = try TempDir()
        let server = try await LoopbackServer.start { request, n in
            if request.path == "/api/v2/instance" {
                return jsonResponse(200, ["configuration": ["statuses": ["max_characters": 1000]]])
            }
            return jsonResponse(200, ["id": "\(n)"])
        }
        let token = try dir.write("token", "secret-token\n")
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: token)
        let publish =
            "[[publish]]\nkind = \"mastodon\"\nbase_url = \"\(server.baseURL.absoluteString)\"\ntoken_file = \"\(token)\"\n"
        let t0 = Fixture.date("2026-11-21T10:00:00+09:00")
        // Two fetches, each with a configuration of its own, as two runs of `steptweet fetch` would have.
        for minutes in [10.0, 40.0] {
            let config = try Fixture.config(dir: dir, schedule: "post_zero = true", publish: publish)
            let report = await Fetcher(configuration: config, clock: ContinuousClock()).fetch(
                now: Instant(t0.addingTimeInterval(minutes * 60)), trigger: [.manual])
            #expect(report.result == .newData, "\(report.line)")
        }
        #expect(await server.requests.filter { $0.path == "/api/v1/statuses" }.count == 2, "both fetches posted")
        let asked = await server.requests.filter { $0.path == "/api/v2/instance" }.count
        #expect(asked == 1, "the limit was read once and kept")
        let cache = StateTargetInfoCache(statePath: dir.path("state.sqlite"))
        let kept = await cache.info("mastodon.max_characters \(server.baseURL.absoluteString)")
        #expect(kept?.value == "1000")
        await server.stop()
    }
}

/// X's rotated OAuth 2.0 refresh token lives in the same table, where losing it would cost the person a new
/// authorization: `storeDurably` commits before it returns and throws when it cannot, and what it stored is what a
/// new process reads.
@Suite(.timeLimit(.minutes(1))) struct DurableTargetInfoTests {
    @Test func aStoredEntryIsReadByAnotherProcessAndAFailedStoreThrows() async throws {
        let dir = try TempDir()
        let at = Date(timeIntervalSince1970: 1_795_316_400)
        try await StateTargetInfoCache(statePath: dir.path("state.sqlite")).storeDurably(
            TargetInfo(value: #"{"refresh_token":"rt-1"}"#, storedAt: at), for: "oauth2.tokens k")
        let reopened = StateTargetInfoCache(statePath: dir.path("state.sqlite"))
        #expect(
            try await reopened.readInfo("oauth2.tokens k")
                == TargetInfo(value: #"{"refresh_token":"rt-1"}"#, storedAt: at))
        #expect(try await reopened.readInfo("other") == nil)

        // A state path through a file: nothing can be opened, read or stored, and each says so.
        let blocked = StateTargetInfoCache(statePath: try dir.write("file", "x") + "/state.sqlite")
        await #expect(throws: (any Error).self) {
            try await blocked.storeDurably(TargetInfo(value: "v", storedAt: at), for: "k")
        }
        await #expect(throws: (any Error).self) { try await blocked.readInfo("k") }
        #expect(await blocked.info("k") == nil, "a fact to ask for again is just missing")
    }

    /// The state holds refresh tokens and sessions: a new database, its log and its index are its owner's alone,
    /// whatever the umask (an existing database keeps the mode its owner gave it).
    @Test func aNewStateIsReadableByItsOwnerAlone() async throws {
        let dir = try TempDir()
        let path = dir.path("state.sqlite")
        let previous = umask(0o022)
        defer { umask(previous) }
        let cache = StateTargetInfoCache(statePath: path)
        try await cache.storeDurably(TargetInfo(value: "v", storedAt: Date()), for: "k")
        for file in [path, path + "-wal", path + "-shm"] {
            let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
            #expect(mode == 0o600, "\(file): \(String(mode ?? 0, radix: 8))")
        }
    }

    /// The agent's publishers are rebuilt from the configuration on every start: the stored refresh token, not the
    /// configured seed (used up by the first refresh), is what the next process refreshes with.
    @Test func anXRefreshTokenRotatedByOneProcessIsUsedByTheNext() async throws {
        let dir = try TempDir()
        let issued = IssuedTokens()
        let server = try await LoopbackServer.start { request, _ in
            if request.path == "/2/oauth2/token" {
                let n = await issued.next()
                let expected = n == 1 ? "rt-seed" : "rt-\(n - 1)"
                guard request.text.contains("refresh_token=\(expected)&") else {
                    return jsonResponse(
                        400,
                        ["error": "invalid_request", "error_description": "Value passed for the token was invalid."])
                }
                return jsonResponse(
                    200, ["access_token": "at-\(n)", "refresh_token": "rt-\(n)", "expires_in": 7200, "scope": "s"])
            }
            return jsonResponse(201, ["data": ["id": "1"]])
        }
        defer { Task { await server.stop() } }
        let clock = TestClock<Duration>()
        let wall = WallClock(clock, startingAt: Date(timeIntervalSince1970: 1_795_316_400))
        func process() -> XPublisher {
            XPublisher(
                baseURL: server.baseURL,
                authentication: .oauth2(
                    OAuth2Client(tokenURL: server.url("/2/oauth2/token"), clientID: "cid", refreshToken: "rt-seed")),
                context: HTTPContext(clock: wall, infoCache: StateTargetInfoCache(statePath: dir.path("state.sqlite"))))
        }
        let post = Post(
            text: "steps", window: TimeWindow(start: Instant(secondsSinceEpoch: 0), end: Instant(secondsSinceEpoch: 60))
        )
        let deadline = Deadline(in: .seconds(10), clock: TestClock<Duration>())
        for _ in 0..<3 {
            #expect(await process().publish(post, deadline: deadline) == .delivered(remoteID: "1"))
            await clock.advance(by: .seconds(7200))
        }
        #expect(await issued.value == 3)
        let authorizations = await server.requests.filter { $0.path == "/2/tweets" }.map { $0.headers["authorization"] }
        #expect(authorizations == ["Bearer at-1", "Bearer at-2", "Bearer at-3"])
    }
}

/// How many token pairs the fake token endpoint has issued.
private actor IssuedTokens {
    var value = 0
    func next() -> Int {
        value += 1
        return value
    }
}

/// Bluesky's session lives in the state database too: `createSession` is limited to 30 per 5 minutes and 300 a day,
/// and a `steptweet fetch` from cron every 5 minutes is a new process 288 times a day.
@Suite(.timeLimit(.minutes(1))) struct BlueskyStateDatabaseTests {
    @Test func tenProcessesOnOneStateLogInOnce() async throws {
        let dir = try TempDir()
        let logins = IssuedTokens()
        let server = try await LoopbackServer.start { request, n in
            switch request.path {
            case "/xrpc/com.atproto.server.createSession":
                let login = await logins.next()
                return jsonResponse(
                    200, ["accessJwt": "access-\(login)", "refreshJwt": "refresh-\(login)", "did": "did:plc:s"])
            case "/xrpc/com.atproto.repo.createRecord":
                return jsonResponse(200, ["uri": "at://did:plc:s/app.bsky.feed.post/\(n)", "cid": "c"])
            default:
                return jsonResponse(404, ["error": "MethodNotImplemented"])
            }
        }
        defer { Task { await server.stop() } }
        for process in 0..<10 {
            let publisher = BlueskyPublisher(
                baseURL: server.baseURL, identifier: "steps.test", password: "app-pass",
                context: HTTPContext(infoCache: StateTargetInfoCache(statePath: dir.path("state.sqlite"))))
            let start = Date(timeIntervalSince1970: 1_795_316_400 + Double(process) * 300)
            let post = Post(
                text: "steps \(process)", window: TimeWindow(start: start, end: start.addingTimeInterval(300)))
            let outcome = await publisher.publish(
                post, deadline: Deadline(in: .seconds(10), clock: TestClock<Duration>()))
            guard case .delivered = outcome else {
                Issue.record("process \(process): \(outcome)")
                return
            }
        }
        let created = await logins.value
        print("createSession calls for 10 processes on one state: \(created)")
        #expect(created == 1)
    }
}
