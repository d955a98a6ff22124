import Clocks
import FlyingFox
import Foundation
import Messages
import TestSupport
import Testing
import WallTime

@testable import Publishing

/// Exactly once on Mastodon-API servers that ignore `Idempotency-Key` (Takahē, GoToSocial; Mastodon after an hour):
/// a real socket on 127.0.0.1 with a server that posts every request it gets, and renders statuses as HTML.
@Suite struct MastodonLookupTests {
    /// A small Mastodon-API server without idempotency: keeps statuses, serves `verify_credentials`,
    /// `accounts/:id/statuses` and `/api/v2/instance`.
    actor Server {
        /// What the server puts in a status's `text` (and how it renders `content`).
        enum Style: CaseIterable, Sendable {
            /// Mastodon: no `text` key.
            case omitted
            /// Mastodon with `text: null`.
            case null
            /// Takahē: the HTML of `content` again.
            case html
            /// GoToSocial: the plain-text source.
            case plain
            /// Pleroma, Akkoma: `text: null`, lines as `<br/>` without paragraphs, the source in
            /// `pleroma.content["text/plain"]`.
            case pleroma
        }
        let style: Style
        init(style: Style = .omitted) { self.style = style }
        var statuses: [(id: String, created: String, text: String)] = []
        /// When set, the next post is kept but never answered (its answer is "lost").
        var loseNextAnswer = false
        func loseNext() { loseNextAnswer = true }
        func post(_ text: String, createdAt: String) -> (id: String, lost: Bool) {
            let id = "1100\(statuses.count + 1)"
            statuses.append((id, createdAt, text))
            defer { loseNextAnswer = false }
            return (id, loseNextAnswer)
        }
        /// As Mastodon renders plain text: escaped, lines as `<br />`, paragraphs as `<p>`.
        static func html(_ text: String) -> String {
            let escaped = text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
                .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
                .replacingOccurrences(of: "'", with: "&#39;")
            return "<p>"
                + escaped.replacingOccurrences(of: "\n\n", with: "</p><p>").replacingOccurrences(
                    of: "\n", with: "<br />") + "</p>"
        }
        /// The account's statuses, newest first, as JSON.
        func list() -> Data {
            let list = statuses.reversed().map { status -> [String: Any] in
                var entry: [String: Any] = ["id": status.id, "created_at": status.created]
                entry["content"] = Self.html(status.text)
                switch style {
                case .omitted: break
                case .null: entry["text"] = NSNull()
                case .html: entry["text"] = Self.html(status.text)
                case .plain: entry["text"] = status.text
                case .pleroma:
                    entry["text"] = NSNull()
                    entry["content"] = Self.html(status.text).replacingOccurrences(of: "<br />", with: "<br/>")
                        .replacingOccurrences(of: "</p><p>", with: "<br/><br/>").replacingOccurrences(
                            of: "<p>", with: ""
                        )
                        .replacingOccurrences(of: "</p>", with: "")
                    entry["pleroma"] = ["content": ["text/plain": status.text]]
                }
                return entry
            }
            return (try? JSONSerialization.data(withJSONObject: list)) ?? Data()
        }
    }

    static let post = Post(
        text: "11/21 10:00 〜 10:30: 1234 歩 & <more>\n\n\"Tweet\" by background fetch",
        window: TimeWindow(
            start: Instant(secondsSinceEpoch: 1_795_314_000), end: Instant(secondsSinceEpoch: 1_795_315_800)))
    static let afterWindow = "2026-11-22T02:51:00.000Z"  // a minute after the window's end

    func start(_ state: Server, clock: TestClock<Duration>, tokenOK: Bool = true) async throws -> LoopbackServer {
        try await LoopbackServer.start { request, _ in
            guard request.headers["authorization"] == "Bearer tok-m" || request.path == "/api/v2/instance" else {
                return jsonResponse(401, ["error": "Invalid Bearer token"])
            }
            switch (request.method, request.path) {
            case ("GET", "/api/v2/instance"):
                return jsonResponse(200, ["configuration": ["statuses": ["max_characters": 1000]]])
            case ("POST", "/api/v1/statuses"):  // Idempotency-Key ignored
                let made = await state.post(request.json?["status"] as? String ?? "", createdAt: Self.afterWindow)
                if made.lost {
                    await clock.advance(by: .seconds(60))
                    return try await neverAnswer()
                }
                return jsonResponse(200, ["id": made.id])
            case ("GET", "/api/v1/accounts/verify_credentials"):
                return tokenOK
                    ? jsonResponse(200, ["id": "77", "username": "steps"])
                    : jsonResponse(401, ["error": "Invalid Bearer token"])
            case ("GET", "/api/v1/accounts/77/statuses"):
                return HTTPResponse(
                    statusCode: .ok, headers: [HTTPHeader("Content-Type"): "application/json"], body: await state.list()
                )
            default:
                return jsonResponse(404, ["error": "Record not found"])
            }
        }
    }

