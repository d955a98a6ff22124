import Foundation
import Messages

/// ntfy: JSON publish to the server root, `POST {base_url}/` with `{"topic", "message", "title"?, "priority"?,
/// "tags"?}`, optionally with `Authorization: Bearer <token>` (never the `?auth=` query parameter). 200 with the
/// message; its `id` is the remote id. No idempotency. Length: 4096 bytes (longer becomes an attachment).
public struct NtfyPublisher: Publisher {
    public let name: String
    public let baseURL: URL
    public let topic: String
    let token: String?
    public var title: String?
    public var priority: Int?
    public var tags: [String]
    public var gate: TextGate
    let context: HTTPContext

    public init(name: String = "ntfy", baseURL: URL = URL(string: "https://ntfy.sh")!, topic: String,
                token: String? = nil, title: String? = nil, priority: Int? = nil, tags: [String] = [],
                shorten: Bool = false, context: HTTPContext = HTTPContext()) {
        self.name = name
        self.baseURL = baseURL
        self.topic = topic
        self.token = token
        self.title = title
        self.priority = priority
        self.tags = tags
        self.gate = TextGate(rule: .utf8Bytes(4096), shorten: shorten)
        var context = context
        if let token { context.redactor.add(token) }
        self.context = context
    }

    public var lengthRule: LengthRule? { gate.rule }
    public var redactedDescription: String {
        "\(name): ntfy \(Redactor.origin(of: baseURL)) topic \(topic)\(token == nil ? "" : " (token [REDACTED])")"
    }

    public func publish(_ post: Post, deadline: Date) async -> DeliveryOutcome {
        let text: String
        switch gate.prepare(post.text) {
        case .failure(let stop): return stop.outcome
        case .success(let prepared): text = prepared
        }
        var body: [String: Any] = ["topic": topic, "message": text]
        if let title { body["title"] = title }
        if let priority { body["priority"] = priority }
        if !tags.isEmpty { body["tags"] = tags }
        var headers: [String: String] = [:]
        if let token { headers["Authorization"] = "Bearer \(token)" }
        let request = Requests.json("POST", Endpoint.join(baseURL, ""), body: body, headers: headers)
        return await context.deliver(request, deadline: deadline) { idString($0.json?["id"]) }
    }
}
