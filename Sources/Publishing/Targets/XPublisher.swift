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

    public init(name: String = "x", baseURL: URL = URL(string: "https://api.x.com")!, authentication: XAuthentication,
                shorten: Bool = false, context: HTTPContext = HTTPContext(),
                nonce: @escaping @Sendable () -> String = { OAuth1.makeNonce() }) {
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
            authorization = OAuth1.authorizationHeader(method: "POST", url: url, credentials: credentials, nonce: nonce(),
                                                       timestamp: Int(context.now().timeIntervalSince1970))
        }
        let request = Requests.json("POST", url, body: ["text": text], headers: ["Authorization": authorization])
        let outcome = await context.deliver(request, deadline: deadline) { reply in
            (reply.json?["data"] as? [String: Any]).flatMap { idString($0["id"]) }
        }
        if case .permanent(let reason) = outcome, reason.hasPrefix("HTTP 403"), reason.lowercased().contains("duplicate") {
            return .alreadyDelivered(remoteID: nil)
        }
        return outcome
    }
}
