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
        let fingerprint = SHA1.digest(Array(refreshToken.utf8)).prefix(8).map { String(format: "%02x", $0) }.joined()
        return "oauth2.tokens \(tokenURL.absoluteString) \(clientID) \(fingerprint)"
    }
}

/// The tokens of one user as stored and used.
struct OAuth2Tokens: Sendable, Equatable {
    var accessToken: String?
    /// From `expires_in`; nil when not known (a configured access token).
    var expiresAt: Date?
    var refreshToken: String
    var scope: String?

    /// The stored form: one JSON object, so that the access and refresh tokens change together.
    var json: String {
        var object: [String: Any] = ["refresh_token": refreshToken]
        object["access_token"] = accessToken
        object["expires_at"] = expiresAt.map { $0.timeIntervalSince1970 }
        object["scope"] = scope
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    init(accessToken: String?, expiresAt: Date?, refreshToken: String, scope: String?) {
        self.accessToken = accessToken
        self.expiresAt = expiresAt
        self.refreshToken = refreshToken
        self.scope = scope
    }

    init?(json: String) {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: Any],
            let refresh = object["refresh_token"] as? String, !refresh.isEmpty
        else { return nil }
        self.init(
            accessToken: object["access_token"] as? String,
            expiresAt: (object["expires_at"] as? NSNumber).map { Date(timeIntervalSince1970: $0.doubleValue) },
            refreshToken: refresh, scope: object["scope"] as? String)
    }

    /// The access token, unless it is missing, was just refused or expires within `margin` of `now`.
    func usableAccessToken(now: Date, refused: String?) -> String? {
        guard let accessToken, accessToken != refused else { return nil }
        if let expiresAt, expiresAt.timeIntervalSince(now) <= OAuth2Session.expiryMargin { return nil }
        return accessToken
    }
}

/// The access token a post is sent with, and whether it was refreshed (or taken over from another process) for it:
/// a 401 to a token refreshed just now is not refreshed again.
struct OAuth2Access: Sendable, Equatable {
    var token: String
    var refreshed: Bool

    static func refreshed(_ tokens: OAuth2Tokens) -> OAuth2Access {
        OAuth2Access(token: tokens.accessToken ?? "", refreshed: true)
    }
}

