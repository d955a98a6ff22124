import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An OAuth 2.0 public or confidential client holding a user's refresh token (the `offline.access` scope): what X's
/// Authorization Code flow with PKCE hands out, kept alive with the refresh-token grant (RFC 6749 §6) at
/// `POST {tokenURL}` (`grant_type=refresh_token`, `refresh_token`, `client_id`, form-encoded; a confidential client
/// also sends HTTP Basic `client_id:client_secret`, as X documents).
public struct OAuth2Client: Sendable, Equatable {
    public var tokenURL: URL
    public var clientID: String
    /// Set for a confidential client.
    public var clientSecret: String?
    /// The configured refresh token: only the seed. X rotates refresh tokens (each refresh answers a new one and
    /// the old one stops working), so after the first refresh the stored one is used.
    public var refreshToken: String
    /// An access token that came with the refresh token, used until it is refused (its expiry is not known).
    public var accessToken: String?

    public init(
        tokenURL: URL, clientID: String, clientSecret: String? = nil, refreshToken: String, accessToken: String? = nil
    ) {
        self.tokenURL = tokenURL
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.refreshToken = refreshToken
        self.accessToken = accessToken
    }

    var secrets: [String] { [clientSecret, refreshToken, accessToken].compactMap { $0 } }

    /// Where the rotated tokens are kept in the `TargetInfoCache`: the token endpoint, the client and a fingerprint
    /// of the configured refresh token. Another account (another seed) has its own entry; so has a seed the person
    /// replaced after authorizing again, so a newly configured refresh token is used rather than the stored one its
    /// predecessor led to. The fingerprint is the first 64 bits of SHA-1: it names a random token without revealing it.
    var storageKey: String {
        "oauth2.tokens \(tokenURL.absoluteString) \(clientID) \(SHA1.fingerprint(refreshToken))"
    }
}

/// The tokens of one user as stored and used.
struct OAuth2Tokens: RotatingTokens {
    var accessToken: String?
    /// From `expires_in`; nil when not known (a configured access token).
    var expiresAt: Date?
    var refreshToken: String
    var scope: String?

    /// The stored form: one JSON object, so that the access and refresh tokens change together.
    var json: String {
        JSONBody.text(
            Stored(
                refreshToken: refreshToken, accessToken: accessToken, expiresAt: expiresAt?.timeIntervalSince1970,
                scope: scope))
    }

    init(accessToken: String?, expiresAt: Date?, refreshToken: String, scope: String?) {
        self.accessToken = accessToken
        self.expiresAt = expiresAt
        self.refreshToken = refreshToken
        self.scope = scope
    }

    init?(json: String) {
        guard let stored = JSONBody.decode(Stored.self, from: json), let refresh = stored.refreshToken,
            !refresh.isEmpty
        else { return nil }
        self.init(
            accessToken: stored.accessToken, expiresAt: stored.expiresAt.map { Date(timeIntervalSince1970: $0) },
            refreshToken: refresh, scope: stored.scope)
    }

    /// The stored JSON object (`expires_at` in seconds since 1970).
    private struct Stored: Codable {
        @Lenient var refreshToken: String?
        @Lenient var accessToken: String?
        @Lenient var expiresAt: Double?
        @Lenient var scope: String?

        init(refreshToken: String, accessToken: String?, expiresAt: Double?, scope: String?) {
            self.refreshToken = refreshToken
            self.accessToken = accessToken
            self.expiresAt = expiresAt
            self.scope = scope
        }

        private enum CodingKeys: String, CodingKey {
            case refreshToken = "refresh_token"
            case accessToken = "access_token"
            case expiresAt = "expires_at"
            case scope
        }
    }
}

/// The token endpoint's answer (RFC 6749 §5.1, and §5.2's `error` and `error_description` when it refuses).
private struct TokenAnswer: Decodable {
    @Lenient var accessToken: String?
    @Lenient var refreshToken: String?
    @Lenient var expiresIn: Double?
    @Lenient var scope: String?
    @Lenient var error: String?
    @Lenient var errorDescription: String?

    private enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case refreshToken = "refresh_token"
        case expiresIn = "expires_in"
        case scope, error
        case errorDescription = "error_description"
    }
}

/// X's tokens kept alive by a `StoredSession`: the configured refresh token is the seed, and a refused refresh token
/// cannot be replaced here (a person must authorize the app again).
typealias OAuth2Session = StoredSession<OAuth2Client>

