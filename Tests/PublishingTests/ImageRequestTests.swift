import FlyingFox
import Foundation
import Messages
import Testing

@testable import Publishing

/// What each target's image requests look like in detail, against servers on 127.0.0.1: the parts of every
/// multipart body, the headers, the JSON that refers to the upload, Mastodon's wait while it processes, X's
/// signature over a multipart upload, and the `image` keys in the configuration.
@Suite struct ImageRequestTests {
    static let chart = ImageOption(chart: true)

    @Test func theSamplePNGIsARealPNG() throws {
        let picture = try RasterImage.decodePNG([UInt8](samplePNG))
        #expect(picture.width == 1 && picture.height == 1)
    }

    // MARK: The multipart builder

    @Test func multipartPartsComeBackIntactWhateverTheFileHolds() throws {
        var form = MultipartBody()
        form.add("description", sampleImage.alt)
        // A file that holds what a boundary starts with, and a CRLF before a dash-dash line.
        let tricky = samplePNG + Data("\r\n--steptweet-\r\n--".utf8)
        form.addFile("file", filename: "a.png", contentType: "image/png", data: tricky)
        let (type, body) = form.encoded()
        let parsed = try #require(
            MultipartForm(
                SeenRequest(method: "POST", path: "/", query: [:], headers: ["content-type": type], body: body)))
        #expect(parsed.parts.map(\.name) == ["description", "file"])
        #expect(parsed["description"]?.text == sampleImage.alt)
        #expect(parsed["description"]?.contentType == nil)
        #expect(parsed["file"]?.body == tricky)
        #expect(parsed["file"]?.filename == "a.png" && parsed["file"]?.contentType == "image/png")
        #expect(parsed.boundary.count <= 70)
    }

    // MARK: Mastodon

    /// A Mastodon that processes an upload for `processingPolls` polls (202, then 206) before giving its url.
    func mastodon(processingPolls: Int, statusReply: HTTPResponse? = nil) async throws -> LoopbackServer {
        let polls = Counter()
        return try await LoopbackServer.start { request, _ in
            switch (request.method, request.path) {
            case ("POST", "/api/v2/media"):
                return processingPolls == 0
                    ? jsonResponse(200, ["id": "m7", "url": "https://files.example/m7.png"])
                    : jsonResponse(202, ["id": "m7", "url": NSNull()])
            case ("GET", "/api/v1/media/m7"):
                return await polls.next() <= processingPolls
                    ? jsonResponse(206, ["id": "m7", "url": NSNull()])
                    : jsonResponse(200, ["id": "m7", "url": "https://files.example/m7.png"])
            case ("POST", "/api/v1/statuses"):
                return statusReply ?? jsonResponse(200, ["id": "21"])
            default:
                return jsonResponse(404, ["error": "Record not found"])
            }
        }
    }

    /// Mastodon (Ruby), Discord (Python) and Misskey (its schema) count an alt text's code points: one cut to a
    /// limit holds that many code points at most, never half an emoji sequence.
    @Test func anAltTextIsCutToItsLimitInCodePoints() {
        let image = PostImage(png: Data(), alt: String(repeating: "🇯🇵", count: 10), width: 1, height: 1)
        let cut = image.alt(limit: 7)
        #expect(cut == "🇯🇵🇯🇵🇯🇵…")
        #expect(cut.unicodeScalars.count <= 7)
        #expect(image.alt(limit: 20) == image.alt)
    }

    @Test func mastodonWaitsWhileTheServerProcessesTheUpload() async throws {
        let server = try await mastodon(processingPolls: 3)
        defer { Task { await server.stop() } }
        let clock = SteppingClock()
        let publisher = MastodonPublisher(baseURL: server.baseURL, token: "tok", maxCharacters: 500, image: Self.chart)
        let outcome = await publisher.publish(sampleImagePost, deadline: Deadline(in: .seconds(30), clock: clock))
        #expect(outcome == .delivered(remoteID: "21"))
        let requests = await server.requests
        #expect(
            requests.map(\.path) == ["/api/v2/media"] + Array(repeating: "/api/v1/media/m7", count: 4) + [
                "/api/v1/statuses"
            ])
        #expect(requests.allSatisfy { $0.headers["authorization"] == "Bearer tok" })
        #expect(requests.last?.json?["media_ids"] as? [String] == ["m7"])
        #expect(requests.last?.headers["idempotency-key"] == samplePost.idempotencyKey)
        // Four pauses of a second each on the deadline's clock, none on the wall clock.
        #expect(clock.now.offset == .seconds(4))
        let upload = try #require(requests.first)
        let form = try #require(MultipartForm(upload))
        #expect(form["file"]?.filename == samplePost.idempotencyKey + ".png")
        #expect(form["file"]?.contentType == "image/png")
    }

    @Test func mastodonStillProcessingAtTheDeadlineIsRetriedLaterWithoutAPost() async throws {
        let server = try await mastodon(processingPolls: 1000)
        defer { Task { await server.stop() } }
        let publisher = MastodonPublisher(baseURL: server.baseURL, token: "tok", maxCharacters: 500, image: Self.chart)
        let outcome = await publisher.publish(
            sampleImagePost, deadline: Deadline(in: .seconds(5), clock: SteppingClock()))
        guard case .retryable(let reason, _, let unconfirmed) = outcome else {
            Issue.record("\(outcome)")
            return
        }
        // The last poll may be the one the deadline cuts short.
        #expect(reason.contains("still processing") || reason.contains("deadline passed"), "\(reason)")
        #expect(!unconfirmed)
        #expect(!(await server.requests.contains { $0.path == "/api/v1/statuses" }))
    }

    /// The notes (§6.2): Mastodon answers 422 to a status whose media has not finished processing; nothing was
    /// posted, and a later attempt succeeds.
    @Test func mastodon422ForUnprocessedMediaIsRetryable() async throws {
        let server = try await mastodon(
            processingPolls: 0,
            statusReply: jsonResponse(
                422, ["error": "Cannot attach files that have not finished processing. Try again in a moment!"]))
        defer { Task { await server.stop() } }
        let publisher = MastodonPublisher(baseURL: server.baseURL, token: "tok", maxCharacters: 500, image: Self.chart)
        guard
            case .retryable(_, let after, let unconfirmed) = await publisher.publish(sampleImagePost, deadline: soon())
        else {
            Issue.record("not retryable")
            return
        }
        #expect(after == 5 && !unconfirmed)
    }

    // MARK: X

    @Test func xSignsTheMultipartUploadWithoutItsBodyThenSetsTheAltText() async throws {
        let port = PortBox()
        let server = try await LoopbackServer.start { request, _ in
            guard XPublisherTests.signatureIsValid(request, port: await port.value) else {
                return jsonResponse(401, ["title": "Unauthorized", "detail": "bad signature", "status": 401])
            }
            switch request.path {
            case "/2/media/upload": return jsonResponse(200, ["data": ["id": "1880028106020515840"]])
            case "/2/media/metadata": return jsonResponse(200, ["data": ["associated_metadata": true]])
            default: return jsonResponse(201, ["data": ["id": "1861", "text": "t"]])
            }
        }
        defer { Task { await server.stop() } }
        await port.set(UInt16(server.baseURL.port ?? 0))
        let publisher = XPublisher(
            baseURL: server.baseURL, authentication: .oauth1(XPublisherTests.credentials), image: Self.chart)
        #expect(await publisher.publish(sampleImagePost, deadline: soon()) == .delivered(remoteID: "1861"))
        let requests = await server.requests
        // Required: the lines below index the requests, and a short list would crash every test in the process.
        try #require(requests.map(\.path) == ["/2/media/upload", "/2/media/metadata", "/2/tweets"])
        let form = try #require(MultipartForm(requests[0]))
        #expect(form.parts.map(\.name).sorted() == ["media", "media_category", "media_type"])
        #expect(form["media_category"]?.text == "tweet_image" && form["media_type"]?.text == "image/png")
        #expect(form["media"]?.body == samplePNG && form["media"]?.contentType == "image/png")
        #expect(requests[1].json?["id"] as? String == "1880028106020515840")
        // Each request has its own nonce.
        let nonces = requests.compactMap {
            OAuth1.parseAuthorizationHeader($0.headers["authorization"] ?? "")?["oauth_nonce"]
        }
        #expect(Set(nonces).count == 3)
    }

    @Test func xAnUploadSignedWithTheWrongSecretIsRefusedBeforeAnyPost() async throws {
        let port = PortBox()
        let server = try await LoopbackServer.start { request, _ in
            guard XPublisherTests.signatureIsValid(request, port: await port.value) else {
                return jsonResponse(401, ["title": "Unauthorized", "detail": "bad signature", "status": 401])
            }
            return jsonResponse(200, ["data": ["id": "1"]])
        }
        defer { Task { await server.stop() } }
        await port.set(UInt16(server.baseURL.port ?? 0))
        var wrong = XPublisherTests.credentials
        wrong.tokenSecret = "not-the-secret"
        let outcome = await XPublisher(baseURL: server.baseURL, authentication: .oauth1(wrong), image: Self.chart)
            .publish(sampleImagePost, deadline: soon())
        #expect(outcome == .permanent(reason: "image upload: HTTP 401: bad signature"))
        #expect(await server.requests.map(\.path) == ["/2/media/upload"])
    }

    // MARK: Matrix

    @Test func matrixSendsTheImageEventThenTheTextEachWithItsOwnTxnID() async throws {
        let target = try #require(ImageCase.all.first { $0.kind == "matrix" })
        let server = try await target.server()
        defer { Task { await server.stop() } }
        let publisher = MatrixPublisher(baseURL: server.baseURL, token: "tok", roomID: "!r:hs", image: Self.chart)
        #expect(await publisher.publish(sampleImagePost, deadline: soon()) == .delivered(remoteID: "$13"))
        #expect(await publisher.publish(sampleImagePost, deadline: soon()) == .delivered(remoteID: "$13"))
        let requests = await server.requests
        let upload = try #require(requests.first)
        #expect(upload.path == "/_matrix/media/v3/upload" && upload.headers["content-type"] == "image/png")
        #expect(upload.query["filename"] == samplePost.idempotencyKey + ".png")
        let events = requests.filter { $0.method == "PUT" }
        let room = "/_matrix/client/v3/rooms/!r:hs/send/m.room.message/"
        #expect(
            events.map(\.path) == [
                room + samplePost.idempotencyKey + "-image", room + samplePost.idempotencyKey,
                room + samplePost.idempotencyKey + "-image", room + samplePost.idempotencyKey,
            ])
        let image = try #require(events[0].json)
        #expect(image["msgtype"] as? String == "m.image" && image["url"] as? String == "mxc://hs/abc")
        #expect(image["body"] as? String == sampleImage.alt && image["filename"] == nil)
        let info = try #require(image["info"] as? [String: Any])
        #expect(info["mimetype"] as? String == "image/png" && info["size"] as? Int == samplePNG.count)
        #expect(info["w"] as? Int == 1200 && info["h"] as? Int == 675)
        #expect(events[1].json?["body"] as? String == samplePost.text)
    }

    // MARK: Bluesky

    @Test func blueskyEmbedsTheBlobWithItsAltTextAndAspectRatio() async throws {
        let target = try #require(ImageCase.all.first { $0.kind == "bluesky" })
        let server = try await target.server()
        defer { Task { await server.stop() } }
        #expect(await target.make(server.baseURL, Self.chart).publish(sampleImagePost, deadline: soon()).isDelivered)
        let requests = await server.requests
        let upload = try #require(requests.first { $0.path == "/xrpc/com.atproto.repo.uploadBlob" })
        #expect(upload.headers["content-type"] == "image/png" && upload.body == samplePNG)
        #expect(upload.headers["authorization"]?.hasPrefix("Bearer ") == true)
        let image = try #require(blueskyImage(in: requests))
        #expect(image["aspectRatio"] as? [String: Int] == ["width": 1200, "height": 675])
        #expect(((image["image"] as? [String: Any])?["ref"] as? [String: String]) == ["$link": "bafkreiimage"])
    }

    @Test func blueskyRefusesAnImageOverItsLimitBeforeUploading() async throws {
        let target = try #require(ImageCase.all.first { $0.kind == "bluesky" })
        let server = try await target.server()
        defer { Task { await server.stop() } }
        var post = sampleImagePost
        post.image?.png = samplePNG + Data(count: BlueskyPublisher.imageByteLimit)
        let outcome = await target.make(server.baseURL, Self.chart).publish(post, deadline: soon())
        let size = samplePNG.count + BlueskyPublisher.imageByteLimit
        #expect(
            outcome == .permanent(reason: "image upload: the image is \(size) bytes; Bluesky takes at most 1000000"))
        #expect(
            !(await server.requests.contains { $0.path.hasSuffix("uploadBlob") || $0.path.hasSuffix("createRecord") }))
    }

    // MARK: Misskey

    @Test func misskeyUploadsToTheDriveWithTheTokenAndANameFromTheKey() async throws {
        let target = try #require(ImageCase.all.first { $0.kind == "misskey" })
        let server = try await target.server()
        defer { Task { await server.stop() } }
        #expect(
            await target.make(server.baseURL, Self.chart).publish(sampleImagePost, deadline: soon())
                == .delivered(remoteID: "9x1"))
        let form = try #require(uploads(in: await server.requests, "/api/drive/files/create").first)
        #expect(form.parts.map(\.name) == ["i", "name", "comment", "file"])
        #expect(form["i"]?.text == "tok" && form["name"]?.text == samplePost.idempotencyKey + ".png")
        #expect(form["file"]?.contentType == "image/png" && form["file"]?.filename == form["name"]?.text)
    }

    // MARK: Discord

    @Test func discordSendsPayloadJSONAndTheFileInOneMultipartRequest() async throws {
        let target = try #require(ImageCase.all.first { $0.kind == "discord" })
        let server = try await target.server()
        defer { Task { await server.stop() } }
        #expect(
            await target.make(server.baseURL, Self.chart).publish(sampleImagePost, deadline: soon())
                == .delivered(remoteID: "15"))
        let request = try #require(await server.requests.first)
        #expect(request.query["wait"] == "true")
        let form = try #require(MultipartForm(request))
        #expect(form.parts.map(\.name) == ["payload_json", "files[0]"])
        let payload = try #require(try JSONSerialization.jsonObject(with: form["payload_json"]!.body) as? [String: Any])
        #expect(payload["content"] as? String == samplePost.text)
        #expect((payload["allowed_mentions"] as? [String: [String]]) == ["parse": []])
        let attachment = try #require((payload["attachments"] as? [[String: Any]])?.first)
        #expect(attachment["id"] as? Int == 0 && attachment["filename"] as? String == form["files[0]"]?.filename)
        #expect(form["files[0]"]?.contentType == "image/png")
    }

    // MARK: ntfy

    /// What an ntfy before 2.5 stores as a message's text and title: the `message`/`title` query parameters, else the
    /// `X-Message`/`X-Title` headers as they came (it does not decode RFC 2047 words), else the JSON body's fields.
    static func storedByOldNtfy(_ request: SeenRequest) -> (message: String?, title: String?) {
        if request.method == "POST", request.path == "/" {
            return (request.json?["message"] as? String, request.json?["title"] as? String)
        }
        return (
            request.query["message"] ?? request.headers["x-message"],
            request.query["title"] ?? request.headers["x-title"]
        )
    }

    /// Both forms of a post, text only (JSON) and with the chart (`PUT` with the PNG), reach an ntfy before 2.5 as
    /// the text itself, Japanese, a line break and the characters a query gives a meaning to included.
    @Test(arguments: [false, true])
    func ntfyBefore25StoresTheTextAsWritten(withChart: Bool) async throws {
        let server = try await LoopbackServer.start { _, _ in jsonResponse(200, ["id": "n1", "event": "message"]) }
        defer { Task { await server.stop() } }
        let publisher = NtfyPublisher(
            baseURL: server.baseURL, topic: "steps", token: "tok", title: "歩数 & more", priority: 3,
            tags: ["walking", "足"], image: Self.chart)
        var post = withChart ? sampleImagePost : samplePost
        post.text += "\n+1 = 100% #steps?"
        #expect(await publisher.publish(post, deadline: soon()) == .delivered(remoteID: "n1"))
        let request = try #require(await server.requests.first)
        let stored = Self.storedByOldNtfy(request)
        #expect(stored.message == post.text)
        #expect(stored.title == "歩数 & more")
        #expect(!request.headers.values.contains { $0.contains("=?") })
        #expect(request.headers["authorization"] == "Bearer tok")
        if withChart {
            #expect(request.method == "PUT" && request.path == "/steps" && request.body == samplePNG)
            #expect(request.headers["filename"] == samplePost.idempotencyKey + ".png")
            #expect(request.query["tags"] == "walking,足" && request.headers["x-priority"] == "3")
        } else {
            #expect(request.json?["tags"] as? [String] == ["walking", "足"] && request.json?["priority"] as? Int == 3)
        }
    }

    /// The query as ntfy's Go parser reads it: a `+` left as it is would become a space there.
    @Test func ntfyQueryEncodesAllButUnreservedCharacters() throws {
        let text = "1 + 1 = 2 & 歩\n#"
        let query = NtfyPublisher.query([("message", text), ("title", "a b")])
        #expect(query.allSatisfy { $0.isASCII && !" +#\n".contains($0) })
        let parts = query.split(separator: "&").map { $0.split(separator: "=", maxSplits: 1).map(String.init) }
        #expect(parts.map { $0[0] } == ["message", "title"])
        let goDecoded = parts.map { $0[1].replacingOccurrences(of: "+", with: " ").removingPercentEncoding }
        #expect(goDecoded == [text, "a b"])
    }

    // MARK: webhook

    @Test func webhookImagePlaceholdersAreNullWithoutAnImage() throws {
        let template = try WebhookBodyTemplate(#"{"png": {{image_png_base64}}, "alt": {{ image_alt }}}"#)
        #expect(template.carriesImage)
        let without = try #require(
            try JSONSerialization.jsonObject(with: template.render(samplePost)) as? [String: Any])
        #expect(without["png"] is NSNull && without["alt"] is NSNull)
        let with = try #require(
            try JSONSerialization.jsonObject(with: template.render(sampleImagePost)) as? [String: Any])
        #expect(with["alt"] as? String == sampleImage.alt)
        #expect((with["png"] as? String).flatMap { Data(base64Encoded: $0) } == samplePNG)
        #expect(!(try WebhookBodyTemplate()).carriesImage)
    }

    // MARK: Configuration

    func make(_ table: String) throws(ConfigurationError) -> any Publisher {
        let environment = [
            "T": "tok", "HOOK": "https://example.org/hook/secret", "SLACK": "https://hooks.slack.com/services/T/B/X",
        ]
        let set = try PublisherFactory.make(toml: "[[publish]]\n" + table, environment: environment)
        return set.publishers[0]
    }

    func error(_ table: String) -> ConfigurationError? {
        do {
            _ = try make(table)
            return nil
        } catch { return error }
    }

    @Test func imageKeysAreReadByEveryTargetThatTakesImages() throws {
        let mastodon = try make(
            "kind = \"mastodon\"\nbase_url = \"https://m.example\"\ntoken_env = \"T\"\nimage = \"chart\"")
        #expect(mastodon.image == ImageOption(chart: true, required: true))
        let ntfy = try make("kind = \"ntfy\"\ntopic = \"steps\"\nimage = \"chart\"\nimage_required = false")
        #expect(ntfy.image == ImageOption(chart: true, required: false))
        let file = try make("kind = \"file\"\npath = \"posts.jsonl\"")
        #expect(file.image == ImageOption.off)
    }

    @Test func anUnknownImageValueNamesItsKey() {
        let e = error("kind = \"misskey\"\nbase_url = \"https://mk.example\"\ntoken_env = \"T\"\nimage = \"photo\"")
        #expect(e?.path == "publish[0].image")
        #expect(e?.message == #"must be one of "chart", not "photo""#)
        #expect(
            error("kind = \"matrix\"\nbase_url = \"https://hs\"\ntoken_env = \"T\"\nroom_id = \"!r\"\nimage = 1")?.path
                == "publish[0].image")
    }

    @Test func slackRefusesAnImageAndStdoutKnowsNoImageKey() {
        let slack = error("kind = \"slack\"\nurl_env = \"SLACK\"\nimage = \"chart\"")
        #expect(slack?.path == "publish[0].image")
        #expect(slack?.message.contains("Slack incoming webhooks take no files") == true)
        #expect(error("kind = \"stdout\"\nimage = \"chart\"")?.path == "publish[0].image")
    }

    @Test func aWebhookWithImageChartNeedsTheImagePlaceholder() {
        let e = error("kind = \"webhook\"\nurl_env = \"HOOK\"\nimage = \"chart\"")
        #expect(e?.path == "publish[0].image")
        #expect(e?.message.contains("{{image_png_base64}}") == true)
    }
}
