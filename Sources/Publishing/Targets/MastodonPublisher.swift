import Foundation
import Messages

/// Mastodon: `POST {base_url}/api/v1/statuses` with a bearer token, JSON `{status, visibility, language}` and the
/// post's key as `Idempotency-Key` (the server returns the first status again for a repeated key). 200 with the
/// Status entity; its `id` is the remote id. Length: 500 graphemes (or the instance's `max_characters`), URLs 23.
public struct MastodonPublisher: Publisher {
    public let name: String
    public let baseURL: URL
    let token: String
    public var visibility: String?
    public var language: String?
    public var gate: TextGate
    let context: HTTPContext

    public init(name: String = "mastodon", baseURL: URL, token: String, visibility: String? = nil,
                language: String? = nil, shorten: Bool = false, maxCharacters: Int = 500, context: HTTPContext = HTTPContext()) {
        self.name = name
        self.baseURL = baseURL
        self.token = token
        self.visibility = visibility
        self.language = language
        self.gate = TextGate(rule: maxCharacters == 500 ? .mastodon : .mastodonInstance(maxCharacters), shorten: shorten)
        var context = context
        context.redactor.add(token)
        self.context = context
    }

    public var lengthRule: LengthRule? { gate.rule }
    public var redactedDescription: String { "\(name): mastodon \(Redactor.origin(of: baseURL)) (token [REDACTED])" }

    public func publish(_ post: Post, deadline: Deadline) async -> DeliveryOutcome {
        let text: String
        switch gate.prepare(post.text) {
        case .failure(let stop): return stop.outcome
        case .success(let prepared): text = prepared
        }
        var body: [String: Any] = ["status": text]
        if let visibility { body["visibility"] = visibility }
        if let language { body["language"] = language }
        let request = Requests.json("POST", Endpoint.join(baseURL, "api/v1/statuses"), body: body, headers: [
            "Authorization": "Bearer \(token)",
            "Idempotency-Key": post.idempotencyKey,
        ])
        return await context.deliver(request, deadline: deadline) { idString($0.json?["id"]) }
    }
}

extension MastodonPublisher {
    /// `kind = "mastodon"`: `base_url`, `token_env`/`token_file` (required), `visibility`, `language`,
    /// `max_characters` (overrides the instance's limit), `shorten`.
    public static let target = TargetKind("mastodon", secrets: [.init("token")]) { config in
        MastodonPublisher(name: config.name, baseURL: try config.requiredURL("base_url"), token: try config.secret("token"),
                          visibility: try config.oneOf("visibility", ["public", "unlisted", "private", "direct"]),
                          language: try config.language(), shorten: try config.shorten,
                          maxCharacters: try config.int("max_characters", range: 1...100_000) ?? 500, context: config.context)
    }
}
