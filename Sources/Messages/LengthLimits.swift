/// One limit a platform applies to a post and how a text measures against it.
public struct LengthLimit: Sendable, Equatable, Codable {
    /// What is counted: `weighted` (X), `characters` (Mastodon: graphemes with URLs as 23 or the instance's count),
    /// `graphemes`, `code points`, `bytes`.
    public var measure: String
    public var length: Int
    public var max: Int
    public var within: Bool { length <= max }

    public init(measure: String, length: Int, max: Int) {
        self.measure = measure
        self.length = length
        self.max = max
    }

    enum CodingKeys: String, CodingKey { case measure, length, max, within }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            measure: try c.decode(String.self, forKey: .measure), length: try c.decode(Int.self, forKey: .length),
            max: try c.decode(Int.self, forKey: .max))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(measure, forKey: .measure)
        try c.encode(length, forKey: .length)
        try c.encode(max, forKey: .max)
        try c.encode(within, forKey: .within)
    }

    /// `91 of 300 graphemes`.
    public var summary: String { "\(length) of \(max) \(measure)" }
}

/// What `steptweet check-text` reports: the main check, the platform and every limit that applies.
/// JSON keys: `platform`, `weighted_length`, `limit`, `valid`, `limits` (each `measure`, `length`, `max`, `within`).
public struct LengthReport: Sendable, Equatable, Encodable {
    public var platform: String
    public var check: LengthCheck
    public var limits: [LengthLimit]

    public init(rule: LengthRule, text: String) {
        platform = rule.platformName
        check = rule.check(text)
        limits = rule.limits(text)
    }

    enum CodingKeys: String, CodingKey {
        case platform
        case weightedLength = "weighted_length"
        case limit, valid, limits
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(platform, forKey: .platform)
        try c.encode(check.weightedLength, forKey: .weightedLength)
        try c.encode(check.limit, forKey: .limit)
        try c.encode(check.valid, forKey: .valid)
        try c.encode(limits, forKey: .limits)
    }

    /// `91/300 valid for Bluesky: 91 of 300 graphemes, 183 of 3000 bytes`.
    public var line: String {
        "\(check.weightedLength)/\(check.limit) \(check.valid ? "valid" : "not valid") for \(platform): "
            + limits.map(\.summary).joined(separator: ", ")
    }
}

extension LengthRule {
    /// The platform's name as `check-text` shows it.
    public var platformName: String {
        switch self {
        case .x: return "X"
        case .mastodon, .mastodonInstance: return "Mastodon"
        case .bluesky: return "Bluesky"
        case .characters, .codePoints, .utf8Bytes: return "text"
        }
    }

    /// Every limit the rule applies to `text`, the main one first (Bluesky: graphemes and bytes).
    public func limits(_ text: String) -> [LengthLimit] {
        switch self {
        case .x: return [LengthLimit(measure: "weighted", length: check(text).weightedLength, max: limit)]
        case .mastodon, .mastodonInstance:
            return [
                LengthLimit(
                    measure: "characters", length: Self.mastodonLength(text, urlLength: mastodonURLLength), max: limit)
            ]
        case .bluesky:
            return [
                LengthLimit(measure: "graphemes", length: text.count, max: 300),
                LengthLimit(measure: "bytes", length: text.utf8.count, max: 3000),
            ]
        case .characters(let n): return [LengthLimit(measure: "graphemes", length: text.count, max: n)]
        case .codePoints(let n):
            return [LengthLimit(measure: "code points", length: text.unicodeScalars.count, max: n)]
        case .utf8Bytes(let n): return [LengthLimit(measure: "bytes", length: text.utf8.count, max: n)]
        }
    }
}
