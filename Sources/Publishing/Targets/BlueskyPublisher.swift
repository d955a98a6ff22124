import Foundation
import Messages
import WallTime

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Bluesky (AT Protocol): logs in once with `com.atproto.server.createSession` (identifier + app password), keeps
/// the session in the `TargetInfoCache` for every later process (`BlueskyLogin`: createSession is limited to 30 per
/// 5 minutes and 300 a day), renews it with `refreshSession` when the access JWT has expired (by its `exp`, or when
/// the server says `ExpiredToken`), and posts with `com.atproto.repo.createRecord` under a deterministic record key
/// derived from the window (`recordKey(for:)`). A repeat with the same key cannot create a second post; when a create
/// fails, `getRecord` tells whether the post is already there (`.alreadyDelivered`). Length: 300 graphemes and
/// 3000 UTF-8 bytes. With `image = "chart"` the chart goes up with `uploadBlob` first and the post embeds it
/// (`app.bsky.embed.images`, with its alt text and aspect ratio). Links in the text get link facets (`linkFacets`).
public struct BlueskyPublisher: Publisher {
    public let name: String
    public let baseURL: URL
    public let identifier: String
    let password: String
    public var language: String?
    public var gate: TextGate
    public func refusal(of text: String) -> String? { gate.refusal(of: text) }
    /// `image`, `image_required`: the chart goes up with `uploadBlob` first.
    public var image: ImageOption
    let context: HTTPContext
    /// The session, kept in the context's `TargetInfoCache` (the state database in the agent).
    let sessions: StoredSession<BlueskyLogin>

    public init(
        name: String = "bluesky", baseURL: URL = URL(string: "https://bsky.social")!, identifier: String,
        password: String, language: String? = nil, shorten: Bool = false, image: ImageOption = .off,
        context: HTTPContext = HTTPContext()
    ) {
        self.name = name
        self.baseURL = baseURL
        self.identifier = identifier
        self.password = password
        self.language = language
        self.gate = TextGate(rule: .bluesky, shorten: shorten)
        self.image = image
        self.context = context.redacting(password)
        sessions = StoredSession(
            grant: BlueskyLogin(baseURL: baseURL, identifier: identifier, password: password), context: self.context)
    }

    public var lengthRule: LengthRule? { .bluesky }
    public var redactedDescription: String {
        "\(name): bluesky \(Redactor.origin(of: baseURL)) as \(identifier) (password [REDACTED])"
    }

    // MARK: Record keys

    static let base32Sortable = Array("234567abcdefghijklmnopqrstuvwxyz")

    /// A TID (13 characters of base32-sortable): microseconds of the window start in the upper 53 bits and a 10-bit
    /// "clock id" hashed from the whole idempotency key, so that two windows starting together still differ.
    public static func recordKey(for post: Post) -> String {
        let micros =
            UInt64(max(0, (post.window.start.date.timeIntervalSince1970 * 1_000_000).rounded())) & ((1 << 53) - 1)
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a 64
        for byte in post.idempotencyKey.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        let value = micros << 10 | (hash & 0x3FF)
        return String((0..<13).map { i in base32Sortable[Int((value >> UInt64(60 - 5 * i)) & 0x1F)] })
    }

    // MARK: Sessions

    func xrpc(_ method: String) -> URL { sessions.grant.xrpc(method) }

    /// A usable session: the stored one, a refreshed one when its access JWT has expired or was `refused`, or a new
    /// login.
    func currentSession(deadline: Deadline, refused: String? = nil) async -> Result<BlueskySession, Stop> {
        await sessions.access(deadline: deadline, refused: refused).map(\.tokens)
    }

    // MARK: Posting

    public func publish(_ post: Post, deadline: Deadline) async -> DeliveryOutcome {
        let text: String
        switch gate.prepare(post.text) {
        case .failure(let stop): return stop.outcome
        case .success(let prepared): text = prepared
        }
        let rkey = Self.recordKey(for: post)
        var session: BlueskySession
        switch await currentSession(deadline: deadline) {
        case .failure(let stop): return stop.outcome
        case .success(let s): session = s
        }
        return await ImageAttachment.uploadThenPost(
            post, option: image, target: name,
            upload: { image in
                switch await uploadBlob(image, session: session, deadline: deadline) {
                case .failure(let stop): return .failure(stop)
                case .success(let uploaded):
                    session = uploaded.session
                    return .success(Self.imagesEmbed(blob: uploaded.blob, image: image))
                }
            },
            send: { embed in
                await createPost(text: text, rkey: rkey, embed: embed, session: session, deadline: deadline)
            })
    }

