import Foundation
import TestSupport
import Testing

/// `fetch --dry-run` previews the texts without the targets' credentials and names the targets; a real fetch still
/// needs them (78).
@Suite(.temporaryFolder) struct DryRunCommandTests {
    @Test func aDryRunPreviewsWithoutSecretsAndNamesTheTargets() async throws {
        let config = try Steptweet.walkConfig(
            """
            [text]
            time_zone = "Asia/Tokyo"
            [state]
            path = "state.sqlite"
            [[publish]]
            kind = "webhook"
            url_env = "STEPTWEET_TEST_UNSET_HOOK_URL"
            [[publish]]
            kind = "mastodon"
            base_url = "https://m.example"
            token_env = "STEPTWEET_TEST_UNSET_TOKEN"

            """)
        let now = "2026-11-21T10:10:00+09:00"
        let dry = try await Steptweet.run(["fetch", "--config", config, "--now", now, "--dry-run"])
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(dry.stdout.contains("would post: 11/21 10:02:00 〜 11/21 10:10:00 の期間に iPhone 5s を持って "))
        #expect(dry.stdout.contains("\nwould post to: webhook, mastodon\n"), "\(dry.stdout)")
        #expect(dry.stderr.contains("warning: missing credentials: publish[0].url_env: "), "\(dry.stderr)")

        let json = try await Steptweet.run(["fetch", "--config", config, "--now", now, "--dry-run", "--json"])
        #expect(json.status == 0, "\(json.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let deliveries = try #require(object["deliveries"] as? [[String: Any]])
        #expect(deliveries.map { $0["target"] as? String } == ["webhook", "mastodon"])
        #expect(deliveries.map { $0["outcome"] as? String } == ["dry_run", "dry_run"])

        let real = try await Steptweet.run(["fetch", "--config", config, "--now", now])
        #expect(real.status == 78)
        #expect(
            (real.stdout + real.stderr).contains("environment variable STEPTWEET_TEST_UNSET_HOOK_URL is not set"),
            "\(real.stdout)\(real.stderr)")
    }
}
