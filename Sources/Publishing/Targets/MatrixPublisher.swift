import Foundation
import Messages

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Matrix: `PUT {base_url}/_matrix/client/v3/rooms/{room_id}/send/m.room.message/{txnId}` with a bearer token and
/// `{"msgtype": "m.notice", "body": …}`. The txnId is the post's idempotency key: the homeserver answers a repeat on
/// the same device with the first event instead of posting again. 200 `{"event_id": …}`. With `image = "chart"` the
/// chart is uploaded to the media repository and sent as an `m.image` event (txnId `<key>-image`) before the text.
///
/// The homeserver forgets a txnId (Synapse after 24 h), and a new login is a new device with txnIds of its own: a
/// post whose answer was lost and that is resent later, or with another token, would be posted twice. So every event
/// carries the post's key in its content (`idempotencyContentKey`), and before such a resend `lookUp` reads the
/// account's recent messages in the room for it.
public struct MatrixPublisher: Publisher {
    public let name: String
    public let baseURL: URL
    public let roomID: String
    let token: String
    public var msgtype: String
    public var gate: TextGate
    /// Why `text` cannot be sent: too long, or its event's content over `contentLimit` once escaped (checked with
    /// an empty key; the post's own adds its length).
    public func refusal(of text: String) -> String? {
        guard case .failure(let stop) = gate.prepare(text).flatMap({ eventText($0, key: "") }),
            case .permanent(let reason) = stop.outcome
        else { return nil }
        return reason
    }
    /// `image`, `image_required`: the chart as an `m.image` event before the text.
    public var image: ImageOption
    let context: HTTPContext
    /// What the txnIds of this target's attempts are remembered for: its server, room and token.
    let keyScope: String

    public init(
        name: String = "matrix", baseURL: URL, token: String, roomID: String, msgtype: String = "m.notice",
        shorten: Bool = false, image: ImageOption = .off, context: HTTPContext = HTTPContext()
    ) {
        self.name = name
        self.baseURL = baseURL
        self.token = token
        self.roomID = roomID
        self.msgtype = msgtype
        self.image = image
        // An event is at most 65536 bytes; leave room for the envelope the server adds.
        self.gate = TextGate(rule: .utf8Bytes(60_000), shorten: shorten)
        self.context = context.redacting(token)
        keyScope = SHA1.fingerprint(token, salt: "matrix.txn \(baseURL.absoluteString) \(roomID)")
    }

    public var lengthRule: LengthRule? { gate.rule }
    /// A txnId does not outlive the homeserver's memory of it (24 h on Synapse) or the device: looked up before a
    /// resend after an unconfirmed attempt.
    public var repeatsDuplicate: Bool { true }
    /// Synapse keeps a txnId for 24 h (`event_txn_id_device_id`, also across its restarts) for the device the token
    /// belongs to: a resend within 23 h of the first attempt, with the same token to the same room, is answered with
    /// the first event. Another token may be another device, so it is not covered.
    public var keyMemory: KeyMemory? { KeyMemory(lifetime: Self.txnMemory, scope: keyScope) }
    /// How long after an attempt its txnId is surely still known: Synapse's 24 h, less an hour for the clocks of the
    /// agent and the server and for a request that took long to arrive.
    public static let txnMemory = Duration.seconds(23 * 3600)
    public var redactedDescription: String {
        "\(name): matrix \(Redactor.origin(of: baseURL)) room \(roomID) (token [REDACTED])"
    }

    /// The transaction id for a post's text (its idempotency key, percent-encoded as one path segment).
    public static func transactionID(for post: Post) -> String { post.idempotencyKey }

    /// The transaction id for a post's image event: its own (a txnId names one event), derived from the same key so
    /// that every attempt repeats it.
    public static func imageTransactionID(for post: Post) -> String { post.idempotencyKey + "-image" }

    /// The key in an event's content that names what it carries: the post's idempotency key on the text event, the
    /// image's txnId on the image event (so a look-up for the text never takes the image for it). Namespaced as the
    /// spec asks of names it does not define (Java package naming; clients ignore content keys they do not know).
    public static let idempotencyContentKey = "org.steptweet.idempotency_key"

