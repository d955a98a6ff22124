import Foundation
import Messages

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How the X target authenticates: OAuth 1.0a user context (signed per request), an OAuth 2.0 user token used as
/// given (it lasts two hours), or OAuth 2.0 kept alive with a refresh token (`offline.access`).
public enum XAuthentication: Sendable, Equatable {
    case oauth1(OAuth1Credentials)
    case bearer(String)
    case oauth2(OAuth2Client)

    var secrets: [String] {
        switch self {
        case .oauth1(let c): return [c.consumerKey, c.consumerSecret, c.token, c.tokenSecret]
        case .bearer(let token): return [token]
        case .oauth2(let client): return client.secrets
        }
    }
}

/// X: `POST {base_url}/2/tweets` with `{"text": …}`. 201 `{"data": {"id": …}}`. X has no idempotency key; it
/// refuses a repeated text with 403 "duplicate content", which is reported as `.alreadyDelivered` (the only place
/// a message text is read: every other 403 is permanent). Length: twitter-text v3 weighted, 280. With
/// `image = "chart"` the chart goes up through the v2 media upload first, with its alt text, and the post carries
/// its id in `media.media_ids`. OAuth 1.0a keys do not expire. An OAuth 2.0 user token alone is used as given (it
/// expires after 2 hours; a 401 then says so); with a refresh token (`OAuth2Session`) the access token is refreshed
/// when it is missing, about to expire or answered 401 (once per post, which is then sent once more).
public struct XPublisher: Publisher {
    public let name: String
    public let baseURL: URL
    let authentication: XAuthentication
    public var gate: TextGate
    public func refusal(of text: String) -> String? { gate.refusal(of: text) }
    /// `image`, `image_required`: the chart goes up through the v2 media upload first.
    public var image: ImageOption
    let context: HTTPContext
    let nonce: @Sendable () -> String
    /// The OAuth 2.0 tokens, with `.oauth2`.
    let session: OAuth2Session?

    public init(
        name: String = "x", baseURL: URL = URL(string: "https://api.x.com")!, authentication: XAuthentication,
        shorten: Bool = false, image: ImageOption = .off, context: HTTPContext = HTTPContext(),
        nonce: @escaping @Sendable () -> String = { OAuth1.makeNonce() }
    ) {
        self.name = name
        self.baseURL = baseURL
        self.authentication = authentication
        self.gate = TextGate(rule: .x, shorten: shorten)
        self.image = image
        var context = context
        for secret in authentication.secrets { context.redactor.add(secret) }
        self.context = context
        self.nonce = nonce
        if case .oauth2(let client) = authentication {
            session = OAuth2Session(grant: client, context: context)
        } else {
            session = nil
        }
    }

    public var lengthRule: LengthRule? { .x }
    public var redactedDescription: String {
        let kind: String
        switch authentication {
        case .oauth1: kind = "OAuth 1.0a"
        case .bearer: kind = "OAuth 2.0 user token"
        case .oauth2(let client): kind = "OAuth 2.0 with refresh token, client \(client.clientID)"
        }
        return "\(name): x \(Redactor.origin(of: baseURL)) (\(kind), secrets [REDACTED])"
    }

    public func publish(_ post: Post, deadline: Deadline) async -> DeliveryOutcome {
        let text: String
        switch gate.prepare(post.text) {
        case .failure(let stop): return stop.outcome
        case .success(let prepared): text = prepared
        }
        guard let session else {
            let (outcome, unauthorized) = await attempt(post, text: text, access: nil, deadline: deadline)
            if case .bearer = authentication, unauthorized, case .permanent(let reason) = outcome {
                // A user token without `offline.access` and a refresh lasts two hours; nothing here refreshes one.
                return .permanent(
                    reason: reason
                        + " (an OAuth 2.0 user token expires after 2 hours; for a lasting agent give client_id and refresh_token (the offline.access scope) or use OAuth 1.0a: consumer_key, consumer_secret, token and token_secret)"
                )
            }
            return outcome
        }
        var access: SessionAccess<OAuth2Tokens>
        switch await session.access(deadline: deadline) {
        case .failure(let stop): return stop.outcome
        case .success(let a): access = a
        }
        let (first, unauthorized) = await attempt(post, text: text, access: access.token, deadline: deadline)
        guard unauthorized, !access.refreshed else { return first }
        // Expired early or revoked: refresh once and send once more.
        switch await session.access(deadline: deadline, refused: access.token) {
        case .failure(let stop): return stop.outcome
        case .success(let a): access = a
        }
        return await attempt(post, text: text, access: access.token, deadline: deadline).outcome
    }

