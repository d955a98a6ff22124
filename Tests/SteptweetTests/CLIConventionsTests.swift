import Foundation
import HTTPTestSupport
import TestSupport
import Testing

@testable import steptweet

/// The command line's conventions: version, JSON documents, times without an offset, exit statuses, escaped text.
@Suite(.temporaryFolder) struct CLIConventionsTests {
    @Test func versionIsPrinted() async throws {
        let r = try await Steptweet.run(["--version"])
        #expect(r.status == 0)
        #expect(
            r.stdout.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ".").count == 3, "\(r.stdout)")
    }

    /// A usage error found after parsing (a time zone, times in the wrong order, a column the manifest lacks) exits
    /// 64 and names its own command: never the top-level "Usage: steptweet <subcommand>", which would send the user to
    /// `steptweet --help` for a mistake in one subcommand's options.
    @Test func usageErrorsNameTheirOwnCommand() async throws {
        let walk = Steptweet.fixture("demo_walk_50hz.csv")
        let config = try Steptweet.walkConfig("[state]\npath = \"state.sqlite\"\n")
        let manifest = try Steptweet.tempFile("file,truth_steps\n\(walk),113\n", name: "manifest.csv")
        let cases: [(arguments: [String], message: String, usage: String?)] = [
            (["demo", "--time-zone", "Mars/Olympus"], "unknown time zone 'Mars/Olympus'", "steptweet demo"),
            (
                ["preview", "--source", walk, "--start", "2026-11-21T10:00:00Z", "--time-zone", "Mars/Olympus"],
                "unknown time zone 'Mars/Olympus'", "steptweet preview"
            ),
            (
                ["preview", "--source", walk, "--start", "2026-11-21T10:30:00Z", "--now", "2026-11-21T10:00:00Z"],
                "--now must be after --start", nil
            ),
            (["preview", "--start", "2026-11-21T10:00:00Z"], "give --source FILE", nil),
            (
                ["steps", "--config", config, "--from", "2026-11-22", "--to", "2026-11-21"], "--to must not be before",
                nil
            ),
            (["eval", "--by", "device", manifest], "--by: the manifest has no 'device' column", nil),
        ]
        for (arguments, message, usage) in cases {
            let r = try await Steptweet.run(arguments)
            #expect(r.status == 64, "\(arguments): \(r.stderr)")
            #expect(r.stderr.contains(message), "\(arguments): \(r.stderr)")
            #expect(!r.stderr.contains("steptweet <subcommand>"), "\(arguments): \(r.stderr)")
            if let usage { #expect(r.stderr.contains("Usage: \(usage) "), "\(arguments): \(r.stderr)") }
            #expect(r.stdout.isEmpty, "\(arguments): \(r.stdout)")
        }
    }

    /// `fetch --quiet` (for cron, which mails any output) prints nothing when the fetch did not fail, not even the
    /// configuration's warnings, which every other command, and `fetch` without it, still print.
    @Test func aQuietFetchPrintsNoConfigurationWarning() async throws {
        let config = try Steptweet.walkConfig("[text]\npreset = \"daily\"\n[state]\npath = \"state.sqlite\"\n")
        let now = "2026-11-21T10:10:00+09:00"
        let loud = try await Steptweet.run(["fetch", "--config", config, "--now", now, "--dry-run"])
        #expect(loud.status == 0, "\(loud.stderr)")
        #expect(loud.stderr.contains("warning: \(config): text.preset \"daily\""), "\(loud.stderr)")
        let quiet = try await Steptweet.run(["fetch", "--config", config, "--now", now, "--dry-run", "--quiet"])
        #expect(quiet == CommandResult(status: 0, stdout: "", stderr: ""))
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

    /// A file that cannot be counted keeps its place in the JSON, with its error: a script matching outputs to the
    /// files it gave is not thrown off (it used to be left out of the array, and one such file alone printed `{}`).
    @Test func countJSONNamesEachFileThatCannotBeCounted() async throws {
        let walk = Steptweet.fixture("demo_walk_50hz.csv")
        let empty = try Steptweet.tempFile("")
        let r = try await Steptweet.run(["count", "--json", walk, "missing.csv", empty])
        #expect(r.status == 66, "\(r.stderr)")
        let files = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]])
        #expect(files.map { $0["file"] as? String } == [walk, "missing.csv", empty])
        #expect((files[0]["steps"] as? Int ?? 0) > 50 && files[0]["error"] == nil)
        #expect(files[1]["error"] as? String == "missing.csv: no such file" && files[1]["steps"] == nil)
        #expect(files[2]["error"] as? String == "\(empty): file is empty" && files[2].count == 2)
        let one = try await Steptweet.run(["count", "--json", empty])
        #expect(one.status == 65)
        let object = try JSONSerialization.jsonObject(with: Data(one.stdout.utf8)) as? [String: String]
        #expect(object == ["file": empty, "error": "\(empty): file is empty"], "\(one.stdout)")
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
        let inspected = try await Steptweet.run(["inspect", none])
        #expect(inspected.status == 65)
        #expect(inspected.stderr.contains("no valid line: all 2 data lines are malformed"), "\(inspected.stderr)")
        // A header alone is a file with no valid line too.
        let header = try Steptweet.tempFile("t_ms,x,y,z\n", name: "header.csv")
        for command in ["count", "inspect"] {
            let r = try await Steptweet.run([command, header])
            #expect(r.status == 65, "\(command)")
            #expect(r.stderr.contains("\(header): no valid line: no samples after the header"), "\(r.stderr)")
        }
    }

    /// The first five malformed lines are shown; the rest are counted in one line, in the singular for one.
    @Test func malformedLinesBeyondTheShownOnesAreCountedInGoodEnglish() async throws {
        func csv(malformed: Int) -> String {
            (["t_ms,x,y,z"] + (0..<50).map { "\($0 * 20),0.1,0.2,9.8" } + (0..<malformed).map { "\(1000 + $0),x,0,9.8" })
                .joined(separator: "\n") + "\n"
        }
        let one = try await Steptweet.run(["count", try Steptweet.tempFile(csv(malformed: 6), name: "six.csv")])
        #expect(one.status == 0)
        #expect(one.stderr.contains("six.csv: 1 more malformed line skipped\n"), "\(one.stderr)")
        let two = try await Steptweet.run(["count", try Steptweet.tempFile(csv(malformed: 7), name: "seven.csv")])
        #expect(two.stderr.contains("seven.csv: 2 more malformed lines skipped\n"), "\(two.stderr)")
    }

    /// The exit-status table of docs/operating.md is what the commands do: for every status it lists, a real command
    /// must end with it (and every such command has its row), so the table and the behaviour cannot drift apart.
    @Test func everyStatusInTheDocumentedExitTableIsWhatACommandReturns() async throws {
        let readme = try String(
            contentsOf: Steptweet.root.appendingPathComponent("docs/operating.md"), encoding: .utf8)
        let rows = try #require(readme.components(separatedBy: "| status | meaning |\n|---|---|\n").dropFirst().first)
            .split(separator: "\n").prefix { $0.hasPrefix("| ") }
        let documented = Set(rows.compactMap { Int32($0.dropFirst(2).prefix { $0 != " " }) })
        #expect(documented.count == rows.count, "every row starts with its status: \(rows)")

        let walk = Steptweet.fixture("demo_walk_50hz.csv")
        let empty = try TempDir("devices")
        let existing = try Steptweet.tempFile("# kept\n", name: "existing.toml")
        // Nothing listens on port 9: the connection is refused, which may pass by itself.
        let hookFolder = try TempDir()
        let refused = try failingFetch(in: hookFolder, hook: try #require(URL(string: "http://127.0.0.1:9/hook")))
        let readOnly = try await StatePermissionTests.readOnlyState()
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: readOnly.folder) }
        let commands: [Int32: () async throws -> CommandResult] = [
            0: { try await Steptweet.run(["count", walk]) },
            64: { try await Steptweet.run(["count", "--start", "yesterday", walk]) },
            65: { try await Steptweet.run(["count", try Steptweet.tempFile("t_ms,x,y,z\n", name: "header.csv")]) },
            66: { try await Steptweet.run(["count", walk + ".missing"]) },
            69: {
                try await Steptweet.run(["devices", "--sys-root", empty.path("sys"), "--dev-root", empty.path("dev")])
            },
            73: { try await Steptweet.run(["init", "--config", existing]) },
            75: { try await Steptweet.run(refused) },
            77: { try await Steptweet.runProcessUnprivileged(["fetch", "--config", readOnly.config]) },
            78: { try await Steptweet.run(["fetch", "--config", "/nonexistent/steptweet.toml"]) },
        ]
        #expect(documented == Set(commands.keys), "docs/operating.md's table and the statuses checked here")
        for (status, command) in commands.sorted(by: { $0.key < $1.key }) {
            let r = try await command()
            #expect(r.status == status, "exit \(status): \(r)")
        }
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

    /// Every form of time docs/operating.md documents works on every option that takes a time (each found in the
    /// command tree by its value name, so a new one cannot be missed), and a refused value's error lists the forms.
    @Test func everyDocumentedTimeFormWorksOnEveryTimeOption() async throws {
        let forms = [
            "2026-11-21T10:00:00+09:00", "2026-11-21T01:00:00Z", "2026-11-21T10:00:00", "2026-11-21 10:00",
            "2026-11-21",
        ]
        let walk = Steptweet.fixture("demo_walk_50hz.csv")
        let config = try Steptweet.walkConfig("[text]\ntime_zone = \"Asia/Tokyo\"\n[state]\npath = \"state.sqlite\"\n")
        let zone = ["--time-zone", "Asia/Tokyo"]
        // For each option: the arguments before and after its value, making a command that succeeds.
        let commands: [String: (before: [String], after: [String])] = [
            "count --start": (["count", "--start"], zone + [walk]),
            "inspect --start": (["inspect", "--start"], zone + [walk]),
            "preview --start": (["preview", "--source", walk, "--start"], zone),
            "preview --now": (["preview", "--source", walk, "--start", "2026-11-20", "--now"], zone),
            "preview --recording-start": (
                ["preview", "--source", walk, "--start", "2026-11-20", "--recording-start"], zone
            ),
            "fetch --now": (["fetch", "--config", config, "--dry-run", "--now"], []),
            "steps --from": (["steps", "--config", config, "--from"], []),
            "steps --to": (["steps", "--config", config, "--from", "2026-11-20", "--to"], []),
            "demo --start": (["demo", "--start"], zone),
        ]
        #expect(Set(commands.keys) == Set(try await timeOptions()), "a time option without a case here")
        for (name, command) in commands.sorted(by: { $0.key < $1.key }) {
            // Every form is accepted (parsed only: `demo` takes a third of a second a run) …
            for form in forms {
                #expect(throws: Never.self, "\(name) \(form)") {
                    try steptweet.Steptweet.parseAsRoot(command.before + [form] + command.after)
                }
            }
            // … the form the documentation shows with a space works through the whole command …
            let r = try await Steptweet.run(command.before + ["2026-11-21 10:00"] + command.after)
            #expect(r.status == 0, "\(name): \(r.stderr)")
            // … and a refused value's error lists the forms.
            let refused = try await Steptweet.run(command.before + ["21/11/2026"] + command.after)
            #expect(refused.status == 64, "\(name)")
            #expect(refused.stderr.contains("accepted forms: 2026-11-21T10:00:00+09:00"), "\(name): \(refused.stderr)")
            #expect(refused.stderr.contains("2026-11-21 10:00"), "\(name): \(refused.stderr)")
        }
        // The four forms of 10:00 in Tokyo are one instant; a date alone is its midnight.
        let tokyo = try #require(TimeZone(identifier: "Asia/Tokyo"))
        let instants = try forms.map { try TimeArgument.parse($0).date(in: tokyo) }
        #expect(Set(instants.prefix(4)).count == 1)
        #expect(instants[0].timeIntervalSince(instants[4]) == 10 * 3600)
    }

    /// `command --option` for every option whose value is a TIME, from the command tree ArgumentParser dumps.
    func timeOptions() async throws -> [String] {
        let dump = try await Steptweet.run(["--experimental-dump-help"])
        let root = try #require(try JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [String: Any])
        var found: [String] = []
        func walk(_ command: [String: Any], path: [String]) {
            for argument in command["arguments"] as? [[String: Any]] ?? []
            where argument["valueName"] as? String == "TIME" {
                let names = (argument["names"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
                found.append((path + names.map { "--" + $0 }).joined(separator: " "))
            }
            for sub in command["subcommands"] as? [[String: Any]] ?? [] {
                walk(sub, path: path + [sub["commandName"] as? String ?? "?"])
            }
        }
        walk(try #require(root["command"] as? [String: Any]), path: [])
        return found
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
            let binary = try await Steptweet.runProcess(arguments, stdin: stdin)
            #expect(inProcess == binary, "steptweet \(arguments)")
        }
        // A webhook answering 503: 75, each run on a state of its own.
        let endpoint = try RecordingEndpoint(script: [.status(503), .status(503)])
        let hook = try await endpoint.start()
        defer { Task { await endpoint.stop() } }
        let first = try TempDir()
        let second = try TempDir()
        let inProcess = try await Steptweet.run(try failingFetch(in: first, hook: hook))
        #expect(inProcess.status == 75, "\(inProcess)")
        let binary = try await Steptweet.runProcess(try failingFetch(in: second, hook: hook))
        #expect(inProcess == binary)
    }

    /// `steptweet fetch` arguments for the walk posted to the webhook at `hook`, with `dir` holding the configuration
    /// and the state.
    func failingFetch(in dir: TempDir, hook: URL) throws -> [String] {
        let secret = try dir.write("hook.url", hook.absoluteString + "\n")
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: secret)
        let config = try dir.write(
            "config.toml",
            TestBudget.applied(
                to: """
                    [source]
                    path = "\(Steptweet.fixture("demo_walk_50hz.csv"))"
                    start = "2026-11-21T10:02:00+09:00"
                    [state]
                    path = "state.sqlite"
                    [[publish]]
                    kind = "webhook"
                    url_file = "hook.url"
                    """))
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