    public func publish(_ post: Post, deadline: Deadline) async -> DeliveryOutcome {
        let text: String
        switch gate.prepare(post.text).flatMap({ eventText($0, key: post.idempotencyKey) }) {
        case .failure(let stop): return stop.outcome
        case .success(let prepared): text = prepared
        }
        return await ImageAttachment.uploadThenPost(
            post, option: image, target: name,
            upload: { await sendImage($0, post: post, deadline: deadline) },
            send: { _ in
                await context.deliver(
                    send(
                        Content(msgtype: msgtype, body: text, idempotencyKey: post.idempotencyKey),
                        txnID: Self.transactionID(for: post)), deadline: deadline, idRequired: true
                ) { $0.decoded(Sent.self)?.eventID }
            })
    }

    /// The most bytes an event's content may have as sent: a homeserver refuses an event whose JSON, with the envelope
    /// it adds (sender, room, prev and auth events, hashes, signatures: 1 to 2 KB), is over 65,536 bytes
    /// (`M_TOO_LARGE`, for good). The text's own limit (60,000 bytes) does not cover escaping: a newline, a quote or a
    /// backslash is two bytes of JSON, a control character six.
    public static let contentLimit = 60_000

    /// `text` as it can be sent in an event whose content carries `key`; with `shorten`, cut further when its content
    /// is over `contentLimit`, else a permanent stop saying why before any request.
    func eventText(_ text: String, key: String) -> Result<String, Stop> {
        let size = { (text: String) in
            JSONBody.data(Content(msgtype: msgtype, body: text, idempotencyKey: key))?.count ?? 0
        }
        let whole = size(text)
        if whole <= Self.contentLimit { return .success(text) }
        guard gate.shorten else {
            return .failure(
                Stop(
                    .permanent(
                        reason: "the event's content would be \(whole) bytes of JSON > \(Self.contentLimit) (a "
                            + "homeserver refuses an event over 65536 bytes; newlines, quotes, backslashes and control "
                            + "characters take two bytes or more): set shorten = true to cut it")))
        }
        return LengthRule.shortened(text) { size($0) <= Self.contentLimit }.map { .success($0) }
            ?? .failure(Stop(.permanent(reason: "not even … fits an event's content of \(Self.contentLimit) bytes")))
    }

    /// `PUT …/send/m.room.message/{txnId}` with `content`.
    func send(_ content: Content, txnID: String) -> URLRequest {
        let path =
            "_matrix/client/v3/rooms/\(Endpoint.segment(roomID))/send/m.room.message/\(Endpoint.segment(txnID))"
        return Requests.json(
            "PUT", Endpoint.join(baseURL, path), body: content, headers: ["Authorization": "Bearer \(token)"])
    }

    // MARK: The image

    /// Uploads the chart (`POST /_matrix/media/v3/upload`) and sends it as an `m.image` event before the text, whose
    /// event follows it as a caption does. The image event's `body` is the alt text (what the spec asks of `body`:
    /// "a textual representation of the image", read by screen readers and shown by clients that show no images),
    /// and it has no `filename`, so clients do not take `body` for an MSC2530 caption. The text is its own event
    /// rather than that caption, because a caption would take `body` and leave the alt text nowhere. Both events
    /// have their own txnId from the post's key: a repeat after a lost answer is the same two events, not new ones
    /// (the media uploaded again is left unlinked). Returns the image event's id.
    func sendImage(_ image: PostImage, post: Post, deadline: Deadline) async -> Result<String, Stop> {
        let upload = Requests.data(
            "POST",
            Endpoint.adding(
                "filename", PostImage.fileName(for: post), to: Endpoint.join(baseURL, "_matrix/media/v3/upload")),
            contentType: "image/png", body: image.png, headers: ["Authorization": "Bearer \(token)"])
        let uri: String
        switch await context.successfulReply(to: upload, deadline: deadline) {
        case .failure(let stop): return .failure(stop)
        case .success(let reply):
            let read = context.uploadReference(in: reply, named: "mxc:// content_uri") {
                $0.decoded(Uploaded.self)?.contentURI.flatMap { $0.hasPrefix("mxc://") ? $0 : nil }
            }
            switch read {
            case .failure(let stop): return .failure(stop)
            case .success(let contentURI): uri = contentURI
            }
        }
        let content = Content(
            msgtype: "m.image", body: image.alt, url: uri,
            info: .init(mimetype: "image/png", w: image.width, h: image.height, size: image.png.count),
            idempotencyKey: Self.imageTransactionID(for: post))
        let event = await context.deliver(
            send(content, txnID: Self.imageTransactionID(for: post)), deadline: deadline, idRequired: true
        ) { $0.decoded(Sent.self)?.eventID }
        switch event {
        case .delivered(let id), .alreadyDelivered(let id), .deliveredWithoutImage(let id, _):
            return .success(id ?? "")
        case .retryable, .permanent:
            return .failure(Stop(event))
        }
    }

