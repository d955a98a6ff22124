import Foundation
import Messages

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What the chat webhooks (Discord, Slack) share: the URL is the secret (never shown), a length limit, no
/// idempotency and no look-up. Each target says only how its request looks and where its remote id is.
public struct ChatWebhook: Sendable {
    /// The service's name in descriptions ("discord").
    let service: String
    public let name: String
    let url: URL
    public var gate: TextGate
    let context: HTTPContext
    /// No key and no way to look a post up: after an unconfirmed attempt, resend (true) or give up (false).
    public var resendUnconfirmed: Bool

    init(
        service: String, name: String, url: URL, rule: LengthRule, shorten: Bool, resendUnconfirmed: Bool,
        context: HTTPContext
    ) {
        self.service = service
        self.name = name
        self.url = url
        self.gate = TextGate(rule: rule, shorten: shorten)
        self.resendUnconfirmed = resendUnconfirmed
        self.context = context.redacting(webhook: url)
    }

    var redactedDescription: String { "\(name): \(service) webhook \(Redactor.origin(of: url)) (URL [REDACTED])" }

    /// Gates the text, sends the request `makeRequest` builds from it, and reads the remote id from the reply. Any
    /// 2xx is delivered, with or without an id: these targets cannot be asked whether a post is there, so an
    /// unconfirmed 2xx would be resent at every retry, and a relay that always answers without the id would post the
    /// same text again and again.
    func publish(
        _ post: Post, deadline: Deadline, _ makeRequest: (_ text: String) -> URLRequest,
        remoteID: (HTTPReply) -> String? = { _ in nil }
    ) async -> DeliveryOutcome {
        switch gate.prepare(post.text) {
        case .failure(let stop): return stop.outcome
        case .success(let text): return await context.deliver(makeRequest(text), deadline: deadline, remoteID: remoteID)
        }
    }
}

/// A target that is a `ChatWebhook`: its name, limit, description and resend policy come from the webhook.
public protocol ChatWebhookTarget: Publisher {
    var webhook: ChatWebhook { get }
}

extension ChatWebhookTarget {
    public var name: String { webhook.name }
    public var repeatsDuplicate: Bool { true }
    public var resendUnconfirmed: Bool { webhook.resendUnconfirmed }
    public var lengthRule: LengthRule? { webhook.gate.rule }
    public func refusal(of text: String) -> String? { webhook.gate.refusal(of: text) }
    public var redactedDescription: String { webhook.redactedDescription }
}
