import Foundation
import Messages
import Testing

@Suite struct TextLengthTests {
    static let seed = "11/21 10:00:00 〜 11/21 10:30:00 の期間に iPhone 5s を持って 1234 歩 歩きました。 Tweet By Background Fetch"

    @Test func seedTextCounts107OnX() {
        // Hand count and twitter-text-parser 3.0.0 agree: 75 light characters + 16 heavy ones (CJK, 〜, 。) × 2.
        #expect(LengthRule.x.check(Self.seed) == LengthCheck(weightedLength: 107, limit: 280, valid: true))
        #expect(LengthRule.mastodon.check(Self.seed) == LengthCheck(weightedLength: 91, limit: 500, valid: true))
        #expect(LengthRule.bluesky.check(Self.seed) == LengthCheck(weightedLength: 91, limit: 300, valid: true))
    }

    @Test func xWeightsByCodePointRange() {
        #expect(LengthRule.x.check(String(repeating: "a", count: 280)).valid)
        #expect(
            LengthRule.x.check(String(repeating: "a", count: 281))
                == LengthCheck(weightedLength: 281, limit: 280, valid: false))
        #expect(
            LengthRule.x.check(String(repeating: "歩", count: 140))
                == LengthCheck(weightedLength: 280, limit: 280, valid: true))
        #expect(LengthRule.x.check(String(repeating: "歩", count: 141)).valid == false)
        #expect(LengthRule.x.check("ÀΩЖא").weightedLength == 4)  // Latin, Greek, Cyrillic, Hebrew: below U+10FF
        #expect(LengthRule.x.check("\u{2014}\u{2033}").weightedLength == 2)  // — ″ in the light ranges
        #expect(LengthRule.x.check("\u{2026}").weightedLength == 2)  // … (U+2026) is not
        #expect(LengthRule.x.check("\u{2100}").weightedLength == 2)  // ℀ just outside them
        #expect(LengthRule.x.check("한ｱ").weightedLength == 4)
    }

    @Test func xNormalizesToNFCFirst() {
        #expect(LengthRule.x.check("A\u{301}").weightedLength == 1)  // "Á" decomposed counts as one
        #expect(LengthRule.x.check("\u{FB2C}").weightedLength == 3)  // שּׁ: NFC keeps 3 code points
    }

    @Test func xEmojiSequencesCountTwo() {
        #expect(LengthRule.x.check("👨‍👩‍👧").weightedLength == 2)  // ZWJ family
        #expect(LengthRule.x.check("👍🏽").weightedLength == 2)  // skin tone
        #expect(LengthRule.x.check("🇯🇵").weightedLength == 2)  // flag
        #expect(LengthRule.x.check("❤️").weightedLength == 2)  // heart + VS16
        #expect(LengthRule.x.check("1️⃣").weightedLength == 2)  // keycap
        #expect(
            LengthRule.x.check(String(repeating: "👨‍👩‍👧", count: 140))
                == LengthCheck(weightedLength: 280, limit: 280, valid: true))
    }

    @Test func xURLsCount23() {
        let long = "https://example.com/" + String(repeating: "a", count: 100)
        #expect(LengthRule.x.check(long).weightedLength == 23)
        #expect(LengthRule.x.check("see \(long).").weightedLength == 4 + 23 + 1)
        #expect(LengthRule.x.check("go to example.com now").weightedLength == 6 + 23 + 4)
        #expect(LengthRule.x.check("http://t.co").weightedLength == 23)
        #expect(LengthRule.x.check("歩https://example.com/x").weightedLength == 2 + 23)
        #expect(LengthRule.x.check("abchttps://example.com").weightedLength == 22)  // not a URL after letters
        #expect(LengthRule.x.check("me@example.com").weightedLength == 14)  // an e-mail address is not a URL
        #expect(LengthRule.x.check("(see https://example.com/a_(b))").weightedLength == 5 + 23 + 1)
        #expect(LengthRule.x.check("file.txt and 5s.").weightedLength == 16)  // .txt is not a TLD here
    }

    @Test func xRefusesInvalidCharactersAndEmptyText() {
        #expect(LengthRule.x.check("a\u{FFFE}b").valid == false)
        #expect(LengthRule.x.check("\u{FEFF}").valid == false)
        #expect(LengthRule.x.check("").valid == false)
    }

    @Test func mastodonCountsGraphemesAndOnlySchemeURLs() {
        #expect(LengthRule.mastodon.check(String(repeating: "👨‍👩‍👧", count: 500)).valid)
        #expect(LengthRule.mastodon.check(String(repeating: "👨‍👩‍👧", count: 501)).valid == false)
        let url = "https://example.com/" + String(repeating: "x", count: 600)
        #expect(LengthRule.mastodon.check("a \(url)") == LengthCheck(weightedLength: 25, limit: 500, valid: true))
        #expect(LengthRule.mastodon.check("example.com").weightedLength == 11)
    }

    /// Mastodon's `StatusLengthValidator` counts a mention as `@user`, whatever its domain (posting-targets.md §1).
    @Test func mastodonCountsARemoteMentionWithoutItsDomain() {
        #expect(LengthRule.mastodon.check("hi @taro@steps.example.social").weightedLength == 8)
        #expect(LengthRule.mastodon.check("hi @taro").weightedLength == 8)
        #expect(LengthRule.mastodon.check("@Taro.Y@sub-1.example.social.").weightedLength == 8)  // "@Taro.Y."
        // Not mentions: an e-mail address, an `@` after `=` or `/`.
        #expect(LengthRule.mastodon.check("mail taro@example.com").weightedLength == 21)
        #expect(LengthRule.mastodon.check("a=@taro@example.com").weightedLength == 19)
        // Inside a URL, the URL's 23 is all that counts.
        #expect(LengthRule.mastodon.check("https://example.social/@taro@example.social").weightedLength == 23)
        let instance = LengthRule.mastodonInstance(500, urlLength: 10)
        #expect(instance.check("x @a@b.example https://example.com/long/path").weightedLength == 15)
        // 480 characters and a mention of a 40-character domain: within 500, as Mastodon counts it.
        let text = String(repeating: "歩", count: 480) + " @taro@" + String(repeating: "d", count: 33) + ".example"
        #expect(LengthRule.mastodon.check(text) == LengthCheck(weightedLength: 486, limit: 500, valid: true))
    }

    @Test func blueskyLimitsGraphemesAndBytes() {
        #expect(LengthRule.bluesky.check(String(repeating: "a", count: 300)).valid)
        #expect(LengthRule.bluesky.check(String(repeating: "a", count: 301)).valid == false)
        // 300 graphemes of 18 bytes each: within 300 graphemes but over 3000 bytes.
        let heavy = String(repeating: "👨‍👩‍👧", count: 170)
        #expect(heavy.utf8.count == 3060)
        #expect(LengthRule.bluesky.check(heavy) == LengthCheck(weightedLength: 170, limit: 300, valid: false))
    }

    /// Code points: each scalar of an emoji sequence counts (Misskey, Discord), where graphemes count it once.
    @Test func codePointsCountEveryScalarAndCutBetweenGraphemes() throws {
        let flags = String(repeating: "🇯🇵", count: 3)  // 3 graphemes, 6 code points
        #expect(LengthRule.codePoints(6).check(flags) == LengthCheck(weightedLength: 6, limit: 6, valid: true))
        #expect(LengthRule.codePoints(5).check(flags).valid == false)
        #expect(LengthRule.characters(5).check(flags).valid)
        #expect(LengthRule.codePoints(5).shorten(flags) == "🇯🇵🇯🇵…")  // never half a flag
        #expect(LengthRule.codePoints(3).check("").valid == false)
        #expect(
            LengthRule.codePoints(5).limits(flags) == [LengthLimit(measure: "code points", length: 6, max: 5)])
        #expect(LengthRule.codePoints(3000).description == "3000 code points")
    }

    @Test func shortenCutsAtAGraphemeBoundaryWithAnEllipsis() throws {
        let text = String(repeating: "歩", count: 200)
        let cut = try #require(LengthRule.x.shorten(text))
        #expect(cut == String(repeating: "歩", count: 139) + "…")
        #expect(LengthRule.x.check(cut).valid)
        let families = String(repeating: "👨‍👩‍👧", count: 200)
        let cutFamilies = try #require(LengthRule.bluesky.shorten(families))
        #expect(cutFamilies.hasSuffix("…"))
        #expect(cutFamilies.dropLast().allSatisfy { $0 == "👨‍👩‍👧" })  // no family split in the middle
        #expect(LengthRule.bluesky.check(cutFamilies).valid)
        #expect(cutFamilies.utf8.count > 2900)
        #expect(LengthRule.x.shorten("short") == "short")
        #expect(LengthRule.characters(5).shorten("hello world") == "hell…")
        #expect(LengthRule.characters(0).shorten("hello") == nil)
    }

    @Test func platformNames() {
        #expect(LengthRule.platform("x") == .x)
        #expect(LengthRule.platform("Mastodon") == .mastodon)
        #expect(LengthRule.platform("bluesky") == .bluesky)
        #expect(LengthRule.platform("myspace") == nil)
    }
}