    /// The image (when the post has one) and the post, authorized with `access` (the OAuth 2.0 access token) or
    /// the configured credentials; `unauthorized` when the attempt failed for good on a 401 (to the post or to its
    /// image's upload), read from the status, not from the outcome's words.
    func attempt(_ post: Post, text: String, access: String?, deadline: Deadline) async -> (
        outcome: DeliveryOutcome, unauthorized: Bool
    ) {
        var context = access.map { self.context.redacting($0) } ?? self.context
        let watch = UnauthorizedWatch(context.transport)
        context.transport = watch
        let outcome = await ImageAttachment.uploadThenPost(
            post, option: image, target: name,
            upload: { await uploadMedia($0, post: post, access: access, context: context, deadline: deadline) },
            send: { await tweet(text, mediaID: $0, access: access, context: context, deadline: deadline) })
        guard case .permanent = outcome else { return (outcome, false) }
        return (outcome, await watch.seen.value)
    }

    /// `POST /2/tweets`, with the uploaded image in `media.media_ids` when there is one.
    func tweet(_ text: String, mediaID: String?, access: String?, context: HTTPContext, deadline: Deadline) async
        -> DeliveryOutcome
    {
        let url = Endpoint.join(baseURL, "2/tweets")
        let body = NewPost(text: text, media: mediaID.map { NewPost.Media(mediaIDs: [$0]) })
        let request = Requests.json(
            "POST", url, body: body, headers: ["Authorization": authorization(method: "POST", url: url, access: access)]
        )
        // Every 201 carries `data.id`: a 2xx without it (a proxy's page, a wrong `base_url`) is unconfirmed. Its resend
        // needs no look-up: a post that was made is refused as duplicate content, which is `.alreadyDelivered`.
        let outcome = await context.deliver(request, deadline: deadline, idRequired: true) { reply in
            reply.decoded(Created.self)?.data?.id?.text
        }
        if case .permanent(let reason) = outcome, reason.hasPrefix("HTTP 403"),
            reason.lowercased().contains("duplicate")
        {
            return .alreadyDelivered(remoteID: nil)
        }
        return outcome
    }

    /// The `Authorization` header for one request: the user token (`access`, the refreshed one), or an OAuth 1.0a
    /// signature over the method, the URL and its query (never a JSON or multipart body: RFC 5849 §3.4.1.3.1 signs
    /// form-encoded bodies only).
    func authorization(method: String, url: URL, access: String?) -> String {
        switch authentication {
        case .bearer(let token):
            return "Bearer \(token)"
        case .oauth2(let client):
            return "Bearer \(access ?? client.accessToken ?? "")"
        case .oauth1(let credentials):
            return OAuth1.authorizationHeader(
                method: method, url: url, credentials: credentials, nonce: nonce(),
                timestamp: Int(context.now().timeIntervalSince1970))
        }
    }

    // MARK: The image

    /// X's limit on an image's alt text.
    public static let altLimit = 1000

    /// The v2 media upload, `POST /2/media/upload` (multipart: `media`, `media_category = tweet_image`,
    /// `media_type`), then the alt text with `POST /2/media/metadata` (`{"id", "metadata": {"alt_text": {"text"}}}`);
    /// returns the media id for the post. Media not attached within 24 hours expires, so an upload whose answer was
    /// lost is harmless. A failed alt text fails the image too: an image without its description is not what was
    /// asked for.
    func uploadMedia(
        _ image: PostImage, post: Post, access: String?, context: HTTPContext, deadline: Deadline
    ) async -> Result<String, Stop> {
        var form = MultipartBody()
        form.add("media_category", "tweet_image")
        form.add("media_type", "image/png")
        form.addFile("media", filename: PostImage.fileName(for: post), contentType: "image/png", data: image.png)
        let uploadURL = Endpoint.join(baseURL, "2/media/upload")
        let upload = form.request(
            "POST", uploadURL, headers: ["Authorization": authorization(method: "POST", url: uploadURL, access: access)]
        )
        let id: String
        switch await context.successfulReply(to: upload, deadline: deadline) {
        case .failure(let stop): return .failure(stop)
        case .success(let reply):
            let read = context.uploadReference(in: reply, named: "media id") {
                let answer = $0.decoded(Created.self)
                return answer?.data?.id?.text ?? answer?.mediaIDString?.text
            }
            switch read {
            case .failure(let stop): return .failure(stop)
            case .success(let mediaID): id = mediaID
            }
        }
        let metadataURL = Endpoint.join(baseURL, "2/media/metadata")
        let metadata = Requests.json(
            "POST", metadataURL,
            body: MediaMetadata(id: id, altText: image.alt(limit: Self.altLimit)),
            headers: ["Authorization": authorization(method: "POST", url: metadataURL, access: access)])
        switch await context.successfulReply(to: metadata, deadline: deadline) {
        case .failure(let stop): return .failure(stop)
        case .success: return .success(id)
        }
    }

}

