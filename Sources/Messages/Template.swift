/// A post text template with `{placeholder}` fields, checked when it is created.
public struct Template: Sendable, Equatable {
    /// The seed format: `{from} 〜 {to} の期間に {device} を持って {steps} 歩 歩きました。 Tweet By Background Fetch`.
    public static let seed = "{from} 〜 {to} の期間に {device} を持って {steps} 歩 歩きました。 Tweet By Background Fetch"
    /// English preset.
    public static let english = "{steps} steps between {from} and {to} with {device}. Tweet By Background Fetch"
    /// Presets by name, for a configuration's `template = "english"` style choice.
    public static let presets: [String: String] = ["seed": seed, "english": english]

    /// A preset by name, or `text` parsed as a template when it is not a preset name.
    public static func presetOrTemplate(_ text: String) throws(TemplateError) -> Template {
        try Template(presets[text] ?? text)
    }

    /// Placeholders a template may use.
    public static let placeholders: Set<String> = [
        "from", "to", "steps", "device", "duration", "date", "cadence", "bouts",
    ]

    enum Piece: Sendable, Equatable {
        case literal(String)
        case field(String)
    }

    public let source: String
    let pieces: [Piece]

    /// Parses `source`; `{{` and `}}` stand for literal braces. Throws on an unknown or unclosed placeholder.
    public init(_ source: String) throws(TemplateError) {
        self.source = source
        var pieces: [Piece] = []
        var literal = ""
        var i = source.startIndex
        while i < source.endIndex {
            let c = source[i]
            let next = source.index(after: i)
            if c == "{" {
                if next < source.endIndex && source[next] == "{" {
                    literal.append("{")
                    i = source.index(after: next)
                    continue
                }
                guard let close = source[next...].firstIndex(of: "}") else { throw .unclosed(source) }
                let name = String(source[next..<close])
                guard Template.placeholders.contains(name) else { throw .unknownPlaceholder(name) }
                if !literal.isEmpty {
                    pieces.append(.literal(literal))
                    literal = ""
                }
                pieces.append(.field(name))
                i = source.index(after: close)
            } else if c == "}" {
                if next < source.endIndex && source[next] == "}" {
                    literal.append("}")
                    i = source.index(after: next)
                    continue
                }
                throw .strayBrace(source)
            } else {
                literal.append(c)
                i = next
            }
        }
        if !literal.isEmpty { pieces.append(.literal(literal)) }
        self.pieces = pieces
    }

    /// Placeholders this template uses, in order.
    public var fields: [String] {
        pieces.compactMap { if case .field(let n) = $0 { return n } else { return nil } }
    }

    /// Fills the template from `values` (keyed by placeholder name).
    public func render(_ values: [String: String]) -> String {
        var out = ""
        for p in pieces {
            switch p {
            case .literal(let s): out += s
            case .field(let n): out += values[n] ?? ""
            }
        }
        return out
    }
}

/// Why a template was refused.
public enum TemplateError: Error, Equatable, CustomStringConvertible {
    case unknownPlaceholder(String)
    case unclosed(String)
    case strayBrace(String)

    public var description: String {
        switch self {
        case .unknownPlaceholder(let n):
            return "unknown placeholder {\(n)}; known: "
                + Template.placeholders.sorted().map { "{\($0)}" }.joined(separator: ", ")
        case .unclosed: return "a '{' is never closed (write '{{' for a literal brace)"
        case .strayBrace: return "a '}' has no opening '{' (write '}}' for a literal brace)"
        }
    }
}
