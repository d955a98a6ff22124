import Foundation
import Testing

@testable import steptweet

@Suite struct TerminalTextTests {
    @Test func controlSequencesAreShownEscaped() {
        #expect(TerminalText.escaped("a\u{1B}]0;title\u{07}b\u{1B}[2J") == "a\\x1b]0;title\\x07b\\x1b[2J")
        #expect(TerminalText.escaped("line\nnext\r") == "line\\x0anext\\x0d")
        #expect(TerminalText.escaped("c1 \u{9B}31m del \u{7F}") == "c1 \\u{9b}31m del \\x7f")
    }

    @Test func printableTextIsLeftAsItIs() {
        let text = "11/21 10:00:00 〜 11/21 10:30:00 の期間に iPhone 5s を持って 1234 歩 歩きました。\ttab \\ backslash 🚶"
        #expect(TerminalText.escaped(text) == text)
    }

    @Test func invalidUTF8BytesAreShownAsHex() {
        let bytes: [UInt8] =
            Array("ok ".utf8) + [0xFF, 0xC3] + Array(" 歩".utf8) + [0xE6, 0xAD] + [0x1B, 0xED, 0xA0, 0x80]
        #expect(TerminalText.escaped(bytes: bytes) == "ok \\xff\\xc3 歩\\xe6\\xad\\x1b\\xed\\xa0\\x80")
        #expect(TerminalText.escaped(bytes: Array("歩 ok".utf8)) == "歩 ok")
        #expect(TerminalText.escaped(bytes: [0xC0, 0x80]) == "\\xc0\\x80", "overlong forms are invalid")
    }

    @Test func dataIsAcceptedAsBytes() {
        let data = Data([0x1B, 0x5D, 0x30, 0x3B, 0x07]) + Data("歩".utf8) + Data([0xFF, 0xC2, 0x9B])
        #expect(TerminalText.escaped(bytes: data) == "\\x1b]0;\\x07歩\\xff\\u{9b}")
    }
}
