import Clocks
import FlyingFox
import Foundation
import Testing
import WallTime

@testable import Publishing

/// One image-capable HTTP target as the shared image scenarios see it, against a server on 127.0.0.1: how to make it,
/// which request uploads the image (none when the image travels in the post's own request), which is the post,
/// how a working server answers each, and where the PNG and the alt text arrive.
struct ImageCase: Sendable, CustomTestStringConvertible {
    let kind: String
    let make: @Sendable (URL, ImageOption) -> any Publisher
    /// The upload request; nil for targets whose image travels in the post (Discord, ntfy, webhook).
    let isUpload: (@Sendable (SeenRequest) -> Bool)?
    let isPost: @Sendable (SeenRequest) -> Bool
    let uploadReply: @Sendable (SeenRequest) -> HTTPResponse
    let postReply: @Sendable (SeenRequest) -> HTTPResponse
    /// Answers the other requests (a login, an image event, the alt-text metadata, a media poll).
    let auxiliary: @Sendable (SeenRequest) -> HTTPResponse?
    /// The PNG's bytes and the alt text as the server received them, from all its requests.
    let sentPNG: @Sendable ([SeenRequest]) -> Data?
    let sentAlt: @Sendable ([SeenRequest]) -> String?
    /// Whether a post request carries the image (or refers to the upload), given all the server's requests.
    let carriesImage: @Sendable (SeenRequest, [SeenRequest]) -> Bool
    /// The post's idempotency key where the target sends one (nil: each repeat is a new post there).
    let postKey: @Sendable (SeenRequest) -> String?

    var testDescription: String { kind }
    var uploadsFirst: Bool { isUpload != nil }

    static var blobRef: [String: Any] {
        ["$type": "blob", "ref": ["$link": "bafkreiimage"], "mimeType": "image/png", "size": samplePNG.count]
    }

