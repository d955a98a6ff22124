import Foundation
import Messages
import TOMLKit
import Testing

@testable import Publishing

@Suite struct PublisherFactoryTests {
    let environment = [
        "MASTO_TOKEN": "masto-secret", "X_CK": "ck", "X_CS": "cs", "X_AT": "at", "X_TS": "ts", "X_BEARER": "xb",
        "MATRIX_TOKEN": "syt_m", "BSKY_PASS": "app-pass", "DISCORD_URL": "https://discord.com/api/webhooks/1/tok",
        "SLACK_URL": "https://hooks.slack.com/services/T/B/X", "HOOK_URL": "https://example.org/hook/secret",
    ]

    /// Secret files served from memory: path -> (contents, mode).
    func files(_ table: [String: (String, Int)]) -> (String) throws -> SecretFile {
        { path in
            guard let (contents, mode) = table[path] else { throw SecretFileError(message: "no such file \(path)") }
            return SecretFile(contents: contents, permissions: mode)
        }
    }

    func make(_ toml: String, files table: [String: (String, Int)] = [:]) throws(ConfigurationError) -> PublisherSet {
        try PublisherFactory.make(toml: toml, environment: environment, readFile: files(table))
    }

    func error(_ toml: String, files table: [String: (String, Int)] = [:]) -> ConfigurationError? {
        do {
            _ = try make(toml, files: table)
            return nil
        } catch { return error }
    }