    @Test func aPostWhoseAnswerWasLostIsFoundInsteadOfPostedAgain() async throws {
        let state = Server()
        let clock = TestClock<Duration>()
        let server = try await start(state, clock: clock)
        defer { Task { await server.stop() } }
        let mastodon = MastodonPublisher(baseURL: server.baseURL, token: "tok-m")
        await state.loseNext()
        let first = await mastodon.publish(Self.post, deadline: Deadline(in: .seconds(30), clock: clock))
        #expect(first == .retryable(reason: DeadlineTests.deadlineReason, retryAfter: nil, unconfirmed: true))
        #expect(mastodon.repeatsDuplicate)
        #expect(await mastodon.lookUp(Self.post, deadline: soon()) == .found(remoteID: "11001"))
        var other = Self.post
        other.text = "another window: 99 歩"
        #expect(await mastodon.lookUp(other, deadline: soon()) == .notFound)
        // What the look-up prevents: this server posts a repeat with the same key a second time.
        #expect(await mastodon.publish(Self.post, deadline: soon()) == .delivered(remoteID: "11002"))
        #expect(await state.statuses.count == 2)
        let lookups = await server.requests.filter { $0.path.hasPrefix("/api/v1/accounts/77/statuses") }
        #expect(lookups.allSatisfy { $0.query["exclude_reblogs"] == "true" && $0.query["limit"] == "40" })
    }

    /// Takahē put the HTML in `text` too, and the plain text compared with it alone missed the post: sent again.
    @Test(arguments: Server.Style.allCases)
    func aPostWhoseAnswerWasLostIsFoundWhateverTheServerPutsInText(style: Server.Style) async throws {
        let state = Server(style: style)
        let clock = TestClock<Duration>()
        let server = try await start(state, clock: clock)
        defer { Task { await server.stop() } }
        let mastodon = MastodonPublisher(baseURL: server.baseURL, token: "tok-m")
        await state.loseNext()
        _ = await mastodon.publish(Self.post, deadline: Deadline(in: .seconds(30), clock: clock))
        #expect(await mastodon.lookUp(Self.post, deadline: soon()) == .found(remoteID: "11001"))
        var other = Self.post
        other.text = "another window: 99 歩"
        #expect(await mastodon.lookUp(other, deadline: soon()) == .notFound)
        #expect(await state.statuses.count == 1)
    }

    @Test func aRemoteMentionShownWithoutItsDomainIsTheSameText() {
        var post = Self.post
        post.text = "@alice@example.social 1234 歩"
        let match = PostMatch(post: post, text: post.text)
        #expect(
            match.isText(
                #"<p><span class="h-card"><a href="https://example.social/@alice" class="u-url mention">@<span>alice</span></a></span> 1234 歩</p>"#
            ))
        #expect(!match.isText("<p>@bob 1234 歩</p>"))
        #expect(!match.isText("<p>1234 歩</p>"))
    }

    @Test func anOlderStatusWithTheSameTextIsNotThePost() async throws {
        let state = Server()
        let clock = TestClock<Duration>()
        let server = try await start(state, clock: clock)
        defer { Task { await server.stop() } }
        _ = await state.post(Self.post.text, createdAt: "2026-11-21T02:51:00Z")  // the day before
        let mastodon = MastodonPublisher(baseURL: server.baseURL, token: "tok-m")
        #expect(await mastodon.lookUp(Self.post, deadline: soon()) == .notFound)
    }

    @Test func aFailedLookUpSaysSoAndKeepsTheServersWords() async throws {
        let state = Server()
        let clock = TestClock<Duration>()
        let server = try await start(state, clock: clock, tokenOK: false)
        defer { Task { await server.stop() } }
        let mastodon = MastodonPublisher(baseURL: server.baseURL, token: "tok-m")
        // Takahē's answer to a bad token stays readable: only the token we sent is a secret.
        #expect(await mastodon.lookUp(Self.post, deadline: soon()) == .failed(reason: "HTTP 401: Invalid Bearer token"))
    }

    @Test func plainTextFromStatusHTML() {
        #expect(PostMatch.plainText(Server.html(Self.post.text)) == PostMatch.normalized(Self.post.text))
        #expect(
            PostMatch.plainText(
                #"<p>see <a href="https://x.example/a"><span class="invisible">https://</span><span class="">x.example/a</span></a> &#x1F463;&#128099;</p>"#
            )
                == "see https://x.example/a 👣👣")
        #expect(PostMatch.decodeEntities("a &unknown; & b &amp") == "a &unknown; & b &amp")
    }
}

