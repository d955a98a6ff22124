import Foundation
import Messages
import Publishing
import StepDetection
import TestSupport
import Testing
import WallTime

@testable import Agent

@Suite struct ConfigurationTests {
    func parse(_ text: String, env: [String: String] = [:]) throws -> AgentConfiguration {
        try AgentConfiguration.parse(text, file: "/etc/steptweet/config.toml", environment: env)
    }

    func error(_ text: String, env: [String: String] = [:]) -> ConfigurationError? {
        do {
            _ = try parse(text, env: env)
            return nil
        } catch let e as ConfigurationError { return e } catch { return nil }
    }

    @Test func defaults() throws {
        let c = try parse("[source]\npath = \"walk.csv\"\n")
        #expect(c.source?.path == "/etc/steptweet/walk.csv")
        #expect(c.schedule.interval == .minimum)
        #expect(c.schedule.minimum == 600)
        #expect(c.schedule.deadline == 30)
        #expect(c.schedule.window == .sinceLast)
        #expect(c.schedule.postZero == false)
        #expect(c.publishers.map(\.name) == ["stdout"])
        #expect(c.composer.template.source == Template.seed)
        #expect(c.disabledReason == nil)
    }

    @Test func everyKeyIsRead() throws {
        let c = try parse(
            """
            [source]
            path = "/data/walk.csv"
            format = "generic-csv"
            start = "2026-11-21T10:00:00+09:00"
            follow = true
            [schedule]
            interval = "0 21 * * *"
            minimum = "15m"
            deadline = "20s"
            window = "1d"
            post_zero = true
            [text]
            template = "{steps} steps"
            date_format = "HH:mm"
            time_zone = "Europe/Berlin"
            device = "Pixel"
            [state]
            path = "state/db.sqlite"
            [push]
            port = 8787
            token_env = "PUSH_TOKEN"
            period = "2m"
            """, env: ["PUSH_TOKEN": "s3cret"])
        var source = AgentConfiguration.Source(
            path: "/data/walk.csv", isDevice: false, format: "generic-csv",
            start: Timestamps.parse("2026-11-21T01:00:00Z"), follow: true)
        source.timeZone = TimeZone(identifier: "Europe/Berlin")
        source.pathKey = "line 2: source.path"
        #expect(c.source == source)
        #expect(c.schedule.interval == .cron(try CronSchedule("0 21 * * *")))
        #expect(c.schedule.minimum == 900)
        #expect(c.schedule.deadline == 20)
        #expect(c.schedule.window == .aligned(86_400))
        #expect(c.schedule.postZero)
        #expect(c.composer.compose(StepWindow(TimeWindow(start: Date(), end: Date()), steps: 12)) == "12 steps")
        #expect(c.composer.device == "Pixel")
        #expect(c.composer.timeZone.identifier == "Europe/Berlin")
        #expect(c.statePath == "/etc/steptweet/state/db.sqlite")
        #expect(c.push == AgentConfiguration.Push(port: 8787, token: "s3cret", tokenProblem: nil, period: 120))
    }

