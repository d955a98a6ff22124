import Foundation
import Messages
import TOMLKit

/// One configuration table being read (a `[[publish]]` table, a section of the agent's file): typed getters that
/// name the key's path in every error (`publish[0].token_env`), and a record of the keys used so that any other
/// key is reported as unknown. The one table reader of the project: every configuration error is worded here.
public final class ConfigTable {
    public let table: TOMLTable
    public let prefix: String
    public private(set) var used: Set<String> = []

    public init(_ table: TOMLTable, prefix: String) {
        self.table = table
        self.prefix = prefix
    }

    /// Parses a TOML document; a syntax error names its line and column. The one TOML entry point of the project.
    public static func parseDocument(_ text: String) throws(ConfigurationError) -> TOMLTable {
        do {
            return try TOMLTable(string: text)
        } catch let e as TOMLParseError {
            throw ConfigurationError(
                path: "", message: "line \(e.source.begin.line), column \(e.source.begin.column): \(e.description)")
        } catch {
            throw ConfigurationError(path: "", message: "\(error)")
        }
    }

    /// A whole document (or any table read at the top): paths are the bare keys.
    public convenience init(document: TOMLTable) { self.init(document, prefix: "") }

    /// `prefix.key`, or `key` at the top of a document.
    public func path(_ key: String) -> String { prefix.isEmpty ? key : "\(prefix).\(key)" }
    public func error(_ key: String, _ message: String) -> ConfigurationError {
        ConfigurationError(path: path(key), message: message)
    }
    /// A required key that is absent; when an unknown key in the table looks like it (`knd` for `kind`), the error is
    /// about that key instead: the person spelt it, and "missing" would send them looking for the wrong thing.
    public func missing(_ key: String, _ message: String, orAnyOf others: [String] = []) -> ConfigurationError {
        let unread = table.keys.filter { !used.contains($0) }
        for wanted in [key] + others {
            if let spelt = unread.first(where: { Self.closest(to: $0, among: [wanted]) != nil }) {
                return error(spelt, "unknown key; did you mean \(wanted)?")
            }
        }
        return error(key, message)
    }

    /// The candidate `key` is most likely a misspelling of: at most two edits away (one for keys of four letters or
    /// fewer), or nil.
    public static func closest(to key: String, among candidates: some Sequence<String>) -> String? {
        let limit = key.count <= 4 ? 1 : 2
        return candidates.map { (name: $0, distance: editDistance(key, $0)) }
            .filter { $0.distance <= limit && $0.name != key }
            .min { ($0.distance, $0.name) < ($1.distance, $1.name) }?.name
    }

    /// Levenshtein distance: insertions, deletions and substitutions of characters.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        var previous = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in stride(from: 1, through: b.count, by: 1) {
                current[j] = min(
                    previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }

    /// `unknown key` with the known key it most likely misspells, else the known keys.
    public func unknownKey(_ key: String, known: some Collection<String>) -> ConfigurationError {
        if let guess = Self.closest(to: key, among: known) { return error(key, "unknown key; did you mean \(guess)?") }
        return error(key, "unknown key (known: \(known.sorted().joined(separator: ", ")))")
    }

    public func missingSecret(_ key: String, _ message: String) -> ConfigurationError {
        ConfigurationError(path: path(key), message: message, isMissingSecret: true)
    }

    private func value(_ key: String) -> TOMLValueConvertible? {
        used.insert(key)
        return table[key]
    }

    public static func typeName(_ value: TOMLValueConvertible) -> String {
        switch value.type {
        case .table: return "a table"
        case .array: return "an array"
        case .string: return "a string"
        case .int: return "an integer"
        case .double: return "a number"
        case .bool: return "a boolean"
        default: return "a date or time"
        }
    }

    public func string(_ key: String) throws(ConfigurationError) -> String? {
        guard let v = value(key) else { return nil }
        guard let s = v.string else { throw error(key, "must be a string, not \(Self.typeName(v))") }
        guard !s.isEmpty else { throw error(key, "must not be empty") }
        return s
    }

    public func requiredString(_ key: String) throws(ConfigurationError) -> String {
        guard let s = try string(key) else { throw missing(key, "missing (required for this kind)") }
        return s
    }

    public func bool(_ key: String) throws(ConfigurationError) -> Bool? {
        guard let v = value(key) else { return nil }
        guard let b = v.bool else { throw error(key, "must be true or false, not \(Self.typeName(v))") }
        return b
    }

