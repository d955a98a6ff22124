import Foundation
import Messages

/// Misskey: `POST {base_url}/api/notes/create` with JSON `{"i": <token>, "text", "visibility"?, "cw"?}` (the token
/// travels as `i` in the body, the classic way every version accepts). 200 `{"createdNote": {"id", …}}`; its id is
/// the remote id; 202 (`PROCESSING`: an identical body still being created) is unconfirmed, not delivered. No
/// client-side idempotency key (recent servers drop an identical body for 60 s only), so after an
/// unconfirmed attempt `lookUp` reads the account's recent notes (`/api/i`, then `/api/users/notes`) for one with
/// the same text. Length: 3000 code points (`MAX_NOTE_TEXT_LENGTH`, checked by the endpoint's JSON schema, which
/// counts code points, so an emoji sequence is several), or the instance's own limit given as `max_characters`. With `image = "chart"` the chart goes into the account's drive first (`drive/files/create`)
/// and the note carries it in `fileIds`.
public struct MisskeyPublisher: Publisher {
    public let name: String
    public let baseURL: URL
    let token: String
    public var visibility: String?
    public var contentWarning: String?
    public var gate: TextGate
    public func refusal(of text: String) -> String? { gate.refusal(of: text) }
    /// `image`, `image_required`: the chart goes into the drive first (`drive/files/create`).
    public var image: ImageOption
    let context: HTTPContext
    /// When the look-up cannot tell: resend (true) or give up (false).
    public var resendUnconfirmed: Bool
    public var repeatsDuplicate: Bool { true }

    public init(
        name: String = "misskey", baseURL: URL, token: String, visibility: String? = nil,
        contentWarning: String? = nil, maxCharacters: Int = 3000, shorten: Bool = false,
        resendUnconfirmed: Bool = true, image: ImageOption = .off, context: HTTPContext = HTTPContext()
    ) {
        self.name = name
        self.baseURL = baseURL
        self.token = token
        self.image = image
        self.visibility = visibility
        self.contentWarning = contentWarning
        self.gate = TextGate(rule: .codePoints(maxCharacters), shorten: shorten)
        self.resendUnconfirmed = resendUnconfirmed
        self.context = context.redacting(token)
    }

    public var lengthRule: LengthRule? { gate.rule }
    public var redactedDescription: String { "\(name): misskey \(Redactor.origin(of: baseURL)) (token [REDACTED])" }

    public func publish(_ post: Post, deadline: Deadline) async -> DeliveryOutcome {
        await ImageAttachment.uploadThenPost(
            post, gate: gate, option: image, target: name,
            upload: { await uploadFile($0, post: post, deadline: deadline) },
            send: { text, fileID in
                let body = NewNote(
                    i: token, text: text, visibility: visibility, cw: contentWarning, fileIds: fileID.map { [$0] })
                let request = Requests.json("POST", Endpoint.join(baseURL, "api/notes/create"), body: body)
                switch await context.send(request, deadline: deadline) {
                case .failure(let failure): return ResponseClassifier.classify(failure)
                case .success(let reply):
                    let note = reply.decoded(Created.self)?.createdNote
                    if reply.status == 202, note == nil {
                        // `PROCESSING`: an identical body sent earlier is still being created, and is forgotten if
                        // that fails. No delivery yet: unconfirmed, so the note is looked up before any resend.
                        return .retryable(
                            reason: ResponseClassifier.reason(reply, redactor: context.redactor), retryAfter: nil,
                            unconfirmed: true)
                    }
                    return ResponseClassifier.classify(
                        reply, now: context.now(), redactor: context.redactor, idRequired: true
                    ) { _ in note?.id?.text }
                }
            })
    }

    /// Misskey's limit on a drive file's comment (`DB_MAX_IMAGE_COMMENT_LENGTH`).
    public static let altLimit = 512

