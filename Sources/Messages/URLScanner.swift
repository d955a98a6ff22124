/// Finds URLs the way twitter-text's extractor does (v3), so that each can be counted as 23:
///
/// - a URL starts after any character but an ASCII letter or digit, `@ ＠ $ # ＃` or U+FFFE/FEFF/FFFF; directional
///   formatting characters (U+202A–202E, U+2066–2069, LRM, RLM, ALM) may come right before it and never belong to it;
/// - `http://` or `https://`, then a host: labels of letters, digits, symbols, `-` inside (and `_` in sub-domains),
///   ending in a top-level domain of the Public Suffix List (ICANN section, internationalised ones included) or an
///   `xn--` label, followed by neither an ASCII letter or digit nor `@ + -`;
/// - then an optional port, a path (balanced parentheses, ending in a letter, digit or one of `+-=_#/`) and a query;
/// - without a protocol only the ASCII part of the host counts; `name.cc` with a country code but `co`/`tv` needs a
///   path; a `/` `.` `-` `_` right before it is refused; the path belongs to it but not a port or a query;
/// - each host label must be 1–63 characters once converted to ASCII (Punycode), and the URL with that host at most
///   4096 (with `https://` added when it has no protocol);
/// - `t.co` links end after their slug.
struct URLScanner {
    let s: [Unicode.Scalar]

    static let maxURLLength = 4096
    static let maxLabelLength = 63
    static let maxTLDLength = TopLevelDomains.all.map { $0.unicodeScalars.count }.max() ?? 24

    /// Scalar offsets of the URLs, in order. With `requireScheme`, only URLs with `http(s)://` (Mastodon).
    func ranges(requireScheme: Bool) -> [Range<Int>] {
        var found: [Range<Int>] = []
        var i = 0
        while i < s.count {
            if i > 0 && Self.refusedBefore(s[i - 1]) {
                i += 1
                continue
            }
            let scheme = schemeLength(at: i)
            if scheme > 0, let m = match(from: i, hostStart: i + scheme) {
                if let url = validated(m, start: i, scheme: scheme) { found.append(url) }
                i = m.end
            } else if let m = match(from: i, hostStart: i) {
                if !requireScheme, let url = withoutProtocol(m, start: i) { found.append(url) }
                i = m.end
            } else if let end = labelEnd(from: i, underscore: true), end < s.count ? s[end] != "." : true {
                // No start inside this label reaches a dot either, but a protocol may begin in it (`歩https://…`).
                // Skipping the rest keeps long unspaced text linear.
                i += 1
                while i < end, Self.refusedBefore(s[i - 1]) || schemeLength(at: i) == 0 { i += 1 }
            } else {
                i += 1
            }
        }
        return found
    }

    struct Match {
        var host: Range<Int>
        var path: Range<Int>?
        var end: Int
    }

    /// The longest URL shape starting with a host at `hostStart`.
    func match(from start: Int, hostStart: Int) -> Match? {
        guard let hostEnd = hostEnd(from: hostStart) else { return nil }
        var end = hostEnd
        if end + 1 < s.count, s[end] == ":", Self.isDigit(s[end + 1]) {
            end += 1
            while end < s.count, Self.isDigit(s[end]) { end += 1 }
        }
        var path: Range<Int>?
        if end < s.count, s[end] == "/" {
            let pathEnd = self.pathEnd(from: end + 1)
            path = end..<pathEnd
            end = pathEnd
        }
        if end < s.count, s[end] == "?" { end = queryEnd(from: end + 1) ?? end }
        return Match(host: hostStart..<hostEnd, path: path, end: end)
    }

    /// End of a host starting at `p`: sub-domains, a domain name and a known TLD (greedy, backing off label by label).
    func hostEnd(from p: Int) -> Int? {
        var labelStarts: [Int] = []
        var q = p
        while let end = labelEnd(from: q, underscore: true), end < s.count, s[end] == "." {
            labelStarts.append(q)
            q = end + 1
        }
        labelStarts.append(q)
        // The TLD starts at one of the label starts after the first; the label before it may not hold `_`.
        for k in stride(from: labelStarts.count - 1, through: 1, by: -1) {
            let name = labelStarts[k - 1]..<(labelStarts[k] - 1)
            if s[name].contains("_") { continue }
            if let end = tldEnd(at: labelStarts[k]) { return end }
        }
        return nil
    }

