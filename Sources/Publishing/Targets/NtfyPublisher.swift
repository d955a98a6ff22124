import Foundation
import Messages
import WallTime

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// ntfy: JSON publish to the server root, `POST {base_url}/` with `{"topic", "message", "title"?, "priority"?,
/// "tags"?}`, optionally with `Authorization: Bearer <token>` or, for servers with user accounts (ntfy 1.x),
/// `Authorization: Basic` with a username and password (never the `?auth=` query parameter). 200 with the
/// message; its `id` is the remote id. With `image = "chart"`: `PUT {base_url}/{topic}` with the PNG as an attachment
/// (`attachmentRequest`). No idempotency. Length: fewer than 4096 bytes (`messageLimit`), and the JSON publish at
/// most 8192 bytes (`documentLimit`).
/// Before resending after an unconfirmed attempt, `lookUp` polls the topic's cached messages
/// (`GET {base_url}/{topic}/json?poll=1&since=…`) for the same text, so a post whose answer was lost is not doubled.
public struct NtfyPublisher: Publisher {
    public let name: String
    public let baseURL: URL
    public let topic: String
    /// The `Authorization` header value, if any.
    let authorization: String?
    let authenticationKind: String?
    public var title: String?
    public var priority: Int?
    public var tags: [String]
    public var gate: TextGate
    public func refusal(of text: String) -> String? { gate.refusal(of: text) }
    /// `image`, `image_required`: the chart as the message's attachment.
    public var image: ImageOption
    let context: HTTPContext
    /// When the lookup cannot tell: resend (true) or give up (false).
    public var resendUnconfirmed = true
    public var repeatsDuplicate: Bool { true }

    public init(
        name: String = "ntfy", baseURL: URL = URL(string: "https://ntfy.sh")!, topic: String,
        token: String? = nil, basic: (username: String, password: String)? = nil, title: String? = nil,
        priority: Int? = nil, tags: [String] = [], shorten: Bool = false, resendUnconfirmed: Bool = true,
        image: ImageOption = .off, context: HTTPContext = HTTPContext()
    ) {
        self.name = name
        self.image = image
        self.resendUnconfirmed = resendUnconfirmed
        self.baseURL = baseURL
        self.topic = topic
        var context = context
        if let token {
            authorization = "Bearer \(token)"
            authenticationKind = "token"
            context.redactor.add(token)
        } else if let basic {
            let credentials = Data("\(basic.username):\(basic.password)".utf8).base64EncodedString()
            authorization = "Basic \(credentials)"
            authenticationKind = "user \(basic.username), password"
            context.redactor.add(basic.password)
            context.redactor.add(credentials)
        } else {
            authorization = nil
            authenticationKind = nil
        }
        self.context = context
        self.title = title
        self.priority = priority
        self.tags = tags
        self.gate = TextGate(rule: .utf8Bytes(Self.messageLimit), shorten: shorten)
    }

    /// The most UTF-8 bytes a message may have: 4095. ntfy's default `limit-message-bytes` is 4096, but a message of
    /// exactly that many bytes counts as having reached it (`util.Peek`: `LimitReached: read == limit`) and is taken
    /// for an attachment: refused with `40014 attachments not allowed` by a server without an attachment store (the
    /// default), turned into a file on one with it.
    public static let messageLimit = 4095

    public var lengthRule: LengthRule? { gate.rule }
    public var redactedDescription: String {
        "\(name): ntfy \(Redactor.origin(of: baseURL)) topic \(topic)\(authenticationKind.map { " (\($0) [REDACTED])" } ?? "")"
    }

    public func publish(_ post: Post, deadline: Deadline) async -> DeliveryOutcome {
        let text: String
        switch gate.prepare(post.text) {
        case .failure(let stop): return stop.outcome
        case .success(let prepared): text = prepared
        }
        return await ImageAttachment.inOneRequest(post, option: image, target: name) { image in
            let request: URLRequest
            if let image {
                request = attachmentRequest(text: text, image: image, post: post)
            } else {
                switch jsonPublish(text) {
                case .failure(let stop): return stop.outcome
                case .success(let json): request = json
                }
            }
            return await context.deliver(request, deadline: deadline, idRequired: true) { $0.jsonID }
        }
    }