    @Test func unknownKeysAreNamed() {
        #expect(error("[schedule]\nintervall = \"1m\"\n")?.path == "schedule.intervall")
        #expect(
            error("[schedule]\nintervall = \"1m\"\n")?.description.hasPrefix("line 2: schedule.intervall: unknown key")
                == true)
        #expect(error("[sources]\npath = \"x\"\n")?.path == "sources")
        #expect(error("[[publish]]\nkind = \"stdout\"\ncolour = \"red\"\n")?.path == "publish[0].colour")
    }

    /// A misspelt key is named with its line and the key it most likely means, even where the key it replaces is
    /// required (`kind`, a secret) and would otherwise be reported missing.
    @Test func misspeltKeysAreNamedWithTheirLineAndTheKeyMeant() {
        let config = """
            # steptweet
            [source]
            path = "walk.csv"

            [[publish]]
            kind = "stdout"

            [[publish]]
            knd = "webhook"
            url_env = "HOOK"
            """
        #expect(error(config)?.description == "line 9: publish[1].knd: unknown key; did you mean kind?")
        #expect(
            error("[schedule]\nintervall = \"1m\"\n")?.description
                == "line 2: schedule.intervall: unknown key; did you mean interval?")
        #expect(error("[text]\ndevice = \"x\"\n[schedul]\nminimum = \"1m\"\n")?.line == 3)
        #expect(
            error("[text]\ndevice = \"x\"\n[schedul]\nminimum = \"1m\"\n")?.message.contains("did you mean [schedule]?")
                == true)
        // Every section is listed, the receiver's too.
        #expect(
            error("[recieve]\nlisten = \"127.0.0.1:8788\"\n")?.message
                == "unknown section; did you mean [receive]? (known sections: [detect], [[publish]], [push], [receive], [schedule], "
                + "[source], [state], [text])")
        // A required secret (Mastodon's token) and an optional one (ntfy's).
        let required = error(
            "[[publish]]\nkind = \"mastodon\"\nbase_url = \"https://m.example\"\ntokn_file = \"/run/t\"\n")
        #expect(required?.description == "line 4: publish[0].tokn_file: unknown key; did you mean token_file?")
        let optional = error("[[publish]]\nkind = \"ntfy\"\ntopic = \"t\"\ntokn_file = \"/run/t\"\n")
        #expect(
            optional?.description
                == "line 4: publish[0].tokn_file: unknown key for kind \"ntfy\"; did you mean token_file?")
        // A key that is nothing like a known one lists them; lines inside a multi-line string are not keys.
        let far = error("[text]\ntemplate = \"\"\"\nschedule = x\n\"\"\"\nwhatever = 1\n")
        #expect(far?.line == 5)
        #expect(
            far?.message.hasPrefix("unknown key (known: chart_style, date_format, device, goal,") == true,
            "\(String(describing: far))")
        // A missing key is shown at its table's header.
        #expect(error("[push]\nperiod = \"1m\"\n")?.line == 1)
        #expect(error("[source]\npath = \"a\"\n\n[[publish]]\nkind = \"mastodon\"\n")?.line == 4)
    }

    @Test func badValuesNameTheirKey() {
        #expect(error("[source]\npath = \"walk.csv\"\nformat = \"excel\"\n")?.path == "source.format")
        #expect(error("[source]\npath = \"walk.csv\"\nformat = \"excel\"\n")?.message.contains("generic") == true)
        #expect(error("[schedule]\ninterval = \"sometimes\"\n")?.path == "schedule.interval")
        #expect(error("[schedule]\ninterval = \"61 * * * *\"\n")?.path == "schedule.interval")
        #expect(error("[schedule]\nminimum = \"ten minutes\"\n")?.path == "schedule.minimum")
        #expect(error("[schedule]\nwindow = \"2h\"\n")?.path == "schedule.window")
        #expect(error("[schedule]\npost_zero = \"yes\"\n")?.path == "schedule.post_zero")
        #expect(error("[text]\ntime_zone = \"JST-9\"\n")?.path == "text.time_zone")
        #expect(error("[text]\ntemplate = \"{stepz}\"\n")?.path == "text.template")
        #expect(error("[source]\npath = \"a\"\ndevice = \"b\"\n")?.path == "source")
        #expect(error("[source]\npath = \"a\"\nstart = \"yesterday\"\n")?.path == "source.start")
        #expect(error("[push]\nport = 80000\ntoken_env = \"T\"\n")?.path == "push.port")
        #expect(error("[push]\nport = 8000\n")?.path == "push")
        #expect(error("[[publish]]\nkind = \"carrier-pigeon\"\n")?.path == "publish[0].kind")
        #expect(error("schedule = 3\n")?.path == "schedule")
        let syntax = error("[schedule\n")
        #expect(syntax?.message.hasPrefix("line 1") == true)
    }

    @Test func detectSensitivityPicksTheDetectorsParameterSet() throws {
        let source = "[source]\npath = \"walk.csv\"\n"
        #expect(try parse(source).sensitivity == .normal)
        #expect(try parse(source).detector == .standard)
        let slow = try parse(source + "\n[detect]\nsensitivity = \"slow\"\n")
        #expect(slow.sensitivity == .slow)
        #expect(slow.detector == Sensitivity.slow.parameters)
        let bad = error(source + "\n[detect]\nsensitivity = \"fast\"\n")
        #expect(bad?.path == "detect.sensitivity")
        #expect(bad?.message == "'fast' is not \"normal\" or \"slow\"")
        #expect(error(source + "\n[detect]\nsensitivty = \"slow\"\n")?.path == "detect.sensitivty")
    }

    @Test func intervalForms() throws {
        #expect(try parse("[schedule]\ninterval = \"never\"\n").schedule.interval == .never)
        #expect(try parse("[schedule]\ninterval = \"15m\"\n").schedule.interval == .every(900))
        #expect(try parse("[schedule]\ninterval = \"1h30m\"\n").schedule.interval == .every(5400))
        #expect(
            try parse("[schedule]\ninterval = \"never\"\n[source]\npath = \"x\"\n").disabledReason
                == "schedule.interval is \"never\"")
    }

    @Test func missingCredentialsDisableButDoNotFailTheLoad() throws {
        let text = "[source]\npath = \"x\"\n[[publish]]\nkind = \"webhook\"\nurl_env = \"HOOK_URL\"\n"
        let missing = try parse(text)
        #expect(missing.publishingProblem == "publish[0].url_env: environment variable HOOK_URL is not set or is empty")
        #expect(missing.disabledReason?.hasPrefix("missing credentials: publish[0].url_env") == true)
        let present = try parse(text, env: ["HOOK_URL": "http://127.0.0.1:9/hook"])
        #expect(present.publishers.map(\.name) == ["webhook"])
        #expect(present.disabledReason == nil)
    }

    /// The file target's relative path is the configuration folder's, as the state and source paths are: an agent
    /// started by systemd (working directory /) must not write posts to /posts.jsonl. (Both folders exist: a file
    /// target's folder that does not is a configuration error, `ConfiguredPathTests`.)
    @Test func theFileTargetsRelativePathIsRelativeToTheConfigurationFile() throws {
        let (dir, other) = (try TempDir(), try TempDir())
        let c = try AgentConfiguration.parse(
            """
            [[publish]]
            kind = "file"
            path = "posts.jsonl"
            [[publish]]
            kind = "file"
            name = "absolute"
            path = "\(other.path("posts.jsonl"))"
            """, file: dir.path("config.toml"), environment: [:])
        let paths = c.publishers.compactMap { ($0 as? FilePublisher)?.path }
        #expect(paths == [dir.path("posts.jsonl"), other.path("posts.jsonl")])
    }

    @Test func sampleConfigurationParses() throws {
        let c = try parse(SampleConfiguration.text)
        #expect(c.source?.follow == true)
        #expect(c.composer.timeZone.identifier == "Asia/Tokyo")
        // contrib/ ships the same text (regenerate with `steptweet init --config contrib/config.sample.toml --force`).
        let contrib = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("contrib/config.sample.toml")
        #expect(
            try String(contentsOf: contrib, encoding: .utf8) == SampleConfiguration.text + "\n"
                || String(contentsOf: contrib, encoding: .utf8) == SampleConfiguration.text)
    }

    /// Every key the configuration accepts is in the sample `init` writes, in its own table, so steptweet.toml(5),
    /// made from the sample, lists them all (text.locale and schedule.settle were accepted and on no page).
    @Test func sampleConfigurationNamesEveryAcceptedKey() {
        var words: [String: Set<Substring>] = [:]
        var table = ""
        for line in SampleConfiguration.text.components(separatedBy: "\n") {
            let body = line.trimmingPrefix("#").trimmingCharacters(in: .whitespaces)
            if let header = body.wholeMatch(of: /\[\[?([a-z_]+)\]?\]/) {
                table = String(header.1)
            } else {
                words[table, default: []].formUnion(body.split { !($0.isLetter || $0 == "_") })
            }
        }
        for (name, keys) in AgentConfiguration.sections {
            for key in keys.sorted() {
                #expect(words[name]?.contains(Substring(key)) == true, "[\(name)] \(key) is not in the sample")
            }
        }
    }

    /// A source file's times without an offset, and its local days, are in `text.time_zone` (issue 44).
    @Test func theSourceIsReadInTheTextsTimeZone() throws {
        let c = try AgentConfiguration.parse(
            "[source]\npath = \"w.csv\"\n[text]\ntime_zone = \"Europe/London\"\n", file: "/etc/steptweet/config.toml",
            environment: [:])
        let source = try #require(c.source)
        #expect(FileStepSource.readOptions(source, byteLimit: nil).timeZone?.identifier == "Europe/London")
        let utc = try AgentConfiguration.parse("[source]\npath = \"w.csv\"\n", file: "/c.toml", environment: [:])
        let zone = FileStepSource.readOptions(try #require(utc.source), byteLimit: nil).timeZone
        #expect(zone == utc.composer.timeZone && zone?.secondsFromGMT() == 0)
    }

    /// The sample and steptweet.toml(5), made from it, name every `[[publish]]` kind with its keys (its secrets
    /// among them), on a line of its own in the page, and point to no file an installed user does not have (issue 44).
    @Test func theSampleNamesEveryTargetKindWithItsKeys() {
        let text = SampleConfiguration.text
        #expect(!text.contains("Sources/") && !text.contains("README"))
        let lines = text.components(separatedBy: "\n")
        let page = ConfigurationManual.page(version: "0")
        for kind in PublisherFactory.targets {
            let index = lines.firstIndex { $0.hasPrefix("#   \(kind.name) ") }
            #expect(index != nil, "no line for the kind \(kind.name)")
            guard let index else { continue }
            // The kind's line and the indented lines that go on with it.
            let entry = ([lines[index]] + lines[(index + 1)...].prefix { $0.hasPrefix("#             ") })
                .joined(separator: " ")
            for secret in kind.secrets.map(\.name) {
                #expect(entry.contains(secret), "\(kind.name): the secret \(secret) is not named")
            }
            let body = lines[index].dropFirst(1).trimmingCharacters(in: .whitespaces)
            #expect(page.contains(".br\n" + body + "\n"), "\(kind.name) is not on a line of its own in the page")
        }
    }

    /// A configuration that cannot be read says why once, after its path (which the command prints before it), and
    /// suggests `steptweet init` only when there is no file.
    @Test func anUnreadableConfigurationSaysWhy() {
        for (path, message) in [
            (
                "/nonexistent-steptweet/config.toml",
                "no configuration file here (run `steptweet init --config /nonexistent-steptweet/config.toml` to write a sample)"
            ),
            ("/", "a folder, not a configuration file"),
        ] {
            #expect(throws: ConfigurationError(path: "", message: message)) {
                try AgentConfiguration.load(path: path, environment: [:])
            }
        }
    }

    /// At the default path the hint is `steptweet init` alone; elsewhere it names the path, where `init` alone would
    /// not write.
    @Test func theInitHintNamesAPathThatIsNotTheDefault() {
        let env = ["XDG_CONFIG_HOME": "/nonexistent-steptweet-xdg"]
        #expect(
            throws: ConfigurationError(
                path: "", message: "no configuration file here (run `steptweet init` to write a sample)")
        ) {
            try AgentConfiguration.load(path: AgentConfiguration.defaultPath(environment: env), environment: env)
        }
        #expect(AgentConfiguration.initCommand(for: "ops.toml", environment: env) == "steptweet init --config ops.toml")
    }

    @Test func xdgDefaults() {
        #expect(
            AgentConfiguration.defaultPath(environment: ["XDG_CONFIG_HOME": "/x", "HOME": "/h"])
                == "/x/steptweet/config.toml")
        #expect(AgentConfiguration.defaultPath(environment: ["HOME": "/h"]) == "/h/.config/steptweet/config.toml")
        #expect(
            AgentConfiguration.defaultStatePath(environment: ["XDG_STATE_HOME": "/s"]) == "/s/steptweet/state.sqlite")
        #expect(
            AgentConfiguration.defaultStatePath(environment: ["HOME": "/h"]) == "/h/.local/state/steptweet/state.sqlite"
        )
    }

    /// The push token goes through the one secret resolver: a token file readable by others is read, with the same
    /// warning as a target's token file; an unset variable leaves the listener off and says why.
    @Test func pushTokenFileGetsThePermissionWarning() throws {
        let dir = try TempDir()
        let token = try dir.write("push.token", "s3cret\n")
        chmod(token, 0o644)
        let text = "[push]\nport = 8787\ntoken_file = \"push.token\"\n"
        let open = try AgentConfiguration.parse(text, file: dir.path("config.toml"), environment: [:])
        #expect(open.push?.token == "s3cret")
        #expect(
            open.warnings == [
                "push.token_file: push.token is readable by group or others (mode 644); run chmod 600 push.token"
            ])
        chmod(token, 0o600)
        let closed = try AgentConfiguration.parse(text, file: dir.path("config.toml"), environment: [:])
        #expect(closed.push?.token == "s3cret")
        #expect(closed.warnings.isEmpty)
        let unset = try AgentConfiguration.parse(
            "[push]\nport = 8787\ntoken_env = \"NO_SUCH_TOKEN\"\n",
            file: dir.path("config.toml"), environment: [:])
        #expect(unset.push?.token == nil)
        #expect(
            unset.push?.tokenProblem?.hasPrefix("push.token_env: environment variable NO_SUCH_TOKEN is not set") == true
        )
    }
}