    /// End of a label at `p`: starts and ends with a domain character, `-` (and `_`) only inside.
    func labelEnd(from p: Int, underscore: Bool) -> Int? {
        guard p < s.count, Self.isDomainChar(s[p]) else { return nil }
        var q = p
        var lastDomainChar = p
        while q < s.count, Self.isDomainChar(s[q]) || s[q] == "-" || (underscore && s[q] == "_") {
            if Self.isDomainChar(s[q]) { lastDomainChar = q }
            q += 1
        }
        return lastDomainChar + 1
    }

    /// End of the longest known TLD (or `xn--` label) at `p` not followed by an ASCII letter, digit, `@`, `+`, `-`.
    func tldEnd(at p: Int) -> Int? {
        if p + 4 < s.count, String(String.UnicodeScalarView(s[p..<p + 4])).lowercased() == "xn--" {
            var q = p + 4
            while q < s.count, s[q].isASCII, Self.isASCIIAlnum(s[q]) || s[q] == "-" { q += 1 }
            if q > p + 4 { return q }
        }
        var length = min(Self.maxTLDLength, s.count - p)
        while length >= 2 {
            let end = p + length
            if end == s.count || !Self.refusedAfterTLD(s[end]),
                TopLevelDomains.all.contains(String(String.UnicodeScalarView(s[p..<end])).lowercased())
            {
                return end
            }
            length -= 1
        }
        return nil
    }

    /// End of a path whose characters start at `p` (after its `/`).
    func pathEnd(from p: Int) -> Int {
        var q = p
        var good = p
        var depth = 0
        while q < s.count {
            let c = s[q]
            if c == "(" {
                if depth >= 2 { break }
                depth += 1
            } else if c == ")" {
                if depth == 0 { break }
                depth -= 1
                if depth == 0 { good = q + 1 }
            } else if Self.isPathChar(c) {
                if depth == 0 && Self.isPathEnding(c) { good = q + 1 }
            } else {
                break
            }
            q += 1
        }
        return good
    }

    /// End of a query whose characters start at `p` (after its `?`), or nil when none ends well.
    func queryEnd(from p: Int) -> Int? {
        var q = p
        var good: Int?
        while q < s.count, s[q].isASCII,
            Self.isASCIIAlnum(s[q]) || "!?*'@();:&=+$/%#[]-_.,~|".unicodeScalars.contains(s[q])
        {
            if Self.isASCIIAlnum(s[q]) || "-_&=#/".unicodeScalars.contains(s[q]) { good = q + 1 }
            q += 1
        }
        return good
    }

    /// A URL with a protocol, if its host and length are valid; t.co links cut after the slug.
    func validated(_ m: Match, start: Int, scheme: Int) -> Range<Int>? {
        var end = m.end
        if let path = m.path, String(String.UnicodeScalarView(s[m.host])).lowercased() == "t.co" {
            var q = path.lowerBound + 1
            while q < s.count, s[q].isASCII, Self.isASCIIAlnum(s[q]) { q += 1 }
            if q > path.lowerBound + 1 { end = q }
        }
        return validHost(m.host, urlLength: utf16Length(start..<end), protocolLength: 0) ? start..<end : nil
    }

    /// A URL without a protocol: the last ASCII host inside the matched host, with the path if there is one.
    func withoutProtocol(_ m: Match, start: Int) -> Range<Int>? {
        if start > 0 && "-_./".unicodeScalars.contains(s[start - 1]) { return nil }
        var asciiStart = m.host.lowerBound
        for q in m.host where !Self.isASCIIDomainChar(s[q]) { asciiStart = q + 1 }
        guard asciiStart < m.host.upperBound,
            let hostEnd = hostEnd(from: asciiStart), hostEnd == m.host.upperBound
        else { return nil }
        let host = asciiStart..<hostEnd
        if m.path == nil {
            let labels = String(String.UnicodeScalarView(s[host])).lowercased().split(separator: ".")
            if labels.count == 2, labels[1].count == 2, labels[1].allSatisfy(\.isASCII), labels[1] != "co",
                labels[1] != "tv"
            {
                return nil
            }
        }
        let end = m.path == nil ? hostEnd : m.end
        return validHost(host, urlLength: utf16Length(asciiStart..<end), protocolLength: 8) ? asciiStart..<end : nil
    }

