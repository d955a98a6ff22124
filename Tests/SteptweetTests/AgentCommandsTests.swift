import Foundation
import TestSupport
import Testing

/// `steptweet init`, `fetch`, `status`, `history` and `steps` run as a user runs them: real files, real SQLite.
@Suite(.temporaryFolder) struct AgentCommandsTests {
    func configure(_ extra: String = "") throws -> String {
        try Steptweet.walkConfig("[text]\ntime_zone = \"Asia/Tokyo\"\n[state]\npath = \"state.sqlite\"\n" + extra)
    }

    @Test func fetchPostsThenHasNoDataAndHistoryShowsBoth() async throws {
        let config = try configure()
        let dry = try await Steptweet.run([
            "fetch", "--config", config, "--now", "2026-11-21T10:10:00+09:00", "--dry-run",
        ])
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(dry.stdout.contains("would post: 11/21 10:02:00 〜 11/21 10:10:00 の期間に iPhone 5s を持って "))
        #expect(
            !FileManager.default.fileExists(
                atPath: URL(fileURLWithPath: config).deletingLastPathComponent().appendingPathComponent("state.sqlite")
                    .path))

        let first = try await Steptweet.run([
            "fetch", "--config", config, "--now", "2026-11-21T10:10:00+09:00", "--json",
        ])
        #expect(first.status == 0, "\(first.stderr)")
        // One JSON document and nothing else, so `steptweet fetch --json | jq .result` works.
        let object = try #require(try JSONSerialization.jsonObject(with: Data(first.stdout.utf8)) as? [String: Any])
        #expect(object["result"] as? String == "NewData")
        #expect((object["window"] as? [String: String])?["start"] == "2026-11-21T10:02:00+09:00")
        #expect((object["text"] as? String)?.hasSuffix("歩 歩きました。 Tweet By Background Fetch") == true)
        let deliveries = try #require(object["deliveries"] as? [[String: Any]])
        #expect(deliveries.map { $0["outcome"] as? String } == ["delivered"])
        #expect(deliveries.map { $0["target"] as? String } == ["stdout"])

        let second = try await Steptweet.run(["fetch", "--config", config, "--now", "2026-11-21T10:20:00+09:00"])
        #expect(second.status == 0)
        #expect(second.stdout.split(separator: "\n").last == "NoData")

