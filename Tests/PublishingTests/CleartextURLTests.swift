import Foundation
import Publishing
import Testing

/// A target's plain `http` URL to another machine is a warning naming the key: the token (or the secret in a webhook's
/// URL) and the posts would cross the network unencrypted. Before, it was taken silently; loopback stays quiet.
@Suite struct CleartextURLTests {
    func warnings(_ toml: String, _ environment: [String: String] = ["TOK": "t"]) throws -> [String] {
        try PublisherFactory.make(toml: toml, environment: environment).warnings
    }

    @Test func aBaseURLInPlainHTTPToAnotherMachineIsAWarningNamingItsKey() throws {
        let mastodon = "[[publish]]\nkind = \"mastodon\"\ntoken_env = \"TOK\"\nbase_url = "
        #expect(
            try warnings(mastodon + "\"http://m.example\"") == [
                "publish[0].base_url: http://m.example is plain http to another machine: the posts and the "
                    + "credentials cross the network unencrypted; use https://"
            ])
        #expect(
            try warnings("[[publish]]\nkind = \"ntfy\"\ntopic = \"t\"\nbase_url = \"HTTP://ntfy.lan:80\"").count == 1)
        for quiet in ["https://m.example", "http://127.0.0.1:8080", "http://localhost:3000", "http://[::1]:8080"] {
            #expect(try warnings(mastodon + "\"\(quiet)\"").isEmpty, "\(quiet)")
        }
    }

    @Test func aSecretWebhookURLInPlainHTTPIsAWarningThatDoesNotShowIt() throws {
        let webhook = "[[publish]]\nkind = \"webhook\"\nurl_env = \"HOOK\""
        let found = try warnings(webhook, ["HOOK": "http://hooks.example/secret-path"])
        #expect(found.count == 1)
        #expect(found.first?.hasPrefix("publish[0].url_env: the URL is plain http") == true, "\(found)")
        #expect(found.allSatisfy { !$0.contains("secret-path") && !$0.contains("hooks.example") })
        #expect(try warnings(webhook, ["HOOK": "http://127.0.0.1:9/hook"]).isEmpty)
    }
}
