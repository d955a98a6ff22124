import FlyingFox
import Foundation
import Messages
import Testing
import WallTime

@testable import Publishing

/// ntfy has no idempotency key: after an unconfirmed attempt the agent looks the post up in the topic's cache.
@Suite struct NtfyLookupTests {
    /// A small ntfy: keeps published messages, serves them as JSON lines on `GET /<topic>/json?poll=1&since=…`.
    actor Topic {
        var messages: [(id: String, time: Int, text: String)] = []
        func add(_ text: String) -> String {
            let id = "m\(messages.count + 1)"
            messages.append((id, 1_795_316_000 + messages.count, text))
            return id
        }
        func lines(since: Int) -> String {
            let open = #"{"id":"o1","event":"open","topic":"steps"}"# + "\n"
            return open
                + messages.filter { $0.time >= since }.map { m in
                    String(
                        decoding: try! JSONSerialization.data(withJSONObject: [
                            "id": m.id, "time": m.time, "event": "message",
                            "topic": "steps", "message": m.text,
                        ]), as: UTF8.self)
                }.joined(separator: "\n") + "\n"
        }
    }

    @Test func aPostWhoseAnswerWasLostIsFoundAndAnotherIsNot() async throws {
        let topic = Topic()
        let server = try await FakeHTTPServer.start { request, _ in
            if request.method == "POST" {
                let text = request.json?["message"] as? String ?? ""
                let id = await topic.add(text)
                return jsonResponse(200, ["id": id, "event": "message", "topic": "steps", "message": text])
            }
            guard request.path == "/steps/json", request.query["poll"] == "1",
                let since = request.query["since"].flatMap(Int.init)
            else {
                return textResponse(400, "bad poll")
            }
            return HTTPResponse(statusCode: .ok, body: Data(await topic.lines(since: since).utf8))
        }
        defer { Task { await server.stop() } }
        let ntfy = NtfyPublisher(baseURL: server.baseURL, topic: "steps", token: "tk_secret", context: server.context)
        let post = Post(
            text: "11/21 10:00:00 〜 11/21 10:30:00 の期間に 1234 歩",
            window: TimeWindow(
                start: Instant(secondsSinceEpoch: 1_795_314_000),
                end: Instant(secondsSinceEpoch: 1_795_315_800)))
        #expect(await ntfy.lookUp(post, deadline: soon()) == .notFound)
        #expect(await ntfy.publish(post, deadline: soon()) == .delivered(remoteID: "m1"))
        #expect(await ntfy.lookUp(post, deadline: soon()) == .found(remoteID: "m1"))
        var other = post
        other.text = "another window"
        #expect(await ntfy.lookUp(other, deadline: soon()) == .notFound)
        let polls = await server.requests.filter { $0.method == "GET" }
        #expect(
            polls.allSatisfy { $0.headers["authorization"] == "Bearer tk_secret" && $0.query["since"] == "1795315740" })
        #expect(ntfy.repeatsDuplicate)
    }

    @Test func aFailedPollIsReportedNotGuessed() async throws {
        let server = try await FakeHTTPServer.start { _, _ in jsonResponse(502, ["error": "bad gateway"]) }
        defer { Task { await server.stop() } }
        let ntfy = NtfyPublisher(baseURL: server.baseURL, topic: "steps", context: server.context)
        let post = Post(
            text: "x", window: TimeWindow(start: Instant(secondsSinceEpoch: 0), end: Instant(secondsSinceEpoch: 60)))
        #expect(await ntfy.lookUp(post, deadline: soon()) == .failed(reason: "HTTP 502: bad gateway"))
    }

    /// A server that answers 200 with a page (a proxy, a wrong `base_url`) to the publish and to the poll: the post
    /// is unconfirmed, and the page is no list of messages, so the look-up cannot tell rather than say "not there"
    /// and have the post sent again at every retry.
    @Test func aPageThatIsNoTopicIsNotTakenForAnEmptyOne() async throws {
        let server = try await FakeHTTPServer.start { _, _ in textResponse(200, "<html>\n<body>Sign in</body>\n</html>")
        }
        defer { Task { await server.stop() } }
        let ntfy = NtfyPublisher(baseURL: server.baseURL, topic: "steps", context: server.context)
        guard case .retryable(_, nil, unconfirmed: true) = await ntfy.publish(samplePost, deadline: soon()) else {
            Issue.record("a 200 page was taken for a published message")
            return
        }
        guard case .failed(let reason) = await ntfy.lookUp(samplePost, deadline: soon()) else {
            Issue.record("a 200 page was taken for an empty topic")
            return
        }
        #expect(reason.contains("JSON"), "\(reason)")
        let empty = try await FakeHTTPServer.start { _, _ in textResponse(200, "") }
        defer { Task { await empty.stop() } }
        let quiet = NtfyPublisher(baseURL: empty.baseURL, topic: "steps", context: empty.context)
        #expect(await quiet.lookUp(samplePost, deadline: soon()) == .notFound)
    }

    @Test func resendUnconfirmedIsReadFromTheTable() throws {
        let set = try PublisherFactory.make(
            toml: """
                [[publish]]
                kind = "slack"
                url_env = "HOOK"
                resend_unconfirmed = false
                [[publish]]
                kind = "discord"
                url_env = "HOOK"
                """, environment: ["HOOK": "https://hooks.example/services/T/B/X"])
        #expect(set.publishers.map(\.resendUnconfirmed) == [false, true])
        #expect(set.publishers.allSatisfy { $0.repeatsDuplicate })
        // Mastodon-API servers may ignore Idempotency-Key: Mastodon looks a post up before resending too.
        #expect(MastodonPublisher(baseURL: URL(string: "https://m.example")!, token: "t").repeatsDuplicate)
    }

    @Test func basicAuthWithAUsernameAndAPasswordFromTheEnvironment() async throws {
        let server = try await FakeHTTPServer.start { request, _ in
            request.method == "POST"
                ? jsonResponse(401, ["error": "unauthorized for \(request.headers["authorization"] ?? "")"])
                : HTTPResponse(statusCode: .ok, body: Data())
        }
        let set = try PublisherFactory.make(
            toml: """
                [[publish]]
                kind = "ntfy"
                base_url = "https://ntfy.example"
                topic = "steps"
                username = "walker"
                password_env = "NTFY_PASSWORD"
                """, environment: ["NTFY_PASSWORD": "pa55-word"], context: server.context)
        let ntfy = try #require(set.publishers.first)
        let expected = "Basic " + Data("walker:pa55-word".utf8).base64EncodedString()
        let outcome = await ntfy.publish(samplePost, deadline: soon())
        #expect(outcome == .permanent(reason: "HTTP 401: unauthorized for Basic [REDACTED]"))
        #expect(await ntfy.lookUp(samplePost, deadline: soon()) == .notFound)
        #expect(await server.requests.map { $0.headers["authorization"] } == [expected, expected])
        #expect(
            ntfy.redactedDescription == "ntfy: ntfy https://ntfy.example topic steps (user walker, password [REDACTED])"
        )
    }

    @Test func basicAuthNeedsBothHalvesAndExcludesAToken() {
        func error(_ keys: String) -> ConfigurationError? {
            do {
                _ = try PublisherFactory.make(
                    toml: "[[publish]]\nkind = \"ntfy\"\ntopic = \"steps\"\n" + keys,
                    environment: ["P": "pw", "T": "tk"])
                return nil
            } catch { return error }
        }
        #expect(error("username = \"walker\"")?.path == "publish[0].password_env")
        #expect(error("password_env = \"P\"")?.path == "publish[0].username")
        #expect(error("username = \"walker\"\npassword_env = \"P\"\ntoken_env = \"T\"")?.path == "publish[0].username")
        #expect(
            error("password = \"pw\"\nusername = \"walker\"")?.message.contains("password_env or password_file") == true
        )
    }
}
