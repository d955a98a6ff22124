import Clocks
import FlyingFox
import Foundation
import Testing
import WallTime

@testable import Publishing

/// Every JSON body a target sends, whole: each key and value as its server reads them, and no `null` where a key is
/// left out (issue #46 made the bodies `Encodable` types; these pass on the dictionaries they replaced too). Compared
/// as parsed JSON, so key order is not part of it; the webhook's rendered body, which a person's template shapes, is
/// compared byte for byte.
@Suite struct RequestBodyTests {
    static let now = Date(timeIntervalSince1970: 1_795_316_400)  // 2026-11-22T03:00:00Z
    static let key = samplePost.idempotencyKey
    static let alt = sampleImage.alt

    /// The JSON a server received, as `METHOD path` and the body's canonical text (keys sorted); a multipart
    /// request's `payload_json` field too (Discord).
    static func sent(_ requests: [SeenRequest]) -> [String] {
        requests.compactMap { request in
            let body = MultipartForm(request)?["payload_json"]?.body ?? request.body
            guard let text = canonical(body) else { return nil }
            return "\(request.method) \(request.path) \(text)"
        }
    }

    /// `json` parsed and written again with sorted keys; nil when it is not a JSON object.
    static func canonical(_ json: Data) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: json), object is [String: Any],
            let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// `METHOD path` and `json` in the canonical form `sent` gives.
    static func expected(_ request: String, _ json: String) -> String {
        "\(request) \(canonical(Data(json.utf8)) ?? "not JSON: \(json)")"
    }

    /// `text` as a JSON string.
    static func string(_ text: String) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: [text]), as: UTF8.self).dropFirst().dropLast()
            .description
    }

    /// Publishes `post` to the target `make` builds against a server answering as `answer`, on a clock at `now`.
    static func bodies(
        _ post: Post = samplePost,
        answer: @escaping @Sendable (SeenRequest) -> HTTPResponse = { _ in jsonResponse(200, ["id": "1"]) },
        _ make: (URL, HTTPContext) -> any Publisher
    ) async throws -> [String] {
        let server = try await FakeHTTPServer.start { request, _ in answer(request) }
        let publisher = make(server.baseURL, server.context(clock: WallClock(ImmediateClock(), startingAt: now)))
        let outcome = await publisher.publish(post, deadline: soon())
        guard case .delivered = outcome else {
            Issue.record("\(publisher.name): \(outcome)")
            return []
        }
        return sent(await server.requests)
    }

    static let chart = ImageOption(chart: true)
    static let text = string(samplePost.text)

    @Test func mastodon() async throws {
        let answer: @Sendable (SeenRequest) -> HTTPResponse = { _ in
            jsonResponse(200, ["id": "m1", "url": "https://files.example/m1.png"])
        }
        let plain = try await Self.bodies(answer: answer) {
            MastodonPublisher(baseURL: $0, token: "t", maxCharacters: 500, context: $1)
        }
        #expect(plain == [Self.expected("POST /api/v1/statuses", #"{"status": \#(Self.text)}"#)])
        let full = try await Self.bodies(sampleImagePost, answer: answer) {
            MastodonPublisher(
                baseURL: $0, token: "t", visibility: "unlisted", language: "ja", maxCharacters: 500,
                image: Self.chart, context: $1)
        }
        let status = #"{"status": \#(Self.text), "visibility": "unlisted", "language": "ja", "media_ids": ["m1"]}"#
        #expect(full == [Self.expected("POST /api/v1/statuses", status)])
    }

    @Test func ntfy() async throws {
        let plain = try await Self.bodies { NtfyPublisher(baseURL: $0, topic: "steps", context: $1) }
        #expect(plain == [Self.expected("POST /", #"{"topic": "steps", "message": \#(Self.text)}"#)])
        let full = try await Self.bodies {
            NtfyPublisher(baseURL: $0, topic: "steps", title: "Steps", priority: 3, tags: ["walking"], context: $1)
        }
        let message =
            #"{"topic": "steps", "message": \#(Self.text), "title": "Steps", "priority": 3, "tags": ["walking"]}"#
        #expect(full == [Self.expected("POST /", message)])
    }

    @Test func misskey() async throws {
        let answer: @Sendable (SeenRequest) -> HTTPResponse = {
            $0.path == "/api/drive/files/create"
                ? jsonResponse(200, ["id": "f1"]) : jsonResponse(200, ["createdNote": ["id": "n1"]])
        }
        let plain = try await Self.bodies(answer: answer) { MisskeyPublisher(baseURL: $0, token: "t", context: $1) }
        #expect(plain == [Self.expected("POST /api/notes/create", #"{"i": "t", "text": \#(Self.text)}"#)])
        let full = try await Self.bodies(sampleImagePost, answer: answer) {
            MisskeyPublisher(
                baseURL: $0, token: "t", visibility: "home", contentWarning: "steps", image: Self.chart, context: $1)
        }
        let note = #"{"i": "t", "text": \#(Self.text), "visibility": "home", "cw": "steps", "fileIds": ["f1"]}"#
        #expect(full == [Self.expected("POST /api/notes/create", note)])
    }

    @Test func misskeyLookUp() async throws {
        let server = try await FakeHTTPServer.start { request, _ in
            request.path == "/api/i" ? jsonResponse(200, ["id": "u1"]) : jsonResponse(200, [[String: Any]]())
        }
        let publisher = MisskeyPublisher(baseURL: server.baseURL, token: "t", context: server.context)
        #expect(await publisher.lookUp(samplePost, deadline: soon()) == .notFound)
        let notes = #"{"i": "t", "userId": "u1", "limit": 20, "withReplies": false, "withRenotes": false}"#
        #expect(
            Self.sent(await server.requests) == [
                Self.expected("POST /api/i", #"{"i": "t"}"#), Self.expected("POST /api/users/notes", notes),
            ])
    }

    @Test func matrix() async throws {
        let answer: @Sendable (SeenRequest) -> HTTPResponse = {
            $0.path == "/_matrix/media/v3/upload"
                ? jsonResponse(200, ["content_uri": "mxc://hs/abc"]) : jsonResponse(200, ["event_id": "$e"])
        }
        let send = "PUT /_matrix/client/v3/rooms/!r:hs/send/m.room.message/"
        let textEvent =
            #"{"msgtype": "m.notice", "body": \#(Self.text), "org.steptweet.idempotency_key": "\#(Self.key)"}"#
        let plain = try await Self.bodies(answer: answer) {
            MatrixPublisher(baseURL: $0, token: "t", roomID: "!r:hs", context: $1)
        }
        #expect(plain == [Self.expected(send + Self.key, textEvent)])
        let full = try await Self.bodies(sampleImagePost, answer: answer) {
            MatrixPublisher(baseURL: $0, token: "t", roomID: "!r:hs", image: Self.chart, context: $1)
        }
        let imageEvent = """
            {"msgtype": "m.image", "body": \(Self.string(Self.alt)), "url": "mxc://hs/abc",
             "info": {"mimetype": "image/png", "w": 1200, "h": 675, "size": \(samplePNG.count)},
             "org.steptweet.idempotency_key": "\(Self.key)-image"}
            """
        #expect(
            full == [Self.expected(send + Self.key + "-image", imageEvent), Self.expected(send + Self.key, textEvent)])
    }

    @Test func matrixLookUpFilter() async throws {
        let server = try await FakeHTTPServer.start { request, _ in
            request.path.hasSuffix("/whoami")
                ? jsonResponse(200, ["user_id": "@me:hs"]) : jsonResponse(200, ["chunk": [[String: Any]]()])
        }
        let publisher = MatrixPublisher(baseURL: server.baseURL, token: "t", roomID: "!r:hs", context: server.context)
        #expect(await publisher.lookUp(samplePost, deadline: soon()) == .notFound)
        let filter = try #require(await server.requests.last?.query["filter"])
        #expect(
            Self.canonical(Data(filter.utf8))
                == Self.canonical(Data(#"{"senders": ["@me:hs"], "types": ["m.room.message"]}"#.utf8)))
    }

    @Test func bluesky() async throws {
        // The blob's reference goes back into the embed as the server wrote it (an integer stays an integer).
        let blobJSON = #"{"$type": "blob", "ref": {"$link": "bafkreiimage"}, "mimeType": "image/png", "size": 67}"#
        let answer: @Sendable (SeenRequest) -> HTTPResponse = {
            switch $0.path {
            case "/xrpc/com.atproto.server.createSession":
                return jsonResponse(200, ["accessJwt": "a", "refreshJwt": "r", "did": "did:plc:t"])
            case "/xrpc/com.atproto.repo.uploadBlob": return textResponse(200, #"{"blob": \#(blobJSON)}"#)
            default: return jsonResponse(200, ["uri": "at://did:plc:t/app.bsky.feed.post/1", "cid": "c"])
            }
        }
        let login = Self.expected(
            "POST /xrpc/com.atproto.server.createSession", #"{"identifier": "h", "password": "pw"}"#)
        let rkey = BlueskyPublisher.recordKey(for: samplePost)
        func create(_ record: String) -> String {
            Self.expected(
                "POST /xrpc/com.atproto.repo.createRecord",
                #"{"repo": "did:plc:t", "collection": "app.bsky.feed.post", "rkey": "\#(rkey)", "record": \#(record)}"#)
        }
        let plain = try await Self.bodies(answer: answer) {
            BlueskyPublisher(baseURL: $0, identifier: "h", password: "pw", context: $1)
        }
        let post = #""$type": "app.bsky.feed.post", "createdAt": "2026-11-22T03:00:00.000Z""#
        #expect(plain == [login, create(#"{\#(post), "text": \#(Self.text)}"#)])
        var linked = sampleImagePost
        linked.text = "1234 steps: example.com/steps"
        let full = try await Self.bodies(linked, answer: answer) {
            BlueskyPublisher(
                baseURL: $0, identifier: "h", password: "pw", language: "ja", image: Self.chart, context: $1)
        }
        let record = """
            {\(post), "text": "1234 steps: example.com/steps", "langs": ["ja"],
             "facets": [{"index": {"byteStart": 12, "byteEnd": 29},
                         "features": [{"$type": "app.bsky.richtext.facet#link", "uri": "https://example.com/steps"}]}],
             "embed": {"$type": "app.bsky.embed.images", "images": [{"alt": \(Self.string(Self.alt)),
                       "image": \(blobJSON), "aspectRatio": {"width": 1200, "height": 675}}]}}
            """
        #expect(full == [login, create(record)])
    }

    @Test func discordAndSlack() async throws {
        let message = #""content": \#(Self.text), "allowed_mentions": {"parse": []}"#
        let hook = "POST /api/webhooks/1/tok"
        let plain = try await Self.bodies {
            DiscordPublisher(url: Endpoint.join($0, "api/webhooks/1/tok"), context: $1)
        }
        #expect(plain == [Self.expected(hook, "{\(message)}")])
        let full = try await Self.bodies(sampleImagePost) {
            DiscordPublisher(url: Endpoint.join($0, "api/webhooks/1/tok"), image: Self.chart, context: $1)
        }
        let attachment = #"{"id": 0, "filename": "\#(Self.key).png", "description": \#(Self.string(Self.alt))}"#
        #expect(full == [Self.expected(hook, #"{\#(message), "attachments": [\#(attachment)]}"#)])
        let slack = try await Self.bodies(answer: { _ in textResponse(200, "ok") }) {
            SlackPublisher(url: Endpoint.join($0, "services/T/B/x"), context: $1)
        }
        #expect(slack == [Self.expected("POST /services/T/B/x", #"{"text": \#(Self.text)}"#)])
    }

    @Test func x() async throws {
        let answer: @Sendable (SeenRequest) -> HTTPResponse = {
            $0.path == "/2/media/upload"
                ? jsonResponse(200, ["data": ["id": "188"]]) : jsonResponse(201, ["data": ["id": "12"]])
        }
        let plain = try await Self.bodies(answer: answer) {
            XPublisher(baseURL: $0, authentication: .bearer("t"), context: $1)
        }
        #expect(plain == [Self.expected("POST /2/tweets", #"{"text": \#(Self.text)}"#)])
        let full = try await Self.bodies(sampleImagePost, answer: answer) {
            XPublisher(baseURL: $0, authentication: .bearer("t"), image: Self.chart, context: $1)
        }
        #expect(
            full == [
                Self.expected(
                    "POST /2/media/metadata",
                    #"{"id": "188", "metadata": {"alt_text": {"text": \#(Self.string(Self.alt))}}}"#),
                Self.expected("POST /2/tweets", #"{"text": \#(Self.text), "media": {"media_ids": ["188"]}}"#),
            ])
    }

    /// The webhook's body is the person's template with JSON strings put in: byte for byte what it was, quotes,
    /// backslashes, slashes (unescaped), control characters and non-ASCII text included.
    @Test func webhookStrings() throws {
        var post = samplePost
        post.text = "a \"quote\", a \\ and a / in https://example.com/x\n\t\u{1}\u{1f} 歩きました ❤️"
        let body = try WebhookBodyTemplate(#"{"text": {{text}}, "alt": {{image_alt}}}"#).render(post)
        #expect(
            String(decoding: body, as: UTF8.self)
                == #"{"text": "a \"quote\", a \\ and a / in https://example.com/x\n\t\u0001\u001f 歩きました ❤️", "alt": null}"#
        )
    }

    /// The stored sessions (X's OAuth 2.0 tokens, Bluesky's session): absent values are left out, and what is
    /// stored reads back.
    @Test func storedTokens() throws {
        let bare = OAuth2Tokens(accessToken: nil, expiresAt: nil, refreshToken: "r/1", scope: nil)
        #expect(Self.canonical(Data(bare.json.utf8)) == Self.canonical(Data(#"{"refresh_token": "r/1"}"#.utf8)))
        let full = OAuth2Tokens(
            accessToken: "a", expiresAt: Date(timeIntervalSince1970: 1_795_316_400.5), refreshToken: "r", scope: "s")
        #expect(
            Self.canonical(Data(full.json.utf8))
                == Self.canonical(
                    Data(#"{"access_token": "a", "expires_at": 1795316400.5, "refresh_token": "r", "scope": "s"}"#.utf8)
                ))
        let back = try #require(OAuth2Tokens(json: full.json))
        #expect(back.accessToken == "a" && back.expiresAt == full.expiresAt && back.refreshToken == "r")
        #expect(back.scope == "s")
        #expect(OAuth2Tokens(json: #"{"access_token": "a"}"#) == nil)  // no refresh token: nothing to go on with
        let session = BlueskySession(accessJwt: "a", refreshJwt: "r", did: "did:plc:t")
        #expect(
            Self.canonical(Data(session.json.utf8))
                == Self.canonical(Data(#"{"accessJwt": "a", "refreshJwt": "r", "did": "did:plc:t"}"#.utf8)))
        #expect(BlueskySession(json: session.json)?.did == "did:plc:t")
    }
}
