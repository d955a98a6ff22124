import Foundation
import Messages

/// How the X target authenticates: OAuth 1.0a user context (signed per request) or an OAuth 2.0 user token.
public enum XAuthentication: Sendable, Equatable {
    case oauth1(OAuth1Credentials)
    case bearer(String)

    var secrets: [String] {
        switch self {
        case .oauth1(let c): return [c.consumerKey, c.consumerSecret, c.token, c.tokenSecret]
        case .bearer(let token): return [token]
        }
    }
}

/// X: `POST {base_url}/2/tweets` with `{"text": …}`. 201 `{"data": {"id": …}}`. X has no idempotency key; it
/// refuses a repeated text with 403 "duplicate content", which is reported as `.alreadyDelivered` (the only place
/// a message text is read: every other 403 is permanent). Length: twitter-text v3 weighted, 280.
public struct XPublisher: Publisher {
    public let name: String
    public let baseURL: URL
    let authentication: XAuthentication
    public var gate: TextGate
    let context: HTTPContext
    let nonce: @Sendable () -> String

    public init(
        name: String = "x", baseURL: URL = URL(string: "https://api.x.com")!, authentication: XAuthentication,
        shorten: Bool = false, context: HTTPContext = HTTPContext(),
        nonce: @escaping @Sendable () -> String = { OAuth1.makeNonce() }
    ) {
        self.name = name
        self.baseURL = baseURL
        self.authentication = authentication
        self.gate = TextGate(rule: .x, shorten: shorten)
        var context = context
        for secret in authentication.secrets { context.redactor.add(secret) }
        self.context = context
        self.nonce = nonce
    }

    public var lengthRule: LengthRule? { .x }
    public var redactedDescription: String {
        let kind: String
        switch authentication {
        case .oauth1: kind = "OAuth 1.0a"
        case .bearer: kind = "OAuth 2.0 user token"
        }
        return "\(name): x \(Redactor.origin(of: baseURL)) (\(kind), secrets [REDACTED])"
    }

    public func publish(_ post: Post, deadline: Deadline) async -> DeliveryOutcome {
        let text: String
        switch gate.prepare(post.text) {
        case .failure(let stop): return stop.outcome
        case .success(let prepared): text = prepared
        }
        let url = Endpoint.join(baseURL, "2/tweets")
        let authorization: String
        switch authentication {
        case .bearer(let token):
            authorization = "Bearer \(token)"
        case .oauth1(let credentials):
            authorization = OAuth1.authorizationHeader(
                method: "POST", url: url, credentials: credentials, nonce: nonce(),
                timestamp: Int(context.now().timeIntervalSince1970))
        }
        let request = Requests.json("POST", url, body: ["text": text], headers: ["Authorization": authorization])
        let outcome = await context.deliver(request, deadline: deadline) { reply in
            (reply.json?["data"] as? [String: Any]).flatMap { idString($0["id"]) }
        }
        if case .permanent(let reason) = outcome, reason.hasPrefix("HTTP 403"),
            reason.lowercased().contains("duplicate")
        {
            return .alreadyDelivered(remoteID: nil)
        }
        return outcome
    }
}

extension XPublisher {
    /// `kind = "x"`: `base_url`; OAuth 1.0a `consumer_key_*`, `consumer_secret_*`, `token_*`, `token_secret_*`, or an
    /// OAuth 2.0 user token (`token_*` alone); `shorten`.
    public static let target = TargetKind(
        "x",
        secrets: [
            .init("token"), .init("consumer_key"), .init("consumer_secret"),
            .init("token_secret"),
        ]
    ) { config in
        let base = try config.url("base_url", default: "https://api.x.com")!
        let consumerKey = try config.secret("consumer_key", required: false)
        let consumerSecret = try config.secret("consumer_secret", required: false)
        let tokenSecret = try config.secret("token_secret", required: false)
        let token = try config.secret("token")
        let authentication: XAuthentication
        if consumerKey == nil && consumerSecret == nil && tokenSecret == nil {
            authentication = .bearer(token)
        } else {
            let missing =
                "missing: OAuth 1.0a needs consumer_key, consumer_secret, token and token_secret (each as _env or _file)"
            guard let consumerKey else { throw config.error("consumer_key_env", missing) }
            guard let consumerSecret else { throw config.error("consumer_secret_env", missing) }
            guard let tokenSecret else { throw config.error("token_secret_env", missing) }
            authentication = .oauth1(
                OAuth1Credentials(
                    consumerKey: consumerKey, consumerSecret: consumerSecret,
                    token: token, tokenSecret: tokenSecret))
        }
        return XPublisher(
            name: config.name, baseURL: base, authentication: authentication, shorten: try config.shorten,
            context: config.context)
    }
}
