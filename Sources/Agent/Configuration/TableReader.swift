import Foundation
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
        for key in t.table.keys.sorted() where !allowed.contains(key) {
            throw t.error(key, "unknown key (known: \(allowed.sorted().joined(separator: ", ")))")
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
