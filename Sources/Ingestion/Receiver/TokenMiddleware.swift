import Foundation
import HTTPTypes
import Hummingbird

/// The bearer token check in front of a server's routes: the request goes on only with the token, compared in
/// constant time and never logged or repeated; otherwise the `refusal` (401, `WWW-Authenticate: Bearer`). Where the
/// token may be given is `places`.
struct TokenMiddleware: RouterMiddleware {
    typealias Context = BasicRequestContext

    /// Where a request may carry the token.
    struct Places: OptionSet, Sendable {
        let rawValue: Int
        /// `Authorization: Bearer TOKEN`.
        static let bearer = Places(rawValue: 1)
        /// `Authorization: Basic` with the token as the password, whatever the user name (OwnTracks).
        static let basicPassword = Places(rawValue: 2)
        /// The route's `:token` parameter (`/ingest/TOKEN`), for apps that cannot set a header.
        static let path = Places(rawValue: 4)
    }

    let token: [UInt8]
    let places: Places
    let refusal: HTTPAnswer

    /// The receiver's: any of the three places, and a refusal that says where the token goes.
    static func ingest(token: String) -> TokenMiddleware {
        var refusal = HTTPAnswer.error(
            .unauthorized,
            "a valid token is required: in the Authorization header (Bearer TOKEN, or Basic with TOKEN as the password) or in the path (/ingest/TOKEN)"
        )
        refusal.headerFields[.wwwAuthenticate] = "Bearer"
        return TokenMiddleware(token: Array(token.utf8), places: [.bearer, .basicPassword, .path], refusal: refusal)
    }

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard accepts(authorization: request.headers[.authorization], pathToken: context.parameters.get("token"))
        else { return refusal.response }
        return try await next(request, context)
    }

    /// Whether a request with this `Authorization` header and path token carries the token.
    /// A path token may come percent-encoded (RFC 3986: the same path; a token with `?`, `#`, `/`, `%` or a space
    /// can only come so): it is taken as sent or decoded.
    func accepts(authorization: String?, pathToken: String?) -> Bool {
        let given =
            (places.contains(.bearer) ? authorization.flatMap(Self.bearer) : nil)
            ?? (places.contains(.basicPassword) ? authorization.flatMap(Self.basicPassword) : nil)
        var candidates = given.map { [$0] } ?? []
        if given == nil, places.contains(.path), let pathToken {
            candidates = [pathToken] + (pathToken.removingPercentEncoding.map { [$0] } ?? [])
        }
        guard !token.isEmpty else { return false }
        return candidates.contains { HTTPServing.constantTimeEqual(Array($0.utf8), token) }
    }

    /// The token of `Bearer TOKEN`.
    static func bearer(_ header: String) -> String? {
        guard header.lowercased().hasPrefix("bearer ") else { return nil }
        return String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces)
    }

    /// The password of `Basic BASE64(user:password)`.
    static func basicPassword(_ header: String) -> String? {
        guard header.lowercased().hasPrefix("basic "),
            let decoded = Data(base64Encoded: header.dropFirst(6).trimmingCharacters(in: .whitespaces)),
            let pair = String(data: decoded, encoding: .utf8), let colon = pair.firstIndex(of: ":")
        else { return nil }
        return String(pair[pair.index(after: colon)...])
    }
}
