import Foundation
import Messages

/// Matrix: `PUT {base_url}/_matrix/client/v3/rooms/{room_id}/send/m.room.message/{txnId}` with a bearer token and
/// `{"msgtype": "m.notice", "body": …}`. The txnId is the post's idempotency key: the homeserver answers a repeat on
/// the same device with the first event instead of posting again. 200 `{"event_id": …}`.
public struct MatrixPublisher: Publisher {
    public let name: String
    public let baseURL: URL
    public let roomID: String
    let token: String
    public var msgtype: String
    public var gate: TextGate
    let context: HTTPContext

    public init(
        name: String = "matrix", baseURL: URL, token: String, roomID: String, msgtype: String = "m.notice",
        shorten: Bool = false, context: HTTPContext = HTTPContext()
    ) {
        self.name = name
        self.baseURL = baseURL
        self.token = token
        self.roomID = roomID
        self.msgtype = msgtype
        // An event is at most 65536 bytes; leave room for the envelope the server adds.
        self.gate = TextGate(rule: .utf8Bytes(60_000), shorten: shorten)
        self.context = context.redacting(token)
    }

    public var lengthRule: LengthRule? { gate.rule }
    public var redactedDescription: String {
        "\(name): matrix \(Redactor.origin(of: baseURL)) room \(roomID) (token [REDACTED])"
    }

    /// The transaction id for a post (its idempotency key, percent-encoded as one path segment).
    public static func transactionID(for post: Post) -> String { post.idempotencyKey }

    public func publish(_ post: Post, deadline: Deadline) async -> DeliveryOutcome {
        let text: String
        switch gate.prepare(post.text) {
        case .failure(let stop): return stop.outcome
        case .success(let prepared): text = prepared
        }
        let path =
            "_matrix/client/v3/rooms/\(Endpoint.segment(roomID))/send/m.room.message/\(Endpoint.segment(Self.transactionID(for: post)))"
        let request = Requests.json(
            "PUT", Endpoint.join(baseURL, path), body: ["msgtype": msgtype, "body": text],
            headers: ["Authorization": "Bearer \(token)"])
        return await context.deliver(request, deadline: deadline) { $0.json?["event_id"] as? String }
    }
}

extension MatrixPublisher {
    /// `kind = "matrix"`: `base_url`, `token_env`/`token_file`, `room_id` (all required), `msgtype`, `shorten`.
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
            shorten: try config.shorten, context: config.context)
    }
}
