import Foundation
import Messages
import Publishing
import TOMLKit

/// Credentials a `[[publish]]` table points to are missing (an unset environment variable, an unreadable file).
/// `steptweet fetch` stops with a configuration error; the agent stays up, fetches nothing and says why in `status`.
public struct MissingCredentials: Error, Sendable, CustomStringConvertible {
    public var path: String
    public var message: String
    public var description: String { "\(path): \(message)" }
}

/// Builds the publishers of the `[[publish]]` tables with the publishing module's factory (every target kind and
/// key is documented in Sources/Publishing/README.md). Secret files and the file target's path, when relative, are
/// relative to the configuration file's folder.
public enum PublisherRegistry {
    public static func make(
        tables: [TOMLTable], environment: [String: String], baseDirectory: URL,
        context: HTTPContext = HTTPContext()
    ) throws -> PublisherSet {
        do {
            return try PublisherFactory.make(
                tables: tables, environment: environment,
                readFile: { path in
                    try SecretFile.read(AgentConfiguration.resolve(path, against: baseDirectory))
                }, resolvePath: { AgentConfiguration.resolve($0, against: baseDirectory) }, context: context)
        } catch let error where error.isMissingSecret {
            throw MissingCredentials(path: error.path, message: error.message)
        }
    }
}

extension AgentConfiguration {
    /// `[[publish]]`: the targets and their warnings, or why their credentials are missing and the targets' names.
    static func readPublishers(_ root: TOMLTable, environment: [String: String], base: URL, statePath: String) throws
        -> (publishers: [any Publisher], warnings: [String], problem: String?, withoutCredentials: [String])
    {
        let tables = try PublisherFactory.tables(of: root)
        guard !tables.isEmpty else { return ([StdoutPublisher()], [], nil, []) }
        do {
            let set = try PublisherRegistry.make(
                tables: tables, environment: environment, baseDirectory: base,
                context: HTTPContext(infoCache: StateTargetInfoCache(statePath: statePath)))
            return (set.publishers, set.warnings, nil, [])
        } catch let missing as MissingCredentials {
            return ([], [], missing.description, try PublisherFactory.names(tables: tables))
        }
    }
}
