import FlyingFox
import Foundation
import Testing
import WallTime

@testable import Publishing

/// Exactly once on Matrix when the txnId no longer protects a resend: the homeserver has forgotten it (Synapse keeps
/// `event_txn_id_device_id` 24 h) or the token is a new login, a new device. The post's key travels in the event's
/// content, and `lookUp` finds it among the account's messages in the room.
@Suite struct MatrixLookupTests {
    /// A small homeserver: one room, events with their senders and times, txnIds remembered per device (a token is
    /// a device here) until `forgetTransactions`, `whoami`, and `/messages` backwards with `filter` and `from`.
    actor Homeserver {
        struct Event {
            var id: String
            var sender: String
            var type: String
            var ms: Int64
            var content: [String: Any]
        }
        let users: [String: String]
        var events: [Event] = []
        var transactions: [String: String] = [:]
        /// The time the next event gets (ms), one second later for each.
        var nowMs: Int64
        var loseNextAnswer = false
        init(users: [String: String] = ["tok": "@bot:hs", "tok2": "@bot:hs"], nowMs: Int64) {
            self.users = users
            self.nowMs = nowMs
        }
        func forgetTransactions() { transactions = [:] }
        func loseNext() { loseNextAnswer = true }
        func add(sender: String, type: String = "m.room.message", ms: Int64, content: [String: Any]) {
            events.append(Event(id: "$e\(events.count + 1)", sender: sender, type: type, ms: ms, content: content))
        }
        /// The text events' post keys and bodies, oldest first.
        var texts: [(key: String?, body: String?)] {
            events.filter { $0.content["msgtype"] as? String == "m.notice" }.map {
                ($0.content[MatrixPublisher.idempotencyContentKey] as? String, $0.content["body"] as? String)
            }
        }

        func handle(_ request: SeenRequest) throws -> HTTPResponse {
            let token = String((request.headers["authorization"] ?? "").dropFirst("Bearer ".count))
            guard let user = users[token] else {
                return jsonResponse(401, ["errcode": "M_UNKNOWN_TOKEN", "error": "Invalid access token passed."])
            }
            if request.path == "/_matrix/client/v3/account/whoami" {
                return jsonResponse(200, ["user_id": user, "device_id": token.uppercased()])
            }
            if request.method == "PUT", request.path.contains("/send/m.room.message/") {
                let txn = token + " " + (request.path.components(separatedBy: "/").last ?? "")
                if let id = transactions[txn] { return jsonResponse(200, ["event_id": id]) }
                nowMs += 1000
                add(sender: user, ms: nowMs, content: request.json ?? [:])
                let id = events[events.count - 1].id
                transactions[txn] = id
                if loseNextAnswer {
                    loseNextAnswer = false
                    throw URLError(.networkConnectionLost)
                }
                return jsonResponse(200, ["event_id": id])
            }
            if request.method == "GET", request.path.hasSuffix("/messages") {
                guard request.query["dir"] == "b", let limit = request.query["limit"].flatMap(Int.init),
                    let filterText = request.query["filter"],
                    let filter = try? JSONSerialization.jsonObject(with: Data(filterText.utf8)) as? [String: Any]
                else { return jsonResponse(400, ["errcode": "M_INVALID_PARAM", "error": "bad query"]) }
                let senders = filter["senders"] as? [String]
                let types = filter["types"] as? [String]
                let start = request.query["from"].flatMap(Int.init) ?? 0
                let newestFirst = events.reversed().filter {
                    (senders?.contains($0.sender) ?? true) && (types?.contains($0.type) ?? true)
                }
                let page = Array(newestFirst.dropFirst(start).prefix(limit))
                var body: [String: Any] = [
                    "start": String(start),
                    "chunk": page.map {
                        [
                            "event_id": $0.id, "sender": $0.sender, "type": $0.type, "origin_server_ts": $0.ms,
                            "content": $0.content,
                        ] as [String: Any]
                    },
                ]
                if start + page.count < newestFirst.count { body["end"] = String(start + page.count) }
                return jsonResponse(200, body)
            }
            return jsonResponse(404, ["errcode": "M_UNRECOGNIZED", "error": "\(request.method) \(request.path)"])
        }
    }

    /// Milliseconds since 1970 of `samplePost`'s window end, plus `seconds`.
    static func ms(afterWindowEnd seconds: Double) -> Int64 {
        Int64((samplePost.window.end.date.timeIntervalSince1970 + seconds) * 1000)
    }

    static func start(_ homeserver: Homeserver) async throws -> FakeHTTPServer {
        try await FakeHTTPServer.start { request, _ in try await homeserver.handle(request) }
    }

    static func publisher(_ server: FakeHTTPServer, token: String = "tok", context: HTTPContext? = nil)
        -> MatrixPublisher
    {
        MatrixPublisher(baseURL: server.baseURL, token: token, roomID: "!r:hs", context: context ?? server.context)
    }