extension OAuth2Client: TokenGrant {
    var seed: OAuth2Tokens? {
        OAuth2Tokens(accessToken: accessToken, expiresAt: nil, refreshToken: refreshToken, scope: nil)
    }
    var tokensName: String { "OAuth 2.0 tokens" }
    var lossAdvice: String {
        "X rotated the refresh token: if this process ends before that, authorize again to get a new refresh token"
    }
    var raceWait: Duration { .seconds(2) }

    func start(refusal: String?, context: HTTPContext, deadline: Deadline) async -> Result<OAuth2Tokens, Stop> {
        .failure(
            Stop(
                .permanent(
                    reason:
                        "the OAuth 2.0 refresh token was refused (\(refusal ?? "none is configured")): it was used already (each works once) or the app's access was revoked. Authorize the app again with the offline.access scope (and tweet.read, tweet.write, users.read) and put the new refresh token in refresh_token_env or refresh_token_file; it replaces the stored one"
                )))
    }

    /// The refresh-token grant. A refusal (`invalid_grant`, or X's `invalid_request` "Value passed for the token was
    /// invalid.") is `.refused`: another process may have refreshed first. `invalid_client` or `unauthorized_client`
    /// say to check the client's keys.
    func refresh(_ tokens: OAuth2Tokens, context: HTTPContext, deadline: Deadline) async -> GrantAnswer<OAuth2Tokens> {
        let refreshToken = tokens.refreshToken
        let parameters = [("grant_type", "refresh_token"), ("refresh_token", refreshToken), ("client_id", clientID)]
        let body = parameters.map { "\(OAuth1.percentEncode($0.0))=\(OAuth1.percentEncode($0.1))" }
            .joined(separator: "&")
        var headers: [String: String] = [:]
        if let clientSecret {
            headers["Authorization"] = "Basic " + Data("\(clientID):\(clientSecret)".utf8).base64EncodedString()
        }
        let request = Requests.data(
            "POST", tokenURL, contentType: "application/x-www-form-urlencoded", body: Data(body.utf8),
            headers: headers)
        let context = context.redacting(refreshToken)
        let doing = "refreshing the OAuth 2.0 token"
        let reply: HTTPReply
        switch await context.send(request, deadline: deadline) {
        case .failure(let failure): return .stopped(.notPosted(ResponseClassifier.classify(failure), doing: doing))
        case .success(let r): reply = r
        }
        if (200..<300).contains(reply.status) {
            let answer = reply.decoded(TokenAnswer.self)
            guard let access = answer?.accessToken, !access.isEmpty else {
                return .stopped(
                    Stop(.permanent(reason: "the OAuth 2.0 token endpoint answered without an access_token")))
            }
            let rotated = answer?.refreshToken.flatMap { $0.isEmpty ? nil : $0 } ?? refreshToken
            return .issued(
                OAuth2Tokens(
                    accessToken: access, expiresAt: answer?.expiresIn.map { context.now().addingTimeInterval($0) },
                    refreshToken: rotated, scope: answer?.scope))
        }
        let outcome = ResponseClassifier.classify(reply, now: context.now(), redactor: context.redactor) { _ in nil }
        guard case .permanent = outcome else { return .stopped(.notPosted(outcome, doing: doing)) }
        let refusal = reply.decoded(TokenAnswer.self)
        let code = refusal?.error ?? ""
        // RFC 6749 §5.2: `error` and `error_description`; any other answer in the server's words.
        let described =
            code.isEmpty
            ? ResponseClassifier.reason(reply, redactor: context.redactor)
            : context.redactor.redact(
                ["HTTP \(reply.status)", code, refusal?.errorDescription ?? ""]
                    .filter { !$0.isEmpty }.joined(separator: ": "))
        switch code {
        case "invalid_grant", "invalid_request":
            return .refused(described)
        case "invalid_client", "unauthorized_client":
            return .stopped(
                Stop(
                    .permanent(
                        reason:
                            "the OAuth 2.0 token endpoint refused the client (\(described)): check client_id, and set client_secret_env or client_secret_file for a confidential client"
                    )))
        default:
            return .stopped(Stop(.permanent(reason: "\(doing) failed: \(described)")))
        }
    }
}
