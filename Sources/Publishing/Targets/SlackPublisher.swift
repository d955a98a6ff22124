import Foundation

/// Slack incoming webhook: `POST {url}` with `{"text": …}`; success is 200 with the body `ok`. The URL is the
/// secret, so it is never shown. No idempotency and no remote id. Length: 4000 characters (Slack truncates
/// longer `text`). Incoming webhooks take no files, so Slack posts text only: `image = "chart"` is a configuration
/// error rather than a post that silently lacks its image.
public struct SlackPublisher: ChatWebhookTarget {
    public var webhook: ChatWebhook

    public init(
        name: String = "slack", url: URL, shorten: Bool = false, resendUnconfirmed: Bool = true,
        context: HTTPContext = HTTPContext()
    ) {
        webhook = ChatWebhook(
            service: "slack", name: name, url: url, rule: .characters(4000), shorten: shorten,
            resendUnconfirmed: resendUnconfirmed, context: context)
    }

    public func publish(_ post: Post, deadline: Deadline) async -> DeliveryOutcome {
        await webhook.publish(post, deadline: deadline) { text in
            Requests.json("POST", webhook.url, body: ["text": text])
        }
    }
}

extension SlackPublisher {
    /// `kind = "slack"`: `url_env`/`url_file` (required), `resend_unconfirmed`, `shorten`. The secret path of a
    /// Slack webhook URL is hidden wherever it appears.
    public static let target = TargetKind(
        "slack", secrets: [.init("url", why: "a webhook URL is a secret")],
        redactions: [#"(?i)(hooks\.slack\.com/services/)[A-Za-z0-9/_\-]+"#], takesImages: false
    ) { config in
        if try config.string("image") != nil {
            throw config.error(
                "image", "Slack incoming webhooks take no files; remove image (Slack posts the text only)")
        }
        return SlackPublisher(
            name: config.name, url: try config.secretURL(), shorten: try config.shorten,
            resendUnconfirmed: try config.resendUnconfirmed, context: config.context)
    }
}
