import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Discord webhook: `POST {url}?wait=true` with `{"content": …, "allowed_mentions": {"parse": []}}`. `wait=true`
/// makes Discord answer 200 with the message (its `id`) instead of a 204 that hides failures. The URL holds the
/// webhook token, so it is never shown. No idempotency. Length: 2000 code points (Discord's API counts a string's
/// length in code points, discord-api-docs#1315, so an emoji sequence is several).
///
/// With `image = "chart"` the same request is multipart: `payload_json` (the JSON above plus `attachments` with the
/// alt text as the attachment's `description`) and the PNG as `files[0]`. One request, so the image cannot be
/// posted apart from its text.
public struct DiscordPublisher: ChatWebhookTarget {
    public var webhook: ChatWebhook
    /// `image`, `image_required`: the chart as the message's attachment.
    public var image: ImageOption

    /// Discord's limit on an attachment's description.
    public static let altLimit = 1024

    public init(
        name: String = "discord", url: URL, shorten: Bool = false, resendUnconfirmed: Bool = true,
        image: ImageOption = .off, context: HTTPContext = HTTPContext()
    ) {
        webhook = ChatWebhook(
            service: "discord", name: name, url: url, rule: .codePoints(2000), shorten: shorten,
            resendUnconfirmed: resendUnconfirmed, context: context)
        self.image = image
    }

    public func publish(_ post: Post, deadline: Deadline) async -> DeliveryOutcome {
        await ImageAttachment.inOneRequest(post, option: image, target: name) { image in
            await webhook.publish(
                post, deadline: deadline, { text in request(text: text, image: image, post: post) },
                remoteID: { $0.jsonID })
        }
    }

    /// The execute-webhook request: JSON, or multipart when it carries the image.
    func request(text: String, image: PostImage?, post: Post) -> URLRequest {
        let url = Endpoint.adding("wait", "true", to: webhook.url)
        var payload = Message(content: text)
        guard let image else { return Requests.json("POST", url, body: payload) }
        let fileName = PostImage.fileName(for: post)
        payload.attachments = [.init(id: 0, filename: fileName, description: image.alt(limit: Self.altLimit))]
        var form = MultipartBody()
        form.add("payload_json", JSONBody.text(payload))
        form.addFile("files[0]", filename: fileName, contentType: "image/png", data: image.png)
        return form.request("POST", url)
    }
}

extension DiscordPublisher {
    /// The execute-webhook JSON: the text, no mentions parsed (a name in the text pings no one), and the attachment's
    /// alt text when the request carries the image.
    struct Message: Encodable {
        var content: String
        var allowedMentions = AllowedMentions()
        var attachments: [Attachment]?

        struct AllowedMentions: Encodable {
            var parse: [String] = []
        }

        struct Attachment: Encodable {
            var id: Int
            var filename: String
            var description: String
        }

        private enum CodingKeys: String, CodingKey {
            case content
            case allowedMentions = "allowed_mentions"
            case attachments
        }
    }
}

extension DiscordPublisher {
    /// `kind = "discord"`: `url_env`/`url_file` (required), `resend_unconfirmed`, `shorten`, `image`,
    /// `image_required`. The webhook token in
    /// a Discord URL is hidden wherever it appears.
    public static let target = TargetKind(
        "discord", secrets: [.init("url", why: "a webhook URL is a secret")],
        redactions: [#"(?i)(/api/webhooks/\d+/)[A-Za-z0-9._\-]+"#]
    ) { config in
        DiscordPublisher(
            name: config.name, url: try config.secretURL(), shorten: try config.shorten,
            resendUnconfirmed: try config.resendUnconfirmed, image: try config.image, context: config.context)
    }
}