    /// Creates the post's record (with `embed` when it carries the image), refreshing the session once if the server
    /// says it has expired; a failed create whose record key is already taken is the post made by an earlier
    /// attempt.
    func createPost(text: String, rkey: String, embed: Embed?, session: BlueskySession, deadline: Deadline)
        async
        -> DeliveryOutcome
    {
        var session = session
        var reply: HTTPReply
        switch await createRecord(text: text, rkey: rkey, embed: embed, session: session, deadline: deadline) {
        case .failure(let failure): return ResponseClassifier.classify(failure)
        case .success(let r): reply = r
        }
        if Self.isExpiredToken(reply) {
            switch await currentSession(deadline: deadline, refused: session.accessJwt) {
            case .failure(let stop): return stop.outcome
            case .success(let s): session = s
            }
            switch await createRecord(text: text, rkey: rkey, embed: embed, session: session, deadline: deadline) {
            case .failure(let failure): return ResponseClassifier.classify(failure)
            case .success(let r): reply = r
            }
        }
        let outcome = ResponseClassifier.classify(
            reply, now: context.now(), redactor: context.redactor, idRequired: true
        ) { $0.decoded(RecordAnswer.self)?.uri }
        switch outcome {
        case .delivered, .alreadyDelivered, .deliveredWithoutImage:
            return outcome
        case .retryable, .permanent:
            // The record key may already be taken by an earlier attempt that did get through.
            if reply.status == 429 { return outcome }
            if let uri = await existingRecord(rkey: rkey, session: session, deadline: deadline) {
                return .alreadyDelivered(remoteID: uri)
            }
            return outcome
        }
    }

    // MARK: The image

    /// The PDS's limit on an image blob in `app.bsky.embed.images` (the lexicon's `maxSize`).
    public static let imageByteLimit = 1_000_000

    /// `com.atproto.repo.uploadBlob` with the PNG as the body; the blob reference it answers goes into the post's
    /// embed. An unreferenced blob is deleted by the PDS, so an upload whose answer was lost is harmless. Refreshes
    /// the session once when the server says it has expired, and returns the session it used.
    func uploadBlob(_ image: PostImage, session: BlueskySession, deadline: Deadline) async -> Result<
        (blob: JSONValue, session: BlueskySession), Stop
    > {
        guard image.png.count <= Self.imageByteLimit else {
            return .failure(
                Stop(
                    .permanent(
                        reason: "the image is \(image.png.count) bytes; Bluesky takes at most \(Self.imageByteLimit)")))
        }
        var session = session
        func request(_ session: BlueskySession) -> URLRequest {
            Requests.data(
                "POST", xrpc("com.atproto.repo.uploadBlob"), contentType: "image/png", body: image.png,
                headers: ["Authorization": "Bearer \(session.accessJwt)"])
        }
        var reply: HTTPReply
        switch await context.send(request(session), deadline: deadline) {
        case .failure(let failure): return .failure(Stop(ResponseClassifier.classify(failure)))
        case .success(let r): reply = r
        }
        if Self.isExpiredToken(reply) {
            switch await currentSession(deadline: deadline, refused: session.accessJwt) {
            case .failure(let stop): return .failure(stop)
            case .success(let s): session = s
            }
            switch await context.send(request(session), deadline: deadline) {
            case .failure(let failure): return .failure(Stop(ResponseClassifier.classify(failure)))
            case .success(let r): reply = r
            }
        }
        guard (200..<300).contains(reply.status) else {
            return .failure(
                Stop(ResponseClassifier.classify(reply, now: context.now(), redactor: context.redactor) { _ in nil }))
        }
        return context.uploadReference(in: reply, named: "blob") { $0.decoded(BlobAnswer.self)?.objectBlob }
            .map { ($0, session) }
    }

    /// `app.bsky.embed.images` with one image: the blob, its alt text and its aspect ratio (so clients lay it out
    /// before loading it).
    static func imagesEmbed(blob: JSONValue, image: PostImage) -> Embed {
        Embed(
            images: [
                .init(
                    alt: image.alt, image: blob,
                    aspectRatio: .init(width: max(1, image.width), height: max(1, image.height)))
            ])
    }

    /// A link facet for each URL in `text` (twitter-text's rules; `https://` added to one written without): Bluesky
    /// finds no links in `text` itself, and a link without a facet shows as plain text. Offsets are UTF-8 bytes.
    static func linkFacets(_ text: String) -> [Facet] {
        TwitterText.urlRanges(in: text, requireScheme: false).map { range in
            let url = String(text[range])
            let hasScheme = url.range(of: "^https?://", options: [.regularExpression, .caseInsensitive]) != nil
            return Facet(
                index: .init(
                    byteStart: text.utf8.distance(from: text.startIndex, to: range.lowerBound),
                    byteEnd: text.utf8.distance(from: text.startIndex, to: range.upperBound)),
                features: [.init(uri: hasScheme ? url : "https://" + url)])
        }
    }