    /// `POST /api/drive/files/create` (multipart: `i`, `file`, `name`, `comment` = the alt text, which clients show
    /// as the image's description); returns the drive file's id for `fileIds`. A file whose answer was lost stays in
    /// the account's drive, attached to nothing and seen by no one.
    func uploadFile(_ image: PostImage, post: Post, deadline: Deadline) async -> Result<String, Stop> {
        var form = MultipartBody()
        form.add("i", token)
        form.add("name", PostImage.fileName(for: post))
        form.add("comment", image.alt(limit: Self.altLimit))
        form.addFile("file", filename: PostImage.fileName(for: post), contentType: "image/png", data: image.png)
        let request = form.request("POST", Endpoint.join(baseURL, "api/drive/files/create"))
        switch await context.successfulReply(to: request, deadline: deadline) {
        case .failure(let stop): return .failure(stop)
        case .success(let reply):
            return context.uploadReference(in: reply, named: "drive file id") { $0.jsonID }
        }
    }

    /// Looks for a note with the post's text among the account's 20 newest, made since the window ended.
    public func lookUp(_ post: Post, deadline: Deadline) async -> PostLookup {
        guard case .success(let text) = gate.prepare(post.text) else { return .notFound }
        let me: HTTPReply
        switch await context.lookUpRequest(
            Requests.json("POST", Endpoint.join(baseURL, "api/i"), body: Account(i: token)), deadline: deadline)
        {
        case .failure(let failure): return .failed(reason: failure.reason)
        case .success(let reply): me = reply
        }
        guard let userID = me.jsonID else { return .failed(reason: "/api/i answered without an id") }
        let request = Requests.json(
            "POST", Endpoint.join(baseURL, "api/users/notes"),
            body: UserNotes(i: token, userId: userID))
        let notes: HTTPReply
        switch await context.lookUpRequest(request, deadline: deadline) {
        case .failure(let failure): return .failed(reason: failure.reason)
        case .success(let reply): notes = reply
        }
        guard let list = notes.decoded([Note].self) else {
            return .failed(reason: "the account's notes are not a JSON array")
        }
        let match = PostMatch(post: post, text: text)
        for note in list where match.isPost(createdAt: note.createdAt) {
            if note.text.map(PostMatch.normalized) == match.text { return .found(remoteID: note.id?.text) }
        }
        return .notFound
    }
}

extension MisskeyPublisher {
    /// `notes/create`'s body: the token travels as `i`.
    struct NewNote: Encodable {
        var i: String
        var text: String
        var visibility: String?
        var cw: String?
        var fileIds: [String]?
    }

    /// `/api/i`'s body: the token alone.
    struct Account: Encodable {
        var i: String
    }

    /// `users/notes`' body: the account's 20 newest notes, no replies or renotes.
    struct UserNotes: Encodable {
        var i: String
        var userId: String
        var limit = 20
        var withReplies = false
        var withRenotes = false
    }

    /// `notes/create`'s answer.
    struct Created: Decodable {
        @Lenient var createdNote: IdentifiedAnswer?
    }

    /// A note as `users/notes` lists it.
    struct Note: Decodable {
        @Lenient var id: JSONID?
        @Lenient var text: String?
        @Lenient var createdAt: String?
    }
}

extension MisskeyPublisher {
    /// `kind = "misskey"`: `base_url` and `token_env`/`token_file` (required), `visibility` (`public`, `home`,
    /// `followers`), `cw` (1-100 characters), `max_characters`, `resend_unconfirmed`, `shorten`, `image`, `image_required`. The `i` field is hidden wherever a
    /// reply echoes it.
    public static let target = TargetKind(
        "misskey", secrets: [.init("token")],
        redactions: [#"("i"\s*:\s*")[^"]*"#]
    ) { config in
        let cw = try config.string("cw")
        // Misskey refuses every note whose `cw` is empty or over 100 characters (code points, as its schema counts).
        if let cw, !(1...100).contains(cw.unicodeScalars.count) {
            throw config.error("cw", "Misskey takes 1 to 100 characters (this is \(cw.unicodeScalars.count))")
        }
        return MisskeyPublisher(
            name: config.name, baseURL: try config.requiredURL("base_url"), token: try config.secret("token"),
            visibility: try config.oneOf("visibility", ["public", "home", "followers"]),
            contentWarning: cw,
            maxCharacters: try config.int("max_characters", range: 1...100_000) ?? 3000,
            shorten: try config.shorten, resendUnconfirmed: try config.resendUnconfirmed, image: try config.image,
            context: config.context)
    }
}