@Suite struct CronAndDurationTests {
    let tokyo = TimeZone(identifier: "Asia/Tokyo")!

    @Test func dailyAt21() throws {
        let cron = try CronSchedule("0 21 * * *")
        let next = cron.next(after: Timestamps.parse("2026-11-21T20:59:30+09:00")!, in: tokyo)
        #expect(next == Timestamps.parse("2026-11-21T21:00:00+09:00"))
        let after = cron.next(after: Timestamps.parse("2026-11-21T21:00:00+09:00")!, in: tokyo)
        #expect(after == Timestamps.parse("2026-11-22T21:00:00+09:00"))
    }

    @Test func stepsListsRangesAndWeekdays() throws {
        let quarter = try CronSchedule("*/15 9-17 * * 1-5")
        // Saturday 2026-11-21 -> Monday 09:00.
        #expect(
            quarter.next(after: Timestamps.parse("2026-11-21T12:00:00+09:00")!, in: tokyo)
                == Timestamps.parse("2026-11-23T09:00:00+09:00"))
        #expect(
            quarter.next(after: Timestamps.parse("2026-11-23T09:07:00+09:00")!, in: tokyo)
                == Timestamps.parse("2026-11-23T09:15:00+09:00"))
        let list = try CronSchedule("5,35 0 1 1 *")
        #expect(
            list.next(after: Timestamps.parse("2026-11-21T00:00:00Z")!, in: TimeZone(identifier: "UTC")!)
                == Timestamps.parse("2027-01-01T00:05:00Z"))
    }

    @Test func badExpressions() {
        for bad in ["* * * *", "60 * * * *", "* 24 * * *", "*/0 * * * *", "a * * * *", "5-1 * * * *"] {
            #expect(throws: CronError.self) { try CronSchedule(bad) }
        }
    }

    @Test func durations() {
        #expect(Durations.parse("30s") == 30)
        #expect(Durations.parse("10m") == 600)
        #expect(Durations.parse("1h30m") == 5400)
        #expect(Durations.parse("1d") == 86_400)
        for bad in ["", "10", "m", "10x", "0s", "-5m"] { #expect(Durations.parse(bad) == nil) }
        #expect(Durations.format(5400) == "1h30m")
    }
}