    /// An expired access token: 401, or 400 with the XRPC error `ExpiredToken` (a machine-readable code).
    static func isExpiredToken(_ reply: HTTPReply) -> Bool {
        reply.status == 401 || (reply.status == 400 && reply.decoded(XRPCError.self)?.error == "ExpiredToken")
    }

    func createRecord(text: String, rkey: String, embed: Embed?, session: BlueskySession, deadline: Deadline)
        async
        -> Result<
            HTTPReply, TransportFailure
        >
    {
        let facets = Self.linkFacets(text)
        let record = PostRecord(
            text: text, createdAt: Self.atTime(context.now()), langs: language.map { [$0] }, embed: embed,
            facets: facets.isEmpty ? nil : facets)
        let request = Requests.json(
            "POST", xrpc("com.atproto.repo.createRecord"),
            body: CreateRecord(repo: session.did, rkey: rkey, record: record),
            headers: ["Authorization": "Bearer \(session.accessJwt)"])
        return await context.send(request, deadline: deadline)
    }

    func existingRecord(rkey: String, session: BlueskySession, deadline: Deadline) async -> String? {
        var url = xrpc("com.atproto.repo.getRecord")
        url = Endpoint.adding("repo", session.did, to: url)
        url = Endpoint.adding("collection", "app.bsky.feed.post", to: url)
        url = Endpoint.adding("rkey", rkey, to: url)
        var request = URLRequest(url: url)
        request.setValue("Bearer \(session.accessJwt)", forHTTPHeaderField: "Authorization")
        guard case .success(let reply) = await context.send(request, deadline: deadline),
            reply.status == 200
        else { return nil }
        return reply.decoded(RecordAnswer.self)?.uri ?? "at://\(session.did)/app.bsky.feed.post/\(rkey)"
    }

    /// `2026-11-21T10:30:00.000Z`.
    static func atTime(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: date)
    }
}

extension BlueskyPublisher {
    /// `com.atproto.repo.createRecord`'s body: the post under its record key.
    struct CreateRecord: Encodable {
        var repo: String
        var collection = "app.bsky.feed.post"
        var rkey: String
        var record: PostRecord
    }

    /// An `app.bsky.feed.post` record.
    struct PostRecord: Encodable {
        var type = "app.bsky.feed.post"
        var text: String
        var createdAt: String
        var langs: [String]?
        var embed: Embed?
        var facets: [Facet]?
        private enum CodingKeys: String, CodingKey {
            case type = "$type"
            case text, createdAt, langs, embed, facets
        }
    }

    /// An `app.bsky.embed.images` embed: the uploaded blob's reference as the server gave it, the alt text and the
    /// aspect ratio.
    struct Embed: Encodable {
        var type = "app.bsky.embed.images"
        var images: [Image]
        private enum CodingKeys: String, CodingKey {
            case type = "$type"
            case images
        }

        struct Image: Encodable {
            var alt: String
            var image: JSONValue
            var aspectRatio: AspectRatio
        }

        struct AspectRatio: Encodable {
            var width: Int
            var height: Int
        }
    }

    /// A link facet: the link's range in UTF-8 bytes and its URI.
    struct Facet: Encodable {
        var index: ByteSlice
        var features: [Link]

        struct ByteSlice: Encodable {
            var byteStart: Int
            var byteEnd: Int
        }

        struct Link: Encodable {
            var type = "app.bsky.richtext.facet#link"
            var uri: String
            private enum CodingKeys: String, CodingKey {
                case type = "$type"
                case uri
            }
        }
    }

    /// `createRecord`'s and `getRecord`'s answer.
    struct RecordAnswer: Decodable {
        @Lenient var uri: String?
    }

    /// `uploadBlob`'s answer: the blob's reference, kept as written to be sent back in the embed.
    struct BlobAnswer: Decodable {
        @Lenient var blob: JSONValue?

        /// The reference when it is an object, as the lexicon's blob is.
        var objectBlob: JSONValue? {
            guard case .object = blob else { return nil }
            return blob
        }
    }

    /// An XRPC error's machine-readable code.
    struct XRPCError: Decodable {
        @Lenient var error: String?
    }
}

extension BlueskyPublisher {
    /// `kind = "bluesky"`: `base_url`, `identifier` and `password_env`/`password_file` (required), `language`,
    /// `shorten`, `image`, `image_required`. The session tokens it receives are hidden wherever a reply echoes them.
    public static let target = TargetKind(
        "bluesky", secrets: [.init("password")],
        redactions: [#"(?i)("(?:accessJwt|refreshJwt)"\s*:\s*")[^"]*"#]
    ) { config in
        BlueskyPublisher(
            name: config.name, baseURL: try config.url("base_url", default: "https://bsky.social")!,
            identifier: try config.requiredString("identifier"), password: try config.secret("password"),
            language: try config.language(), shorten: try config.shorten, image: try config.image,
            context: config.context)
    }
}
