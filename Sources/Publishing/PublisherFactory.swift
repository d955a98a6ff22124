import Foundation
import Messages
import TOMLKit

/// The publishers a configuration asks for, and warnings found while reading it (e.g. a secret file readable by
/// others). Nothing here prints a secret.
public struct PublisherSet: Sendable {
    public var publishers: [any Publisher]
    public var warnings: [String]
}

/// Builds publishers from the `[[publish]]` tables of the configuration. Every problem is a `ConfigurationError`
/// whose path names the table and key (`publish[0].token_env`, index from 0), found before anything is sent:
/// unknown keys, wrong types, missing required keys, unset environment variables, unreadable secret files, bad URLs.
/// The keys are documented in `Sources/Publishing/README.md`.
public enum PublisherFactory {
    public static let kinds = ["webhook", "mastodon", "x", "matrix", "bluesky", "discord", "slack", "ntfy", "stdout", "file"]

    /// Reads the `publish` array of a whole parsed document (no `publish` key: no publishers).
    public static func make(document: TOMLTable, environment: [String: String] = ProcessInfo.processInfo.environment,
                            readFile: @escaping (String) throws -> SecretFile = SecretFile.read,
                            context: HTTPContext = HTTPContext()) throws(ConfigurationError) -> PublisherSet {
        guard let value = document["publish"] else { return PublisherSet(publishers: [], warnings: []) }
        guard let array = value.array else {
            throw ConfigurationError(path: "publish", message: "must be an array of tables: write [[publish]], not [publish]")
        }
        return try make(array: array, environment: environment, readFile: readFile, context: context)
    }

    /// Reads the value of the document's `publish` key (an array of tables).
    public static func make(array: TOMLArray, environment: [String: String] = ProcessInfo.processInfo.environment,
                            readFile: @escaping (String) throws -> SecretFile = SecretFile.read,
                            context: HTTPContext = HTTPContext()) throws(ConfigurationError) -> PublisherSet {
        var tables: [TOMLTable] = []
        for (i, element) in array.enumerated() {
            guard let table = element.table else {
                throw ConfigurationError(path: "publish[\(i)]", message: "must be a table, not \(ConfigTable.typeName(element))")
            }
            tables.append(table)
        }
        return try make(tables: tables, environment: environment, readFile: readFile, context: context)
    }

    /// Parses TOML text and reads its `publish` array; a syntax error is reported with its line.
    public static func make(toml: String, environment: [String: String] = ProcessInfo.processInfo.environment,
                            readFile: @escaping (String) throws -> SecretFile = SecretFile.read,
                            context: HTTPContext = HTTPContext()) throws(ConfigurationError) -> PublisherSet {
        let document: TOMLTable
        do { document = try TOMLTable(string: toml) } catch let error as TOMLParseError {
            throw ConfigurationError(path: "line \(error.source.begin.line)", message: error.description)
        } catch {
            throw ConfigurationError(path: "", message: "\(error)")
        }
        return try make(document: document, environment: environment, readFile: readFile, context: context)
    }

    /// Builds one publisher per table, in order.
    public static func make(tables: [TOMLTable], environment: [String: String] = ProcessInfo.processInfo.environment,
                            readFile: @escaping (String) throws -> SecretFile = SecretFile.read,
                            context: HTTPContext = HTTPContext()) throws(ConfigurationError) -> PublisherSet {
        var secrets = SecretResolver(environment: environment, readFile: readFile)
        var publishers: [any Publisher] = []
        var names: [String: Int] = [:]
        var kindCounts: [String: Int] = [:]
        for (index, table) in tables.enumerated() {
            let config = ConfigTable(table, prefix: "publish[\(index)]")
            guard let kind = try config.oneOf("kind", kinds) else {
                throw config.error("kind", "missing: one of " + kinds.joined(separator: ", "))
            }
            kindCounts[kind, default: 0] += 1
            let name = try config.string("name") ?? (kindCounts[kind] == 1 ? kind : "\(kind)-\(kindCounts[kind] ?? 0)")
            if let earlier = names[name] {
                throw config.error("name", "\"\(name)\" is already used by publish[\(earlier)]; give each table its own name")
            }
            names[name] = index
            for (key, hint) in inlineSecretHints where table.contains(key: key) {
                throw config.error(key, "secrets are never written inline; \(hint)")
            }
            let publisher = try make(kind: kind, name: name, config: config, secrets: &secrets, context: context)
            try config.rejectUnknownKeys()
            publishers.append(publisher)
        }
        return PublisherSet(publishers: publishers, warnings: secrets.warnings)
    }

    static let inlineSecretHints: [(String, String)] = [
        ("token", "use token_env or token_file"), ("password", "use password_env or password_file"),
        ("url", "a webhook URL is a secret: use url_env or url_file"), ("consumer_key", "use consumer_key_env or consumer_key_file"),
        ("consumer_secret", "use consumer_secret_env or consumer_secret_file"), ("token_secret", "use token_secret_env or token_secret_file"),
        ("access_token", "use token_env or token_file"),
    ]

