/// A post text template with `{placeholder}` fields, checked when it is created.
public struct Template: Sendable, Equatable {
    /// The seed format: `{from} 〜 {to} の期間に {device} を持って {steps} 歩 歩きました。 Tweet By Background Fetch`.
    public static let seed = "{from} 〜 {to} の期間に {device} を持って {steps} 歩 歩きました。 Tweet By Background Fetch"
    /// English preset.
    public static let english = "{steps} steps between {from} and {to} with {device}. Tweet By Background Fetch"
    /// A day's summary (`text.preset = "daily"`, for `schedule.window = "1d"`): the total, the change from the day
    /// before, the walks and the busiest hour.
    public static let daily =
        "{date} の歩数は {steps} 歩（前日比 {change}）。{bouts} 回歩いて、いちばん歩いたのは {busiest}（{busiest_steps} 歩）でした。"
    public static let dailyEnglish =
        "{date}: {steps} steps ({change} on the day before) in {bouts} walks; busiest hour {busiest} ({busiest_steps} steps)."
    /// A week's summary (`text.preset = "weekly"`, for `schedule.window = "7d"`): the busiest day instead of hour.
    public static let weekly =
        "{from} 〜 {to} の1週間で {steps} 歩（前週比 {change}）。{bouts} 回歩いて、いちばん歩いた日は {busiest}（{busiest_steps} 歩）でした。"
    public static let weeklyEnglish =
        "Week {from} to {to}: {steps} steps ({change} on the week before) in {bouts} walks; busiest day {busiest} ({busiest_steps} steps)."
    /// The summary presets as they read without the walks, used for a window in which no walk ended: a step log or
    /// an export has no walks, and "in 0 walks" under a day of 9,000 steps says something false.
    static let withoutWalks: [String: Template] = [
        daily: "{date} の歩数は {steps} 歩（前日比 {change}）。いちばん歩いたのは {busiest}（{busiest_steps} 歩）でした。",
        dailyEnglish:
            "{date}: {steps} steps ({change} on the day before); busiest hour {busiest} ({busiest_steps} steps).",
        weekly: "{from} 〜 {to} の1週間で {steps} 歩（前週比 {change}）。いちばん歩いた日は {busiest}（{busiest_steps} 歩）でした。",
        weeklyEnglish:
            "Week {from} to {to}: {steps} steps ({change} on the week before); busiest day {busiest} ({busiest_steps} steps).",
    ].compactMapValues { try? Template($0) }

    /// Presets by name, for a configuration's `text.preset`: the Japanese ones under their plain name (the seed's
    /// language is the default), the English ones with `-en`.
    public static let presets: [String: String] = [
        "seed": seed, "ja": seed, "english": english, "en": english, "daily": daily, "daily-ja": daily,
        "daily-en": dailyEnglish, "weekly": weekly, "weekly-ja": weekly, "weekly-en": weeklyEnglish,
    ]

    /// A preset by name, or `text` parsed as a template when it is not a preset name.
    public static func presetOrTemplate(_ text: String) throws(TemplateError) -> Template {
        try Template(presets[text] ?? text)
    }

    /// Placeholders a template may use.
    public static let placeholders: Set<String> = [
        "from", "to", "steps", "device", "duration", "date", "cadence", "bouts", "previous_steps", "change", "busiest",
        "busiest_steps",
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

    /// The language its own words are in, which the chart's alt text follows: Japanese when they hold kana, kanji or
    /// Japanese punctuation (the seed and the `daily`/`weekly` presets), English otherwise.
    public var language: TextLanguage {
        for case .literal(let text) in pieces
        where text.unicodeScalars.contains(where: TextLanguage.isJapanese) {
            return .japanese
        }
        return .english
    }

    /// Fills the template from `values` (keyed by placeholder name). A count of 1 before an English plural the
    /// presets use (`{steps} steps`, `{bouts} walks`) takes the singular: "1 walk", never "1 walks".
    public func render(_ values: [String: String]) -> String {
        var out = ""
        var one = false
        for p in pieces {
            switch p {
            case .literal(let s):
                out += one ? Self.singular(s) : s
                one = false
            case .field(let n):
                out += values[n] ?? ""
                one = values[n] == "1"
            }
        }
        return out
    }

    /// `literal` with the plural that begins it (` steps`, ` walks`, as a whole word) made singular.
    static func singular(_ literal: String) -> String {
        for noun in [" steps", " walks"] where literal.hasPrefix(noun) {
            let rest = literal.dropFirst(noun.count)
            guard rest.first.map({ !$0.isLetter }) ?? true else { continue }
            return String(noun.dropLast()) + rest
        }
        return literal
    }
}

/// The language of a template, and of the texts written beside it (the chart's alt text).
public enum TextLanguage: String, Sendable, Equatable {
    case japanese = "ja"
    case english = "en"

    /// The language of a locale identifier (`[text] locale`): Japanese for `ja`, `ja_JP`, `ja-JP`, else English.
    public init(locale identifier: String) {
        self = identifier.lowercased().hasPrefix("ja") ? .japanese : .english
    }

    /// Japanese punctuation (〜, 、, 。), kana, the common kanji and full-width forms.
    static func isJapanese(_ scalar: Unicode.Scalar) -> Bool {
        [0x3000...0x30FF, 0x4E00...0x9FFF, 0xFF00...0xFFEF].contains { $0.contains(scalar.value) }
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
