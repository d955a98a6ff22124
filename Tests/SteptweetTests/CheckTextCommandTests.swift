import Foundation
import Testing

@Suite struct CheckTextCommandTests {
    static let seed = "11/21 10:00:00 〜 11/21 10:30:00 の期間に iPhone 5s を持って 1234 歩 歩きました。 Tweet By Background Fetch"

    @Test func jsonHasExactlyTheThreeKeys() throws {
        let result = try Steptweet.run(["check-text", "--platform", "x", "--json", Self.seed])
        #expect(result.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(Set(object.keys) == ["weightedLength", "limit", "valid"])
        #expect(object["weightedLength"] as? Int == 107)
        #expect(object["limit"] as? Int == 280)
        #expect(object["valid"] as? Bool == true)
    }

    @Test func readsStandardInputForDash() throws {
        let text = String(repeating: "歩", count: 301)
        let result = try Steptweet.run(["check-text", "--platform", "bluesky", "--json", "-"], stdin: text + "\n")
        #expect(result.status == 65)
        #expect(result.stdout == #"{"limit":300,"valid":false,"weightedLength":301}"# + "\n")
    }

    @Test func plainOutputAndUnknownPlatform() throws {
        let ok = try Steptweet.run(["check-text", "--platform", "mastodon", "https://example.com/" + String(repeating: "a", count: 600)])
        #expect(ok.status == 0)
        #expect(ok.stdout.hasPrefix("23/500 valid"))
        let bad = try Steptweet.run(["check-text", "--platform", "myspace", "hi"])
        #expect(bad.status != 0)
        #expect(bad.stderr.contains("myspace"))
    }
}