    /// ntfy reads a JSON publish with twice its message limit: at most 8,192 bytes for the whole document, in which
    /// quotes, backslashes and control characters take two bytes or more.
    public static let documentLimit = 8192

    /// The JSON publish of `text`; with `shorten`, the text cut further when its document is over `documentLimit`.
    func jsonPublish(_ text: String) -> Result<URLRequest, Stop> {
        let size = { (request: URLRequest) in request.httpBody?.count ?? 0 }
        let whole = jsonRequest(text: text)
        if size(whole) <= Self.documentLimit { return .success(whole) }
        guard gate.shorten else {
            return .failure(
                Stop(
                    .permanent(
                        reason: "the JSON publish would be \(size(whole)) bytes > \(Self.documentLimit) (ntfy reads at "
                            + "most twice its message limit; quotes, backslashes and control characters take two bytes "
                            + "or more): set shorten = true to cut it")))
        }
        let fits = { (cut: String) in size(jsonRequest(text: cut)) <= Self.documentLimit }
        return LengthRule.shortened(text, fitting: fits).map { .success(jsonRequest(text: $0)) }
            ?? .failure(Stop(.permanent(reason: "not even … fits a JSON publish of \(Self.documentLimit) bytes")))
    }

    /// The text-only publish: JSON to the server root.
    func jsonRequest(text: String) -> URLRequest {
        let body = Message(
            topic: topic, message: text, title: title, priority: priority, tags: tags.isEmpty ? nil : tags)
        var headers: [String: String] = [:]
        if let authorization { headers["Authorization"] = authorization }
        return Requests.json("POST", Endpoint.join(baseURL, ""), body: body, headers: headers)
    }

    /// The publish with the chart attached: `PUT {base_url}/{topic}?message=…` with the PNG as the body and its name
    /// in `Filename`. The text, title and tags go in the query (`message`, `title`, `tags`), which every ntfy version
    /// reads as UTF-8: in headers they would need RFC 2047 encoded-words for anything not ASCII, which ntfy decodes
    /// only from 2.5 (older servers show `=?UTF-8?B?…?=` as the message). The alt text has no place in an ntfy
    /// message: the text the notification shows says what the chart shows.
    func attachmentRequest(text: String, image: PostImage, post: Post) -> URLRequest {
        var parameters = [("message", text)]
        if let title { parameters.append(("title", title)) }
        if !tags.isEmpty { parameters.append(("tags", tags.joined(separator: ","))) }
        var components = URLComponents(
            url: Endpoint.join(baseURL, Endpoint.segment(topic)), resolvingAgainstBaseURL: false)
        components?.percentEncodedQuery = Self.query(parameters)
        var request = URLRequest(url: components?.url ?? Endpoint.join(baseURL, Endpoint.segment(topic)))
        request.httpMethod = "PUT"
        request.setValue("image/png", forHTTPHeaderField: "Content-Type")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        request.setValue("steptweet", forHTTPHeaderField: "User-Agent")
        request.setValue(PostImage.fileName(for: post), forHTTPHeaderField: "Filename")
        if let priority { request.setValue(String(priority), forHTTPHeaderField: "X-Priority") }
        if let authorization { request.setValue(authorization, forHTTPHeaderField: "Authorization") }
        request.httpBody = image.png
        return request
    }

    /// `name=value&…` with all but RFC 3986's unreserved characters percent-encoded as UTF-8: a `+` would be a space
    /// to ntfy (Go's query parser), and `&`, `=` or `#` would cut the value short.
    static func query(_ parameters: [(String, String)]) -> String {
        var unreserved = CharacterSet(charactersIn: "-._~")
        unreserved.formUnion(CharacterSet(charactersIn: "a"..."z"))
        unreserved.formUnion(CharacterSet(charactersIn: "A"..."Z"))
        unreserved.formUnion(CharacterSet(charactersIn: "0"..."9"))
        return parameters.map { name, value in
            name + "=" + (value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? "")
        }.joined(separator: "&")
    }

