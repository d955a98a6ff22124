import Foundation

/// Removes secrets from any text that may be printed or logged: known secret values (tokens, passwords, webhook
/// URLs), `Authorization` header values, `Bearer …`, `access_token=` / `auth=` / `token=` query values, JWTs in JSON
/// (`accessJwt`, `refreshJwt`) and the token part of Discord and Slack webhook URLs.
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

    static let patterns: [NSRegularExpression] = [
        #"(?i)(authorization\s*[:=]\s*"?)[^"\r\n,}]+"#,
        #"(?i)(bearer\s+)[A-Za-z0-9._~+/=\-]+"#,
        #"(?i)(oauth\s+)oauth_[^\r\n]+"#,
        ##"(?i)([?&;](?:access_token|auth|token|api_key|key|password)=)[^&\s"#]+"##,
        #"(?i)("(?:accessJwt|refreshJwt|access_token|password|token)"\s*:\s*")[^"]*"#,
        #"(?i)(/api/webhooks/\d+/)[A-Za-z0-9._\-]+"#,
        #"(?i)(hooks\.slack\.com/services/)[A-Za-z0-9/_\-]+"#,
    ].compactMap { try? NSRegularExpression(pattern: $0) }

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