    static let all: [ImageCase] = [
        ImageCase(
            kind: "mastodon",
            make: { MastodonPublisher(baseURL: $0, token: "tok", maxCharacters: 500, image: $1) },
            isUpload: { $0.path == "/api/v2/media" }, isPost: { $0.path == "/api/v1/statuses" },
            uploadReply: { _ in jsonResponse(200, ["id": "m1", "url": "https://files.example/m1.png"]) },
            postReply: { _ in jsonResponse(200, ["id": "11"]) }, auxiliary: { _ in nil },
            sentPNG: { uploads(in: $0, "/api/v2/media").last?["file"]?.body },
            sentAlt: { uploads(in: $0, "/api/v2/media").last?["description"]?.text },
            carriesImage: { post, _ in post.json?["media_ids"] as? [String] == ["m1"] },
            postKey: { $0.headers["idempotency-key"] }),
        ImageCase(
            kind: "bluesky",
            make: { BlueskyPublisher(baseURL: $0, identifier: "h", password: "pw", image: $1) },
            isUpload: { $0.path == "/xrpc/com.atproto.repo.uploadBlob" },
            isPost: { $0.path == "/xrpc/com.atproto.repo.createRecord" },
            uploadReply: { _ in jsonResponse(200, ["blob": blobRef]) },
            postReply: { _ in jsonResponse(200, ["uri": "at://did:plc:t/app.bsky.feed.post/14", "cid": "c"]) },
            auxiliary: TargetCase.auxiliary,
            sentPNG: { $0.last { $0.path == "/xrpc/com.atproto.repo.uploadBlob" }?.body },
            sentAlt: { blueskyImage(in: $0)?["alt"] as? String },
            carriesImage: { post, _ in blueskyImage(in: [post]) != nil }, postKey: { $0.json?["rkey"] as? String }),
        ImageCase(
            kind: "misskey", make: { MisskeyPublisher(baseURL: $0, token: "tok", image: $1) },
            isUpload: { $0.path == "/api/drive/files/create" }, isPost: { $0.path == "/api/notes/create" },
            uploadReply: { _ in jsonResponse(200, ["id": "f1", "type": "image/png"]) },
            postReply: { _ in jsonResponse(200, ["createdNote": ["id": "9x1"]]) }, auxiliary: { _ in nil },
            sentPNG: { uploads(in: $0, "/api/drive/files/create").last?["file"]?.body },
            sentAlt: { uploads(in: $0, "/api/drive/files/create").last?["comment"]?.text },
            carriesImage: { post, _ in post.json?["fileIds"] as? [String] == ["f1"] }, postKey: { _ in nil }),
        ImageCase(
            kind: "matrix", make: { MatrixPublisher(baseURL: $0, token: "tok", roomID: "!r:hs", image: $1) },
            isUpload: { $0.path == "/_matrix/media/v3/upload" },
            isPost: { $0.method == "PUT" && $0.path.hasSuffix("/" + samplePost.idempotencyKey) },
            uploadReply: { _ in jsonResponse(200, ["content_uri": "mxc://hs/abc"]) },
            postReply: { _ in jsonResponse(200, ["event_id": "$13"]) },
            auxiliary: { $0.method == "PUT" ? jsonResponse(200, ["event_id": "$image"]) : nil },
            sentPNG: { $0.last { $0.path == "/_matrix/media/v3/upload" }?.body },
            sentAlt: { $0.last { $0.json?["msgtype"] as? String == "m.image" }?.json?["body"] as? String },
            // The text event goes with the image event, which refers to the upload.
            carriesImage: { _, all in all.contains { $0.json?["msgtype"] as? String == "m.image" } },
            postKey: { $0.path.components(separatedBy: "/").last }),
        ImageCase(
            kind: "x",
            make: {
                XPublisher(
                    baseURL: $0, authentication: .oauth1(XPublisherTests.credentials), image: $1,
                    context: HTTPContext(
                        clock: WallClock(ImmediateClock(), startingAt: Date(timeIntervalSince1970: 1_795_316_400))))
            },
            isUpload: { $0.path == "/2/media/upload" }, isPost: { $0.path == "/2/tweets" },
            uploadReply: { _ in jsonResponse(200, ["data": ["id": "1880028106020515840", "media_key": "3_188"]]) },
            postReply: { _ in jsonResponse(201, ["data": ["id": "12", "text": "t"]]) },
            auxiliary: {
                $0.path == "/2/media/metadata" ? jsonResponse(200, ["data": ["associated_metadata": true]]) : nil
            },
            sentPNG: { uploads(in: $0, "/2/media/upload").last?["media"]?.body },
            sentAlt: {
                (($0.last { $0.path == "/2/media/metadata" }?.json?["metadata"] as? [String: Any])?["alt_text"]
                    as? [String: Any])?["text"] as? String
            },
            carriesImage: { post, _ in
                (post.json?["media"] as? [String: Any])?["media_ids"] as? [String] == ["1880028106020515840"]
            }, postKey: { _ in nil }),
        ImageCase(
            kind: "discord",
            make: { DiscordPublisher(url: Endpoint.join($0, "api/webhooks/1/tok"), image: $1) },
            isUpload: nil, isPost: { $0.path == "/api/webhooks/1/tok" }, uploadReply: { _ in textResponse(500, "") },
            postReply: { _ in jsonResponse(200, ["id": "15"]) }, auxiliary: { _ in nil },
            sentPNG: { $0.compactMap { MultipartForm($0)?["files[0]"]?.body }.last },
            sentAlt: { requests in
                let payload = requests.compactMap { MultipartForm($0)?["payload_json"]?.body }.last
                let json = payload.flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
                return (json?["attachments"] as? [[String: Any]])?.first?["description"] as? String
            },
            carriesImage: { post, _ in MultipartForm(post)?["files[0]"] != nil }, postKey: { _ in nil }),
        ImageCase(
            kind: "ntfy", make: { NtfyPublisher(baseURL: $0, topic: "steps", token: "tok", image: $1) },
            isUpload: nil, isPost: { $0.path == "/" || $0.path == "/steps" },
            uploadReply: { _ in textResponse(500, "") }, postReply: { _ in jsonResponse(200, ["id": "16"]) },
            auxiliary: { _ in nil }, sentPNG: { $0.last { $0.method == "PUT" }?.body },
            // ntfy has no alt text; the message says what the chart shows.
            sentAlt: { _ in sampleImage.alt },
            carriesImage: { post, _ in post.method == "PUT" && post.headers["filename"] != nil },
            postKey: { _ in nil }),
        ImageCase(
            kind: "webhook",
            make: {
                WebhookPublisher(
                    url: Endpoint.join($0, "hook"),
                    bodyTemplate: try! WebhookBodyTemplate(
                        #"{"text": {{text}}, "png": {{image_png_base64}}, "alt": {{image_alt}}}"#), image: $1)
            },
            isUpload: nil, isPost: { $0.path == "/hook" }, uploadReply: { _ in textResponse(500, "") },
            postReply: { _ in jsonResponse(200, ["id": "17"]) }, auxiliary: { _ in nil },
            sentPNG: { ($0.last?.json?["png"] as? String).flatMap { Data(base64Encoded: $0) } },
            sentAlt: { $0.last?.json?["alt"] as? String }, carriesImage: { post, _ in post.json?["png"] is String },
            postKey: { $0.headers["idempotency-key"] }),
    ]

    /// A server on 127.0.0.1 answering as `uploadAnswer(n)` / `postAnswer(n)` say for the n-th upload and post (nil:
    /// the working answer).
    func server(
        upload uploadAnswer: @escaping @Sendable (Int) -> HTTPResponse? = { _ in nil },
        post postAnswer: @escaping @Sendable (Int) -> HTTPResponse? = { _ in nil }
    ) async throws -> LoopbackServer {
        let uploads = Counter()
        let posts = Counter()
        let isUpload = self.isUpload
        let isPost = self.isPost
        let (uploadReply, postReply, auxiliary) = (self.uploadReply, self.postReply, self.auxiliary)
        return try await LoopbackServer.start { request, _ in
            if isUpload?(request) == true {
                return uploadAnswer(await uploads.next()) ?? uploadReply(request)
            }
            if isPost(request) { return postAnswer(await posts.next()) ?? postReply(request) }
            if let reply = auxiliary(request) { return reply }
            return jsonResponse(404, ["error": "unexpected \(request.method) \(request.path)"])
        }
    }
}

/// The multipart uploads a server received at `path`, parsed.
func uploads(in requests: [SeenRequest], _ path: String) -> [MultipartForm] {
    requests.filter { $0.path == path }.compactMap(MultipartForm.init)
}

/// The one image of a Bluesky post's `app.bsky.embed.images` embed.
func blueskyImage(in requests: [SeenRequest]) -> [String: Any]? {
    let record = requests.last { $0.path == "/xrpc/com.atproto.repo.createRecord" }?.json?["record"] as? [String: Any]
    let embed = record?["embed"] as? [String: Any]
    guard embed?["$type"] as? String == "app.bsky.embed.images" else { return nil }
    return (embed?["images"] as? [[String: Any]])?.first
}

/// The scenarios every image-capable target must pass against a loopback server: upload, then the post carrying it,
/// with the PNG intact and the alt text; a lost upload answer uploads again and posts once; a lost post answer is
/// unconfirmed; a failed upload fails the post when `image_required`, else the text goes out alone and says so.
@Suite struct ImageConformanceTests {
    static let chart = ImageOption(chart: true)
    static let chartOptional = ImageOption(chart: true, required: false)

    @Test func everyImageCapableKindHasItsImageScenarios() {
        let http = Set(PublisherFactory.targets.filter { $0.takesImages && $0.usesHTTP }.map(\.name))
        #expect(http == Set(ImageCase.all.map(\.kind)))
        // The file target writes the PNG beside its lines (FilePublisherTests); Slack and stdout take none.
        #expect(PublisherFactory.targets.filter { $0.takesImages && !$0.usesHTTP }.map(\.name) == ["file"])
        #expect(Set(PublisherFactory.targets.filter { !$0.takesImages }.map(\.name)) == ["slack", "stdout"])
    }

    @Test(arguments: ImageCase.all)
    func theImageGoesUpFirstAndThePostCarriesIt(_ target: ImageCase) async throws {
        let server = try await target.server()
        defer { Task { await server.stop() } }
        let outcome = await target.make(server.baseURL, Self.chart).publish(sampleImagePost, deadline: soon())
        #expect(outcome.isDelivered, "\(target.kind): \(outcome)")
        let requests = await server.requests
        let post = try #require(requests.lastIndex(where: target.isPost), "\(target.kind): no post")
        if let isUpload = target.isUpload {
            let upload = try #require(requests.firstIndex(where: isUpload), "\(target.kind): no upload")
            #expect(upload < post, "\(target.kind): posted before uploading")
            #expect(requests.filter(isUpload).count == 1)
        }
        #expect(requests.filter(target.isPost).count == 1)
        #expect(target.carriesImage(requests[post], requests), "\(target.kind): the post does not carry the image")
        #expect(target.sentPNG(requests) == samplePNG, "\(target.kind): the PNG did not arrive intact")
        #expect(target.sentAlt(requests) == sampleImage.alt, "\(target.kind): alt text")
    }

    @Test(arguments: ImageCase.all.filter(\.uploadsFirst))
    func anUploadWhoseAnswerIsLostIsUploadedAgainAndPostedOnce(_ target: ImageCase) async throws {
        let server = try await target.server(upload: { $0 == 1 ? closeBeforeAnswering() : nil })
        defer { Task { await server.stop() } }
        let publisher = target.make(server.baseURL, Self.chart)
        let first = await publisher.publish(sampleImagePost, deadline: soon())
        guard case .retryable(let reason, _, let unconfirmed) = first else {
            Issue.record("\(target.kind): \(first)")
            return
        }
        #expect(reason.hasPrefix("image upload: network error"), "\(target.kind): \(reason)")
        #expect(!unconfirmed, "\(target.kind): nothing was posted, so nothing needs looking up")
        #expect(await server.requests.filter(target.isPost).isEmpty, "\(target.kind): posted without its image")
        #expect(await publisher.publish(sampleImagePost, deadline: soon()).isDelivered)
        let requests = await server.requests
        #expect(requests.filter { target.isUpload?($0) == true }.count == 2)
        #expect(requests.filter(target.isPost).count == 1)
        #expect(requests.last(where: target.isPost).map { target.carriesImage($0, requests) } == true)
    }

    /// A proxy's or captive portal's 200 page in the upload's place: retried (uploading again), never a permanent
    /// failure that would lose a post whose image is required, and never unconfirmed (nothing was posted).
    @Test(arguments: ImageCase.all.filter(\.uploadsFirst))
    func anUploadAnswered2xxWithoutItsIdIsRetriedNotFailed(_ target: ImageCase) async throws {
        let page = "<html><body>Welcome to the hotel network</body></html>"
        let server = try await target.server(upload: { $0 == 1 ? textResponse(200, page) : nil })
        defer { Task { await server.stop() } }
        let publisher = target.make(server.baseURL, Self.chart)
        let first = await publisher.publish(sampleImagePost, deadline: soon())
        guard case .retryable(let reason, let after, let unconfirmed) = first else {
            Issue.record("\(target.kind): \(first)")
            return
        }
        #expect(reason.hasPrefix("image upload: HTTP 200: <html>"), "\(target.kind): \(reason)")
        #expect(reason.hasSuffix(" in the answer)"), "\(target.kind): \(reason)")
        #expect(after == nil && !unconfirmed, "\(target.kind): nothing was posted, so nothing needs looking up")
        #expect(await server.requests.filter(target.isPost).isEmpty, "\(target.kind): posted without its image")
        #expect(await publisher.publish(sampleImagePost, deadline: soon()).isDelivered)
        let requests = await server.requests
        #expect(requests.filter { target.isUpload?($0) == true }.count == 2)
        #expect(requests.filter(target.isPost).count == 1)
        #expect(requests.last(where: target.isPost).map { target.carriesImage($0, requests) } == true)
    }

    @Test(arguments: ImageCase.all)
    func aPostWhoseAnswerIsLostIsUnconfirmedAndItsRepeatKeepsItsKey(_ target: ImageCase) async throws {
        let server = try await target.server(post: { $0 == 1 ? closeBeforeAnswering() : nil })
        defer { Task { await server.stop() } }
        let publisher = target.make(server.baseURL, Self.chart)
        let first = await publisher.publish(sampleImagePost, deadline: soon())
        guard case .retryable(_, _, let unconfirmed) = first else {
            Issue.record("\(target.kind): \(first)")
            return
        }
        #expect(unconfirmed, "\(target.kind): the post may have been made: the agent must look before resending")
        #expect(await publisher.publish(sampleImagePost, deadline: soon()).isDelivered)
        let requests = await server.requests
        let posts = requests.filter(target.isPost)
        #expect(posts.count == 2)
        #expect(posts.allSatisfy { target.carriesImage($0, requests) }, "\(target.kind)")
        #expect(target.postKey(posts[0]) == target.postKey(posts[1]), "\(target.kind): the repeat changed its key")
    }

    @Test(arguments: ImageCase.all)
    func aFailedImageFailsThePostWhenTheImageIsRequired(_ target: ImageCase) async throws {
        let server = try await target.server(
            upload: { _ in jsonResponse(413, ["error": "too big"]) },
            post: { _ in target.uploadsFirst ? nil : jsonResponse(413, ["error": "too big"]) })
        defer { Task { await server.stop() } }
        let outcome = await target.make(server.baseURL, Self.chart).publish(sampleImagePost, deadline: soon())
        guard case .permanent(let reason) = outcome else {
            Issue.record("\(target.kind): \(outcome)")
            return
        }
        #expect(reason.contains("HTTP 413"), "\(target.kind): \(reason)")
        let requests = await server.requests
        #expect(
            requests.filter(target.isPost).allSatisfy { target.carriesImage($0, requests) },
            "\(target.kind): the text went out alone")
    }

    @Test(arguments: ImageCase.all)
    func aFailedImageLeavesTheTextToGoAloneWhenNotRequired(_ target: ImageCase) async throws {
        let server = try await target.server(
            upload: { _ in jsonResponse(503, ["error": "busy"]) },
            post: { n in !target.uploadsFirst && n == 1 ? jsonResponse(413, ["error": "too big"]) : nil })
        defer { Task { await server.stop() } }
        let outcome = await target.make(server.baseURL, Self.chartOptional).publish(sampleImagePost, deadline: soon())
        guard case .deliveredWithoutImage(_, let reason) = outcome else {
            Issue.record("\(target.kind): \(outcome)")
            return
        }
        #expect(reason.hasPrefix("posted without its image (image_required = false)"), "\(reason)")
        #expect(reason.contains(target.uploadsFirst ? "HTTP 503" : "HTTP 413"), "\(target.kind): \(reason)")
        let requests = await server.requests
        let last = try #require(requests.last(where: target.isPost))
        #expect(!target.carriesImage(last, requests), "\(target.kind): the text-only post")
        #expect(last.text.contains("1234 歩") || last.headers["x-message"] != nil)
    }

    @Test(arguments: ImageCase.all)
    func withoutImageChartThePostIsTextOnly(_ target: ImageCase) async throws {
        let server = try await target.server()
        defer { Task { await server.stop() } }
        #expect(await target.make(server.baseURL, .off).publish(sampleImagePost, deadline: soon()).isDelivered)
        let requests = await server.requests
        #expect(!requests.contains { target.isUpload?($0) == true })
        #expect(target.sentPNG(requests) == nil, "\(target.kind)")
    }
}
