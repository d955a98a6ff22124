import Foundation
import Messages
import Testing

@Suite struct LengthReportTests {
    func json(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    @Test func blueskyNamesGraphemesAndBytes() throws {
        let heavy = String(repeating: "👨‍👩‍👧", count: 170)
        let report = LengthReport(rule: .bluesky, text: heavy)
        #expect(
            report.limits == [
                LengthLimit(measure: "graphemes", length: 170, max: 300),
                LengthLimit(measure: "bytes", length: 3060, max: 3000),
            ])
        #expect(report.limits.map(\.within) == [true, false])
        #expect(report.line == "170/300 not valid for Bluesky: 170 of 300 graphemes, 3060 of 3000 bytes")
    }

    @Test func xAndMastodonNameTheirLimit() {
        #expect(LengthReport(rule: .x, text: TextLengthTests.seed).line == "107/280 valid for X: 107 of 280 weighted")
        #expect(LengthReport(rule: .mastodon, text: "hi").line == "2/500 valid for Mastodon: 2 of 500 characters")
        #expect(
            LengthReport(rule: .mastodonInstance(5000), text: "hi").limits == [
                LengthLimit(measure: "characters", length: 2, max: 5000)
            ])
    }

    @Test func jsonKeysAreSnakeCase() throws {
        #expect(
            try json(LengthCheck(weightedLength: 107, limit: 280, valid: true))
                == #"{"limit":280,"valid":true,"weighted_length":107}"#)
        #expect(
            try json(LengthReport(rule: .bluesky, text: "歩"))
                == #"{"limit":300,"limits":[{"length":1,"max":300,"measure":"graphemes","within":true},"#
                + #"{"length":3,"max":3000,"measure":"bytes","within":true}],"platform":"Bluesky","valid":true,"weighted_length":1}"#
        )
        let decoded = try JSONDecoder().decode(
            LengthCheck.self, from: Data(#"{"limit":1,"valid":false,"weighted_length":2}"#.utf8))
        #expect(decoded == LengthCheck(weightedLength: 2, limit: 1, valid: false))
    }
}
