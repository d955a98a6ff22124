import FlyingFox
import Foundation
import Messages
import Testing

@testable import Publishing

@Suite struct MisskeyPublisherTests {
    @Test func postsTheNoteWithTheTokenAsI() async throws {
        let server = try await FakeHTTPServer.start { _, _ in
            jsonResponse(200, ["createdNote": ["id": "9z8y", "text": "t"]])
        }
        let publisher = MisskeyPublisher(
            baseURL: server.url("/prefix"), token: "msk-secret-1", visibility: "home",
            contentWarning: "steps", context: server.context)
        #expect(await publisher.publish(samplePost, deadline: soon()) == .delivered(remoteID: "9z8y"))
        let seen = try #require(await server.requests.first)
        #expect(seen.method == "POST")
        #expect(seen.path == "/prefix/api/notes/create")
        #expect(seen.headers["authorization"] == nil)
        let body = try #require(seen.json)
        #expect(body["i"] as? String == "msk-secret-1")
        #expect(body["text"] as? String == samplePost.text)
        #expect(body["visibility"] as? String == "home")
        #expect(body["cw"] as? String == "steps")
        #expect(publisher.repeatsDuplicate)
        #expect(!publisher.redactedDescription.contains("msk-secret-1"))
    }

    @Test func errorsShowMisskeysMessageWithoutTheToken() async throws {
        let server = try await FakeHTTPServer.start { request, _ in
            jsonResponse(
                400,
                [
                    "error": [
                        "message": "No such token: \(request.json?["i"] as? String ?? "")",
                        "code": "CREDENTIAL_REQUIRED", "id": "1384574d",
                    ]
                ])
        }
        let outcome = await MisskeyPublisher(baseURL: server.baseURL, token: "msk-secret-2", context: server.context)
            .publish(samplePost, deadline: soon())
        #expect(outcome == .permanent(reason: "HTTP 400: No such token: [REDACTED]"))
    }

    /// Recent Misskey answers an identical body while the first is still being created with 202 and
    /// `{"error": {"code": "PROCESSING"}}`, and forgets it if that creation fails (posting-targets.md §4): not a
    /// delivery, but an attempt that may yet have posted, so the note is looked up before any resend.
    @Test func a202ProcessingIsUnconfirmedNotDelivered() async throws {
        let server = try await FakeHTTPServer.start { _, _ in
            jsonResponse(
                202,
                [
                    "error": [
                        "message": "We are processing your request. Please wait a moment.", "code": "PROCESSING",
                        "id": "3247052c-005d-440e-b3d8-2a64274483b0",
                    ]
                ])
        }
        let outcome = await MisskeyPublisher(baseURL: server.baseURL, token: "t", context: server.context)
            .publish(samplePost, deadline: soon())
        guard case .retryable(let reason, _, let unconfirmed) = outcome else {
            Issue.record("\(outcome)")
            return
        }
        #expect(unconfirmed)
        #expect(reason.contains("PROCESSING") || reason.contains("processing"), "\(reason)")
    }

    @Test func threeThousandCharactersOrTheConfiguredLimit() async throws {
        let server = try await FakeHTTPServer.start { _, _ in jsonResponse(200, ["createdNote": ["id": "1"]]) }
        var post = samplePost
        post.text = String(repeating: "歩", count: 3001)
        let standard = MisskeyPublisher(baseURL: server.baseURL, token: "t", context: server.context)
        guard case .permanent(let reason) = await standard.publish(post, deadline: soon()) else {
            Issue.record("a 3001-character note was not refused")
            return
        }
        #expect(reason.contains("3001 > 3000"))
        #expect(await server.requests.isEmpty)
        let set = try PublisherFactory.make(
            toml: """
                [[publish]]
                kind = "misskey"
                base_url = "https://misskey.example"
                token_env = "MISSKEY_TOKEN"
                max_characters = 5000
                resend_unconfirmed = false
                """, environment: ["MISSKEY_TOKEN": "t"], context: server.context)
        let roomy = try #require(set.publishers.first as? MisskeyPublisher)
        #expect(roomy.lengthRule == .codePoints(5000))
        #expect(!roomy.resendUnconfirmed)
        #expect(await roomy.publish(post, deadline: soon()) == .delivered(remoteID: "1"))
    }

