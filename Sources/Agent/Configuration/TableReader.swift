import Foundation
import Messages
import Publishing
import TOMLKit

/// `[section] key` access for the agent's file through Publishing's `ConfigTable`, the one table reader: every
/// configuration error (a wrong type, an unknown key, a bad duration) is worded there, as for `[[publish]]` tables.
struct TableReader {
    let document: ConfigTable

    init(root: TOMLTable) { document = ConfigTable(document: root) }

    func section(_ name: String) throws -> ConfigTable? { try document.table(name) }

    func checkKeys(_ name: String, allowed: Set<String>) throws {
        guard let t = try section(name) else { return }
        for key in t.table.keys.sorted() where !allowed.contains(key) { throw t.unknownKey(key, known: allowed) }
    }

    /// The top of the document holds only the known sections (`[schedul]`: did you mean schedule?).
    func checkSections(_ known: Set<String>) throws {
        // Named from `known` itself, so a section added later is listed too ([receive] once was not).
        let listed = known.sorted().map { $0 == "publish" ? "[[publish]]" : "[\($0)]" }.joined(separator: ", ")
        for key in document.table.keys.sorted() where !known.contains(key) {
            let guess = ConfigTable.closest(to: key, among: known).map { "did you mean [\($0)]? " } ?? ""
            throw document.error(key, "unknown section; \(guess)(known sections: \(listed))")
        }
    }

    func string(_ name: String, _ key: String) throws -> String? { try section(name)?.string(key) }
    func bool(_ name: String, _ key: String) throws -> Bool? { try section(name)?.bool(key) }
    func int(_ name: String, _ key: String) throws -> Int? { try section(name)?.int(key, range: Int.min...Int.max) }
    func number(_ name: String, _ key: String) throws -> Double? { try section(name)?.number(key) }

    func duration(_ name: String, _ key: String) throws -> TimeInterval? {
        try section(name)?.parsed(key, expected: "a duration such as \"30s\", \"10m\" or \"1h\"", Durations.parse)
    }
}

extension AgentConfiguration {
    /// Parses TOML text; `file` is used for relative paths and messages. An error names the line of its key in the
    /// text (or of the key's table when the key is missing): `line 7: publish[0].knd: unknown key; did you mean kind?`.
    public static func parse(
        _ text: String, file: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> AgentConfiguration {
        do {
            return try parseTables(text, file: file, environment: environment)
        } catch var error as ConfigurationError where error.line == nil && !error.path.isEmpty {
            error.line = ConfigKeyLines(text).line(of: error.path)
            throw error
        }
    }
}