    // MARK: Looking a post up

    /// Messages asked for per page of a look-up, and pages at most: an account posting a window every 30 minutes
    /// reaches back about three weeks.
    public static let lookUpPageSize = 100
    public static let lookUpPages = 10

    /// Looks for the post's text event among the account's own `m.room.message` events in the room, newest first
    /// (`GET …/rooms/{room}/messages?dir=b&filter={"senders": [me], "types": ["m.room.message"]}`, page after page),
    /// back to the window's end (a post is only made after its window closes). An event is the post when its content
    /// has the post's key (`idempotencyContentKey`), or, sent before events carried the key, has none and the post's
    /// text as its `body`. When the pages run out before reaching the window's end, whether the post is there is
    /// unknown: the look-up fails, and the post is not resent.
    public func lookUp(_ post: Post, deadline: Deadline) async -> PostLookup {
        let me: String
        switch await userID(deadline: deadline) {
        case .failure(let failure): return .failed(reason: failure.reason)
        case .success(let id): me = id
        }
        let text = try? gate.prepare(post.text).get()
        let match = PostMatch(post: post, text: text ?? "")
        let filterText = JSONBody.text(EventFilter(senders: [me], types: ["m.room.message"]))
        let messages = Endpoint.join(baseURL, "_matrix/client/v3/rooms/\(Endpoint.segment(roomID))/messages")
        var from: String?
        for _ in 0..<Self.lookUpPages {
            var url = Endpoint.adding("dir", "b", to: messages)
            url = Endpoint.adding("limit", String(Self.lookUpPageSize), to: url)
            url = Endpoint.adding("filter", filterText, to: url)
            if let from { url = Endpoint.adding("from", from, to: url) }
            let reply: HTTPReply
            switch await context.lookUpGET(url, token: token, deadline: deadline) {
            case .failure(let failure): return .failed(reason: failure.reason)
            case .success(let r): reply = r
            }
            let page = reply.decoded(MessagesPage.self)
            guard let chunk = page?.chunk else {
                return .failed(reason: "the room's messages answered without a chunk (HTTP \(reply.status))")
            }
            for event in chunk {
                if let key = event.content?.idempotencyKey {
                    if key == post.idempotencyKey { return .found(remoteID: event.eventID) }
                } else if text != nil, let body = event.content?.body, match.isText(body) {
                    return .found(remoteID: event.eventID)
                }
                // Newest first: an event from before the window ended means the post was never made.
                if let ms = event.originServerTs, ms / 1000 < match.since.timeIntervalSince1970 { return .notFound }
            }
            guard let end = page?.end, !chunk.isEmpty else { return .notFound }
            from = end
        }
        return .failed(
            reason:
                "not among this account's newest \(Self.lookUpPages * Self.lookUpPageSize) messages in \(roomID), which do not reach back to the window's end"
        )
    }

