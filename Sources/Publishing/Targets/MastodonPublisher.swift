import Foundation
import Messages
import WallTime

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Mastodon (and servers speaking its API: Takahē, GoToSocial, Pleroma, …): `POST {base_url}/api/v1/statuses` with
/// a bearer token, JSON `{status, visibility, language}` and the post's key as `Idempotency-Key`. 200 with the
/// Status entity; its `id` is the remote id. With `image = "chart"` the chart is uploaded first
/// (`POST /api/v2/media`, waiting while the server answers 202) and the status carries its id in `media_ids`.
///
/// Many servers ignore `Idempotency-Key` (Takahē, GoToSocial) and Mastodon keeps it one hour only, so after an
/// unconfirmed attempt the agent asks `lookUp` first: the account's recent statuses (`verify_credentials`, then
/// `accounts/:id/statuses`), matched on the post's text.
///
/// Length: the instance's `configuration.statuses.max_characters` from `/api/v2/instance`, read once and kept a day
/// in the context's `infoCache` (500 when the server does not say), unless `max_characters` overrides it; graphemes,
/// each URL counted as the instance's `configuration.statuses.characters_reserved_per_url` (read and kept with the
/// limit; 23 when the server does not say, says something outside 0...1000, or `max_characters` is set). A server
/// that cannot tell now (no answer, 429, 5xx) is asked again at the next attempt, and a text over 500 meanwhile waits
/// for it (`shorten = true` cuts it to 500 instead).
public struct MastodonPublisher: Publisher {
    public let name: String
    public let baseURL: URL
    let token: String
    public var visibility: String?
    public var language: String?
    /// The configured limit; nil: the instance's.
    public var maxCharacters: Int?
    public var shorten: Bool
    /// `image`, `image_required`: the chart goes up through `/api/v2/media` first.
    public var image: ImageOption
    let context: HTTPContext

    /// How long the instance's limit is kept.
    public static let limitLifetime: TimeInterval = 86_400
    /// Mastodon's own limit, used when the instance does not say.
    public static let defaultLimit = 500
    /// What Mastodon counts for a URL, used when the instance does not say.
    public static let defaultURLLength = TwitterText.urlLength
    /// The `characters_reserved_per_url` taken from an instance; anything else is not believed.
    public static let urlLengths = 0...1000

    public init(
        name: String = "mastodon", baseURL: URL, token: String, visibility: String? = nil,
        language: String? = nil, shorten: Bool = false, maxCharacters: Int? = nil, image: ImageOption = .off,
        context: HTTPContext = HTTPContext()
    ) {
        self.name = name
        self.baseURL = baseURL
        self.token = token
        self.visibility = visibility
        self.language = language
        self.shorten = shorten
        self.maxCharacters = maxCharacters
        self.image = image
        self.context = context.redacting(token)
    }

    /// The configured limit's rule, or Mastodon's 500 until the instance's own limit is read (at the first post).
    public var lengthRule: LengthRule? { Self.rule(maxCharacters ?? Self.defaultLimit) }
    public var redactedDescription: String { "\(name): mastodon \(Redactor.origin(of: baseURL)) (token [REDACTED])" }
    /// The Idempotency-Key alone does not prevent a double post on every server: look before resending.
    public var repeatsDuplicate: Bool { true }

    static func rule(_ limit: Int, urlLength: Int = defaultURLLength) -> LengthRule {
        limit == defaultLimit && urlLength == defaultURLLength
            ? .mastodon : .mastodonInstance(limit, urlLength: urlLength)
    }

    public func publish(_ post: Post, deadline: Deadline) async -> DeliveryOutcome {
        let text: String
        switch await prepare(post.text, deadline: deadline) {
        case .failure(let stop): return stop.outcome
        case .success(let prepared): text = prepared
        }
        return await ImageAttachment.uploadThenPost(
            post, option: image, target: name,
            upload: { await uploadMedia($0, post: post, deadline: deadline) },
            send: { await postStatus(text, mediaID: $0, post: post, deadline: deadline) })
    }

