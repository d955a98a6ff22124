import Foundation
import Messages

/// Discord webhook: `POST {url}?wait=true` with `{"content": …, "allowed_mentions": {"parse": []}}`. `wait=true`
/// makes Discord answer 200 with the message (its `id`) instead of a 204 that hides failures. The URL holds the
/// webhook token, so it is never shown. No idempotency. Length: 2000 characters.
public struct DiscordPublisher: Publisher {
    public let name: String
    let url: URL
    public var gate: TextGate
    let context: HTTPContext
    /// No key and no way to look a post up: after an unconfirmed attempt, resend (true) or give up (false).
    public var resendUnconfirmed: Bool
    public var repeatsDuplicate: Bool { true }

    public init(name: String = "discord", url: URL, shorten: Bool = false, resendUnconfirmed: Bool = true,
                context: HTTPContext = HTTPContext()) {
        self.name = name
        self.resendUnconfirmed = resendUnconfirmed
        self.url = url
        self.gate = TextGate(rule: .characters(2000), shorten: shorten)
        self.context = context.redacting(webhook: url)
    }

    public var lengthRule: LengthRule? { gate.rule }
    public var redactedDescription: String { "\(name): discord webhook \(Redactor.origin(of: url)) (URL [REDACTED])" }

    public func publish(_ post: Post, deadline: Deadline) async -> DeliveryOutcome {
        let text: String
        switch gate.prepare(post.text) {
        case .failure(let stop): return stop.outcome
        case .success(let prepared): text = prepared
        }
        let body: [String: Any] = ["content": text, "allowed_mentions": ["parse": [String]()]]
        let request = Requests.json("POST", Endpoint.adding("wait", "true", to: url), body: body)
        return await context.deliver(request, deadline: deadline) { idString($0.json?["id"]) }
    }
}

extension DiscordPublisher {
    /// `kind = "discord"`: `url_env`/`url_file` (required), `resend_unconfirmed`, `shorten`. The webhook token in
    /// a Discord URL is hidden wherever it appears.
    public static let target = TargetKind("discord", secrets: [.init("url", why: "a webhook URL is a secret")],
                                          redactions: [#"(?i)(/api/webhooks/\d+/)[A-Za-z0-9._\-]+"#]) { config in
        DiscordPublisher(name: config.name, url: try config.secretURL(), shorten: try config.shorten,
                         resendUnconfirmed: try config.resendUnconfirmed, context: config.context)
    }
}