    @Test func everyKindFromOneDocument() throws {
        let set = try make(
            """
            [[publish]]
            kind = "mastodon"
            base_url = "https://mastodon.example"
            token_env = "MASTO_TOKEN"
            visibility = "unlisted"
            language = "ja"
            shorten = true

            [[publish]]
            kind = "x"
            consumer_key_env = "X_CK"
            consumer_secret_env = "X_CS"
            token_env = "X_AT"
            token_secret_file = "/secrets/x_ts"

            [[publish]]
            kind = "x"
            name = "x-oauth2"
            token_env = "X_BEARER"

            [[publish]]
            kind = "matrix"
            base_url = "http://127.0.0.1:8008"
            token_env = "MATRIX_TOKEN"
            room_id = "!abc:localhost"

            [[publish]]
            kind = "bluesky"
            identifier = "steps.bsky.social"
            password_env = "BSKY_PASS"

            [[publish]]
            kind = "discord"
            url_env = "DISCORD_URL"

            [[publish]]
            kind = "slack"
            url_env = "SLACK_URL"

            [[publish]]
            kind = "ntfy"
            topic = "steps"
            priority = 2
            tags = ["walking"]

            [[publish]]
            kind = "webhook"
            url_env = "HOOK_URL"
            body_template = '{"content": {{text}}}'
            headers = { "X-Source" = "steptweet" }

            [[publish]]
            kind = "stdout"

            [[publish]]
            kind = "file"
            path = "/tmp/posts.jsonl"
            """, files: ["/secrets/x_ts": ("ts-from-file\n", 0o600)])
        #expect(
            set.publishers.map(\.name) == [
                "mastodon", "x", "x-oauth2", "matrix", "bluesky", "discord", "slack", "ntfy",
                "webhook", "stdout", "file",
            ])
        #expect(set.warnings.isEmpty)
        let mastodon = try #require(set.publishers[0] as? MastodonPublisher)
        #expect(mastodon.visibility == "unlisted" && mastodon.language == "ja" && mastodon.shorten)
        let x = try #require(set.publishers[1] as? XPublisher)
        #expect(
            x.authentication
                == .oauth1(
                    OAuth1Credentials(consumerKey: "ck", consumerSecret: "cs", token: "at", tokenSecret: "ts-from-file")
                ))
        #expect(x.baseURL.absoluteString == "https://api.x.com")
        #expect((set.publishers[2] as? XPublisher)?.authentication == .bearer("xb"))
        #expect(
            set.publishers.map(\.lengthRule) == [
                .mastodon, .x, .x, .utf8Bytes(60_000), .bluesky, .codePoints(2000),
                .characters(4000), .utf8Bytes(4095), nil, nil, nil,
            ])
        for publisher in set.publishers {
            for secret in [
                "masto-secret", "syt_m", "app-pass", "/api/webhooks/1/tok", "services/T/B/X", "hook/secret",
                "ts-from-file",
            ] {
                #expect(!publisher.redactedDescription.contains(secret), "\(publisher.name) shows \(secret)")
            }
        }
    }

    @Test func unknownKeysAreErrorsNamingTheKey() {
        #expect(
            error("[[publish]]\nkind = \"stdout\"\ncolour = \"red\"")
                == ConfigurationError(path: "publish[0].colour", message: "unknown key for kind \"stdout\""))
        #expect(
            error("[[publish]]\nkind = \"mastodon\"\nbase_url = \"https://m.example\"")
                == ConfigurationError(
                    path: "publish[0].token_env",
                    message: "missing: set token_env (an environment variable name) or token_file (a file path)"))
        #expect(
            error("[[publish]]\nkind = \"mastodon\"\nbase_url = \"https://m.example\"\ntoken = \"inline!\"")
                == ConfigurationError(
                    path: "publish[0].token", message: "secrets are never written inline; use token_env or token_file"))
        #expect(
            error("[[publish]]\nkind = \"slack\"\nurl = \"https://hooks.slack.com/services/T/B/X\"")?.message.contains(
                "url_env") == true)
        #expect(
            error("[[publish]]\nkind = \"slack\"\nurl_env = \"SLACK_URL\"\nroom_id = \"!a:b\"")?.path
                == "publish[0].room_id")
    }

    @Test func missingSecretsNameTheVariableOrFile() {
        let unset = error(
            "[[publish]]\nkind = \"stdout\"\n[[publish]]\nkind = \"matrix\"\nbase_url = \"http://127.0.0.1:8008\"\ntoken_env = \"NOPE\"\nroom_id = \"!a:b\""
        )
        #expect(
            unset
                == ConfigurationError(
                    path: "publish[1].token_env", message: "environment variable NOPE is not set or is empty",
                    isMissingSecret: true))
        let noFile = error("[[publish]]\nkind = \"ntfy\"\ntopic = \"t\"\ntoken_file = \"/run/none\"")
        #expect(
            noFile
                == ConfigurationError(
                    path: "publish[0].token_file", message: "no such file /run/none", isMissingSecret: true))
        let both = error("[[publish]]\nkind = \"ntfy\"\ntopic = \"t\"\ntoken_env = \"A\"\ntoken_file = \"/b\"")
        #expect(both?.path == "publish[0].token_env")
        #expect(both?.isMissingSecret == false)
        let partial = error(
            "[[publish]]\nkind = \"x\"\nconsumer_key_env = \"X_CK\"\ntoken_env = \"X_AT\"\ntoken_secret_env = \"X_TS\"")
        #expect(partial?.path == "publish[0].consumer_secret_env")
    }

    /// OAuth 2.0 kept alive: `client_id`, `refresh_token_*` (the seed), optionally `client_secret_*` and `token_*`.
    @Test func xWithARefreshToken() throws {
        let set = try make(
            """
            [[publish]]
            kind = "x"
            client_id = "cid"
            refresh_token_file = "/secrets/x_refresh"

            [[publish]]
            kind = "x"
            name = "x-confidential"
            base_url = "https://x.example"
            client_id = "cid"
            client_secret_env = "X_CS"
            refresh_token_env = "X_TS"
            token_env = "X_AT"
            """, files: ["/secrets/x_refresh": ("rt-from-file\n", 0o600)])
        #expect(
            (set.publishers[0] as? XPublisher)?.authentication
                == .oauth2(
                    OAuth2Client(
                        tokenURL: URL(string: "https://api.x.com/2/oauth2/token")!, clientID: "cid",
                        refreshToken: "rt-from-file")))
        #expect(
            (set.publishers[1] as? XPublisher)?.authentication
                == .oauth2(
                    OAuth2Client(
                        tokenURL: URL(string: "https://x.example/2/oauth2/token")!, clientID: "cid", clientSecret: "cs",
                        refreshToken: "ts", accessToken: "at")))
        for publisher in set.publishers {
            for secret in ["rt-from-file", "\"cs\"", "ts)", "at)"] {
                #expect(!publisher.redactedDescription.contains(secret), "\(publisher.redactedDescription)")
            }
        }

        #expect(
            error("[[publish]]\nkind = \"x\"\nrefresh_token_env = \"X_TS\"")
                == ConfigurationError(
                    path: "publish[0].client_id",
                    message: "missing: OAuth 2.0 with refresh_token needs client_id (the app's OAuth 2.0 Client ID)"))
        #expect(
            error("[[publish]]\nkind = \"x\"\nclient_id = \"cid\"\ntoken_env = \"X_AT\"")?.path
                == "publish[0].refresh_token_env")
        #expect(
            error(
                "[[publish]]\nkind = \"x\"\nclient_id = \"cid\"\nrefresh_token_env = \"X_TS\"\nconsumer_key_env = \"X_CK\""
            )
                == ConfigurationError(
                    path: "publish[0].consumer_key_env",
                    message: "OAuth 1.0a keys do not go with refresh_token (OAuth 2.0): give one or the other"))
        #expect(
            error("[[publish]]\nkind = \"x\"\nclient_id = \"cid\"\nrefresh_token = \"rt-inline\"")
                == ConfigurationError(
                    path: "publish[0].refresh_token",
                    message:
                        "secrets are never written inline; the refresh token is a password to the account: use refresh_token_env or refresh_token_file"
                ))
        let unset = error("[[publish]]\nkind = \"x\"\nclient_id = \"cid\"\nrefresh_token_env = \"NOPE\"")
        #expect(unset?.path == "publish[0].refresh_token_env" && unset?.isMissingSecret == true)
    }

    @Test func aSecretFileReadableByOthersIsAWarning() throws {
        let set = try make(
            "[[publish]]\nkind = \"ntfy\"\ntopic = \"steps\"\ntoken_file = \"/etc/ntfy-token\"",
            files: ["/etc/ntfy-token": ("tk_abc\n", 0o644)])
        #expect(
            set.warnings == [
                "publish[0].token_file: /etc/ntfy-token is readable by group or others (mode 644); run chmod 600 /etc/ntfy-token"
            ])
        #expect((set.publishers.first as? NtfyPublisher)?.authorization == "Bearer tk_abc")
    }

    @Test func realSecretFileOnDiskWithItsMode() throws {
        let dir = try TempDir()
        let path = try dir.write("token", "disk-token\n")
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: path)
        let read = try SecretFile.read(path)
        #expect(read == SecretFile(contents: "disk-token\n", permissions: 0o640))
        let set = try PublisherFactory.make(
            toml: "[[publish]]\nkind = \"mastodon\"\nbase_url = \"https://m.example\"\ntoken_file = \"\(path)\"",
            environment: [:])
        #expect(set.warnings.count == 1)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        #expect(
            try PublisherFactory.make(
                toml: "[[publish]]\nkind = \"mastodon\"\nbase_url = \"https://m.example\"\ntoken_file = \"\(path)\"",
                environment: [:]
            ).warnings.isEmpty)
    }

    @Test func badValuesAreReportedWithTheirPath() {
        #expect(error("[[publish]]\nkind = \"telegram\"")?.path == "publish[0].kind")
        #expect(error("[[publish]]\nname = \"x\"")?.path == "publish[0].kind")
        #expect(
            error("[[publish]]\nkind = \"mastodon\"\ntoken_env = \"MASTO_TOKEN\"")
                == ConfigurationError(
                    path: "publish[0].base_url",
                    message: "missing (required for this kind), e.g. \"https://example.social\""))
        #expect(
            error("[[publish]]\nkind = \"mastodon\"\nbase_url = \"ftp://m.example\"\ntoken_env = \"MASTO_TOKEN\"")
                == ConfigurationError(path: "publish[0].base_url", message: "\"ftp://m.example\" is not an http(s) URL")
        )
        #expect(
            error(
                "[[publish]]\nkind = \"mastodon\"\nbase_url = \"https://m.example\"\ntoken_env = \"MASTO_TOKEN\"\nvisibility = \"everyone\""
            )?.path
                == "publish[0].visibility")
        #expect(
            error("[[publish]]\nkind = \"ntfy\"\ntopic = \"t\"\npriority = 9")
                == ConfigurationError(path: "publish[0].priority", message: "must be between 1 and 5, not 9"))
        #expect(error("[[publish]]\nkind = \"ntfy\"\ntopic = \"t\"\ntags = [\"a\", 2]")?.path == "publish[0].tags[1]")
        #expect(
            error("[[publish]]\nkind = \"file\"\npath = 3")
                == ConfigurationError(path: "publish[0].path", message: "must be a string, not an integer"))
        #expect(
            error(
                "[[publish]]\nkind = \"matrix\"\nbase_url = \"http://h\"\ntoken_env = \"MATRIX_TOKEN\"\nroom_id = \"#general:hs\""
            )?.path
                == "publish[0].room_id")
        #expect(
            error("[[publish]]\nkind = \"webhook\"\nurl_env = \"HOOK_URL\"\nbody_template = '{\"t\": {{txt}}}'")?.path
                == "publish[0].body_template")
        #expect(
            error("[[publish]]\nkind = \"stdout\"\n[[publish]]\nkind = \"stdout\"\nname = \"stdout\"")
                == ConfigurationError(
                    path: "publish[1].name",
                    message: "\"stdout\" is already used by publish[0]; give each table its own name"))
        #expect(error("[publish]\nkind = \"stdout\"")?.path == "publish")
        #expect(error("[[publish]]\nkind = ")?.message.hasPrefix("line 2, column ") == true)
    }

    @Test func aWebhookURLIsNeverShownInErrors() {
        let bad = error(
            "[[publish]]\nkind = \"discord\"\nurl_file = \"/s/discord\"",
            files: ["/s/discord": ("not a url with tok_SECRET", 0o600)])
        #expect(bad?.path == "publish[0].url_file")
        #expect(bad?.message.contains("tok_SECRET") == false)
    }

    @Test func fromAnAlreadyParsedDocument() throws {
        let document = try TOMLTable(
            string:
                "[agent]\ninterval = 1800\n[[publish]]\nkind = \"file\"\npath = \"/tmp/p.jsonl\"\n[[publish]]\nkind = \"stdout\""
        )
        let fromDocument = try PublisherFactory.make(document: document, environment: [:])
        #expect(fromDocument.publishers.map(\.name) == ["file", "stdout"])
        let array = try #require(document["publish"]?.array)
        #expect(
            try PublisherFactory.make(array: array, environment: [:]).publishers.map(\.redactedDescription)
                == ["file: file /tmp/p.jsonl", "stdout"])
    }

    @Test func noPublishTablesGiveNoPublishers() throws {
        #expect(try make("[agent]\ninterval = 1800").publishers.isEmpty)
    }
}