    /// Looks for a message with the post's text among the topic's messages since the window ended (a post is only
    /// made after its window closes). ntfy keeps messages 12 h by default: older ones are not found.
    public func lookUp(_ post: Post, deadline: Deadline) async -> PostLookup {
        guard case .success(let text) = gate.prepare(post.text) else { return .notFound }
        let since = String(Int64(post.window.end.date.timeIntervalSince1970) - 60)
        let url = Endpoint.adding(
            "since", since,
            to: Endpoint.adding("poll", "1", to: Endpoint.join(baseURL, Endpoint.segment(topic) + "/json")))
        var request = URLRequest(url: url)
        request.httpMethod = "GET"
        request.setValue("steptweet", forHTTPHeaderField: "User-Agent")
        if let authorization { request.setValue(authorization, forHTTPHeaderField: "Authorization") }
        let reply: HTTPReply
        switch await context.lookUpRequest(request, deadline: deadline) {
        case .failure(let failure): return .failed(reason: failure.reason)
        case .success(let r): reply = r
        }
        // One JSON object per line; anything else (a proxy's or a login page) is no answer about the topic, which
        // "not found" would turn into a resend at every retry.
        for line in reply.body.split(separator: UInt8(ascii: "\n")) {
            guard !line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) else { continue }
            guard let event = try? JSONDecoder().decode(Event.self, from: Data(line)) else {
                return .failed(reason: "the topic's messages are not JSON lines (HTTP \(reply.status))")
            }
            if event.event ?? "message" == "message", event.message == text {
                return .found(remoteID: event.id?.text)
            }
        }
        return .notFound
    }
}

extension NtfyPublisher {
    /// The JSON publish's body.
    struct Message: Encodable {
        var topic: String
        var message: String
        var title: String?
        var priority: Int?
        var tags: [String]?
    }

    /// One line of a topic's cached messages: a `message` event, or another (`open`, `keepalive`) to pass over.
    struct Event: Decodable {
        @Lenient var event: String?
        @Lenient var message: String?
        @Lenient var id: JSONID?
    }
}

extension NtfyPublisher {
    /// `kind = "ntfy"`: `base_url`, `topic` (required), either `token_env`/`token_file` or `username` with
    /// `password_env`/`password_file`, `title`, `priority`, `tags`, `resend_unconfirmed`, `shorten`, `image`,
    /// `image_required`.
    public static let target = TargetKind(
        "ntfy", secrets: [.init("token"), .init("password")],
        redactions: [##"(?i)([?&;]auth=)[^&\s"#]+"##]
    ) { config in
        let base = try config.url("base_url", default: "https://ntfy.sh")!
        let topic = try config.requiredString("topic")
        guard topic.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }),
            topic.count <= 64
        else {
            throw config.error("topic", "\"\(topic)\" is not a topic name (letters, digits, - and _, at most 64)")
        }
        let token = try config.secret("token", required: false)
        let username = try config.string("username")
        var basic: (username: String, password: String)?
        if let username {
            if token != nil {
                throw config.error("username", "give token_env/token_file or username with a password, not both")
            }
            basic = (username, try config.secret("password"))
        } else if try config.secret("password", required: false) != nil {
            throw config.error("username", "missing: a password needs its username")
        }
        return NtfyPublisher(
            name: config.name, baseURL: base, topic: topic, token: token, basic: basic,
            title: try config.string("title"), priority: try config.int("priority", range: 1...5),
            tags: try config.strings("tags") ?? [], shorten: try config.shorten,
            resendUnconfirmed: try config.resendUnconfirmed, image: try config.image, context: config.context)
    }
}