        let history = try await Steptweet.run(["history", "--config", config, "--json"])
        let fetches = try #require(
            try JSONSerialization.jsonObject(with: Data(history.stdout.utf8)) as? [[String: Any]])
        #expect(fetches.map { $0["result"] as? String } == ["NewData", "NoData"])
        let chart = try await Steptweet.run(["history", "--config", config, "--chart"])
        #expect(chart.stdout.contains("11/21 10:00 ████████████████████████████████████████ "))

        let steps = try await Steptweet.run([
            "steps", "--config", config, "--from", "2026-11-21T10:00:00+09:00", "--to", "2026-11-21T10:10:00+09:00",
        ])
        let posted = try #require((object["steps"] as? Int))
        #expect(steps.stdout.hasPrefix("\(posted) steps from 2026-11-21T10:00:00+09:00"))

        let status = try await Steptweet.run(["status", "--config", config])
        #expect(status.stdout.contains("outbox:   0 pending"))
        #expect(status.stdout.contains("agent:    not running"))
        // Times in `status --json` are written as `history --json` writes them: in the zone, with its offset.
        let statusJSON = try await Steptweet.run(["status", "--config", config, "--json"])
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(statusJSON.stdout.utf8)) as? [String: Any])
        let results = try #require(doc["last_results"] as? [[String: Any]])
        #expect(results.map { $0["started"] as? String } == fetches.reversed().map { $0["started"] as? String })
        #expect(results.first?["window_end"] as? String == "2026-11-21T10:20:00+09:00", "\(statusJSON.stdout)")
    }

    @Test func aFetchTimeBeforeThePostedWindowIsAWarning() async throws {
        let config = try configure()
        let first = try await Steptweet.run(["fetch", "--config", config, "--now", "2026-11-21T10:10:00+09:00"])
        #expect(first.status == 0, "\(first.stderr)")
        let earlier = try await Steptweet.run(["fetch", "--config", config, "--now", "2026-11-21T10:05:00+09:00"])
        #expect(earlier.status == 0)
        #expect(
            earlier.stderr.contains(
                "warning: the fetch time 2026-11-21T10:05:00+09:00 is before the end of the last posted window, "
                    + "2026-11-21T10:10:00+09:00"), "\(earlier.stderr)")
        #expect(earlier.stdout.hasSuffix("NoData\n"))
        let later = try await Steptweet.run(["fetch", "--config", config, "--now", "2026-11-21T10:20:00+09:00"])
        #expect(!later.stderr.contains("warning"), "\(later.stderr)")
    }

    @Test func failedFetchExits75AndConfigErrorsExit78() async throws {
        let unreachable = try configure(
            "[[publish]]\nkind = \"webhook\"\nurl_file = \"hook.url\"\n[schedule]\ndeadline = \"2s\"")
        let hook = URL(fileURLWithPath: unreachable).deletingLastPathComponent().appendingPathComponent("hook.url")
        try Data("http://127.0.0.1:9/hook\n".utf8).write(to: hook)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: hook.path)
        let failed = try await Steptweet.run(["fetch", "--config", unreachable, "--now", "2026-11-21T10:10:00+09:00"])
        #expect(failed.status == 75)
        #expect(failed.stdout.split(separator: "\n").last?.hasPrefix("Failed: webhook: ") == true)
        let status = try await Steptweet.run(["status", "--config", unreachable])
        #expect(status.stdout.contains("outbox:   1 pending"))

        let typo = try configure("[schedule]\nintervall = \"15m\"")
        let bad = try await Steptweet.run(["fetch", "--config", typo])
        #expect(bad.status == 78)
        #expect(bad.stderr.contains("schedule.intervall: unknown key"))

        let missing = try configure("[[publish]]\nkind = \"webhook\"\nurl_env = \"STEPTWEET_TEST_UNSET_URL\"")
        let noCredentials = try await Steptweet.run(["fetch", "--config", missing])
        #expect(noCredentials.status == 78)
        #expect(
            noCredentials.stdout.hasPrefix(
                "Failed: missing credentials: publish[0].url_env: environment variable STEPTWEET_TEST_UNSET_URL is not set"
            ), "\(noCredentials)")
        // Recorded, as fetch --help says of every Failed fetch.
        let recorded = try await Steptweet.run(["history", "--config", missing])
        #expect(recorded.stdout.contains("Failed: missing credentials: publish[0].url_env"), "\(recorded)")
        let why = try await Steptweet.run(["status", "--config", missing])
        #expect(why.stdout.contains("fetching: disabled: missing credentials: publish[0].url_env"))

        let noToken = try configure("[push]\nport = 8787\ntoken_env = \"STEPTWEET_TEST_UNSET_TOKEN\"")
        let push = try await Steptweet.run(["status", "--config", noToken])
        #expect(
            push.stdout.contains(
                "push:     off: push.token_env: environment variable STEPTWEET_TEST_UNSET_TOKEN is not set"))

        let absent = try await Steptweet.run(["fetch", "--config", "/nonexistent/steptweet.toml"])
        #expect(absent.status == 78)
    }

    @Test func failedFetchesExitByTheKindOfProblemAndAreRecorded() async throws {
        // A relative-time recording without source.start: configuration (78), not temporary.
        let walk = Steptweet.fixture("demo_walk_50hz.csv")
        let relative = try Steptweet.tempFile(
            "[source]\npath = \"\(walk)\"\n[state]\npath = \"state.sqlite\"\n", name: "config.toml")
        let noStart = try await Steptweet.run(["fetch", "--config", relative, "--json"])
        #expect(noStart.status == 78, "\(noStart.stdout)")
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(noStart.stdout.utf8)) as? [String: Any])
        #expect(doc["result"] as? String == "Failed")
        #expect(doc["failure_kind"] as? String == "configuration")
        #expect((doc["reason"] as? String)?.contains("set source.start") == true)
        let history = try await Steptweet.run(["history", "--config", relative, "--json"])
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(history.stdout.utf8)) as? [[String: Any]])
        #expect(rows.map { $0["result"] as? String } == ["Failed"])

        // A source that cannot be read as its format: 65.
        let binary = try Steptweet.tempFile("t_ms,x,y,z\n", name: "walk.csv")
        try Data([0x7F, 0x45, 0x4C, 0x46, 0, 1, 2, 3, 0xFF, 0xFE]).write(to: URL(fileURLWithPath: binary))
        let garbage = try Steptweet.tempFile(
            "[source]\npath = \"\(binary)\"\nstart = \"2026-11-21T10:00:00Z\"\n[state]\npath = \"state.sqlite\"\n",
            name: "config.toml")
        let unreadable = try await Steptweet.run(["fetch", "--config", garbage, "--now", "2026-11-21T10:10:00Z"])
        #expect(unreadable.status == 65, "\(unreadable.stdout)")
    }

    @Test func initWritesASampleThatLoads() async throws {
        let dir = URL(fileURLWithPath: try Steptweet.tempFile("", name: "placeholder")).deletingLastPathComponent()
        let path = dir.appendingPathComponent("conf/config.toml").path
        let r = try await Steptweet.run(["init", "--config", path])
        #expect(r.status == 0)
        let edited = "# mine\n"
        try Data(edited.utf8).write(to: URL(fileURLWithPath: path))
        let again = try await Steptweet.run(["init", "--config", path])
        #expect(again.status == 73, "EX_CANTCREAT, not a usage error")
        #expect(again.stderr.contains("\(path) exists; not overwritten (pass --force to replace it)"))
        #expect(try String(contentsOfFile: path, encoding: .utf8) == edited)
        let forced = try await Steptweet.run(["init", "--force", "--config", path])
        #expect(forced.status == 0)
        #expect(try String(contentsOfFile: path, encoding: .utf8) != edited)
        // The sample loads; its source file does not exist yet, so a dry run reports that clearly, naming the key.
        let dry = try await Steptweet.run(["fetch", "--config", path, "--dry-run"])
        #expect(dry.status == 78, "a source path that does not exist is a configuration problem, not a temporary one")
        #expect(
            dry.stdout.split(separator: "\n").last
                == "Failed: ingestion: line 5: source.path: \(dir.path)/conf/walk.csv: no such file")
    }
}