/// Mastodon's real limit: read once from `/api/v2/instance`, kept a day, 500 when the server does not say,
/// `max_characters` an override.
@Suite struct MastodonInstanceLimitTests {
    static func server(limit: Int?) async throws -> FakeHTTPServer {
        try await FakeHTTPServer.start { request, _ in
            if request.path == "/api/v2/instance" {
                guard let limit else { return jsonResponse(404, ["error": "Not found"]) }
                return jsonResponse(
                    200, ["uri": "m.example", "configuration": ["statuses": ["max_characters": limit]]])
            }
            return jsonResponse(200, ["id": "5"])
        }
    }

    @Test func theInstancesLimitIsReadOnceAndKeptADay() async throws {
        let server = try await Self.server(limit: 1000)
        let clock = ManualClock(Date(timeIntervalSince1970: 1_795_316_400))
        let cache = InMemoryTargetInfoCache()
        let context = HTTPContext(transport: server, clock: clock.wall, infoCache: cache)
        let mastodon = MastodonPublisher(baseURL: server.baseURL, token: "t", context: context)
        var long = samplePost
        long.text = String(repeating: "歩", count: 900)
        #expect(await mastodon.publish(long, deadline: soon()) == .delivered(remoteID: "5"))
        #expect(await mastodon.publish(long, deadline: soon()) == .delivered(remoteID: "5"))
        #expect(
            await cache.info("mastodon.max_characters http://127.0.0.1:9")
                == TargetInfo(value: "1000", storedAt: clock.now()))
        await clock.advance(by: 86_399)
        _ = await mastodon.publish(samplePost, deadline: soon())
        #expect(await server.requests.filter { $0.path == "/api/v2/instance" }.count == 1)
        await clock.advance(by: 2)  // a day old: read again
        _ = await mastodon.publish(samplePost, deadline: soon())
        #expect(await server.requests.filter { $0.path == "/api/v2/instance" }.count == 2)
        long.text = String(repeating: "歩", count: 1001)
        guard case .permanent(let reason) = await mastodon.publish(long, deadline: soon()) else {
            Issue.record("1001 characters were not refused")
            return
        }
        #expect(reason.contains("1001 > 1000"))
    }

    /// An instance that cannot tell its limit now (a 503 while it restarts, a network error, the deadline) has not
    /// said "500": a text within 500 goes at once, one over 500 waits for the next attempt instead of failing for
    /// good, and nothing is kept, so the next attempt asks again.
    @Test func aLimitThatCannotBeReadNowIsAskedAgainNotTakenAs500() async throws {
        let asks = Counter()
        let server = try await FakeHTTPServer.start { request, _ in
            if request.path == "/api/v2/instance" {
                return await asks.next() <= 2
                    ? jsonResponse(503, ["error": "restarting"])
                    : jsonResponse(200, ["configuration": ["statuses": ["max_characters": 1000]]])
            }
            return jsonResponse(200, ["id": "5"])
        }
        defer { Task { await server.stop() } }
        let cache = InMemoryTargetInfoCache()
        let mastodon = MastodonPublisher(
            baseURL: server.baseURL, token: "t", context: HTTPContext(transport: server, infoCache: cache))
        let key = "mastodon.max_characters \(server.baseURL.absoluteString)"
        #expect(await mastodon.publish(samplePost, deadline: soon()) == .delivered(remoteID: "5"))
        #expect(await cache.info(key) == nil)
        var long = samplePost
        long.text = String(repeating: "歩", count: 600)
        let second = await mastodon.publish(long, deadline: soon())
        guard case .retryable(let reason, _, unconfirmed: false) = second else {
            Issue.record("a text over 500 failed while the instance's limit was unknown: \(second)")
            return
        }
        #expect(reason.contains("HTTP 503") && reason.contains("600 > 500"), "\(reason)")
        #expect(await server.requests.filter { $0.path == "/api/v1/statuses" }.count == 1)
        #expect(await cache.info(key) == nil)
        #expect(await mastodon.publish(long, deadline: soon()) == .delivered(remoteID: "5"))
        #expect(await cache.info(key)?.value == "1000")
        #expect(await server.requests.filter { $0.path == "/api/v2/instance" }.count == 3)
    }

    @Test func withoutTheEndpointTheLimitIs500AndTheOverrideWins() async throws {
        let server = try await Self.server(limit: nil)
        var long = samplePost
        long.text = String(repeating: "歩", count: 700)
        let plain = MastodonPublisher(baseURL: server.baseURL, token: "t", context: server.context)
        guard case .permanent(let reason) = await plain.publish(long, deadline: soon()) else {
            Issue.record("700 characters were not refused")
            return
        }
        #expect(reason.contains("700 > 500"))
        _ = await plain.publish(samplePost, deadline: soon())
        #expect(await server.requests.filter { $0.path == "/api/v2/instance" }.count == 1)  // the fallback is kept too
        let overridden = MastodonPublisher(
            baseURL: server.baseURL, token: "t", maxCharacters: 800, context: server.context)
        #expect(await overridden.publish(long, deadline: soon()) == .delivered(remoteID: "5"))
        // never asked with an override
        #expect(await server.requests.filter { $0.path == "/api/v2/instance" }.count == 1)
    }
}