    public func int(_ key: String, range: ClosedRange<Int>) throws(ConfigurationError) -> Int? {
        guard let v = value(key) else { return nil }
        guard let i = v.int else { throw error(key, "must be an integer, not \(Self.typeName(v))") }
        guard range.contains(i) else {
            throw error(key, "must be between \(range.lowerBound) and \(range.upperBound), not \(i)")
        }
        return i
    }

    /// A number: a TOML float or integer.
    public func number(_ key: String) throws(ConfigurationError) -> Double? {
        guard let v = value(key) else { return nil }
        guard let d = v.double ?? v.int.map(Double.init) else {
            throw error(key, "must be a number, not \(Self.typeName(v))")
        }
        return d
    }

    /// A sub-table (`[section]` of a document, `headers = {…}` of a table) to read with the same rules; its paths
    /// continue this table's (`schedule.deadline`, `publish[0].headers.x`).
    public func table(_ key: String) throws(ConfigurationError) -> ConfigTable? {
        guard let v = value(key) else { return nil }
        guard let t = v.table else {
            throw error(key, "must be a table, not \(Self.typeName(v)): write [\(path(key))]")
        }
        return ConfigTable(t, prefix: path(key))
    }

    /// A string read by `parse` (a duration, a time, …); `expected` says what it should look like.
    public func parsed<T>(_ key: String, expected: String, _ parse: (String) -> T?) throws(ConfigurationError) -> T? {
        guard let s = try string(key) else { return nil }
        guard let parsed = parse(s) else { throw error(key, "\"\(s)\" is not \(expected)") }
        return parsed
    }

    public func oneOf(_ key: String, _ choices: [String]) throws(ConfigurationError) -> String? {
        guard let s = try string(key) else { return nil }
        guard choices.contains(s) else {
            throw error(key, "must be one of \(choices.map { "\"\($0)\"" }.joined(separator: ", ")), not \"\(s)\"")
        }
        return s
    }

    public func strings(_ key: String) throws(ConfigurationError) -> [String]? {
        guard let v = value(key) else { return nil }
        guard let array = v.array else { throw error(key, "must be an array of strings, not \(Self.typeName(v))") }
        var out: [String] = []
        for (i, element) in array.enumerated() {
            guard let s = element.string else {
                throw ConfigurationError(
                    path: "\(path(key))[\(i)]", message: "must be a string, not \(Self.typeName(element))")
            }
            out.append(s)
        }
        return out
    }

    public func stringTable(_ key: String) throws(ConfigurationError) -> [String: String]? {
        guard let v = value(key) else { return nil }
        guard let t = v.table else { throw error(key, "must be a table of strings, not \(Self.typeName(v))") }
        var out: [String: String] = [:]
        for name in t.keys {
            guard let s = t[name]?.string else {
                throw ConfigurationError(path: "\(path(key)).\(name)", message: "must be a string")
            }
            out[name] = s
        }
        return out
    }

    /// An `http` or `https` URL.
    public func url(_ key: String, default fallback: String? = nil, required: Bool = false) throws(ConfigurationError)
        -> URL?
    {
        guard let text = try string(key) ?? fallback else {
            if required { throw missing(key, "missing (required for this kind), e.g. \"https://example.social\"") }
            return nil
        }
        return try Self.checkedURL(text, key: key, table: self)
    }

    public static func checkedURL(_ text: String, key: String, table: ConfigTable, secret: Bool = false)
        throws(ConfigurationError) -> URL
    {
        let shown = secret ? "the URL" : "\"\(text)\""
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = url.host, !host.isEmpty
        else {
            throw table.error(key, "\(shown) is not an http(s) URL")
        }
        return url
    }

    /// Whether the table has `key` (without marking it used).
    public func contains(_ key: String) -> Bool { table.contains(key: key) }

    /// Throws for the first key that no getter asked for (after reading every key the table may have).
    public func rejectUnknownKeys() throws(ConfigurationError) {
        for key in table.keys.sorted() where !used.contains(key) {
            let guess = Self.closest(to: key, among: used).map { "; did you mean \($0)?" } ?? ""
            if let kind = table["kind"]?.string { throw error(key, "unknown key for kind \"\(kind)\"" + guess) }
            throw unknownKey(key, known: used)
        }
    }
}