    static func make(kind: String, name: String, config: ConfigTable, secrets: inout SecretResolver,
                     context: HTTPContext) throws(ConfigurationError) -> any Publisher {
        switch kind {
        case "stdout":
            return StdoutPublisher(name: name)
        case "file":
            return FilePublisher(name: name, path: try config.requiredString("path"))
        case "webhook":
            let url = try secretURL(config, &secrets)
            let body: WebhookBodyTemplate
            do { body = try WebhookBodyTemplate(try config.string("body_template") ?? WebhookBodyTemplate.default) } catch {
                throw config.error("body_template", error.message)
            }
            let rule = try config.oneOf("length_rule", ["x", "mastodon", "bluesky"]).flatMap(LengthRule.platform)
            return WebhookPublisher(name: name, url: url, bodyTemplate: body, headers: try config.stringTable("headers") ?? [:],
                                    lengthRule: rule, shorten: try config.bool("shorten") ?? false, context: context)
        case "mastodon":
            let base = try config.url("base_url", required: true)!
            let token = try secrets.resolve("token", in: config, required: true)!
            return MastodonPublisher(name: name, baseURL: base, token: token,
                                     visibility: try config.oneOf("visibility", ["public", "unlisted", "private", "direct"]),
                                     language: try language(config), shorten: try config.bool("shorten") ?? false,
                                     maxCharacters: try config.int("max_characters", range: 1...100_000) ?? 500, context: context)
        case "x":
            let base = try config.url("base_url", default: "https://api.x.com")!
            let consumerKey = try secrets.resolve("consumer_key", in: config, required: false)
            let consumerSecret = try secrets.resolve("consumer_secret", in: config, required: false)
            let tokenSecret = try secrets.resolve("token_secret", in: config, required: false)
            let token = try secrets.resolve("token", in: config, required: true)!
            let authentication: XAuthentication
            if consumerKey == nil && consumerSecret == nil && tokenSecret == nil {
                authentication = .bearer(token)
            } else {
                guard let consumerKey else { throw config.error("consumer_key_env", "missing: OAuth 1.0a needs consumer_key, consumer_secret, token and token_secret (each as _env or _file)") }
                guard let consumerSecret else { throw config.error("consumer_secret_env", "missing: OAuth 1.0a needs consumer_key, consumer_secret, token and token_secret (each as _env or _file)") }
                guard let tokenSecret else { throw config.error("token_secret_env", "missing: OAuth 1.0a needs consumer_key, consumer_secret, token and token_secret (each as _env or _file)") }
                authentication = .oauth1(OAuth1Credentials(consumerKey: consumerKey, consumerSecret: consumerSecret,
                                                           token: token, tokenSecret: tokenSecret))
            }
            return XPublisher(name: name, baseURL: base, authentication: authentication,
                              shorten: try config.bool("shorten") ?? false, context: context)
        case "matrix":
            let base = try config.url("base_url", required: true)!
            let token = try secrets.resolve("token", in: config, required: true)!
            let room = try config.requiredString("room_id")
            // Room ids start with "!"; since room version 12 they may have no ":server" part. Aliases ("#…") cannot
            // be sent to.
            guard room.hasPrefix("!"), room.count > 1, !room.contains(where: \.isWhitespace) else {
                throw config.error("room_id", "\"\(room)\" is not a room id like \"!abc123:example.org\" (an alias starting with # will not do)")
            }
            return MatrixPublisher(name: name, baseURL: base, token: token, roomID: room,
                                   msgtype: try config.oneOf("msgtype", ["m.text", "m.notice"]) ?? "m.notice",
                                   shorten: try config.bool("shorten") ?? false, context: context)
        case "bluesky":
            let base = try config.url("base_url", default: "https://bsky.social")!
            let identifier = try config.requiredString("identifier")
            let password = try secrets.resolve("password", in: config, required: true)!
            return BlueskyPublisher(name: name, baseURL: base, identifier: identifier, password: password,
                                    language: try language(config), shorten: try config.bool("shorten") ?? false, context: context)
        case "discord":
            return DiscordPublisher(name: name, url: try secretURL(config, &secrets), shorten: try config.bool("shorten") ?? false,
                                    resendUnconfirmed: try config.bool("resend_unconfirmed") ?? true, context: context)
        case "slack":
            return SlackPublisher(name: name, url: try secretURL(config, &secrets), shorten: try config.bool("shorten") ?? false,
                                  resendUnconfirmed: try config.bool("resend_unconfirmed") ?? true, context: context)
        case "ntfy":
            let base = try config.url("base_url", default: "https://ntfy.sh")!
            let topic = try config.requiredString("topic")
            guard topic.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }), topic.count <= 64 else {
                throw config.error("topic", "\"\(topic)\" is not a topic name (letters, digits, - and _, at most 64)")
            }
            return NtfyPublisher(name: name, baseURL: base, topic: topic,
                                 token: try secrets.resolve("token", in: config, required: false),
                                 title: try config.string("title"), priority: try config.int("priority", range: 1...5),
                                 tags: try config.strings("tags") ?? [], shorten: try config.bool("shorten") ?? false,
                                 resendUnconfirmed: try config.bool("resend_unconfirmed") ?? true, context: context)
        default:
            throw config.error("kind", "unknown kind \"\(kind)\"")
        }
    }

    static func secretURL(_ config: ConfigTable, _ secrets: inout SecretResolver) throws(ConfigurationError) -> URL {
        let text = try secrets.resolve("url", in: config, required: true)!
        let key = try config.string("url_env") != nil ? "url_env" : "url_file"
        return try ConfigTable.checkedURL(text, key: key, table: config, secret: true)
    }

    static func language(_ config: ConfigTable) throws(ConfigurationError) -> String? {
        guard let language = try config.string("language") else { return nil }
        guard (2...3).contains(language.count), language.allSatisfy({ $0.isASCII && $0.isLowercase }) else {
            throw config.error("language", "\"\(language)\" is not an ISO 639-1 code such as \"ja\" or \"en\"")
        }
        return language
    }
}
