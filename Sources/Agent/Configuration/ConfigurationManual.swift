import Foundation
import WallTime

/// The configuration's manual page, steptweet.toml(5), made from the commented sample that `steptweet init` writes:
/// one source for both, so the page lists every key the sample has, with the sample's own words. `make man` writes it
/// with `steptweet init --man-page`.
public enum ConfigurationManual {
    /// A key of the sample: its table, name, example value, and the comments that explain it.
    public struct Key: Equatable, Sendable {
        public var table: String
        public var name: String
        public var value: String
        /// Commented out in the sample: optional, or one of several choices.
        public var optional: Bool
        public var comment: [String]
    }

    /// A table of the sample with the comments before its header and after its keys.
    public struct Table: Equatable, Sendable {
        public var name: String
        public var introduction: [String] = []
        public var keys: [Key] = []
        public var notes: [String] = []
    }

    /// The sample's opening comment and its tables in order.
    public static func tables(of sample: String = SampleConfiguration.text) -> (opening: [String], tables: [Table]) {
        var opening: [String] = []
        var tables: [Table] = []
        var pending: [String] = []  // comment lines not yet given to a key or a table
        for raw in sample.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = SampleLine(String(raw))
            switch line {
            case .blank:
                if tables.isEmpty { opening += pending } else { tables[tables.count - 1].notes += pending }
                pending = []
            case .table(let name):
                tables.append(Table(name: name, introduction: pending))
                pending = []
            case .key(let name, let value, let optional, let comment):
                let table = tables.last?.name ?? ""
                let key = Key(table: table, name: name, value: value, optional: optional, comment: pending + comment)
                if tables.isEmpty { tables.append(Table(name: table)) }
                tables[tables.count - 1].keys.append(key)
                pending = []
            case .continuation(let text):
                if let last = tables.last?.keys.indices.last {
                    tables[tables.count - 1].keys[last].comment.append(text)
                }
            case .comment(let text):
                pending.append(text)
            }
        }
        if let last = tables.indices.last { tables[last].notes += pending }
        return (opening, tables)
    }

    /// The page in mdoc(7): name, files, one subsection per table with a tagged list of its keys, and the whole sample
    /// as the example.
    public static func page(version: String, date: Date = WallClock.system.now()) -> String {
        let (opening, tables) = tables()
        let day = DateFormatter()
        day.locale = Locale(identifier: "en_US_POSIX")
        day.dateFormat = "MMMM d, yyyy"
        var out = [
            ".Dd \(day.string(from: date))", ".Dt STEPTWEET.TOML 5", ".Os steptweet \(version)", ".Sh NAME",
            ".Nm steptweet.toml", ".Nd configuration of the steptweet agent", ".Sh SYNOPSIS",
            ".Pa $XDG_CONFIG_HOME/steptweet/config.toml", ".Sh DESCRIPTION",
        ]
        out += opening.map(text)
        out += [
            "Every command that reads it takes", ".Fl -config Ar PATH ;", ".Nm steptweet Cm init",
            "writes the commented sample shown under", ".Sx EXAMPLES .",
            "A key that is commented out in the sample is optional or one of several choices.",
        ]
        for table in tables {
            out.append(".Ss " + argument(table.name.hasPrefix("[") ? table.name : "[\(table.name)]"))
            out += table.introduction.map(text)
            out.append(".Bl -tag -width Ds")
            for key in table.keys {
                out.append(".It Ic \(argument(key.name)) No = Li \(argument(key.value))")
                out += key.comment.isEmpty ? [] : key.comment.map(text)
            }
            out.append(".El")
            if !table.notes.isEmpty { out += [".Pp"] + table.notes.flatMap(noteLines) }
        }
        out += [
            ".Sh FILES", ".Bl -tag -width Ds", ".It Pa $XDG_CONFIG_HOME/steptweet/config.toml",
            "The default configuration file (~/.config/steptweet/config.toml when XDG_CONFIG_HOME is not set).", ".El",
            ".Sh EXAMPLES", "The sample that", ".Nm steptweet Cm init", "writes:", ".Bd -literal",
        ]
        out += SampleConfiguration.text.split(separator: "\n", omittingEmptySubsequences: false).map {
            $0.isEmpty ? "" : text(String($0))
        }
        out += [".Ed", ".Sh SEE ALSO", ".Xr steptweet 1"]
        return out.joined(separator: "\n") + "\n"
    }

    /// A note's line for mdoc: an indented line (a list in the sample, such as the keys of each `[[publish]]` kind)
    /// starts a line of its own, where a plain one would join the line before it.
    static func noteLines(_ line: String) -> [String] {
        line.hasPrefix(" ") ? [".br", text(line.trimmingCharacters(in: .whitespaces))] : [text(line)]
    }

    /// A line of text for mdoc: a backslash written as `\e`, a leading dot or quote kept from reading as a macro.
    static func text(_ line: String) -> String {
        let escaped = line.replacingOccurrences(of: "\\", with: "\\e")
        return escaped.hasPrefix(".") || escaped.hasPrefix("'") ? "\\&" + escaped : escaped
    }

    /// One macro argument: quoted, with its quotes as `\(dq` and backslashes as `\e`.
    static func argument(_ value: String) -> String {
        "\"" + value.replacingOccurrences(of: "\\", with: "\\e").replacingOccurrences(of: "\"", with: "\\(dq") + "\""
    }
}

/// One line of the sample configuration, by what it holds.
enum SampleLine: Equatable {
    case blank
    /// `[source]`, `[[publish]]`, also commented out (`# [push]`).
    case table(String)
    /// `key = value  # comment`, or commented out: `# key = value  # comment`.
    case key(name: String, value: String, optional: Bool, comment: [String])
    /// `#            # more about the key above`.
    case continuation(String)
    case comment(String)

    init(_ line: String) {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        let commented = trimmed.hasPrefix("#")
        let body = commented ? String(trimmed.dropFirst()).trimmingCharacters(in: .whitespaces) : trimmed
        if trimmed.isEmpty {
            self = .blank
        } else if body.hasPrefix("["), body.hasSuffix("]"), !body.contains(" ") {
            self = .table(body.hasPrefix("[[") ? body : String(body.dropFirst().dropLast()))
        } else if commented, body.hasPrefix("#") {
            self = .continuation(String(body.dropFirst()).trimmingCharacters(in: .whitespaces))
        } else if let match = body.wholeMatch(of: /([a-z_]+) *= *(.*?) *(?:# *(.*))?/) {
            let comment = match.3.map { [String($0)] } ?? []
            self = .key(name: String(match.1), value: String(match.2), optional: commented, comment: comment)
        } else {
            // An indented comment (`#   mastodon  base_url*, …`) is a line of a list: marked by a leading space.
            self = .comment(commented && trimmed.dropFirst().hasPrefix("  ") ? " " + body : body)
        }
    }
}