    /// `POST /api/v1/statuses`, with the uploaded image's id in `media_ids` when there is one.
    func postStatus(_ text: String, mediaID: String?, post: Post, deadline: Deadline) async -> DeliveryOutcome {
        let body = NewStatus(
            status: text, visibility: visibility, language: language, mediaIDs: mediaID.map { [$0] })
        let request = Requests.json(
            "POST", Endpoint.join(baseURL, "api/v1/statuses"), body: body,
            headers: [
                "Authorization": "Bearer \(token)",
                "Idempotency-Key": post.idempotencyKey,
            ])
        let reply: HTTPReply
        switch await context.send(request, deadline: deadline) {
        case .failure(let failure): return ResponseClassifier.classify(failure)
        case .success(let r): reply = r
        }
        let outcome = ResponseClassifier.classify(
            reply, now: context.now(), redactor: context.redactor, idRequired: true
        ) { $0.jsonID }
        // 422 for a status with media: "Cannot attach files that have not finished processing" (a server that
        // said the media was ready too early). Nothing was posted; worth a later try (postybirb-plus#335).
        if mediaID != nil, reply.status == 422, case .permanent(let reason) = outcome {
            return .retryable(reason: reason, retryAfter: Self.processingPoll.timeInterval * 5)
        }
        return outcome
    }

    // MARK: The image

    /// How long to wait between asks while the server processes an upload (it answered 202).
    public static let processingPoll: Duration = .seconds(1)
    /// Mastodon's limit on a media description.
    public static let altLimit = 1500

    /// `POST /api/v2/media` (multipart: `file`, `description` = the alt text); on 202 the server is still processing
    /// it, so `GET /api/v1/media/:id` is asked every `processingPoll` (on the deadline's clock) until its `url` is
    /// set. Returns the media id for `media_ids`.
    func uploadMedia(_ image: PostImage, post: Post, deadline: Deadline) async -> Result<String, Stop> {
        var form = MultipartBody()
        form.addFile("file", filename: PostImage.fileName(for: post), contentType: "image/png", data: image.png)
        form.add("description", image.alt(limit: Self.altLimit))
        let request = form.request(
            "POST", Endpoint.join(baseURL, "api/v2/media"), headers: ["Authorization": "Bearer \(token)"])
        var reply: HTTPReply
        switch await context.successfulReply(to: request, deadline: deadline) {
        case .failure(let stop): return .failure(stop)
        case .success(let r): reply = r
        }
        let id: String
        switch context.uploadReference(in: reply, named: "media id", { $0.jsonID }) {
        case .failure(let stop): return .failure(stop)
        case .success(let mediaID): id = mediaID
        }
        while reply.status == 202 || reply.decoded(Media.self)?.url == nil {
            do { try await deadline.pause(for: Self.processingPoll) } catch {
                return .failure(Stop(ResponseClassifier.classify(.deadline)))
            }
            if deadline.hasPassed {
                return .failure(
                    Stop(
                        .retryable(reason: "the server was still processing the image at the deadline", retryAfter: nil)
                    ))
            }
            var poll = URLRequest(url: Endpoint.join(baseURL, "api/v1/media/\(Endpoint.segment(id))"))
            poll.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
            poll.setValue("application/json", forHTTPHeaderField: "Accept")
            poll.setValue("steptweet", forHTTPHeaderField: "User-Agent")
            switch await context.successfulReply(to: poll, deadline: deadline) {
            case .failure(let stop): return .failure(stop)
            case .success(let r): reply = r  // 206 while processing, 200 with its url once done
            }
        }
        return .success(id)
    }

    /// The length check with the configured limit, or the instance's.
    /// Known before asking the server only with `max_characters`: otherwise the instance's own limit decides, and an
    /// instance may allow far more than the default 500.
    public func refusal(of text: String) -> String? {
        maxCharacters.flatMap { TextGate(rule: Self.rule($0), shorten: shorten).refusal(of: text) }
    }

