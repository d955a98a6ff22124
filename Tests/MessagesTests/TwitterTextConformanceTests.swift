import Foundation
import Testing

@testable import Messages

/// The weighted-length cases of twitter-text's published conformance suite (v3 sections), committed in
/// fixtures/twitter-text/validate-lengths.json (Apache-2.0).
@Suite struct TwitterTextConformanceTests {
    struct Case: Decodable {
        var section: String
        var description: String
        var text: String
        var weightedLength: Int
        var valid: Bool
        var utf16Length: Int
    }

    static let snakeCaseDecoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }()

    static let cases: [Case] = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("fixtures/twitter-text/validate-lengths.json")
        struct Document: Decodable { var cases: [Case] }
        guard let data = try? Data(contentsOf: url),
            let doc = try? Self.snakeCaseDecoder.decode(Document.self, from: data)
        else {
            return []
        }
        return doc.cases
    }()

    @Test func fixtureHoldsAll24Cases() {
        #expect(Self.cases.count == 24, "fixtures/twitter-text/validate-lengths.json missing or unreadable")
        #expect(Self.cases.allSatisfy { $0.text.utf16.count == $0.utf16Length })
    }

    @Test(arguments: cases.map(\.description))
    func weightedLengthMatchesTheSuite(_ description: String) throws {
        let c = try #require(Self.cases.first { $0.description == description })
        let check = LengthRule.x.check(c.text)
        #expect(check.weightedLength == c.weightedLength, "\(c.section): \(c.description)")
        #expect(check.valid == c.valid, "\(c.section): \(c.description)")
    }
}

@Suite struct URLRuleTests {
    func urls(_ text: String, requireScheme: Bool = false) -> [String] {
        TwitterText.urlRanges(in: text, requireScheme: requireScheme).map { String(text[$0]) }
    }

    @Test func punycodeMatchesRFC3492() {
        #expect(Punycode.encode("bücher".unicodeScalars) == "bcher-kva")
        #expect(Punycode.encode("ü".unicodeScalars) == "tda")
        #expect(Punycode.encode("みんな".unicodeScalars) == "q9jyb4c")
        #expect(Punycode.encode("日本語".unicodeScalars) == "wgv71a119e")
        #expect(Punycode.encode("3年B組金八先生".unicodeScalars) == "3B-ww4c5e180e575a65lsy2b")  // RFC 3492 §7.1 (L)
        #expect(Punycode.encode("پاکستان".unicodeScalars) == "mgbai9azgqp6j")
        #expect(Punycode.asciiLabel("Example") == "example")
        #expect(Punycode.asciiLabel("ドメイン") == "xn--eckwd4c7c")
    }

    @Test func fullTLDListWithInternationalisedOnes() {
        #expect(TopLevelDomains.all.count > 1400)
        #expect(urls("see example.photography now") == ["example.photography"])
        #expect(urls("http://例え.みんな/") == ["http://例え.みんな/"])
        #expect(urls("http://пример.рф") == ["http://пример.рф"])
        #expect(urls("file.txt and 5s.") == [])
        #expect(urls("example.comです") == ["example.com"])  // a TLD ends before Japanese text
        #expect(urls("example.community") == ["example.community"])
        #expect(urls("example.comx") == [])
    }

    @Test func labelLengthsCountInPunycode() {
        let label63 = String(repeating: "a", count: 63)
        let label64 = String(repeating: "a", count: 64)
        #expect(urls("\(label63).com") == ["\(label63).com"])
        #expect(urls("\(label64).com") == [])
        #expect(urls("http://\(label64).com/x") == [])
        // The longest kana label that fits in 63 once encoded, found by the encoder itself, and one more.
        let kana = Array(String(repeating: "あいうえおかきくけこさしすせそたちつてとなにぬねの", count: 3))
        let fits = (1..<kana.count).last { Punycode.asciiLabel(String(kana[0..<$0]))!.count <= 63 }!
        #expect(fits > 10 && fits < 60)
        #expect(urls("http://\(String(kana[0..<fits])).com") == ["http://\(String(kana[0..<fits])).com"])
        #expect(urls("http://\(String(kana[0..<fits + 1])).com") == [])
    }

    @Test func urlsWithoutProtocol() {
        #expect(urls("www.example.com and foo.co.jp") == ["www.example.com", "foo.co.jp"])
        #expect(urls("t.co x.tv") == ["t.co", "x.tv"])
        #expect(urls("example.jp") == [])  // name + country code needs a path
        #expect(urls("example.jp/path") == ["example.jp/path"])
        #expect(urls("example.com:8080 x") == ["example.com"])  // a port alone stays outside without a protocol
        #expect(urls("example.com:8080/x") == ["example.com:8080/x"])
        #expect(urls("a/example.com _example.com") == [])
        #expect(urls("歩example.com") == ["example.com"])
        #expect(urls("example.com", requireScheme: true) == [])
    }

    @Test func directionalCharactersStayOutside() {
        #expect(urls("\u{202B}https://example.com/a\u{202C}") == ["https://example.com/a"])
        #expect(urls("\u{2067}example.com\u{2069}") == ["example.com"])
        #expect(LengthRule.x.check("\u{200F}example.com\u{200E}").weightedLength == 2 + 23 + 2)  // U+200E/F weigh 2
    }

    @Test func pathsAndQueries() {
        #expect(urls("https://example.com/a.b, next") == ["https://example.com/a.b"])
        #expect(urls("https://example.com/wiki/Foo_(bar)) x") == ["https://example.com/wiki/Foo_(bar)"])
        #expect(urls("https://example.com/?q=1&r=2.") == ["https://example.com/?q=1&r=2"])
        #expect(urls("https://example.com/x歩") == ["https://example.com/x"])
        #expect(urls("http://t.co/abc123.def") == ["http://t.co/abc123"])
        #expect(urls("http://test_underscore.twitter.com") == ["http://test_underscore.twitter.com"])
        #expect(urls("http://www.-domain4352.com/") == [])
    }
}
