import Foundation

/// What detection looks at: the first lines of a file (BOM and CR removed, blank lines dropped) and its name.
public struct Sniff: Sendable {
    public var lines: [String]
    public var fileName: String
    /// The first up-to-8 KiB as text, for formats that are recognised by a marker anywhere near the start.
    public var head: String
    /// The first up-to-4 KiB as bytes, for binary formats recognised by a magic number.
    public var magic: [UInt8]
    /// The delimiter Excel's `sep=` line declared (the line itself is not in `lines`), nil when there was none.
    public var separator: Character?

    public init(lines: [String], fileName: String, head: String? = nil, magic: [UInt8]? = nil) {
        self.lines = lines
        self.fileName = fileName
        self.head = head ?? lines.joined(separator: "\n")
        self.magic = magic ?? Array((head ?? lines.joined(separator: "\n")).utf8.prefix(4096))
    }

    /// Whether the bytes start with `prefix` at `offset`.
    func magic(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
        magic.count >= offset + prefix.count && Array(magic[offset..<offset + prefix.count]) == prefix
    }

    public var first: String { lines.first ?? "" }

    /// `line`'s fields: split at the declared `separator`, else as `Sniff.fields` guesses.
    func fields(_ line: String) -> [Substring] {
        separator.map { line.split(separator: $0, omittingEmptySubsequences: false) } ?? Self.fields(line)
    }

    /// Splits a line at `,` `;` tab or runs of spaces, whichever is most frequent.
    static func fields(_ line: String) -> [Substring] {
        let counts = [",", ";", "\t"].map { d in (d, line.filter { String($0) == d }.count) }
        if let best = counts.max(by: { $0.1 < $1.1 }), best.1 > 0 {
            return line.split(separator: Character(best.0), omittingEmptySubsequences: false)
        }
        return line.split(whereSeparator: { $0 == " " || $0 == "\t" })
    }

    static func isNumber(_ s: Substring) -> Bool {
        let t = Array(s.trimmingPrefixSpaces().utf8)
        return t.withUnsafeBufferPointer { b in
            b.baseAddress.map { NumberParsing.parseDouble($0, 0, t.count) != nil } ?? false
        }
    }
}
