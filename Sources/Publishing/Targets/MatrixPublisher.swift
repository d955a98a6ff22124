import Foundation
import Messages

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Matrix: `PUT {base_url}/_matrix/client/v3/rooms/{room_id}/send/m.room.message/{txnId}` with a bearer token and
/// `{"msgtype": "m.notice", "body": …}`. The txnId is the post's idempotency key: the homeserver answers a repeat on
/// the same device with the first event instead of posting again. 200 `{"event_id": …}`. With `image = "chart"` the
/// chart is uploaded to the media repository and sent as an `m.image` event (txnId `<key>-image`) before the text.
public struct MatrixPublisher: Publisher {
    public let name: String
    public let baseURL: URL
    public let roomID: String
    let token: String
    public var msgtype: String
    public var gate: TextGate
    public func refusal(of text: String) -> String? { gate.refusal(of: text) }
    /// `image`, `image_required`: the chart as an `m.image` event before the text.
    public var image: ImageOption
    let context: HTTPContext

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
    }

    public var lengthRule: LengthRule? { gate.rule }
    public var redactedDescription: String {
        "\(name): matrix \(Redactor.origin(of: baseURL)) room \(roomID) (token [REDACTED])"
    }

    /// The transaction id for a post's text (its idempotency key, percent-encoded as one path segment).
    public static func transactionID(for post: Post) -> String { post.idempotencyKey }

    /// The transaction id for a post's image event: its own (a txnId names one event), derived from the same key so
    /// that every attempt repeats it.
    public static func imageTransactionID(for post: Post) -> String { post.idempotencyKey + "-image" }

    public func publish(_ post: Post, deadline: Deadline) async -> DeliveryOutcome {
        let text: String
        switch gate.prepare(post.text) {
        case .failure(let stop): return stop.outcome
        case .success(let prepared): text = prepared
        }
        return await ImageAttachment.uploadThenPost(
            post, option: image, target: name,
            upload: { await sendImage($0, post: post, deadline: deadline) },
            send: { _ in
                await context.deliver(
                    send(["msgtype": msgtype, "body": text], txnID: Self.transactionID(for: post)), deadline: deadline,
                    idRequired: true
                ) { $0.json?["event_id"] as? String }
            })
    }

    /// `PUT …/send/m.room.message/{txnId}` with `content`.
    func send(_ content: [String: Any], txnID: String) -> URLRequest {
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
                ($0.json?["content_uri"] as? String).flatMap { $0.hasPrefix("mxc://") ? $0 : nil }
            }
            switch read {
            case .failure(let stop): return .failure(stop)
            case .success(let contentURI): uri = contentURI
            }
        }
        let content: [String: Any] = [
            "msgtype": "m.image", "body": image.alt, "url": uri,
            "info": ["mimetype": "image/png", "w": image.width, "h": image.height, "size": image.png.count],
        ]
        let event = await context.deliver(
            send(content, txnID: Self.imageTransactionID(for: post)), deadline: deadline, idRequired: true
        ) { $0.json?["event_id"] as? String }
        switch event {
        case .delivered(let id), .alreadyDelivered(let id), .deliveredWithoutImage(let id, _):
            return .success(id ?? "")
        case .retryable, .permanent:
            return .failure(Stop(event))
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
