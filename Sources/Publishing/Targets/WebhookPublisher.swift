import Foundation
import Messages
import WallTime

/// The JSON body of a generic webhook, with `{{text}}`, `{{idempotency_key}}`, `{{window_start}}` and
/// `{{window_end}}` replaced by JSON strings (quotes included; times in RFC 3339 UTC), and `{{image_png_base64}}`
/// (the chart's PNG, base64) and `{{image_alt}}` (its alt text) by JSON strings, or `null` for a post without an
/// image. Checked when it is made: an unknown placeholder, or a template that is not valid JSON once filled, is an
/// error.
public struct WebhookBodyTemplate: Sendable, Equatable {
    public static let placeholders = [
        "text", "idempotency_key", "window_start", "window_end", "image_png_base64", "image_alt",
    ]
    public static let `default` =
        #"{"text": {{text}}, "idempotency_key": {{idempotency_key}}, "window_start": {{window_start}}, "window_end": {{window_end}}}"#
    public let source: String

    public init(_ source: String = WebhookBodyTemplate.default) throws(ConfigurationError) {
        self.source = source
        var rest = Substring(source)
        while let open = rest.range(of: "{{") {
            guard let close = rest[open.upperBound...].range(of: "}}") else {
                throw ConfigurationError(path: "", message: "'{{' is never closed with '}}'")
            }
            let name = String(rest[open.upperBound..<close.lowerBound]).trimmingCharacters(in: .whitespaces)
            guard Self.placeholders.contains(name) else {
                throw ConfigurationError(
                    path: "",
                    message: "unknown placeholder {{\(name)}}; known: "
                        + Self.placeholders.map { "{{\($0)}}" }.joined(separator: ", "))
            }
            rest = rest[close.upperBound...]
        }
        let sample = render(
            Post(text: "sample \"text\"", window: TimeWindow(start: .epoch, end: Instant(secondsSinceEpoch: 1800))))
        guard (try? JSONDecoder().decode(JSONValue.self, from: sample)) != nil else {
            throw ConfigurationError(path: "", message: "is not valid JSON once its placeholders are filled")
        }
    }

    /// Whether the template sends the image (has `{{image_png_base64}}`).
    public var carriesImage: Bool {
        source.range(of: #"\{\{\s*image_png_base64\s*\}\}"#, options: .regularExpression) != nil
    }

    /// The body for `post`.
    public func render(_ post: Post) -> Data {
        let values: [String: String?] = [
            "text": post.text,
            "idempotency_key": post.idempotencyKey,
            "window_start": Timestamps.format(post.window.start.date),
            "window_end": Timestamps.format(post.window.end.date),
            "image_png_base64": post.image?.png.base64EncodedString(),
            "image_alt": post.image?.alt,
        ]
        var out = ""
        var rest = Substring(source)
        while let open = rest.range(of: "{{"), let close = rest[open.upperBound...].range(of: "}}") {
            out += rest[..<open.lowerBound]
            let name = String(rest[open.upperBound..<close.lowerBound]).trimmingCharacters(in: .whitespaces)
            out += (values[name] ?? nil).map(Self.jsonString) ?? "null"
            rest = rest[close.upperBound...]
        }
        out += rest
        return Data(out.utf8)
    }

    static func jsonString(_ text: String) -> String { JSONBody.text(text) }
}

/// A generic webhook: `POST {url}` with the body template, the configured headers, and the post's key as
/// `Idempotency-Key`. Any 2xx is success; a JSON `id` in the reply is the remote id. The URL is a secret (from
/// `url_env` / `url_file`) and never shown.
public struct WebhookPublisher: Publisher {
    public let name: String
    let url: URL
    public var bodyTemplate: WebhookBodyTemplate
    let headers: [String: String]
    public var gate: TextGate
    public func refusal(of text: String) -> String? { gate.refusal(of: text) }
    /// `image`, `image_required`: the chart in the body's `{{image_png_base64}}` and `{{image_alt}}`.
    public var image: ImageOption
    let context: HTTPContext

    public init(
        name: String = "webhook", url: URL, bodyTemplate: WebhookBodyTemplate, headers: [String: String] = [:],
        lengthRule: LengthRule? = nil, shorten: Bool = false, image: ImageOption = .off,
        context: HTTPContext = HTTPContext()
    ) {
        self.name = name
        self.image = image
        self.url = url
        self.bodyTemplate = bodyTemplate
        self.headers = headers
        self.gate = TextGate(rule: lengthRule, shorten: shorten)
        var context = context.redacting(webhook: url)
        for (header, value) in headers {
            let lower = header.lowercased()
            if lower == "authorization" || lower.contains("token") || lower.contains("key") || lower.contains("secret")
            {
                context.redactor.add(value)
            }
        }
        self.context = context
    }

    public var lengthRule: LengthRule? { gate.rule }
    public var redactedDescription: String {
        "\(name): webhook \(Redactor.origin(of: url)) (URL [REDACTED])"
            + (headers.isEmpty ? "" : " headers: " + headers.keys.sorted().joined(separator: ", "))
    }

    public func publish(_ post: Post, deadline: Deadline) async -> DeliveryOutcome {
        var post = post
        switch gate.prepare(post.text) {
        case .failure(let stop): return stop.outcome
        case .success(let prepared): post.text = prepared
        }
        let gated = post
        return await ImageAttachment.inOneRequest(gated, option: image, target: name) { image in
            var sent = gated
            sent.image = image  // nil: the placeholders render null
            var request = Requests.json("POST", url, body: [String: String](), headers: headers)
            request.setValue(sent.idempotencyKey, forHTTPHeaderField: "Idempotency-Key")
            request.httpBody = bodyTemplate.render(sent)
            return await context.deliver(request, deadline: deadline) { $0.jsonID }
        }
    }
}

extension WebhookPublisher {
    /// `kind = "webhook"`: `url_env`/`url_file` (required), `body_template`, `headers`, `length_rule`, `shorten`,
    /// `image`, `image_required`. `image = "chart"` needs `{{image_png_base64}}` in the body template: without it the
    /// image would be dropped unseen.
    public static let target = TargetKind("webhook", secrets: [.init("url", why: "a webhook URL is a secret")]) {
        config in
        let url = try config.secretURL()
        let source = try config.string("body_template") ?? WebhookBodyTemplate.default
        let body: WebhookBodyTemplate
        do throws(ConfigurationError) { body = try WebhookBodyTemplate(source) } catch {
            throw config.error("body_template", error.message)
        }
        let rule = try config.oneOf("length_rule", ["x", "mastodon", "bluesky"]).flatMap(LengthRule.platform)
        let image = try config.image
        if image.chart && !body.carriesImage {
            throw config.error(
                "image", "\"chart\" needs {{image_png_base64}} (and {{image_alt}}) in body_template to send the image")
        }
        return WebhookPublisher(
            name: config.name, url: url, bodyTemplate: body, headers: try config.stringTable("headers") ?? [:],
            lengthRule: rule, shorten: try config.shorten, image: image, context: config.context)
    }
}
