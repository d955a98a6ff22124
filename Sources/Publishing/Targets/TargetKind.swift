import Foundation
import Messages

/// What a posting target declares about itself, next to its code: its `kind` name, its secrets (each read from
/// `<name>_env` or `<name>_file`, never inline), the patterns that hide secrets its URLs and replies carry, and how
/// a `[[publish]]` table becomes the publisher (reading its keys through `TargetConfig`). `PublisherFactory.targets`
/// lists every kind; the inline-secret hints and the redaction patterns are derived from the list.
public struct TargetKind: Sendable {
    /// A secret key of a kind: `name_env` / `name_file`, and why it is secret when that is not obvious.
    public struct Secret: Sendable, Equatable {
        public var name: String
        public var why: String?
        public init(_ name: String, why: String? = nil) {
            self.name = name
            self.why = why
        }
        /// Said when the secret is written inline (`token = "…"`).
        public var hint: String { (why.map { $0 + ": " } ?? "") + "use \(name)_env or \(name)_file" }
    }

    /// The `kind` value, e.g. `mastodon`.
    public let name: String
    public let secrets: [Secret]
    /// Regular expressions whose first capture group is kept and whatever follows the match's group replaced by
    /// `[REDACTED]` (a secret inside a URL path, a JSON field the server echoes).
    public let redactions: [String]
    /// Whether the target speaks HTTP (and so gets the shared conformance scenarios).
    public let usesHTTP: Bool
    /// Whether the target can carry the chart (reads `image` and `image_required`; gets the image scenarios).
    public let takesImages: Bool
    let build: @Sendable (TargetConfig) throws -> any Publisher

    init(
        _ name: String, secrets: [Secret] = [], redactions: [String] = [], usesHTTP: Bool = true,
        takesImages: Bool = true, build: @escaping @Sendable (TargetConfig) throws -> any Publisher
    ) {
        self.name = name
        self.secrets = secrets
        self.redactions = redactions
        self.usesHTTP = usesHTTP
        self.takesImages = takesImages
        self.build = build
    }
}

/// One `[[publish]]` table as its target reads it: the table's keys (unknown ones are errors afterwards), its
/// secrets through the one resolver, the target's name, and the HTTP context to build with.
final class TargetConfig {
    let name: String
    let table: ConfigTable
    let context: HTTPContext
    private(set) var resolver: SecretResolver
    let resolvePath: (String) -> String

    init(
        name: String, table: ConfigTable, resolver: SecretResolver, context: HTTPContext,
        resolvePath: @escaping (String) -> String = { $0 }
    ) {
        self.name = name
        self.table = table
        self.resolver = resolver
        self.context = context
        self.resolvePath = resolvePath
    }

    func string(_ key: String) throws(ConfigurationError) -> String? { try table.string(key) }
    func requiredString(_ key: String) throws(ConfigurationError) -> String { try table.requiredString(key) }
    /// A required path, a relative one placed by `resolvePath` (against the configuration file's folder).
    func requiredPath(_ key: String) throws(ConfigurationError) -> String { resolvePath(try table.requiredString(key)) }
    func bool(_ key: String) throws(ConfigurationError) -> Bool? { try table.bool(key) }
    func int(_ key: String, range: ClosedRange<Int>) throws(ConfigurationError) -> Int? {
        try table.int(key, range: range)
    }
    func oneOf(_ key: String, _ choices: [String]) throws(ConfigurationError) -> String? {
        try table.oneOf(key, choices)
    }
    func strings(_ key: String) throws(ConfigurationError) -> [String]? { try table.strings(key) }
    func stringTable(_ key: String) throws(ConfigurationError) -> [String: String]? { try table.stringTable(key) }
    func url(_ key: String, default fallback: String? = nil) throws(ConfigurationError) -> URL? {
        let url = try table.url(key, default: fallback)
        if let url { noteCleartext(url, key: key, shown: "http://\(url.host ?? "")") }
        return url
    }
    func error(_ key: String, _ message: String) -> ConfigurationError { table.error(key, message) }

    /// A required `http(s)` URL.
    func requiredURL(_ key: String) throws(ConfigurationError) -> URL {
        guard let url = try table.url(key, required: true) else {
            throw table.error(key, "missing (required for this kind)")
        }
        noteCleartext(url, key: key, shown: "http://\(url.host ?? "")")
        return url
    }

    /// A warning for a plain `http` URL to another machine: the posts and the credentials (the token, the secret in
    /// a webhook's URL) would cross the network unencrypted. Loopback is left alone (a local relay, the tests).
    private func noteCleartext(_ url: URL, key: String, shown: String) {
        guard url.scheme?.lowercased() == "http", let host = url.host?.lowercased(), !Self.isLoopback(host) else {
            return
        }
        resolver.warnings.append(
            "\(table.path(key)): \(shown) is plain http to another machine: the posts and the credentials cross the "
                + "network unencrypted; use https://")
    }

    /// `localhost`, 127.0.0.0/8 or ::1.
    static func isLoopback(_ host: String) -> Bool {
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        return bare == "localhost" || bare.hasSuffix(".localhost") || bare == "::1" || bare.hasPrefix("127.")
    }

    /// `shorten` (default false).
    var shorten: Bool {
        get throws(ConfigurationError) { try table.bool("shorten") ?? false }
    }

    /// `image` (`"chart"`; default off: text only) and `image_required` (default true: a failed upload fails the
    /// post rather than posting its text alone), read by every target that can carry an image.
    var image: ImageOption {
        get throws(ConfigurationError) {
            let chart = try table.oneOf("image", ["chart"]) != nil
            return ImageOption(chart: chart, required: try table.bool("image_required") ?? true)
        }
    }

    /// `resend_unconfirmed` (default true).
    var resendUnconfirmed: Bool {
        get throws(ConfigurationError) { try table.bool("resend_unconfirmed") ?? true }
    }

    /// The secret `name` (from `name_env` or `name_file`); nil when absent and not required.
    func secret(_ name: String, required: Bool) throws(ConfigurationError) -> String? {
        try resolver.resolve(name, in: table, required: required)
    }

    /// The required secret `name`.
    func secret(_ name: String) throws(ConfigurationError) -> String {
        guard let value = try resolver.resolve(name, in: table, required: true) else {
            throw table.error(name + "_env", "missing: set \(name)_env or \(name)_file")
        }
        return value
    }

    /// A webhook URL given as the secret `url` (`url_env` / `url_file`); errors never show it.
    func secretURL() throws(ConfigurationError) -> URL {
        let text = try secret("url")
        let key = try table.string("url_env") != nil ? "url_env" : "url_file"
        let url = try ConfigTable.checkedURL(text, key: key, table: table, secret: true)
        noteCleartext(url, key: key, shown: "the URL")
        return url
    }

    /// `language`: an ISO 639-1 code.
    func language() throws(ConfigurationError) -> String? {
        guard let language = try table.string("language") else { return nil }
        guard (2...3).contains(language.count), language.allSatisfy({ $0.isASCII && $0.isLowercase }) else {
            throw table.error("language", "\"\(language)\" is not an ISO 639-1 code such as \"ja\" or \"en\"")
        }
        return language
    }
}
