import Agent
import FlyingFox
import Foundation
import HTTPTestSupport
import TestSupport
import Testing

/// `steptweet outbox`: a post refused permanently (HTTP 404 after a wrong URL) is listed, re-queued after the fix and
/// delivered with its original idempotency key; a dropped one is never sent.
@Suite(.timeLimit(.minutes(1)), .temporaryFolder) struct OutboxCommandTests {
    /// A webhook endpoint that answers 404 until `fixed`, then 200, and keeps the idempotency keys it accepted.
    actor Hook {
        var fixed = false
        var accepted: [String] = []
        func fix() { fixed = true }
        func handle(_ request: HTTPRequest) -> HTTPResponse {
            // The refusal carries a terminal escape, as a hostile or broken server's reply could.
            guard fixed else {
                return HTTPResponse(statusCode: .notFound, body: Data("no such hook\u{1B}]0;owned\u{07}".utf8))
            }
            accepted.append(request.headers[HTTPHeader("Idempotency-Key")] ?? "")
            return HTTPResponse(statusCode: .ok)
        }
    }

    @Test func aPermanentlyFailedPostIsListedRetriedWithItsKeyOrDropped() async throws {
        let hook = Hook()
        let server = HTTPServer(address: try .inet(ip4: "127.0.0.1", port: 0), timeout: 30, logger: .disabled)
        await server.appendClosingRoute("POST /hook") { await hook.handle($0) }
        let task = Task { try await server.run() }
        defer { task.cancel() }
        try await server.waitUntilStarted()
        guard case .ip4(_, let port) = await server.listeningAddress else { throw URLError(.cannotConnectToHost) }
        let config = try hookConfig()
        try writeSecret("http://127.0.0.1:\(port)/hook", beside: config)

        let first = try await Steptweet.run(["fetch", "--config", config, "--now", "2026-11-21T10:10:00+09:00"])
        #expect(first.status == 78, "a refused post is a configuration problem: \(first.stdout)")
        #expect(
            !first.stdout.contains("\u{1B}") && first.stdout.contains("no such hook\\x1b]0;owned\\x07"),
            "\(first.stdout)")
        let status = try await Steptweet.run(["status", "--config", config])
        #expect(!status.stdout.contains("\u{1B}"))
        #expect(!(try await Steptweet.run(["outbox", "--config", config])).stdout.contains("\u{1B}"))
        #expect(!(try await Steptweet.run(["history", "--config", config])).stdout.contains("\u{1B}"))
        #expect(status.stdout.contains("1 failed permanently (`steptweet outbox` lists them"), "\(status.stdout)")
        let listed = try await Steptweet.run(["outbox", "--config", config, "--json"])
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        #expect(entries.count == 1)
        let entry = try #require(entries.first)
        #expect(entry["status"] as? String == "failed")
        #expect((entry["last_error"] as? String)?.contains("404") == true, "\(entry)")
        let id = try #require(entry["id"] as? Int)
        let key = try #require(entry["idempotency_key"] as? String)

        await hook.fix()
        let retried = try await Steptweet.run(["outbox", "retry", "--config", config, "\(id)"])
        #expect(retried.status == 0, "\(retried.stderr)")
        #expect(retried.stdout.hasPrefix("\(id)  pending  webhook  "), "\(retried.stdout)")
        let second = try await Steptweet.run(["fetch", "--config", config, "--now", "2026-11-21T10:20:00+09:00"])
        #expect(second.status == 0, "\(second.stdout)")
        #expect(await hook.accepted == [key], "delivered once, with the window's original key")
        let empty = try await Steptweet.run(["outbox", "--config", config])
        #expect(empty.stdout == "nothing pending, failed or unconfirmed\n")

        // Nothing left to retry or drop: the delivered entry is final, an unknown ID is named.
        let again = try await Steptweet.run(["outbox", "drop", "--config", config, "\(id)", "999"])
        #expect(again.status == 66, "an unknown ID is a missing input, as a missing file is")
        #expect(again.stderr.contains("outbox entry \(id) is delivered: nothing to do"))
        #expect(again.stderr.contains("no outbox entry 999 in "), "\(again.stderr)")
        #expect(again.stderr.contains("`steptweet outbox --all` lists every entry"))
        let delivered = try await Steptweet.run(["outbox", "retry", "--config", config, "\(id)"])
        #expect(delivered.status == 65, "an entry that cannot change: \(delivered.stderr)")
        let unknown = try await Steptweet.run(["outbox", "retry", "--config", config, "99"])
        #expect(unknown.status == 66)
    }

    @Test func aDroppedPostIsNeverSentAndSaysWhy() async throws {
        // Nothing listens on port 9: the post stays pending (retryable) until dropped.
        let config = try hookConfig()
        try writeSecret("http://127.0.0.1:9/hook", beside: config)
        let first = try await Steptweet.run(["fetch", "--config", config, "--now", "2026-11-21T10:10:00+09:00"])
        #expect(first.status == 75)
        let dropped = try await Steptweet.run(["outbox", "drop", "--config", config, "--reason", "posted by hand", "1"])
        #expect(dropped.status == 0, "\(dropped.stderr)")
        #expect(
            dropped.stdout.contains("dropped") && dropped.stdout.contains("last error: dropped: posted by hand"),
            "\(dropped.stdout)")
        let next = try await Steptweet.run(["fetch", "--config", config, "--now", "2026-11-21T12:10:00+09:00"])
        #expect(next.status == 0, "nothing is attempted for a dropped post: \(next.stdout)")
        let all = try await Steptweet.run(["outbox", "--all", "--config", config])
        #expect(all.stdout.contains("1  dropped  webhook"))
    }

    /// A post a server asked to wait for (429, Retry-After 3600) is listed with when it is tried next, so that a
    /// long wait is not mistaken for a stuck outbox (before, only `--json` said it).
    @Test func aPendingPostSaysWhenItIsTriedNext() async throws {
        let endpoint = try RecordingEndpoint(script: [.tooManyRequests(retryAfter: "3600")])
        let url = try await endpoint.start()
        defer { Task { await endpoint.stop() } }
        let config = try hookConfig()
        try writeSecret(url.absoluteString, beside: config)
        let fetched = try await Steptweet.run(["fetch", "--config", config, "--now", "2026-11-21T10:10:00+09:00"])
        #expect(fetched.status == 75, "\(fetched.stdout)")
        let listed = try await Steptweet.run(["outbox", "--config", config, "--json"])
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        let next = try #require(entries.first?["next_attempt"] as? String)
        #expect(next.hasPrefix("2026-11-21T11:10:0"), "an hour on, with up to 5 s of jitter: \(next)")
        let line = try await Steptweet.run(["outbox", "--config", config]).stdout
        #expect(line.contains("  1 attempt  next attempt \(next)  last error: HTTP 429"), "\(line)")
    }

    /// The walk, posted to a webhook whose URL is in `hook.url` beside the configuration.
    func hookConfig() throws -> String {
        try Steptweet.walkConfig(
            """
            [text]
            time_zone = "Asia/Tokyo"
            [state]
            path = "state.sqlite"
            [[publish]]
            kind = "webhook"
            url_file = "hook.url"
            """)
    }

    /// The webhook URL is a secret: it goes in `hook.url` beside the configuration, readable only by the user.
    func writeSecret(_ url: String, beside config: String) throws {
        let path = URL(fileURLWithPath: config).deletingLastPathComponent().appendingPathComponent("hook.url").path
        try Data((url + "\n").utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
    }
}