    /// The account's user id (`GET /_matrix/client/v3/account/whoami`), kept in the `TargetInfoCache` under the
    /// server and a fingerprint of the token: a token's user never changes, and another token has an entry of its own.
    func userID(deadline: Deadline) async -> Result<String, LookupFailure> {
        let origin = Redactor.origin(of: baseURL)
        let key = "matrix.user_id \(baseURL.absoluteString) \(SHA1.fingerprint(token, salt: origin))"
        if let cached = await context.infoCache.info(key), !cached.value.isEmpty { return .success(cached.value) }
        let reply: HTTPReply
        switch await context.lookUpGET(
            Endpoint.join(baseURL, "_matrix/client/v3/account/whoami"), token: token, deadline: deadline)
        {
        case .failure(let failure): return .failure(failure)
        case .success(let r): reply = r
        }
        guard let id = reply.decoded(WhoAmI.self)?.userID, id.hasPrefix("@") else {
            return .failure(LookupFailure("account/whoami answered without a user_id (HTTP \(reply.status))"))
        }
        await context.infoCache.store(TargetInfo(value: id, storedAt: context.now()), for: key)
        return .success(id)
    }
}

extension MatrixPublisher {
    /// An event's content as sent (the text's `m.notice` or `m.text`, the chart's `m.image`) and as read back in a
    /// look-up, with the post's key under `idempotencyContentKey`.
    struct Content: Codable {
        @Lenient var msgtype: String?
        @Lenient var body: String?
        @Lenient var url: String?
        @Lenient var info: ImageInfo?
        @Lenient var idempotencyKey: String?

        init(msgtype: String, body: String, url: String? = nil, info: ImageInfo? = nil, idempotencyKey: String) {
            self.msgtype = msgtype
            self.body = body
            self.url = url
            self.info = info
            self.idempotencyKey = idempotencyKey
        }

        private enum CodingKeys: String, CodingKey {
            case msgtype, body, url, info
            case idempotencyKey = "org.steptweet.idempotency_key"
        }
    }

    /// An `m.image` event's `info`.
    struct ImageInfo: Codable {
        var mimetype: String
        var w: Int
        var h: Int
        var size: Int
    }

    /// The `filter` of a look-up's `/messages`: the account's own messages only.
    struct EventFilter: Encodable {
        var senders: [String]
        var types: [String]
    }

    /// A send's answer.
    struct Sent: Decodable {
        @Lenient var eventID: String?
        private enum CodingKeys: String, CodingKey { case eventID = "event_id" }
    }

    /// A media upload's answer.
    struct Uploaded: Decodable {
        @Lenient var contentURI: String?
        private enum CodingKeys: String, CodingKey { case contentURI = "content_uri" }
    }

    /// `account/whoami`'s answer.
    struct WhoAmI: Decodable {
        @Lenient var userID: String?
        private enum CodingKeys: String, CodingKey { case userID = "user_id" }
    }

    /// A page of `/messages`, newest first, and the token of the next.
    struct MessagesPage: Decodable {
        @Lenient var chunk: [Event]?
        @Lenient var end: String?
    }

    /// One event of a page: what a look-up reads of it.
    struct Event: Decodable {
        @Lenient var eventID: String?
        @Lenient var content: Content?
        @Lenient var originServerTs: Double?
        private enum CodingKeys: String, CodingKey {
            case eventID = "event_id"
            case content
            case originServerTs = "origin_server_ts"
        }
    }
}

extension MatrixPublisher {
    /// `kind = "matrix"`: `base_url`, `token_env`/`token_file`, `room_id` (all required), `msgtype`, `shorten`,
    /// `image`, `image_required`.
    public static let target = TargetKind("matrix", secrets: [.init("token")]) { config in
        let base = try config.requiredURL("base_url")
        let token = try config.secret("token")
        let room = try config.requiredString("room_id")
        // Room ids start with "!"; since room version 12 they may have no ":server" part. Aliases ("#…") cannot be
        // sent to.
        guard room.hasPrefix("!"), room.count > 1, !room.contains(where: \.isWhitespace) else {
            throw config.error(
                "room_id",
                "\"\(room)\" is not a room id like \"!abc123:example.org\" (an alias starting with # will not do)")
        }
        return MatrixPublisher(
            name: config.name, baseURL: base, token: token, roomID: room,
            msgtype: try config.oneOf("msgtype", ["m.text", "m.notice"]) ?? "m.notice",
            shorten: try config.shorten, image: try config.image, context: config.context)
    }
}