extension XPublisher {
    /// `POST /2/tweets`' body, with the uploaded image in `media.media_ids`.
    struct NewPost: Encodable {
        var text: String
        var media: Media?

        struct Media: Encodable {
            var mediaIDs: [String]
            private enum CodingKeys: String, CodingKey { case mediaIDs = "media_ids" }
        }
    }

    /// `POST /2/media/metadata`'s body: the image's alt text.
    struct MediaMetadata: Encodable {
        var id: String
        var metadata: Metadata

        init(id: String, altText: String) {
            self.id = id
            metadata = Metadata(altText: .init(text: altText))
        }

        struct Metadata: Encodable {
            var altText: AltText
            private enum CodingKeys: String, CodingKey { case altText = "alt_text" }
        }

        struct AltText: Encodable {
            var text: String
        }
    }

    /// A created post's or an uploaded image's answer: `data.id`, or v1.1's `media_id_string` from an upload.
    struct Created: Decodable {
        @Lenient var data: IdentifiedAnswer?
        @Lenient var mediaIDString: JSONID?
        private enum CodingKeys: String, CodingKey {
            case data
            case mediaIDString = "media_id_string"
        }
    }
}

extension XPublisher {
    /// `kind = "x"`: `base_url`; OAuth 1.0a `consumer_key_*`, `consumer_secret_*`, `token_*`, `token_secret_*`; an
    /// OAuth 2.0 user token (`token_*` alone); or OAuth 2.0 with `client_id`, `refresh_token_*` and optionally
    /// `client_secret_*` and `token_*`; `shorten`, `image`, `image_required`.
    public static let target = TargetKind(
        "x",
        secrets: [
            .init("token"), .init("consumer_key"), .init("consumer_secret"),
            .init("token_secret"),
            .init("refresh_token", why: "the refresh token is a password to the account"),
            .init("client_secret"),
        ]
    ) { config in
        let base = try config.url("base_url", default: "https://api.x.com")!
        let consumerKey = try config.secret("consumer_key", required: false)
        let consumerSecret = try config.secret("consumer_secret", required: false)
        let tokenSecret = try config.secret("token_secret", required: false)
        let clientID = try config.string("client_id")
        let clientSecret = try config.secret("client_secret", required: false)
        let refreshToken = try config.secret("refresh_token", required: false)
        let authentication: XAuthentication
        if let refreshToken {
            guard consumerKey == nil && consumerSecret == nil && tokenSecret == nil else {
                let key =
                    consumerKey != nil ? "consumer_key" : consumerSecret != nil ? "consumer_secret" : "token_secret"
                throw config.error(
                    key + (try config.string(key + "_env") != nil ? "_env" : "_file"),
                    "OAuth 1.0a keys do not go with refresh_token (OAuth 2.0): give one or the other")
            }
            guard let clientID else {
                throw config.error(
                    "client_id", "missing: OAuth 2.0 with refresh_token needs client_id (the app's OAuth 2.0 Client ID)"
                )
            }
            authentication = .oauth2(
                OAuth2Client(
                    tokenURL: Endpoint.join(base, "2/oauth2/token"), clientID: clientID, clientSecret: clientSecret,
                    refreshToken: refreshToken, accessToken: try config.secret("token", required: false)))
        } else if clientID != nil || clientSecret != nil {
            throw config.error(
                "refresh_token_env",
                "missing: client_id and client_secret are for OAuth 2.0 with a refresh token: set refresh_token_env or refresh_token_file"
            )
        } else {
            let token = try config.secret("token")
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
        }
        return XPublisher(
            name: config.name, baseURL: base, authentication: authentication, shorten: try config.shorten,
            image: try config.image, context: config.context)
    }
}

/// Passes one attempt's requests on and remembers whether any was answered 401: what X's refresh needs to know
/// of an attempt, whichever request (the post, the image's upload or its alt text) it was.
struct UnauthorizedWatch: HTTPSending {
    actor Seen {
        var value = false
        func note() { value = true }
    }
    let inner: any HTTPSending
    let seen = Seen()

    init(_ inner: any HTTPSending) { self.inner = inner }

    func send(_ request: URLRequest) async -> Result<HTTPReply, TransportFailure> {
        let result = await inner.send(request)
        if case .success(let reply) = result, reply.status == 401 { await seen.note() }
        return result
    }
}
