import Foundation
import Messages

/// Misskey: `POST {base_url}/api/notes/create` with JSON `{"i": <token>, "text", "visibility"?, "cw"?}` (the token
/// travels as `i` in the body, the classic way every version accepts). 200 `{"createdNote": {"id", …}}`; its id is
/// the remote id. No client-side idempotency key (recent servers drop an identical body for 60 s only), so after an
/// unconfirmed attempt `lookUp` reads the account's recent notes (`/api/i`, then `/api/users/notes`) for one with
/// the same text. Length: 3000 characters (`MAX_NOTE_TEXT_LENGTH`), or the instance's own limit given as
/// `max_characters`.
public struct MisskeyPublisher: Publisher {
    public let name: String
    public let baseURL: URL
    let token: String
    public var visibility: String?
    public var contentWarning: String?
    public var gate: TextGate
    let context: HTTPContext
    /// When the look-up cannot tell: resend (true) or give up (false).
    public var resendUnconfirmed: Bool
    public var repeatsDuplicate: Bool { true }

    public init(
        name: String = "misskey", baseURL: URL, token: String, visibility: String? = nil,
        contentWarning: String? = nil, maxCharacters: Int = 3000, shorten: Bool = false,
        resendUnconfirmed: Bool = true, context: HTTPContext = HTTPContext()
    ) {
        self.name = name
        self.baseURL = baseURL
        self.token = token
        self.visibility = visibility
        self.contentWarning = contentWarning
        self.gate = TextGate(rule: .characters(maxCharacters), shorten: shorten)
        self.resendUnconfirmed = resendUnconfirmed
        self.context = context.redacting(token)
    }

    public var lengthRule: LengthRule? { gate.rule }
    public var redactedDescription: String { "\(name): misskey \(Redactor.origin(of: baseURL)) (token [REDACTED])" }

    public func publish(_ post: Post, deadline: Deadline) async -> DeliveryOutcome {
        let text: String
        switch gate.prepare(post.text) {
        case .failure(let stop): return stop.outcome
        case .success(let prepared): text = prepared
        }
        var body: [String: Any] = ["i": token, "text": text]
        if let visibility { body["visibility"] = visibility }
        if let contentWarning { body["cw"] = contentWarning }
        let request = Requests.json("POST", Endpoint.join(baseURL, "api/notes/create"), body: body)
        return await context.deliver(request, deadline: deadline) { reply in
            (reply.json?["createdNote"] as? [String: Any]).flatMap { idString($0["id"]) }
        }
    }

    /// Looks for a note with the post's text among the account's 20 newest, made since the window ended.
    public func lookUp(_ post: Post, deadline: Deadline) async -> PostLookup {
        guard case .success(let text) = gate.prepare(post.text) else { return .notFound }
        let me: HTTPReply
        switch await context.lookUpRequest(
            Requests.json("POST", Endpoint.join(baseURL, "api/i"), body: ["i": token]), deadline: deadline)
        {
        case .failure(let failure): return .failed(reason: failure.reason)
        case .success(let reply): me = reply
        }
        guard let userID = idString(me.json?["id"]) else { return .failed(reason: "/api/i answered without an id") }
        let request = Requests.json(
            "POST", Endpoint.join(baseURL, "api/users/notes"),
            body: ["i": token, "userId": userID, "limit": 20, "withReplies": false, "withRenotes": false])
        let notes: HTTPReply
        switch await context.lookUpRequest(request, deadline: deadline) {
        case .failure(let failure): return .failed(reason: failure.reason)
        case .success(let reply): notes = reply
        }
        guard let list = (try? JSONSerialization.jsonObject(with: notes.body)) as? [[String: Any]] else {
            return .failed(reason: "the account's notes are not a JSON array")
        }
        let match = PostMatch(post: post, text: text)
        for note in list where match.isPost(createdAt: note["createdAt"] as? String) {
            if (note["text"] as? String).map(PostMatch.normalized) == match.text {
                return .found(remoteID: idString(note["id"]))
            }
        }
        return .notFound
    }
}

extension MisskeyPublisher {
    /// `kind = "misskey"`: `base_url` and `token_env`/`token_file` (required), `visibility` (`public`, `home`,
    /// `followers`), `cw`, `max_characters`, `resend_unconfirmed`, `shorten`. The `i` field is hidden wherever a
    /// reply echoes it.
    public static let target = TargetKind(
        "misskey", secrets: [.init("token")],
        redactions: [#"("i"\s*:\s*")[^"]*"#]
    ) { config in
        MisskeyPublisher(
            name: config.name, baseURL: try config.requiredURL("base_url"), token: try config.secret("token"),
            visibility: try config.oneOf("visibility", ["public", "home", "followers"]),
            contentWarning: try config.string("cw"),
            maxCharacters: try config.int("max_characters", range: 1...100_000) ?? 3000,
            shorten: try config.shorten, resendUnconfirmed: try config.resendUnconfirmed, context: config.context)
    }
}