    /// Misskey checks `text` against `MAX_NOTE_TEXT_LENGTH` with its JSON schema's `maxLength`, which counts code
    /// points (posting-targets.md §4; Ajv): 3000 walkers of 4 code points each are 3000 graphemes but 12,000 code
    /// points, refused before any request, and cut to fit in code points when shortening.
    @Test func theLimitCountsCodePointsAsMisskeysSchemaDoes() async throws {
        let server = try await FakeHTTPServer.start { _, _ in jsonResponse(200, ["createdNote": ["id": "1"]]) }
        defer { Task { await server.stop() } }
        var post = samplePost
        post.text = String(repeating: "\u{1F6B6}\u{200D}\u{2642}\u{FE0F}", count: 3000)
        #expect(post.text.count == 3000)
        let standard = MisskeyPublisher(baseURL: server.baseURL, token: "t", context: server.context)
        #expect(standard.refusal(of: post.text)?.contains("12000 > 3000") == true)
        guard case .permanent(let reason) = await standard.publish(post, deadline: soon()) else {
            Issue.record("12,000 code points were not refused")
            return
        }
        #expect(reason.contains("12000 > 3000"), "\(reason)")
        #expect(await server.requests.isEmpty)
        let cutting = MisskeyPublisher(baseURL: server.baseURL, token: "t", shorten: true, context: server.context)
        #expect(await cutting.publish(post, deadline: soon()) == .delivered(remoteID: "1"))
        let sent = try #require(await server.requests.first?.json?["text"] as? String)
        #expect(sent.unicodeScalars.count <= 3000 && sent.unicodeScalars.count > 2990, "\(sent.unicodeScalars.count)")
        #expect(sent.hasSuffix("…"))
    }

    /// Misskey takes a `cw` of 1 to 100 characters (posting-targets.md §4) and refuses every note otherwise: a `cw`
    /// outside that is a configuration error naming the key, not a post refused at every window.
    @Test func aContentWarningOutsideOneToAHundredCharactersIsRefusedByTheConfiguration() throws {
        func make(cw: String) throws -> [any Publisher] {
            try PublisherFactory.make(
                toml: """
                    [[publish]]
                    kind = "misskey"
                    base_url = "https://misskey.example"
                    token_env = "MISSKEY_TOKEN"
                    cw = "\(cw)"
                    """, environment: ["MISSKEY_TOKEN": "t"]
            ).publishers
        }
        #expect(try make(cw: String(repeating: "歩", count: 100)).count == 1)
        for cw in ["", String(repeating: "歩", count: 101)] {
            let error = #expect(throws: ConfigurationError.self) { try make(cw: cw) }
            #expect(error?.description.contains("publish[0].cw") == true, "\(String(describing: error))")
        }
    }

    @Test func anInlineTokenIsRefused() {
        #expect(throws: ConfigurationError.self) {
            try PublisherFactory.make(
                toml: "[[publish]]\nkind = \"misskey\"\nbase_url = \"https://m.example\"\ntoken = \"x\"")
        }
    }

    @Test func aNoteWhoseAnswerWasLostIsFoundAndAnotherIsNot() async throws {
        let notes = Notes()
        let server = try await FakeHTTPServer.start { request, _ in
            guard request.json?["i"] as? String == "msk-t" else {
                return jsonResponse(401, ["error": ["message": "bad credential"]])
            }
            switch request.path {
            case "/api/notes/create":
                return jsonResponse(
                    200, ["createdNote": ["id": await notes.add(request.json?["text"] as? String ?? "")]])
            case "/api/i":
                return jsonResponse(200, ["id": "u1", "username": "steps"])
            case "/api/users/notes":
                guard request.json?["userId"] as? String == "u1" else {
                    return jsonResponse(400, ["error": ["message": "no user"]])
                }
                return HTTPResponse(
                    statusCode: .ok, headers: [HTTPHeader("Content-Type"): "application/json"], body: await notes.json()
                )
            default:
                return jsonResponse(404, ["error": ["message": "no such endpoint"]])
            }
        }
        let misskey = MisskeyPublisher(baseURL: server.baseURL, token: "msk-t", context: server.context)
        #expect(await misskey.lookUp(samplePost, deadline: soon()) == .notFound)
        #expect(await misskey.publish(samplePost, deadline: soon()) == .delivered(remoteID: "n1"))
        #expect(await misskey.lookUp(samplePost, deadline: soon()) == .found(remoteID: "n1"))
        var other = samplePost
        other.text = "another window"
        #expect(await misskey.lookUp(other, deadline: soon()) == .notFound)
        let wrong = MisskeyPublisher(baseURL: server.baseURL, token: "msk-wrong", context: server.context)
        #expect(await wrong.lookUp(samplePost, deadline: soon()) == .failed(reason: "HTTP 401: bad credential"))
    }

    /// A Misskey account's notes, newest first, created a minute after the sample window.
    actor Notes {
        var texts: [String] = []
        func add(_ text: String) -> String {
            texts.append(text)
            return "n\(texts.count)"
        }
        func json() -> Data {
            let list = texts.enumerated().reversed().map {
                ["id": "n\($0.offset + 1)", "text": $0.element, "createdAt": "2025-11-21T01:31:00.000Z"]
            }
            return (try? JSONSerialization.data(withJSONObject: list)) ?? Data()
        }
    }
}
