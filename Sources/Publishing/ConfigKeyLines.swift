import Foundation

/// Where a key path (`publish[0].knd`, `schedule.interval`) is written in a TOML document, for errors that name the
/// line. TOMLKit gives positions for syntax errors only, so the text is scanned: table headers (`[schedule]`, and
/// `[[publish]]` counted per name), then `key = value` lines under them; multi-line strings and comments are skipped.
public struct ConfigKeyLines: Sendable {
    /// The line (from 1) of every table header and key, by path.
    let lines: [String: Int]

    public init(_ text: String) {
        var lines: [String: Int] = [:]
        var table = ""
        var arrayCounts: [String: Int] = [:]
        var inMultilineString = false
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            let quotes =
                line.components(separatedBy: "\"\"\"").count - 1 + line.components(separatedBy: "'''").count - 1
            defer { if quotes % 2 == 1 { inMultilineString.toggle() } }
            if inMultilineString || line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("[[") {
                let name = Self.header(line.dropFirst(2))
                let count = arrayCounts[name, default: 0]
                arrayCounts[name] = count + 1
                table = "\(name)[\(count)]"
            } else if line.hasPrefix("[") {
                // `[publish.headers]` belongs to the last `[[publish]]`.
                let name = Self.header(line.dropFirst())
                let first = String(name.prefix { $0 != "." })
                table = arrayCounts[first].map { "\(first)[\($0 - 1)]" + name.dropFirst(first.count) } ?? name
            } else if let key = Self.key(line) {
                let path = table.isEmpty ? key : "\(table).\(key)"
                if lines[path] == nil { lines[path] = index + 1 }
                continue
            } else {
                continue
            }
            if lines[table] == nil { lines[table] = index + 1 }
        }
        self.lines = lines
    }

    /// The line of `path`, else of the nearest enclosing key or table written in the text (a missing key is shown at
    /// its table's header), else nil.
    public func line(of path: String) -> Int? {
        var path = Substring(path)
        while !path.isEmpty {
            if let line = lines[String(path)] { return line }
            guard let dot = path.lastIndex(of: ".") else { return nil }
            path = path[..<dot]
        }
        return nil
    }

    /// `publish` of `publish]]`, `schedule` of `schedule] # comment`, without quotes or spaces.
    static func header(_ rest: Substring) -> String {
        String(rest.prefix { $0 != "]" }).replacingOccurrences(of: "\"", with: "")
            .trimmingCharacters(in: .whitespaces)
    }

    /// The key of a `key = value` line (bare or quoted), or nil for any other line.
    static func key(_ line: String) -> String? {
        guard let equals = line.firstIndex(of: "=") else { return nil }
        let key = line[..<equals].trimmingCharacters(in: .whitespaces)
        if let quote = key.first, quote == "\"" || quote == "'" {
            guard key.count >= 2, key.last == quote else { return nil }
            return String(key.dropFirst().dropLast())
        }
        let bare = key.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" || $0 == "." }
        return !key.isEmpty && bare ? key : nil
    }
}