    func gate(deadline: Deadline) async -> (gate: TextGate, unknown: String?) {
        if let maxCharacters { return (TextGate(rule: Self.rule(maxCharacters), shorten: shorten), nil) }
        let instance = await instanceLimits(deadline: deadline)
        return (
            TextGate(rule: Self.rule(instance.limit, urlLength: instance.urlLength), shorten: shorten), instance.unknown
        )
    }

    /// The text to send, or why not. A text over Mastodon's default while the instance's own limit cannot be read
    /// (it may allow more) is worth another attempt, not a failure for good.
    func prepare(_ text: String, deadline: Deadline) async -> Result<String, Stop> {
        let (gate, unknown) = await gate(deadline: deadline)
        let prepared = gate.prepare(text)
        if let unknown, !text.isEmpty, case .failure(let stop) = prepared, case .permanent(let reason) = stop.outcome {
            return .failure(
                Stop(
                    .retryable(
                        reason:
                            "the instance's character limit could not be read (\(unknown)); by Mastodon's default, \(reason)",
                        retryAfter: nil)))
        }
        return prepared
    }

    // MARK: The instance's limit

    var limitKey: String { "mastodon.max_characters \(baseURL.absoluteString)" }
    var urlLengthKey: String { "mastodon.characters_reserved_per_url \(baseURL.absoluteString)" }

    /// `configuration.statuses.max_characters` and `characters_reserved_per_url` of `/api/v2/instance`, from the
    /// cache while both are under a day old; 500 and 23 when the server does not tell (also kept a day, so a server
    /// without the endpoint is not asked per post). When it cannot tell now (no answer, 408, 425, 429, 5xx), 500 and
    /// 23 for this attempt only, with why in `unknown`.
    func instanceLimits(deadline: Deadline) async -> (limit: Int, urlLength: Int, unknown: String?) {
        let now = context.now()
        func fresh(_ key: String) async -> Int? {
            guard let cached = await context.infoCache.info(key), let value = Int(cached.value),
                now.timeIntervalSince(cached.storedAt) < Self.limitLifetime, now >= cached.storedAt
            else { return nil }
            return value
        }
        if let limit = await fresh(limitKey), let urlLength = await fresh(urlLengthKey) {
            return (limit, urlLength, nil)
        }
        var request = URLRequest(url: Endpoint.join(baseURL, "api/v2/instance"))
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        request.setValue("steptweet", forHTTPHeaderField: "User-Agent")
        var limit = Self.defaultLimit
        var urlLength = Self.defaultURLLength
        switch await context.send(request, deadline: deadline) {
        case .failure(let failure):
            // No answer: ask again next time.
            if case .retryable(let reason, _, _) = ResponseClassifier.classify(failure) {
                return (limit, urlLength, reason)
            }
            return (limit, urlLength, "no answer")
        case .success(let reply):
            if [408, 425, 429].contains(reply.status) || reply.status >= 500 {
                return (limit, urlLength, ResponseClassifier.reason(reply, redactor: context.redactor))
            }
            let statuses = reply.decoded(Instance.self)?.configuration?.statuses
            if (200..<300).contains(reply.status) {
                if let value = statuses?.maxCharacters, value > 0 { limit = value }
                if let value = statuses?.charactersReservedPerURL, Self.urlLengths.contains(value) {
                    urlLength = value
                }
            }
        }
        await context.infoCache.store(TargetInfo(value: String(limit), storedAt: now), for: limitKey)
        await context.infoCache.store(TargetInfo(value: String(urlLength), storedAt: now), for: urlLengthKey)
        return (limit, urlLength, nil)
    }

    // MARK: Looking a post up