/// Keeps one `OAuth2Client`'s access token usable: the stored tokens (the context's `TargetInfoCache`, the state
/// database in the agent) win over the configured ones; a missing, expiring or refused access token is refreshed; a
/// rotated refresh token is stored durably before its access token is used. Two processes (the agent and a one-shot
/// `steptweet fetch`) may refresh at once: X refuses the loser's old refresh token, and the loser then takes what the
/// winner stored. Refreshes within one process are shared, never run twice at once.
actor OAuth2Session {
    /// How long before `expires_in` runs out a token counts as expired: a post's budget and some clock skew.
    static let expiryMargin: TimeInterval = 300
    /// How long a refused refresh waits for a process that won the race to store its new tokens.
    static let raceWait: Duration = .seconds(2)

    nonisolated let client: OAuth2Client
    let context: HTTPContext
    /// Tokens X handed out that could not be stored yet: stored before anything else is done.
    private var unstored: OAuth2Tokens?
    typealias Refreshed = Result<OAuth2Tokens, Stop>
    private var refreshing: Task<Refreshed, Never>?

    init(client: OAuth2Client, context: HTTPContext) {
        self.client = client
        self.context = context
    }

    /// The access token to post with: the stored one (else the configured one) when it is usable, else a freshly
    /// refreshed one. `refused` is an access token the server just answered 401 to.
    func access(deadline: Deadline, refused: String? = nil) async -> Result<OAuth2Access, Stop> {
        if let running = refreshing { return await running.value.map(OAuth2Access.refreshed) }
        if let unstored {
            if case .failure(let stop) = await persist(unstored) { return .failure(stop) }
        }
        let current: OAuth2Tokens
        switch await stored() {
        case .failure(let stop): return .failure(stop)
        case .success(let tokens):
            current =
                tokens
                ?? OAuth2Tokens(
                    accessToken: client.accessToken, expiresAt: nil, refreshToken: client.refreshToken, scope: nil)
        }
        if let token = current.usableAccessToken(now: context.now(), refused: refused) {
            return .success(OAuth2Access(token: token, refreshed: false))
        }
        // Another caller may have begun a refresh while this one read the store.
        if let running = refreshing { return await running.value.map(OAuth2Access.refreshed) }
        let task = Task { await self.refresh(current.refreshToken, deadline: deadline, afterRace: false) }
        refreshing = task
        let result = await task.value
        refreshing = nil
        return result.map(OAuth2Access.refreshed)
    }

    /// The stored tokens, nil when none are stored; a store that cannot be read stops the post (the configured
    /// refresh token may be used up already: using it would end in a refusal that is no one's fault).
    private func stored() async -> Result<OAuth2Tokens?, Stop> {
        do {
            guard let info = try await context.infoCache.readInfo(client.storageKey) else { return .success(nil) }
            return .success(OAuth2Tokens(json: info.value))
        } catch {
            return .failure(
                Stop(
                    .retryable(
                        reason: context.redactor.redact("cannot read the stored OAuth 2.0 tokens: \(error)"),
                        retryAfter: nil)))
        }
    }

    /// Stores `tokens` durably (a second try after a failure); on failure keeps them to store before the next
    /// attempt does anything, and stops the post: an access token whose refresh token is not kept is not used.
    private func persist(_ tokens: OAuth2Tokens) async -> Refreshed {
        let info = TargetInfo(value: tokens.json, storedAt: context.now())
        var failure: Error?
        for _ in 0..<2 {
            do {
                try await context.infoCache.storeDurably(info, for: client.storageKey)
                unstored = nil
                return .success(tokens)
            } catch {
                failure = error
            }
        }
        unstored = tokens
        let why = "\(failure.map { "\($0)" } ?? "unknown error")"
        return .failure(
            Stop(
                .retryable(
                    reason: context.redactor.redact(
                        "the server rotated the OAuth 2.0 refresh token and the new one could not be stored (\(why)); nothing is posted until it is, and the next attempt stores it first. If this process ends before that, authorize again to get a new refresh token"
                    ), retryAfter: nil)))
    }

    /// The refresh-token grant with `refreshToken`. A refusal (`invalid_grant`, or X's `invalid_request` "Value
    /// passed for the token was invalid") after another process stored newer tokens uses those (refreshing with
    /// them when their access token is not usable); otherwise it is permanent and says how to get a new token.
    private func refresh(_ refreshToken: String, deadline: Deadline, afterRace: Bool) async -> Refreshed {
        let parameters = [
            ("grant_type", "refresh_token"), ("refresh_token", refreshToken), ("client_id", client.clientID),
        ]
        let body = parameters.map { "\(OAuth1.percentEncode($0.0))=\(OAuth1.percentEncode($0.1))" }
            .joined(separator: "&")
        var headers: [String: String] = [:]
        if let secret = client.clientSecret {
            headers["Authorization"] = "Basic " + Data("\(client.clientID):\(secret)".utf8).base64EncodedString()
        }
        let request = Requests.data(
            "POST", client.tokenURL, contentType: "application/x-www-form-urlencoded", body: Data(body.utf8),
            headers: headers)
        let context = self.context.redacting(refreshToken)
        let reply: HTTPReply
        switch await context.send(request, deadline: deadline) {
        case .failure(let failure): return .failure(Self.notPosted(ResponseClassifier.classify(failure)))
        case .success(let r): reply = r
        }
        if (200..<300).contains(reply.status) {
            guard let json = reply.json, let access = json["access_token"] as? String, !access.isEmpty else {
                return .failure(
                    Stop(.permanent(reason: "the OAuth 2.0 token endpoint answered without an access_token")))
            }
            let rotated = (json["refresh_token"] as? String).flatMap { $0.isEmpty ? nil : $0 } ?? refreshToken
            let expiresIn = (json["expires_in"] as? NSNumber)?.doubleValue
            let tokens = OAuth2Tokens(
                accessToken: access, expiresAt: expiresIn.map { context.now().addingTimeInterval($0) },
                refreshToken: rotated, scope: json["scope"] as? String)
            return await persist(tokens)
        }
        let outcome = ResponseClassifier.classify(reply, now: context.now(), redactor: context.redactor) { _ in nil }
        guard case .permanent = outcome else { return .failure(Self.notPosted(outcome)) }
        let code = reply.json?["error"] as? String ?? ""
        // RFC 6749 §5.2: `error` and `error_description`; any other answer in the server's words.
        let described =
            code.isEmpty
            ? ResponseClassifier.reason(reply, redactor: context.redactor)
            : context.redactor.redact(
                ["HTTP \(reply.status)", code, reply.json?["error_description"] as? String ?? ""]
                    .filter { !$0.isEmpty }.joined(separator: ": "))
        switch code {
        case "invalid_grant", "invalid_request":
            if !afterRace, let newer = await newerStored(than: refreshToken, deadline: deadline) {
                switch newer {
                case .failure(let stop): return .failure(stop)
                case .success(let tokens):
                    if tokens.usableAccessToken(now: context.now(), refused: nil) != nil { return .success(tokens) }
                    return await refresh(tokens.refreshToken, deadline: deadline, afterRace: true)
                }
            }
            return .failure(
                Stop(
                    .permanent(
                        reason:
                            "the OAuth 2.0 refresh token was refused (\(described)): it was used already (each works once) or the app's access was revoked. Authorize the app again with the offline.access scope (and tweet.read, tweet.write, users.read) and put the new refresh token in refresh_token_env or refresh_token_file; it replaces the stored one"
                    )))
        case "invalid_client", "unauthorized_client":
            return .failure(
                Stop(
                    .permanent(
                        reason:
                            "the OAuth 2.0 token endpoint refused the client (\(described)): check client_id, and set client_secret_env or client_secret_file for a confidential client"
                    )))
        default:
            return .failure(Stop(.permanent(reason: "refreshing the OAuth 2.0 token failed: \(described)")))
        }
    }

    /// Tokens another process stored after refreshing with `refreshToken` (which the server then refused to us),
    /// nil when there are none. The winner of a race may still be storing what it got, so an unchanged store is
    /// looked at once more after a pause on the deadline's clock.
    private func newerStored(than refreshToken: String, deadline: Deadline) async -> Refreshed? {
        for look in 0..<2 {
            if look > 0 {
                guard deadline.remaining > Self.raceWait * 2 else { return nil }
                try? await deadline.pause(for: Self.raceWait)
            }
            switch await stored() {
            case .failure(let stop): return .failure(stop)
            case .success(let tokens):
                if let tokens, tokens.refreshToken != refreshToken { return .success(tokens) }
            }
        }
        return nil
    }

    /// A failed refresh as the post's outcome: the post was not sent, so it is never unconfirmed.
    static func notPosted(_ outcome: DeliveryOutcome) -> Stop {
        if case .retryable(let reason, let wait, _) = outcome {
            return Stop(.retryable(reason: "refreshing the OAuth 2.0 token: \(reason)", retryAfter: wait))
        }
        return Stop(outcome)
    }
}
