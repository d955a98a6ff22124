import Foundation

/// How a platform measures a post and how much it accepts.
///
/// - `x`: twitter-text v3 weighted length (NFC first; code points in U+0000–U+10FF, U+2000–U+200D, U+2010–U+201F and
///   U+2032–U+2037 weigh 1, everything else 2; every URL counts 23; an emoji sequence counts 2); limit 280.
/// - `mastodon`: grapheme clusters, every `http(s)://` URL counts 23; limit 500.
/// - `mastodonInstance(n, urlLength:)`: Mastodon's measure with an instance's own limit (`max_characters`;
///   glitch-soc, Akkoma, …) and what it counts for a URL (`characters_reserved_per_url`, 23 unless it says).
/// - `bluesky`: grapheme clusters, limit 300, and at most 3000 UTF-8 bytes.
/// - `characters(n)`: at most `n` grapheme clusters (Slack: 4000).
/// - `codePoints(n)`: at most `n` Unicode code points, what servers that count a string's length in code points
///   take (Misskey's JSON schema: 3000; Discord's API, in Python: 2000): an emoji sequence is several.
/// - `utf8Bytes(n)`: at most `n` UTF-8 bytes (ntfy: 4095, Matrix: 65536 per event, minus some room for the envelope).
public enum LengthRule: Sendable, Equatable, CustomStringConvertible {
    case x
    case mastodon
    case mastodonInstance(Int, urlLength: Int = TwitterText.urlLength)
    case bluesky
    case characters(Int)
    case codePoints(Int)
    case utf8Bytes(Int)

    /// The rules `steptweet check-text --platform` knows by name.
    public static func platform(_ name: String) -> LengthRule? {
        switch name.lowercased() {
        case "x", "twitter": return .x
        case "mastodon": return .mastodon
        case "bluesky", "bsky": return .bluesky
        default: return nil
        }
    }

    public var limit: Int {
        switch self {
        case .x: return 280
        case .mastodon: return 500
        case .mastodonInstance(let n, _): return n
        case .bluesky: return 300
        case .characters(let n), .codePoints(let n), .utf8Bytes(let n): return n
        }
    }

    public var description: String {
        switch self {
        case .x: return "X (280 weighted)"
        case .mastodon: return "Mastodon (500 characters)"
        case .mastodonInstance(let n, TwitterText.urlLength): return "Mastodon (\(n) characters)"
        case .mastodonInstance(let n, let urlLength): return "Mastodon (\(n) characters, URLs \(urlLength))"
        case .bluesky: return "Bluesky (300 graphemes, 3000 bytes)"
        case .characters(let n): return "\(n) characters"
        case .codePoints(let n): return "\(n) code points"
        case .utf8Bytes(let n): return "\(n) bytes"
        }
    }

    /// Measures `text`.
    public func check(_ text: String) -> LengthCheck {
        switch self {
        case .x:
            let result = TwitterText.weightedLength(text)
            return LengthCheck(
                weightedLength: result.length, limit: 280,
                valid: !text.isEmpty && !result.hasInvalidCharacters && result.length <= 280)
        case .mastodon, .mastodonInstance:
            let length = Self.mastodonLength(text, urlLength: mastodonURLLength)
            return LengthCheck(weightedLength: length, limit: limit, valid: !text.isEmpty && length <= limit)
        case .bluesky:
            let graphemes = text.count
            return LengthCheck(
                weightedLength: graphemes, limit: 300,
                valid: !text.isEmpty && graphemes <= 300 && text.utf8.count <= 3000)
        case .characters(let n):
            return LengthCheck(weightedLength: text.count, limit: n, valid: !text.isEmpty && text.count <= n)
        case .codePoints(let n):
            let count = text.unicodeScalars.count
            return LengthCheck(weightedLength: count, limit: n, valid: !text.isEmpty && count <= n)
        case .utf8Bytes(let n):
            return LengthCheck(weightedLength: text.utf8.count, limit: n, valid: !text.isEmpty && text.utf8.count <= n)
        }
    }

    /// `text` cut at a grapheme boundary and ended with `…` so that it fits; `text` itself when it already fits.
    /// Returns nil when even `…` alone does not fit (a limit of zero).
    public func shorten(_ text: String) -> String? {
        Self.shortened(text) { check($0).valid }
    }

    /// `text` cut at a grapheme boundary and ended with `…` so that `fits` says yes; `text` itself when it already
    /// fits, nil when even `…` alone does not. `fits` must be monotonic in the prefix's length (every rule here is,
    /// and so is a target's whole request built around the text), so a binary search finds the longest prefix.
    public static func shortened(_ text: String, fitting fits: (String) -> Bool) -> String? {
        if fits(text) { return text }
        guard fits("…") else { return nil }
        let characters = Array(text)
        var low = 0
        var high = characters.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if fits(trimmedEnd(String(characters[0..<mid])) + "…") { low = mid } else { high = mid - 1 }
        }
        return trimmedEnd(String(characters[0..<low])) + "…"
    }

    static func trimmedEnd(_ s: String) -> String {
        var s = s
        while let last = s.last, last.isWhitespace { s.removeLast() }
        return s
    }

    /// What a Mastodon rule counts for each URL: the instance's `characters_reserved_per_url`, else 23.
    var mastodonURLLength: Int {
        if case .mastodonInstance(_, let urlLength) = self { return urlLength }
        return TwitterText.urlLength
    }

    /// Mastodon's `StatusLengthValidator`: grapheme clusters, each URL with a scheme counted as `urlLength`, each
    /// mention as `@user` (its domain counts nothing); of entities that overlap, the first to start counts.
    static func mastodonLength(_ text: String, urlLength: Int) -> Int {
        var entities = TwitterText.urlRanges(in: text, requireScheme: true).map { (range: $0, counted: urlLength) }
        for mention in MastodonMention.remote(in: text) {
            entities.append((mention.whole, text[mention.whole.lowerBound..<mention.domain.lowerBound].count))
        }
        entities.sort { $0.range.lowerBound < $1.range.lowerBound }
        var length = 0
        var cursor = text.startIndex
        for entity in entities where entity.range.lowerBound >= cursor {
            length += text[cursor..<entity.range.lowerBound].count + entity.counted
            cursor = entity.range.upperBound
        }
        return length + text[cursor...].count
    }
}

