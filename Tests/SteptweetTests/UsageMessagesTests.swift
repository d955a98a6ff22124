import Foundation
import TestSupport
import Testing

/// What a new user types wrong or in another order, and what steptweet answers (issue 44).
@Suite(.temporaryFolder) struct UsageMessagesTests {
    @Test func aMistypedCommandGetsTheClosestOneNamed() async throws {
        for r in [
            try await Steptweet.run(["cuont", "walk.csv"]), try await Steptweet.runProcess(["cuont", "walk.csv"]),
        ] {
            #expect(r.status == 64)
            #expect(r.stderr.contains("unknown command 'cuont'; did you mean count?"), "\(r.stderr)")
            #expect(r.stdout.isEmpty)
        }
        let far = try await Steptweet.run(["zzzzzz"])
        #expect(far.status == 64)
        #expect(far.stderr.contains("unknown command 'zzzzzz'; the commands: count, eval,"), "\(far.stderr)")
        // Commands, options and help are untouched.
        #expect(try await Steptweet.run(["help", "count"]).status == 0)
        #expect(try await Steptweet.run(["--version"]).status == 0)
    }

    @Test func aNegativeRateSaysWhatIsWrongWithIt() async throws {
        let walk = Steptweet.fixture("demo_walk_50hz.csv")
        for arguments in [["count", "--rate", "-5", walk], ["inspect", "--rate", "-5", walk]] {
            let r = try await Steptweet.run(arguments)
            #expect(r.status == 64)
            #expect(r.stderr.contains("--rate: must be a positive number of Hz up to 100000, not -5"), "\(r.stderr)")
            #expect(!r.stderr.contains("Missing value"), "\(r.stderr)")
        }
        let fraction = try await Steptweet.run(["count", "--rate", "-0.5", walk])
        #expect(fraction.stderr.contains("not -0.5"), "\(fraction.stderr)")
        #expect(try await Steptweet.run(["count", "--rate", "50", walk]).status == 0)
    }

    /// A configuration whose steps come only from phones has no file to preview: it says so, not that it reads a
    /// live device.
    @Test func previewOfAReceiveOnlyConfigurationSaysItHasNoSourceFile() async throws {
        let token = try Steptweet.tempFile("a-long-enough-receive-token-0123456789\n", name: "token")
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: token)
        let config = try Steptweet.configFile(
            "[receive]\nlisten = \"127.0.0.1:8788\"\ntoken_file = \"\(token)\"\n[state]\npath = \"state.sqlite\"\n")
        let r = try await Steptweet.run(["preview", "--config", config, "--start", "2026-11-21T10:00:00Z"])
        #expect(r.status == 64)
        #expect(r.stderr.contains("the configuration has no [source] file (its steps come from phones"), "\(r.stderr)")
        #expect(!r.stderr.contains("live device"), "\(r.stderr)")
    }

    @Test func outboxTakesItsOptionsBeforeTheSubcommandToo() async throws {
        let config = try Steptweet.configFile("[state]\npath = \"state.sqlite\"\n")
        let before = try await Steptweet.run(["outbox", "--config", config, "retry", "99"])
        #expect(before.status == 66, "\(before.stderr)")
        #expect(before.stderr.contains("no outbox entry 99"), "\(before.stderr)")
        let after = try await Steptweet.run(["outbox", "retry", "--config", config, "99"])
        #expect(after == before)
        let drop = try await Steptweet.run(["outbox", "--config", config, "drop", "--reason", "by hand", "99"])
        #expect(drop.status == 66, "\(drop.stderr)")
        let list = try await Steptweet.run(["outbox", "--config", config, "list", "--all"])
        #expect(list.status == 0, "\(list.stderr)")
        #expect(list.stdout == "the outbox is empty\n")
        #expect(try await Steptweet.run(["outbox", "--config", config]).stdout.contains("nothing pending"))
    }

    /// Only the agent schedules fetches: the other commands reading the same configuration do not warn about its
    /// interval.
    @Test func onlyTheAgentWarnsAboutAnIntervalBelowTheMinimum() async throws {
        let config = try Steptweet.configFile(
            "[schedule]\ninterval = \"1m\"\nminimum = \"10m\"\n[state]\npath = \"state.sqlite\"\n")
        for command in [["history"], ["outbox"], ["status"], ["steps", "--from", "2026-11-21", "--to", "2026-11-22"]] {
            let r = try await Steptweet.run(command + ["--config", config])
            #expect(r.status == 0, "\(command): \(r.stderr)")
            #expect(!r.stderr.contains("below schedule.minimum"), "\(command): \(r.stderr)")
        }
    }
}
