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
/// key is documented in Sources/Publishing/README.md). Secret files named by relative paths are read relative to the
/// configuration file's folder.
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
                }, context: context)
        } catch let error where error.isMissingSecret {
            throw MissingCredentials(path: error.path, message: error.message)
        }
    }
}

extension AgentConfiguration {
    /// `[[publish]]`: the targets, their warnings, or why their credentials are missing.
    static func readPublishers(_ root: TOMLTable, environment: [String: String], base: URL, statePath: String) throws
        -> (publishers: [any Publisher], warnings: [String], problem: String?)
    {
        let tables = try PublisherFactory.tables(of: root)
        var publishers: [any Publisher] = [StdoutPublisher()]
        var warnings: [String] = []
        var problem: String?
        if !tables.isEmpty {
            do {
                let set = try PublisherRegistry.make(
                    tables: tables, environment: environment, baseDirectory: base,
                    context: HTTPContext(infoCache: StateTargetInfoCache(statePath: statePath)))
                publishers = set.publishers
                warnings = set.warnings
            } catch let missing as MissingCredentials {
                publishers = []
                problem = missing.description
            }
        }
        return (publishers, warnings, problem)
    }
}
