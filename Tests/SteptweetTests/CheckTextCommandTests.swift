import Foundation
import TestSupport
import Testing

@Suite(.temporaryFolder) struct CheckTextCommandTests {
    static let seed = "11/21 10:00:00 〜 11/21 10:30:00 の期間に iPhone 5s を持って 1234 歩 歩きました。 Tweet By Background Fetch"

    @Test func jsonHasSnakeCaseKeysAndEveryLimit() async throws {
        let result = try await Steptweet.run(["check-text", "--platform", "x", "--json", Self.seed])
        #expect(result.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(Set(object.keys) == ["platform", "weighted_length", "limit", "valid", "limits"])
        #expect(object["weighted_length"] as? Int == 107)
        #expect(object["platform"] as? String == "X")
        #expect(object["limit"] as? Int == 280)
        #expect(object["valid"] as? Bool == true)
    }

    @Test func readsStandardInputForDash() async throws {
        let text = String(repeating: "歩", count: 301)
        let result = try await Steptweet.run(
            ["check-text", "--platform", "bluesky", "--json", "-"], stdin: text + "\n")
        #expect(result.status == 65)
        #expect(
            result.stdout == #"{"limit":300,"limits":[{"length":301,"max":300,"measure":"graphemes","within":false},"#
                + #"{"length":903,"max":3000,"measure":"bytes","within":true}],"platform":"Bluesky","valid":false,"weighted_length":301}"#
                + "\n")
    }

    @Test func plainOutputAndUnknownPlatform() async throws {
        let ok = try await Steptweet.run([
            "check-text", "--platform", "mastodon", "https://example.com/" + String(repeating: "a", count: 600),
        ])
        #expect(ok.status == 0)
        #expect(ok.stdout == "23/500 valid for Mastodon: 23 of 500 characters\n")
        let instance = try await Steptweet.run([
            "check-text", "--platform", "mastodon", "--max-characters", "5000", "hi",
        ])
        #expect(instance.stdout == "2/5000 valid for Mastodon: 2 of 5000 characters\n")
        let bytes = try await Steptweet.run(["check-text", "--platform", "bsky", String(repeating: "👨‍👩‍👧", count: 170)])
        #expect(bytes.status == 65)
        #expect(bytes.stdout == "170/300 not valid for Bluesky: 170 of 300 graphemes, 3060 of 3000 bytes\n")
        let bad = try await Steptweet.run(["check-text", "--platform", "myspace", "hi"])
        #expect(bad.status != 0)
        #expect(bad.stderr.contains("myspace"))
    }

    @Test func helpListsThePlatforms() async throws {
        let help = try await Steptweet.run(["check-text", "--help"])
        let words = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(words.contains("(values: x, mastodon, bluesky)"))
        let misplaced = try await Steptweet.run(["check-text", "--platform", "x", "--max-characters", "9", "hi"])
        #expect(misplaced.status == 64)
        #expect(misplaced.stderr.contains("--max-characters"))
    }
}
