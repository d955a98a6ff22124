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
    /// Every target kind, in the order the documentation lists them. Adding a target: its file (the publisher and
    /// its `static let target`), one line here, and its tests.
    public static let targets: [TargetKind] = [
        WebhookPublisher.target, MastodonPublisher.target, XPublisher.target, MatrixPublisher.target,
        BlueskyPublisher.target, DiscordPublisher.target, SlackPublisher.target, NtfyPublisher.target,
        MisskeyPublisher.target, StdoutPublisher.target, FilePublisher.target,
    ]

    /// The `kind` names.
    public static var kinds: [String] { targets.map(\.name) }

    /// Reads the `publish` array of a whole parsed document (no `publish` key: no publishers).
    public static func make(
        document: TOMLTable, environment: [String: String] = ProcessInfo.processInfo.environment,
        readFile: @escaping (String) throws -> SecretFile = SecretFile.read,
        context: HTTPContext = HTTPContext()
    ) throws(ConfigurationError) -> PublisherSet {
        try make(tables: try tables(of: document), environment: environment, readFile: readFile, context: context)
    }

    /// The `[[publish]]` tables of a parsed document, in order (none without a `publish` key): the one place they
    /// are extracted.
    public static func tables(of document: TOMLTable) throws(ConfigurationError) -> [TOMLTable] {
        guard let value = document["publish"] else { return [] }
        guard let array = value.array else {
            throw ConfigurationError(
                path: "publish", message: "must be an array of tables: write [[publish]], not [publish]")
        }
        return try tables(of: array)
    }

    /// The tables of the value of a document's `publish` key.
    public static func tables(of array: TOMLArray) throws(ConfigurationError) -> [TOMLTable] {
        var tables: [TOMLTable] = []
        for (i, element) in array.enumerated() {
            guard let table = element.table else {
                throw ConfigurationError(
                    path: "publish[\(i)]", message: "must be a table, not \(ConfigTable.typeName(element))")
            }
            tables.append(table)
        }
        return tables
    }

    /// Reads the value of the document's `publish` key (an array of tables).
    public static func make(
        array: TOMLArray, environment: [String: String] = ProcessInfo.processInfo.environment,
        readFile: @escaping (String) throws -> SecretFile = SecretFile.read,
        context: HTTPContext = HTTPContext()
    ) throws(ConfigurationError) -> PublisherSet {
        try make(tables: try tables(of: array), environment: environment, readFile: readFile, context: context)
    }

    /// Parses TOML text and reads its `publish` array; a syntax error is reported with its line and column.
    public static func make(
        toml: String, environment: [String: String] = ProcessInfo.processInfo.environment,
        readFile: @escaping (String) throws -> SecretFile = SecretFile.read,
        context: HTTPContext = HTTPContext()
    ) throws(ConfigurationError) -> PublisherSet {
        try make(
            document: try ConfigTable.parseDocument(toml), environment: environment, readFile: readFile,
            context: context)
    }

    /// Builds one publisher per table, in order. `resolvePath` places a relative file path a target writes (the file
    /// target's `path`): the agent resolves it against the configuration file's folder, as every other path.
    public static func make(
        tables: [TOMLTable], environment: [String: String] = ProcessInfo.processInfo.environment,
        readFile: @escaping (String) throws -> SecretFile = SecretFile.read,
        resolvePath: @escaping (String) -> String = { $0 },
        context: HTTPContext = HTTPContext()
    ) throws(ConfigurationError) -> PublisherSet {
        var resolver = SecretResolver(environment: environment, readFile: readFile)
        var publishers: [any Publisher] = []
        var namer = TargetNamer()
        for (index, table) in tables.enumerated() {
            let config = ConfigTable(table, prefix: "publish[\(index)]")
            let (kind, name) = try namer.name(config, index: index)
            for (key, hint) in inlineSecretHints where config.contains(key) {
                throw config.error(key, "secrets are never written inline; \(hint)")
            }
            let target = TargetConfig(
                name: name, table: config, resolver: resolver, context: context, resolvePath: resolvePath)
            do { publishers.append(try kind.build(target)) } catch let error as ConfigurationError {
                throw error
            } catch {
                throw config.error("kind", "\(error)")
            }
            resolver = target.resolver
            try config.rejectUnknownKeys()
        }
        return PublisherSet(publishers: publishers, warnings: resolver.warnings)
    }

    /// The targets' names, in order, without building them (nor reading their secrets): what a dry run names when
    /// credentials are missing. The same names, and errors, as `make`.
    public static func names(tables: [TOMLTable]) throws(ConfigurationError) -> [String] {
        var namer = TargetNamer()
        var names: [String] = []
        for (index, table) in tables.enumerated() {
            names.append(try namer.name(ConfigTable(table, prefix: "publish[\(index)]"), index: index).name)
        }
        return names
    }

    /// Names the tables in order: `name`, else the kind (`kind-2`, `kind-3` for repeats); a name used twice is refused.
    struct TargetNamer {
        var names: [String: Int] = [:]
        var kindCounts: [String: Int] = [:]

        /// The kind and name of the table `config` (the `index`th).
        mutating func name(_ config: ConfigTable, index: Int) throws(ConfigurationError) -> (
            kind: TargetKind, name: String
        ) {
            guard let kindName = try config.oneOf("kind", PublisherFactory.kinds),
                let kind = PublisherFactory.targets.first(where: { $0.name == kindName })
            else {
                throw config.missing("kind", "missing: one of " + PublisherFactory.kinds.joined(separator: ", "))
            }
            kindCounts[kindName, default: 0] += 1
            let name =
                try config.string("name")
                ?? (kindCounts[kindName] == 1 ? kindName : "\(kindName)-\(kindCounts[kindName] ?? 0)")
            if let earlier = names[name] {
                throw config.error(
                    "name", "\"\(name)\" is already used by publish[\(earlier)]; give each table its own name")
            }
            names[name] = index
            return (kind, name)
        }
    }

    /// Keys that would hold a secret inline, with what to write instead: every kind's secrets, and `access_token`.
    static let inlineSecretHints: [(String, String)] = {
        var hints: [(String, String)] = []
        for secret in targets.flatMap(\.secrets) where !hints.contains(where: { $0.0 == secret.name }) {
            hints.append((secret.name, secret.hint))
        }
        return hints + [("access_token", "use token_env or token_file")]
    }()
}