    /// Looks for the post among the account's statuses created since its window ended (a post is only made after
    /// its window closes), by its text as it would be sent, in any field that may hold it (`shownTexts`), read as
    /// plain text or as HTML (`PostMatch.isText`).
    public func lookUp(_ post: Post, deadline: Deadline) async -> PostLookup {
        let text: String
        switch await prepare(post.text, deadline: deadline) {
        case .success(let prepared): text = prepared
        case .failure(let stop):
            if case .retryable(let reason, _, _) = stop.outcome { return .failed(reason: reason) }
            return .notFound
        }
        let me: HTTPReply
        switch await get("api/v1/accounts/verify_credentials", deadline: deadline) {
        case .failure(let failure): return .failed(reason: failure.reason)
        case .success(let reply): me = reply
        }
        guard let id = me.jsonID else {
            return .failed(reason: "verify_credentials answered without an id")
        }
        let path = "api/v1/accounts/\(Endpoint.segment(id))/statuses?limit=40&exclude_reblogs=true"
        let statuses: HTTPReply
        switch await get(path, deadline: deadline) {
        case .failure(let failure): return .failed(reason: failure.reason)
        case .success(let reply): statuses = reply
        }
        guard let list = statuses.decoded([Status].self) else {
            return .failed(reason: "the account's statuses are not a JSON array")
        }
        let match = PostMatch(post: post, text: text)
        for status in list where match.isPost(createdAt: status.createdAt) {
            if status.shownTexts.contains(where: match.isText) { return .found(remoteID: status.id?.text) }
        }
        return .notFound
    }

    /// A GET with the token: the 2xx reply, or why not.
    func get(_ path: String, deadline: Deadline) async -> Result<HTTPReply, LookupFailure> {
        await context.lookUpGET(Endpoint.join(baseURL, path), token: token, deadline: deadline)
    }

}

extension MastodonPublisher {
    /// `POST /api/v1/statuses`' body.
    struct NewStatus: Encodable {
        var status: String
        var visibility: String?
        var language: String?
        var mediaIDs: [String]?
        private enum CodingKeys: String, CodingKey {
            case status, visibility, language
            case mediaIDs = "media_ids"
        }
    }

    /// A media attachment as uploaded and polled: its `url` is set once the server has processed it.
    struct Media: Decodable {
        @Lenient var url: String?
    }

    /// What `/api/v2/instance` says of statuses.
    struct Instance: Decodable {
        @Lenient var configuration: Configuration?

        struct Configuration: Decodable {
            @Lenient var statuses: Statuses?
        }

        struct Statuses: Decodable {
            @Lenient var maxCharacters: Int?
            @Lenient var charactersReservedPerURL: Int?
            private enum CodingKeys: String, CodingKey {
                case maxCharacters = "max_characters"
                case charactersReservedPerURL = "characters_reserved_per_url"
            }
        }
    }

    /// A status as `accounts/:id/statuses` lists it.
    struct Status: Decodable {
        @Lenient var id: JSONID?
        @Lenient var createdAt: String?
        @Lenient var content: String?
        @Lenient var text: String?
        @Lenient var pleroma: Pleroma?
        private enum CodingKeys: String, CodingKey {
            case id
            case createdAt = "created_at"
            case content, text, pleroma
        }

        struct Pleroma: Decodable {
            @Lenient var content: PlainContent?
        }

        struct PlainContent: Decodable {
            @Lenient var plain: String?
            private enum CodingKeys: String, CodingKey { case plain = "text/plain" }
        }

        /// What a status shows of its text, by server: `content` (HTML, all of them); `text`, the source as plain
        /// text (GoToSocial), the HTML again (Takahē), or null or absent (Mastodon, Pleroma); Pleroma's and Akkoma's
        /// `pleroma.content["text/plain"]`.
        var shownTexts: [String] { [content, text, pleroma?.content?.plain].compactMap { $0 } }
    }
}

extension MastodonPublisher {
    /// `kind = "mastodon"`: `base_url`, `token_env`/`token_file` (required), `visibility`, `language`,
    /// `max_characters` (overrides the instance's limit), `shorten`, `image`, `image_required`.
    public static let target = TargetKind("mastodon", secrets: [.init("token")]) { config in
        MastodonPublisher(
            name: config.name, baseURL: try config.requiredURL("base_url"), token: try config.secret("token"),
            visibility: try config.oneOf("visibility", ["public", "unlisted", "private", "direct"]),
            language: try config.language(), shorten: try config.shorten,
            maxCharacters: try config.int("max_characters", range: 1...100_000), image: try config.image,
            context: config.context)
    }
}