/// Mentions of accounts on other servers, `@user@domain`, as Mastodon finds them (`Account::MENTION_RE`): not after
/// a word character, `=` or `/` (so not an e-mail address), a user name of letters, digits and `_` joined by `.` or
/// `-`. Mastodon counts such a mention as `@user` and shows it so.
public enum MastodonMention {
    static let pattern = try? NSRegularExpression(
        pattern: #"(?<![=/\w])@[a-z0-9_]+(?:[.-]+[a-z0-9_]+)*(@\w+(?:[.-]+\w+)*)"#, options: [.caseInsensitive])

    /// Each remote mention in `text`: the whole mention and its `@domain` part.
    public static func remote(in text: String) -> [(whole: Range<String.Index>, domain: Range<String.Index>)] {
        (pattern?.matches(in: text, range: NSRange(text.startIndex..., in: text)) ?? []).compactMap { match in
            guard let whole = Range(match.range, in: text), let domain = Range(match.range(at: 1), in: text) else {
                return nil
            }
            return (whole, domain)
        }
    }

    /// `text` with each remote mention's domain dropped: `@user@example.social` as `@user`.
    public static func withoutDomains(_ text: String) -> String {
        var out = ""
        var cursor = text.startIndex
        for mention in remote(in: text) {
            out += text[cursor..<mention.domain.lowerBound]
            cursor = mention.domain.upperBound
        }
        return out + text[cursor...]
    }
}

/// The result of measuring a text against a rule's main limit (JSON keys `weighted_length`, `limit`, `valid`).
public struct LengthCheck: Sendable, Equatable, Codable {
    public var weightedLength: Int
    public var limit: Int
    public var valid: Bool

    enum CodingKeys: String, CodingKey {
        case weightedLength = "weighted_length"
        case limit, valid
    }

    public init(weightedLength: Int, limit: Int, valid: Bool) {
        self.weightedLength = weightedLength
        self.limit = limit
        self.valid = valid
    }
}

/// twitter-text's v3 weighted length (config `v3.json`: scale 100, default weight 200, emoji parsing on, URLs 23).
public enum TwitterText {
    /// Code point ranges that weigh 100 (one character); everything else weighs 200.
    static let lightRanges: [ClosedRange<UInt32>] = [0...4351, 8192...8205, 8208...8223, 8242...8247]
    /// What every URL counts for, whatever its length (t.co wrapping).
    public static let urlLength = 23

    /// Weighted length of `text` after NFC normalisation, and whether it has a character X refuses
    /// (U+FFFE, U+FEFF, U+FFFF).
    public static func weightedLength(_ text: String) -> (length: Int, hasInvalidCharacters: Bool) {
        let normalized = text.precomposedStringWithCanonicalMapping
        var weight = 0
        var invalid = false
        var cursor = normalized.startIndex
        func add(_ slice: Substring) {
            for character in slice {
                if isEmoji(character) {
                    weight += 200
                    continue
                }
                for scalar in character.unicodeScalars {
                    if scalar.value == 0xFFFE || scalar.value == 0xFEFF || scalar.value == 0xFFFF { invalid = true }
                    weight += lightRanges.contains { $0.contains(scalar.value) } ? 100 : 200
                }
            }
        }
        for url in urlRanges(in: normalized, requireScheme: false) {
            add(normalized[cursor..<url.lowerBound])
            weight += urlLength * 100
            cursor = url.upperBound
        }
        add(normalized[cursor...])
        return ((weight + 99) / 100, invalid)
    }

    /// Whether a grapheme cluster is an emoji (presentation emoji, or an emoji sequence: variation selector 16, ZWJ,
    /// skin tone, keycap, flag).
    static func isEmoji(_ character: Character) -> Bool {
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return false }
        if scalars.count == 1 { return first.properties.isEmojiPresentation }
        if (0x1F1E6...0x1F1FF).contains(first.value) { return true }  // flags: regional indicator pairs
        guard first.properties.isEmoji else { return false }
        return scalars.contains { s in
            s.value == 0xFE0F || s.value == 0x200D || s.value == 0x20E3 || (0x1F3FB...0x1F3FF).contains(s.value)
                || (0xE0020...0xE007F).contains(s.value)
        } || first.properties.isEmojiPresentation
    }

    /// Ranges of the URLs in `text` by twitter-text's rules (see `URLScanner`): `http(s)://…` always, `example.com/…`
    /// too unless `requireScheme`.
    public static func urlRanges(in text: String, requireScheme: Bool) -> [Range<String.Index>] {
        let indices = Array(text.unicodeScalars.indices) + [text.endIndex]
        return URLScanner(s: Array(text.unicodeScalars)).ranges(requireScheme: requireScheme)
            .map { indices[$0.lowerBound]..<indices[$0.upperBound] }
    }
}
