import Foundation

/// Removes secrets from any text that may be printed or logged: the secret values we hold and send (tokens,
/// passwords, webhook URLs, Basic credentials, OAuth 2.0 refresh tokens and client secrets), `Authorization` header
/// values, `access_token=` / `refresh_token=` / `client_secret=` / `token=` query and form values and JSON fields,
/// and what each target kind declares (`TargetKind.redactions`: Bluesky's JWT fields, the token part of
/// Discord and Slack webhook URLs, ntfy's `auth=`, Misskey's `"i"`).
public struct Redactor: Sendable {
    public static let mask = "[REDACTED]"
    /// Secret values to hide wherever they appear (also percent-encoded).
    public private(set) var secrets: [String]

    public init(secrets: [String] = []) {
        self.secrets = []
        for secret in secrets { add(secret) }
    }

    public mutating func add(_ secret: String) {
        guard secret.count >= 3, !secrets.contains(secret) else { return }
        secrets.append(secret)
        // Longest first, so that a secret containing another is replaced whole.
        secrets.sort { $0.count > $1.count }
    }

    /// Patterns every target shares: `Authorization` header values, OAuth 1.0a headers, secret query or form
    /// parameters and JSON fields (an OAuth 2.0 token answer's `access_token` and `refresh_token`, a form's
    /// `client_secret`). A word after "Bearer" in a server's reply is not among them (`Invalid Bearer token` stays
    /// readable): the tokens we send are known values and are redacted as such. Tokens X hands out while running
    /// are redacted both ways: as known values where they are used, and by these patterns wherever they travel.
    static let commonPatterns = [
        #"(?i)(authorization\s*[:=]\s*"?)[^"\r\n,}]+"#,
        #"(?i)(oauth\s+)oauth_[^\r\n]+"#,
        ##"(?i)((?:^|[?&;\s])(?:access_token|refresh_token|client_secret|token|api_key|key|password)=)[^&\s"#]+"##,
        #"(?i)("(?:access_token|refresh_token|client_secret|password|token)"\s*:\s*")[^"]*"#,
    ]

    /// The common patterns and those each target kind declares (`TargetKind.redactions`).
    static let patterns: [NSRegularExpression] = (commonPatterns + PublisherFactory.targets.flatMap(\.redactions))
        .compactMap { try? NSRegularExpression(pattern: $0) }

    /// `text` with every secret replaced by `[REDACTED]`.
    public func redact(_ text: String) -> String {
        var out = text
        for secret in secrets {
            out = out.replacingOccurrences(of: secret, with: Self.mask)
            if let encoded = secret.addingPercentEncoding(withAllowedCharacters: .alphanumerics), encoded != secret {
                out = out.replacingOccurrences(of: encoded, with: Self.mask)
            }
        }
        for pattern in Self.patterns {
            let range = NSRange(out.startIndex..<out.endIndex, in: out)
            out = pattern.stringByReplacingMatches(in: out, options: [], range: range, withTemplate: "$1" + Self.mask)
        }
        return out
    }

    /// A URL for display: scheme, host and port only (webhook URLs carry their secret in the path).
    public static func origin(of url: URL) -> String {
        var components = URLComponents()
        components.scheme = url.scheme
        components.host = url.host
        components.port = url.port
        return (components.string ?? "?") + (url.path.isEmpty || url.path == "/" ? "" : "/…")
    }
}