    @Test func aPostWhoseTxnIdWasForgottenIsFoundInsteadOfPostedTwice() async throws {
        let homeserver = Homeserver(nowMs: Self.ms(afterWindowEnd: 5))
        let server = try await Self.start(homeserver)
        let publisher = Self.publisher(server)
        #expect(publisher.repeatsDuplicate)
        await homeserver.loseNext()
        guard case .retryable(_, _, unconfirmed: true) = await publisher.publish(samplePost, deadline: soon()) else {
            Issue.record("a lost answer is not unconfirmed")
            return
        }
        // A day later: the txnId is gone, so a resend would be a second post. The look-up finds the first.
        await homeserver.forgetTransactions()
        await homeserver.add(sender: "@someone:hs", ms: Self.ms(afterWindowEnd: 600), content: ["body": "hi"])
        #expect(await publisher.lookUp(samplePost, deadline: soon()) == .found(remoteID: "$e1"))
        let sent = try #require(await homeserver.texts.first)
        #expect(sent.key == samplePost.idempotencyKey && sent.body == samplePost.text)
        // What the look-up guards against: the same txnId now posts again.
        #expect(await publisher.publish(samplePost, deadline: soon()).isDelivered)
        #expect(await homeserver.texts.count == 2)
    }

    @Test func aNewLoginFindsThePostOfTheOldOne() async throws {
        let homeserver = Homeserver(nowMs: Self.ms(afterWindowEnd: 5))
        let server = try await Self.start(homeserver)
        await homeserver.loseNext()
        _ = await Self.publisher(server, token: "tok").publish(samplePost, deadline: soon())
        // The same account with a new token (a new device: its txnIds are its own).
        #expect(
            await Self.publisher(server, token: "tok2").lookUp(samplePost, deadline: soon()) == .found(remoteID: "$e1"))
    }

    @Test func asksForItsOwnMessagesBackwardsAndWhoItIsOnce() async throws {
        let homeserver = Homeserver(nowMs: Self.ms(afterWindowEnd: 5))
        let server = try await Self.start(homeserver)
        // Someone else's event with the same key is not the post.
        await homeserver.add(
            sender: "@mallory:hs", ms: Self.ms(afterWindowEnd: 60),
            content: ["body": samplePost.text, MatrixPublisher.idempotencyContentKey: samplePost.idempotencyKey])
        let publisher = Self.publisher(server)
        #expect(await publisher.lookUp(samplePost, deadline: soon()) == .notFound)
        #expect(await publisher.lookUp(samplePost, deadline: soon()) == .notFound)
        let requests = await server.requests
        #expect(requests.filter { $0.path == "/_matrix/client/v3/account/whoami" }.count == 1)
        let messages = try #require(requests.last)
        #expect(messages.method == "GET" && messages.path == "/_matrix/client/v3/rooms/!r:hs/messages")
        #expect(messages.query["dir"] == "b" && messages.query["limit"] == "100" && messages.query["from"] == nil)
        let filter = try #require(
            try JSONSerialization.jsonObject(with: Data((messages.query["filter"] ?? "").utf8)) as? [String: Any])
        #expect(filter["senders"] as? [String] == ["@bot:hs"])
        #expect(filter["types"] as? [String] == ["m.room.message"])
        #expect(messages.headers["authorization"] == "Bearer tok")
    }

    @Test func pagesBackToTheWindowsEndAndStopsThere() async throws {
        let homeserver = Homeserver(nowMs: Self.ms(afterWindowEnd: 5))
        let server = try await Self.start(homeserver)
        let publisher = Self.publisher(server)
        await homeserver.loseNext()
        _ = await publisher.publish(samplePost, deadline: soon())
        // 250 later posts of other windows: the post is on the third page.
        for i in 0..<250 {
            await homeserver.add(
                sender: "@bot:hs", ms: Self.ms(afterWindowEnd: 1800 * Double(i + 1)),
                content: ["body": "later \(i)", MatrixPublisher.idempotencyContentKey: "steps-later-\(i)"])
        }
        #expect(await publisher.lookUp(samplePost, deadline: soon()) == .found(remoteID: "$e1"))
        let pages = await server.requests.filter { $0.path.hasSuffix("/messages") }
        #expect(pages.map { $0.query["from"] } == [nil, "100", "200"])

        // Not there: the scan ends at the first event from before the window ended, not at the room's start.
        let homeserver2 = Homeserver(nowMs: Self.ms(afterWindowEnd: 5))
        let server2 = try await Self.start(homeserver2)
        for i in 0..<150 {
            await homeserver2.add(
                sender: "@bot:hs", ms: Self.ms(afterWindowEnd: -1800 * Double(150 - i)), content: ["body": "old \(i)"])
        }
        for i in 0..<50 {
            await homeserver2.add(
                sender: "@bot:hs", ms: Self.ms(afterWindowEnd: 60 * Double(i + 1)), content: ["body": "new \(i)"])
        }
        #expect(await Self.publisher(server2).lookUp(samplePost, deadline: soon()) == .notFound)
        #expect(await server2.requests.filter { $0.path.hasSuffix("/messages") }.count == 1)
    }

    @Test func tooManyLaterMessagesToReachTheWindowIsAFailedLookUp() async throws {
        let homeserver = Homeserver(nowMs: Self.ms(afterWindowEnd: 5))
        let server = try await Self.start(homeserver)
        let count = MatrixPublisher.lookUpPages * MatrixPublisher.lookUpPageSize + 1
        for i in 0..<count {
            await homeserver.add(
                sender: "@bot:hs", ms: Self.ms(afterWindowEnd: 10 + Double(i)), content: ["body": "\(i)"])
        }
        guard case .failed(let reason) = await Self.publisher(server).lookUp(samplePost, deadline: soon()) else {
            Issue.record("an unfinished scan said whether the post is there")
            return
        }
        #expect(reason.contains("newest 1000 messages"), "\(reason)")
        #expect(await server.requests.filter { $0.path.hasSuffix("/messages") }.count == MatrixPublisher.lookUpPages)
    }

    @Test func anEventWithAKeyIsMatchedByItOneWithoutByItsText() async throws {
        let homeserver = Homeserver(nowMs: Self.ms(afterWindowEnd: 5))
        let server = try await Self.start(homeserver)
        let publisher = Self.publisher(server)
        // An event with a key is what its key says (here the post's image event), whatever its body.
        await homeserver.add(
            sender: "@bot:hs", ms: Self.ms(afterWindowEnd: 30),
            content: [
                "msgtype": "m.image", "body": samplePost.text,
                MatrixPublisher.idempotencyContentKey: MatrixPublisher.imageTransactionID(for: samplePost),
            ])
        #expect(await publisher.lookUp(samplePost, deadline: soon()) == .notFound)
        // One sent before events carried the key is the post when its body is the post's text.
        await homeserver.add(
            sender: "@bot:hs", ms: Self.ms(afterWindowEnd: 40),
            content: ["msgtype": "m.notice", "body": samplePost.text])
        #expect(await publisher.lookUp(samplePost, deadline: soon()) == .found(remoteID: "$e2"))
    }

    @Test func anAnswerThatSaysNothingIsAFailedLookUpNotNotFound() async throws {
        let badToken = try await Self.start(Homeserver(nowMs: 0))
        guard
            case .failed(let reason) = await Self.publisher(badToken, token: "nope").lookUp(
                samplePost, deadline: soon())
        else {
            Issue.record("a refused whoami said whether the post is there")
            return
        }
        #expect(reason.hasPrefix("HTTP 401: M_UNKNOWN_TOKEN"), "\(reason)")
        let proxy = try await FakeHTTPServer.start { request, _ in
            request.path.hasSuffix("/whoami")
                ? jsonResponse(200, ["user_id": "@bot:hs"]) : textResponse(200, "<html>Sign in to the Wi-Fi</html>")
        }
        guard case .failed(let page) = await Self.publisher(proxy).lookUp(samplePost, deadline: soon()) else {
            Issue.record("a proxy's page said whether the post is there")
            return
        }
        #expect(page == "the room's messages answered without a chunk (HTTP 200)")
    }

    @Test func aTxnIdCoversAResendFor23HoursWithTheSameTokenToTheSameRoom() throws {
        let base = try #require(URL(string: "https://hs.example"))
        let make = { (url: URL, token: String, room: String) in
            MatrixPublisher(baseURL: url, token: token, roomID: room).keyMemory
        }
        let memory = try #require(make(base, "tok", "!r:hs"))
        #expect(memory.lifetime == .seconds(23 * 3600))
        #expect(make(base, "tok", "!r:hs") == memory)
        #expect(!memory.scope.contains("tok"))
        let others = [
            make(base, "tok2", "!r:hs"), make(base, "tok", "!other:hs"),
            make(try #require(URL(string: "https://other.example")), "tok", "!r:hs"),
        ]
        #expect(others.allSatisfy { $0?.scope != memory.scope })
        let first = Date(timeIntervalSince1970: 1_800_000_000)
        let scope = memory.scope
        #expect(memory.covers(firstAttempt: first, scope: scope, now: first))
        #expect(memory.covers(firstAttempt: first, scope: scope, now: first.addingTimeInterval(23 * 3600 - 1)))
        #expect(!memory.covers(firstAttempt: first, scope: scope, now: first.addingTimeInterval(23 * 3600)))
        // A clock that went back leaves the attempt's age unknown.
        #expect(!memory.covers(firstAttempt: first, scope: scope, now: first.addingTimeInterval(-1)))
        #expect(!memory.covers(firstAttempt: first, scope: others[0]?.scope, now: first))
        #expect(!memory.covers(firstAttempt: first, scope: nil, now: first))
    }
}
