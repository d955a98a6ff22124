import Foundation
import HTTPTestSupport
import TestSupport
import Testing

/// The command line's conventions: version, JSON documents, times without an offset, exit statuses, escaped text.
@Suite(.temporaryFolder) struct CLIConventionsTests {
    @Test func versionIsPrinted() async throws {
        let r = try await Steptweet.run(["--version"])
        #expect(r.status == 0)
        #expect(
            r.stdout.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ".").count == 3, "\(r.stdout)")
    }

    @Test func completionScriptsExistForEveryShell() async throws {
        var scripts: [String: CommandResult] = [:]
        for shell in ["bash", "zsh", "fish"] {
            let r = try await Steptweet.run(["--generate-completion-script", shell])
            #expect(r.status == 0)
            #expect(r.stdout.contains("steptweet"))
            scripts[shell] = r
        }
        // Closed sets of values are listed for completion.
        let bash = try #require(scripts["bash"])
        for level in ["trace", "debug", "info", "notice", "warning", "error", "critical"] {
            #expect(bash.stdout.contains("'\(level)'"))
        }
    }

    @Test func countJSONForSeveralFilesIsOneArray() async throws {
        let walk = Steptweet.fixture("demo_walk_50hz.csv")
        let r = try await Steptweet.run(["count", "--json", walk, walk])
        #expect(r.status == 0, "\(r.stderr)")
        let files = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]])
        #expect(files.count == 2)
        #expect(files.allSatisfy { ($0["steps"] as? Int ?? 0) > 50 })
    }

    @Test func severalFilesCountedOnTwoCoresPrintWhatOneCorePrints() async throws {
        let walk = Steptweet.fixture("demo_walk_50hz.csv")
        let files = [walk, Steptweet.fixture("formats/steps-1995-06-23_Fitbit.json"), "missing.csv", walk]
        let one = try await Steptweet.run(["count", "--jobs", "1"] + files)
        let two = try await Steptweet.run(["count", "--jobs", "2"] + files)
        #expect(one.status == 66 && two.status == 66)
        #expect(two.stdout == one.stdout)
        #expect(two.stderr == one.stderr)
        #expect(one.stdout.split(separator: "\n").count == 3)
        #expect(try await Steptweet.run(["count", "--jobs", "0", walk]).status == 64)
    }

    @Test func malformedLinesAreSkippedWithStatusZeroUnlessStrictOrNothingValid() async throws {
        var csv = "t_ms,x,y,z\n"
        for i in 0..<50 { csv += "\(i * 20),0.1,0.2,9.8\n" }
        csv += "1000,oops,0.2,9.8\n"
        let some = try Steptweet.tempFile(csv)
        #expect(try await Steptweet.run(["count", some]).status == 0)
        #expect(try await Steptweet.run(["inspect", some]).status == 0)
        #expect(try await Steptweet.run(["count", "--strict", some]).status == 65)
        let none = try Steptweet.tempFile("t_ms,x,y,z\n0,a,b,c\n20,d,e,f\n")
        let r = try await Steptweet.run(["count", none])
        #expect(r.status == 65)
        #expect(r.stderr.contains("no valid line: all 2 data lines are malformed"), "\(r.stderr)")
    }

    @Test func controlCharactersFromAFileAreEscapedInErrors() async throws {
        let path = try Steptweet.tempFile("t_ms,x,y,z\n0,\u{1B}]0;owned\u{07}\u{1B}[2J,0,9.8\n20,0.1,0.2,9.8\n")
        let r = try await Steptweet.run(["count", path])
        #expect(!r.stderr.contains("\u{1B}"))
        #expect(!r.stderr.contains("\u{07}"))
        #expect(r.stderr.contains("\\x1b]0;owned\\x07\\x1b[2J"), "\(r.stderr)")
    }

    @Test func aTimeWithoutAnOffsetIsReadInTheGivenZoneNeverSilentlyUTC() async throws {
        // 60 s of samples with relative times; --start without an offset is read in --time-zone.
        let walk = Steptweet.fixture("demo_walk_50hz.csv")
        let withOffset = try await Steptweet.run(["inspect", "--json", "--start", "2026-11-21T10:00:00+09:00", walk])
        let local = try await Steptweet.run([
            "inspect", "--json", "--start", "2026-11-21T10:00:00", "--time-zone", "Asia/Tokyo", walk,
        ])
        #expect(withOffset.status == 0 && local.status == 0, "\(local.stderr)")
        let a = try #require(try JSONSerialization.jsonObject(with: Data(withOffset.stdout.utf8)) as? [String: Any])
        let b = try #require(try JSONSerialization.jsonObject(with: Data(local.stdout.utf8)) as? [String: Any])
        #expect(a["start"] as? String == "2026-11-21T01:00:00.000Z")
        #expect(b["start"] as? String == a["start"] as? String)
        let bad = try await Steptweet.run(["count", "--start", "yesterday", walk])
        #expect(bad.status == 64)
    }

    /// `Steptweet.run` runs a command in the test's own process; the binary must print the same bytes and end with the
    /// same status: a success, usage errors, failures (78, 75, and 65 reading standard input), help and the version.
    @Test func theInProcessRunnerPrintsWhatTheBinaryPrints() async throws {
        let walk = Steptweet.fixture("demo_walk_50hz.csv")
        let cases: [(arguments: [String], stdin: String?)] = [
            (["count", walk], nil), (["count", "--jobs", "0", walk], nil), (["bogus"], nil),
            (["fetch", "--config", "/nonexistent/steptweet.toml"], nil),
            (["check-text", "--platform", "bluesky", "-"], String(repeating: "歩", count: 301) + "\n"),
            (["--help"], nil), (["fetch", "--help"], nil), (["--version"], nil),
        ]
        for (arguments, stdin) in cases {
            let inProcess = try await Steptweet.run(arguments, stdin: stdin)
            #expect(inProcess == (try Steptweet.runProcess(arguments, stdin: stdin)), "steptweet \(arguments)")
        }
        // A webhook answering 503: 75, each run on a state of its own.
        let endpoint = try RecordingEndpoint(script: [.status(503), .status(503)])
        let hook = try await endpoint.start()
        defer { Task { await endpoint.stop() } }
        let first = try TempDir()
        let second = try TempDir()
        let inProcess = try await Steptweet.run(try failingFetch(in: first, hook: hook))
        #expect(inProcess.status == 75, "\(inProcess)")
        #expect(inProcess == (try Steptweet.runProcess(try failingFetch(in: second, hook: hook))))
    }

    /// `steptweet fetch` arguments for the walk posted to the webhook at `hook`, with `dir` holding the configuration
    /// and the state.
    func failingFetch(in dir: TempDir, hook: URL) throws -> [String] {
        let secret = try dir.write("hook.url", hook.absoluteString + "\n")
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: secret)
        let config = try dir.write(
            "config.toml",
            """
            [source]
            path = "\(Steptweet.fixture("demo_walk_50hz.csv"))"
            start = "2026-11-21T10:02:00+09:00"
            [state]
            path = "state.sqlite"
            [[publish]]
            kind = "webhook"
            url_file = "hook.url"
            """)
        return ["fetch", "--config", config, "--now", "2026-11-21T10:10:00+09:00"]
    }

    @Test func previewReadsTheConfiguration() async throws {
        let walk = Steptweet.fixture("demo_walk_50hz.csv")
        let config = try Steptweet.walkConfig("[text]\ntime_zone = \"Asia/Tokyo\"\ndevice = \"Pixel 8\"\n")
        // --start without an offset is in the configuration's zone; the source and its start come from it too.
        let r = try await Steptweet.run([
            "preview", "--config", config, "--start", "2026-11-21T10:00:00", "--now", "2026-11-21T10:30:00",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.hasPrefix("11/21 10:00:00 〜 11/21 10:30:00 の期間に Pixel 8 を持って "), "\(r.stdout)")
        let counted = try await Steptweet.run([
            "preview", "--source", walk, "--start", "2026-11-21T10:00:00+09:00",
            "--recording-start", "2026-11-21T10:02:00+09:00",
            "--now", "2026-11-21T10:30:00+09:00", "--time-zone", "Asia/Tokyo", "--device", "Pixel 8",
        ])
        #expect(counted.stdout == r.stdout)
    }
}
