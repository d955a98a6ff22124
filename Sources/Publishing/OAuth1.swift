import Foundation

/// OAuth 1.0a user-context credentials (consumer key and secret of the app, access token and secret of the user).
public struct OAuth1Credentials: Sendable, Equatable {
    public var consumerKey: String
    public var consumerSecret: String
    public var token: String
    public var tokenSecret: String

    public init(consumerKey: String, consumerSecret: String, token: String, tokenSecret: String) {
        self.consumerKey = consumerKey
        self.consumerSecret = consumerSecret
        self.token = token
        self.tokenSecret = tokenSecret
    }
}

/// OAuth 1.0a `HMAC-SHA1` request signing (RFC 5849 §3.4).
public enum OAuth1 {
    static let unreserved: Set<UInt8> = Set(
        Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8))
    static let hexDigits = Array("0123456789ABCDEF")

    /// RFC 5849 §3.6: everything but the RFC 3986 unreserved set, as `%XX` with upper-case hex, over UTF-8.
    public static func percentEncode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            if unreserved.contains(byte) {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += "%" + String(hexDigits[Int(byte >> 4)]) + String(hexDigits[Int(byte & 0x0F)])
            }
        }
        return out
    }

    /// §3.4.1.3.2: pairs encoded, sorted by name then value, joined with `=` and `&`.
    public static func parameterString(_ parameters: [(String, String)]) -> String {
        let encoded: [(name: String, value: String)] = parameters.map { (percentEncode($0.0), percentEncode($0.1)) }
        let sorted = encoded.sorted { (a, b) -> Bool in a.name == b.name ? a.value < b.value : a.name < b.name }
        return sorted.map { pair -> String in pair.name + "=" + pair.value }.joined(separator: "&")
    }

    /// §3.4.1.2: scheme and host in lower case, default port dropped, path kept, no query.
    public static func baseURI(of url: URL) -> String {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let scheme = (components?.scheme ?? "https").lowercased()
        let host = (components?.host ?? "").lowercased()
        var port = ""
        if let p = components?.port, !(scheme == "http" && p == 80), !(scheme == "https" && p == 443) { port = ":\(p)" }
        let path = components?.percentEncodedPath ?? ""
        return "\(scheme)://\(host)\(port)\(path.isEmpty ? "/" : path)"
    }

    /// §3.4.1: `METHOD&encoded-base-URI&encoded-parameter-string`.
    public static func signatureBaseString(method: String, baseURI: String, parameters: [(String, String)]) -> String {
        [method.uppercased(), percentEncode(baseURI), percentEncode(parameterString(parameters))].joined(separator: "&")
    }

    /// §3.4.2: base64 of HMAC-SHA1 keyed with `encode(consumerSecret)&encode(tokenSecret)`.
    public static func signature(baseString: String, consumerSecret: String, tokenSecret: String) -> String {
        let key = percentEncode(consumerSecret) + "&" + percentEncode(tokenSecret)
        return Data(SHA1.hmac(key: Array(key.utf8), message: Array(baseString.utf8))).base64EncodedString()
    }

    /// The `Authorization: OAuth …` header for a request to `url`. Query parameters of `url` and any
    /// `application/x-www-form-urlencoded` body parameters are signed; a JSON body is not (§3.4.1.3.1).
    public static func authorizationHeader(
        method: String, url: URL, credentials: OAuth1Credentials,
        nonce: String, timestamp: Int,
        formParameters: [(String, String)] = []
    ) -> String {
        let oauth: [(String, String)] = [
            ("oauth_consumer_key", credentials.consumerKey),
            ("oauth_nonce", nonce),
            ("oauth_signature_method", "HMAC-SHA1"),
            ("oauth_timestamp", String(timestamp)),
            ("oauth_token", credentials.token),
            ("oauth_version", "1.0"),
        ]
        let query = (URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []).map {
            ($0.name, $0.value ?? "")
        }
        let base = signatureBaseString(
            method: method, baseURI: baseURI(of: url), parameters: oauth + query + formParameters)
        let signature = signature(
            baseString: base, consumerSecret: credentials.consumerSecret, tokenSecret: credentials.tokenSecret)
        let fields = (oauth + [("oauth_signature", signature)]).sorted { $0.0 < $1.0 }
        return "OAuth " + fields.map { "\(percentEncode($0.0))=\"\(percentEncode($0.1))\"" }.joined(separator: ", ")
    }

    /// Parses an `Authorization: OAuth k="v", …` header into decoded pairs (used by servers that verify signatures).
    public static func parseAuthorizationHeader(_ header: String) -> [String: String]? {
        guard header.hasPrefix("OAuth ") else { return nil }
        var result: [String: String] = [:]
        for part in header.dropFirst(6).split(separator: ",") {
            let pair = part.trimmingCharacters(in: .whitespaces)
            guard let eq = pair.firstIndex(of: "=") else { return nil }
            let name = String(pair[..<eq])
            var value = String(pair[pair.index(after: eq)...])
            guard value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") else { return nil }
            value = String(value.dropFirst().dropLast())
            guard let decoded = value.removingPercentEncoding else { return nil }
            result[name] = decoded
        }
        return result
    }

    /// A random nonce of 32 alphanumeric characters.
    public static func makeNonce() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        return String((0..<32).map { _ in alphabet.randomElement() ?? "a" })
    }
}