    /// twitter-text's `isValidHostAndLength`: every label 1–63 once in ASCII, the URL at most 4096 UTF-16 units.
    func validHost(_ host: Range<Int>, urlLength: Int, protocolLength: Int) -> Bool {
        var asciiLength = 0
        for label in String(String.UnicodeScalarView(s[host])).split(separator: ".", omittingEmptySubsequences: false) {
            guard let ascii = Punycode.asciiLabel(label), (1...Self.maxLabelLength).contains(ascii.utf8.count) else {
                return false
            }
            asciiLength += ascii.utf8.count + 1
        }
        asciiLength -= 1
        return urlLength - utf16Length(host) + asciiLength + protocolLength <= Self.maxURLLength
    }

    func utf16Length(_ r: Range<Int>) -> Int { s[r].reduce(0) { $0 + UTF16.width($1) } }

    func schemeLength(at i: Int) -> Int {
        for scheme in ["https://", "http://"] {
            let n = scheme.unicodeScalars.count
            if i + n <= s.count, String(String.UnicodeScalarView(s[i..<i + n])).lowercased() == scheme { return n }
        }
        return 0
    }

    static let directional: Set<UInt32> = [
        0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069,
        0x200E, 0x200F, 0x061C,
    ]
    static let invalid: Set<UInt32> = [0xFFFE, 0xFEFF, 0xFFFF]

    static func refusedBefore(_ c: Unicode.Scalar) -> Bool {
        isASCIIAlnum(c) || "@＠$#＃".unicodeScalars.contains(c) || invalid.contains(c.value)
    }

    static func refusedAfterTLD(_ c: Unicode.Scalar) -> Bool { isASCIIAlnum(c) || c == "@" || c == "+" || c == "-" }

    /// Any character but ASCII punctuation, spaces, controls, invalid and directional characters.
    static func isDomainChar(_ c: Unicode.Scalar) -> Bool {
        if c.isASCII { return isASCIIAlnum(c) }
        let p = c.properties
        return !p.isWhitespace && c.value >= 0xA0 && !invalid.contains(c.value) && !directional.contains(c.value)
            && p.generalCategory != .format && p.generalCategory != .lineSeparator
            && p.generalCategory != .paragraphSeparator
    }

    static func isASCIIAlnum(_ c: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(c) || ("A"..."Z").contains(c) || ("0"..."9").contains(c)
    }

    static func isDigit(_ c: Unicode.Scalar) -> Bool { ("0"..."9").contains(c) }

    /// twitter-text's Latin accented letters (allowed in ASCII hosts and paths).
    static func isLatinAccent(_ c: Unicode.Scalar) -> Bool {
        switch c.value {
        case 0xC0...0xD6, 0xD8...0xF6, 0xF8...0xFF, 0x100...0x24F, 0x253, 0x254, 0x256, 0x257, 0x259, 0x25B, 0x263,
            0x268, 0x26F, 0x272, 0x289, 0x28B, 0x2BB, 0x300...0x36F, 0x1E00...0x1EFF:
            return true
        default: return false
        }
    }

    static func isASCIIDomainChar(_ c: Unicode.Scalar) -> Bool {
        isASCIIAlnum(c) || c == "-" || c == "_" || c == "." || isLatinAccent(c)
    }

    static func isPathChar(_ c: Unicode.Scalar) -> Bool {
        isASCIIAlnum(c) || (0x400...0x4FF).contains(c.value) || isLatinAccent(c) || c == "\u{2013}"
            || "!*';:=+,.$/%#[]-_~|&@".unicodeScalars.contains(c)
    }

    static func isPathEnding(_ c: Unicode.Scalar) -> Bool {
        isASCIIAlnum(c) || (0x400...0x4FF).contains(c.value) || isLatinAccent(c) || "+-=_#/".unicodeScalars.contains(c)
    }
}
