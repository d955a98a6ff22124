import Foundation
import Messages

/// Slack incoming webhook: `POST {url}` with `{"text": …}`; success is 200 with the body `ok`. The URL is the
/// secret, so it is never shown. No idempotency and no remote id. Length: 4000 characters (Slack truncates
/// longer `text`).
public struct SlackPublisher: Publisher {
    public let name: String
    let url: URL
    public var gate: TextGate
    let context: HTTPContext
    /// No key and no way to look a post up: after an unconfirmed attempt, resend (true) or give up (false).
    public var resendUnconfirmed: Bool
    public var repeatsDuplicate: Bool { true }

    public init(name: String = "slack", url: URL, shorten: Bool = false, resendUnconfirmed: Bool = true,
                context: HTTPContext = HTTPContext()) {
        self.name = name
        self.resendUnconfirmed = resendUnconfirmed
        self.url = url
        self.gate = TextGate(rule: .characters(4000), shorten: shorten)
        self.context = context.redacting(webhook: url)
    }

    public var lengthRule: LengthRule? { gate.rule }
    public var redactedDescription: String { "\(name): slack webhook \(Redactor.origin(of: url)) (URL [REDACTED])" }

    public func publish(_ post: Post, deadline: Deadline) async -> DeliveryOutcome {
        let text: String
        switch gate.prepare(post.text) {
        case .failure(let stop): return stop.outcome
        case .success(let prepared): text = prepared
        }
        let request = Requests.json("POST", url, body: ["text": text])
        return await context.deliver(request, deadline: deadline)
    }
}

extension SlackPublisher {
    /// `kind = "slack"`: `url_env`/`url_file` (required), `resend_unconfirmed`, `shorten`. The secret path of a
    /// Slack webhook URL is hidden wherever it appears.
    public static let target = TargetKind("slack", secrets: [.init("url", why: "a webhook URL is a secret")],
                                          redactions: [#"(?i)(hooks\.slack\.com/services/)[A-Za-z0-9/_\-]+"#]) { config in
        SlackPublisher(name: config.name, url: try config.secretURL(), shorten: try config.shorten,
                       resendUnconfirmed: try config.resendUnconfirmed, context: config.context)
    }
}
