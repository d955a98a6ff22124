import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A Bluesky session as stored and used: the access JWT (its expiry read from its `exp`), the refresh JWT and the
/// account's DID.
struct BlueskySession: RotatingTokens {
    var accessJwt: String
    var refreshJwt: String
    var did: String
    let expiresAt: Date?

    var accessToken: String? { accessJwt }
    var refreshToken: String { refreshJwt }

    init(accessJwt: String, refreshJwt: String, did: String) {
        self.accessJwt = accessJwt
        self.refreshJwt = refreshJwt
        self.did = did
        expiresAt = Self.expiry(ofJWT: accessJwt)
    }

    /// From a createSession or refreshSession answer (and the stored form, which has the same fields).
    init?(_ fields: Fields?) {
        guard let access = fields?.accessJwt, !access.isEmpty, let refresh = fields?.refreshJwt, !refresh.isEmpty,
            let did = fields?.did, !did.isEmpty
        else { return nil }
        self.init(accessJwt: access, refreshJwt: refresh, did: did)
    }

    init?(json: String) { self.init(JSONBody.decode(Fields.self, from: json)) }

    var json: String { JSONBody.text(Fields(accessJwt: accessJwt, refreshJwt: refreshJwt, did: did)) }

    /// The session's fields in a createSession or refreshSession answer, and as stored.
    struct Fields: Codable {
        @Lenient var accessJwt: String?
        @Lenient var refreshJwt: String?
        @Lenient var did: String?

        init(accessJwt: String, refreshJwt: String, did: String) {
            self.accessJwt = accessJwt
            self.refreshJwt = refreshJwt
            self.did = did
        }
    }

    /// A JWT's claims: its expiry.
    private struct Claims: Decodable {
        @Lenient var exp: Double?
    }

    /// The `exp` claim of a JWT, if it has one.
    static func expiry(ofJWT jwt: String) -> Date? {
        let parts = jwt.split(separator: ".")
        guard parts.count >= 2 else { return nil }
        var base64 = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64),
            let exp = (try? JSONDecoder().decode(Claims.self, from: data))?.exp
        else { return nil }
        return Date(timeIntervalSince1970: exp)
    }
}

/// How a Bluesky account gets its session: `createSession` with the identifier and app password, renewed with
/// `refreshSession` (`Authorization: Bearer <refreshJwt>`), which rotates the refresh JWT. A refused refresh JWT
/// (`ExpiredToken`, `InvalidToken`: older than 90 days, revoked, used by another process that stored nothing newer)
/// logs in again. Stored under the server, the identifier and a fingerprint of the app password, so a changed
/// password starts afresh.
struct BlueskyLogin: TokenGrant {
    let baseURL: URL
    let identifier: String
    let password: String

    var storageKey: String {
        let server = baseURL.absoluteString
        return "bluesky.session \(server) \(identifier) \(SHA1.fingerprint(password, salt: "\(server) \(identifier)"))"
    }
    var seed: BlueskySession? { nil }
    var tokensName: String { "Bluesky session" }
    var lossAdvice: String { "If this process ends before that, the next one logs in again" }
    /// Logging in again is always possible: a refusal does not wait for another process to store its session.
    var raceWait: Duration { .zero }

    /// `{base_url}/xrpc/{method}`.
    func xrpc(_ method: String) -> URL { Endpoint.join(baseURL, "xrpc/\(method)") }

    func refresh(_ tokens: BlueskySession, context: HTTPContext, deadline: Deadline) async -> GrantAnswer<
        BlueskySession
    > {
        let context = context.redacting(tokens.refreshJwt)
        let doing = "refreshing the Bluesky session"
        var request = URLRequest(url: xrpc("com.atproto.server.refreshSession"))
        request.httpMethod = "POST"
        request.setValue("Bearer \(tokens.refreshJwt)", forHTTPHeaderField: "Authorization")
        switch await context.send(request, deadline: deadline) {
        case .failure(let failure): return .stopped(.notPosted(ResponseClassifier.classify(failure), doing: doing))
        case .success(let reply):
            if (200..<300).contains(reply.status),
                let renewed = BlueskySession(reply.decoded(BlueskySession.Fields.self))
            {
                return .issued(renewed)
            }
            let outcome = ResponseClassifier.classify(reply, now: context.now(), redactor: context.redactor) { _ in nil
            }
            if case .retryable = outcome { return .stopped(.notPosted(outcome, doing: doing)) }
            return .refused(ResponseClassifier.reason(reply, redactor: context.redactor))
        }
    }

    func start(refusal: String?, context: HTTPContext, deadline: Deadline) async -> Result<BlueskySession, Stop> {
        let request = Requests.json(
            "POST", xrpc("com.atproto.server.createSession"), body: Login(identifier: identifier, password: password))
        switch await context.send(request, deadline: deadline) {
        case .failure(let failure):
            return .failure(.notPosted(ResponseClassifier.classify(failure), doing: "logging in"))
        case .success(let reply):
            if (200..<300).contains(reply.status) {
                guard let created = BlueskySession(reply.decoded(BlueskySession.Fields.self)) else {
                    return .failure(
                        Stop(.permanent(reason: "createSession answered without accessJwt, refreshJwt and did")))
                }
                return .success(created)
            }
            let outcome = ResponseClassifier.classify(reply, now: context.now(), redactor: context.redactor) { _ in nil
            }
            if case .permanent(let reason) = outcome {
                return .failure(Stop(.permanent(reason: "login failed: \(reason)")))
            }
            return .failure(.notPosted(outcome, doing: "logging in"))
        }
    }

    /// createSession's body.
    private struct Login: Encodable {
        var identifier: String
        var password: String
    }
}