@Suite struct ScheduleFloorTests {
    @Test func anIntervalBelowTheMinimumIsAWarningNamingBothAndStatusShowsTheEffectiveOne() throws {
        let c = try AgentConfiguration.parse(
            "[source]\npath = \"w.csv\"\n[schedule]\ninterval = \"1m\"\n",
            file: "/etc/steptweet/config.toml", environment: [:])
        #expect(
            c.scheduleWarnings == [
                "schedule.interval \"1m\" is below schedule.minimum \"10m\": fetches run every 10m at most"
            ], "\(c.scheduleWarnings)")
        #expect(c.warnings.isEmpty, "printed by every command: \(c.warnings)")
        #expect(c.schedule.effectiveInterval == "10m (interval 1m raised to schedule.minimum)")
        let fine = try AgentConfiguration.parse(
            "[source]\npath = \"w.csv\"\n[schedule]\ninterval = \"15m\"\n",
            file: "/etc/steptweet/config.toml", environment: [:])
        #expect(fine.warnings.isEmpty && fine.scheduleWarnings.isEmpty)
        #expect(fine.schedule.effectiveInterval == "15m")
    }
}

@Suite struct TimeMeaningTests {
    @Test func sourceStartWithoutAnOffsetIsReadInTheConfiguredZoneNeverUTC() throws {
        let c = try AgentConfiguration.parse(
            """
            [source]
            path = "w.csv"
            start = "2026-11-21T10:00:00"
            [text]
            time_zone = "Asia/Tokyo"
            """, file: "/etc/steptweet/config.toml", environment: [:])
        #expect(c.source?.start == Timestamps.parse("2026-11-21T01:00:00Z"))
        // Without an offset, the offset-only parser refuses rather than guessing UTC.
        #expect(Timestamps.parse("2026-11-21T10:00:00") == nil)
        #expect(
            Timestamps.parse("2026-11-21T10:00:00", zone: TimeZone(identifier: "Asia/Tokyo")!)
                == Timestamps.parse("2026-11-21T01:00:00Z"))
    }
}