/// What a URL counts for: the instance's `configuration.statuses.characters_reserved_per_url`, 23 when it does not
/// say or says something no server would (Mastodon's own 23 is only its default).
@Suite struct MastodonInstanceURLLengthTests {
    /// A URL, a space and 470 characters: 494 at 23, fits; 501 at 30, does not.
    static let url = "https://steps.example.org/a/long/path/that/counts/as/one/url"
    static let text = url + " " + String(repeating: "歩", count: 470)

    static func server(urlLength: (any Sendable)?) async throws -> LoopbackServer {
        try await LoopbackServer.start { request, _ in
            if request.path == "/api/v2/instance" {
                var statuses: [String: Any] = ["max_characters": 500]
                if let urlLength { statuses["characters_reserved_per_url"] = urlLength }
                return jsonResponse(200, ["configuration": ["statuses": statuses]])
            }
            return jsonResponse(200, ["id": "8"])
        }
    }

    func post() -> Post {
        var post = samplePost
        post.text = Self.text
        return post
    }

    @Test func anInstanceCountingURLsAs30RefusesOrShortensWhatFitsAt23() async throws {
        #expect(LengthRule.mastodon.check(Self.text).weightedLength == 494)
        let server = try await Self.server(urlLength: 30)
        defer { Task { await server.stop() } }
        let cache = InMemoryTargetInfoCache()
        let strict = MastodonPublisher(baseURL: server.baseURL, token: "t", context: HTTPContext(infoCache: cache))
        #expect(
            await strict.publish(post(), deadline: soon())
                == .permanent(
                    reason:
                        "text too long for Mastodon (500 characters, URLs 30): 501 > 500 (set shorten = true to cut it)"
                ))
        #expect(
            await cache.info("mastodon.characters_reserved_per_url \(server.baseURL.absoluteString)")?.value == "30")
        let shortening = MastodonPublisher(
            baseURL: server.baseURL, token: "t", shorten: true, context: HTTPContext(infoCache: cache))
        #expect(await shortening.publish(post(), deadline: soon()) == .delivered(remoteID: "8"))
        let sent = try #require(await server.requests.last?.json?["status"] as? String)
        #expect(sent == Self.url + " " + String(repeating: "歩", count: 468) + "…")
        // both publishers read the instance once: the second from the cache
        #expect(await server.requests.filter { $0.path == "/api/v2/instance" }.count == 1)
    }

    @Test(arguments: [nil, -1, 1001, "30"] as [(any Sendable)?])
    func withoutASaneURLLengthURLsCount23(urlLength: (any Sendable)?) async throws {
        let server = try await Self.server(urlLength: urlLength)
        defer { Task { await server.stop() } }
        let mastodon = MastodonPublisher(baseURL: server.baseURL, token: "t")
        #expect(await mastodon.publish(post(), deadline: soon()) == .delivered(remoteID: "8"))
        #expect(await server.requests.last?.json?["status"] as? String == Self.text)
    }
}