/// The shared table reader's additions for whole documents (the agent's sections).
@Suite struct ConfigTableTests {
    @Test func sectionsNumbersAndParsedStringsNameTheirPaths() throws {
        let document = try TOMLTable(
            string: """
                top = 1
                [schedule]
                deadline = "30s"
                ratio = 2
                bad = "soon"
                [source]
                nested = "x"
                """)
        let root = ConfigTable(document: document)
        #expect(root.path("top") == "top")
        let schedule = try #require(try root.table("schedule"))
        #expect(try schedule.number("ratio") == 2)
        #expect(try schedule.parsed("deadline", expected: "a duration") { $0 == "30s" ? 30.0 : nil } == 30)
        #expect(throws: ConfigurationError(path: "schedule.bad", message: "\"soon\" is not a duration such as \"30s\""))
        {
            try schedule.parsed("bad", expected: "a duration such as \"30s\"") { _ in Double?.none }
        }
        #expect(throws: ConfigurationError(path: "top", message: "must be a table, not an integer: write [top]")) {
            try root.table("top")
        }
        #expect(throws: ConfigurationError(path: "source.nested", message: "unknown key (known: path)")) {
            let source = try root.table("source")
            _ = try source?.string("path")
            try source?.rejectUnknownKeys()
        }
    }
}
