import Foundation

/// Discord webhook: `POST {url}?wait=true` with `{"content": …, "allowed_mentions": {"parse": []}}`. `wait=true`
/// makes Discord answer 200 with the message (its `id`) instead of a 204 that hides failures. The URL holds the
/// webhook token, so it is never shown. No idempotency. Length: 2000 characters.
public struct DiscordPublisher: ChatWebhookTarget {
    public var webhook: ChatWebhook

    public init(
        name: String = "discord", url: URL, shorten: Bool = false, resendUnconfirmed: Bool = true,
        context: HTTPContext = HTTPContext()
    ) {
        webhook = ChatWebhook(
            service: "discord", name: name, url: url, characters: 2000, shorten: shorten,
            resendUnconfirmed: resendUnconfirmed, context: context)
    }

    public func publish(_ post: Post, deadline: Deadline) async -> DeliveryOutcome {
        await webhook.publish(
            post, deadline: deadline,
            { text in
                Requests.json(
                    "POST", Endpoint.adding("wait", "true", to: webhook.url),
                    body: ["content": text, "allowed_mentions": ["parse": [String]()]])
            }, remoteID: { idString($0.json?["id"]) })
    }
}

extension DiscordPublisher {
    /// `kind = "discord"`: `url_env`/`url_file` (required), `resend_unconfirmed`, `shorten`. The webhook token in
    /// a Discord URL is hidden wherever it appears.
    public static let target = TargetKind(
        "discord", secrets: [.init("url", why: "a webhook URL is a secret")],
        redactions: [#"(?i)(/api/webhooks/\d+/)[A-Za-z0-9._\-]+"#]
    ) { config in
        DiscordPublisher(
            name: config.name, url: try config.secretURL(), shorten: try config.shorten,
            resendUnconfirmed: try config.resendUnconfirmed, context: config.context)
    }
}
