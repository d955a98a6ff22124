import Agent
import Analysis
import Foundation
import Messages
import Publishing
import Testing
import WallTime

@testable import Store

/// A fetch that closes a window draws its chart when a target has `image = "chart"`, keeps it with the outbox, and
/// posts the same bytes on every attempt; the summary presets' placeholders come from the stored steps.
@Suite(.timeLimit(.minutes(1))) struct WindowChartFetchTests {
    let t0 = Fixture.date("2026-11-21T10:00:00+09:00")

    /// The PNG's width and height from its IHDR, after checking its signature.
    func pngSize(_ png: Data) -> [Int]? {
        let bytes = [UInt8](png)
        guard bytes.count > 24, bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else { return nil }
        return [16, 20].map { i in bytes[i..<i + 4].reduce(0) { $0 << 8 | Int($1) } }
    }

    @Test func aChartTargetGetsTheWindowsChartAndATextTargetNone() async throws {
        let dir = try TempDir()
        let minutes = 0..<30
        var config = try Fixture.config(dir: dir, source: try dir.write("fit.json", MinuteReadings.googleFit(minutes)))
        config.composer = try MessageComposer(template: try Template(Template.english), timeZone: "Asia/Tokyo")
        let pictures = ScriptedPublisher(name: "pictures", image: ImageOption(chart: true))
        let words = ScriptedPublisher(name: "words")
        config.publishers = [pictures, words]

        let report = await Fetcher(configuration: config, clock: ContinuousClock()).fetch(
            now: Instant(t0.addingTimeInterval(2400)), trigger: [.manual])
        #expect(report.result == .newData, "\(report.line)")
        let image = try #require(await pictures.received.first?.image, "no chart posted")
        #expect(pngSize(image.png) == [2400, 1350] && image.width == 2400 && image.height == 1350)
        let wordsReceived = await words.received
        #expect(wordsReceived.count == 1 && wordsReceived.first?.image == nil)
        // The busiest minute of the readings, from the minutes this test wrote (minute m holds 40 + m steps).
        let top = try #require(minutes.max { 40 + $0 < 40 + $1 })
        let total = MinuteReadings.steps(minutes)
        #expect(image.alt.hasPrefix("Bar chart of steps per minute, 10:00 to "), "\(image.alt)")
        #expect(
            image.alt.hasSuffix(
                ": \(total.formatted(.number.locale(Locale(identifier: "en_US")))) steps, most (\(40 + top)) between "
                    + "10:\(top) and 10:\(top + 1)."), "\(image.alt)")
        #expect(report.windows.first?.imageAlt == image.alt)
        #expect(report.charts.isEmpty, "a fetch's report holds no PNG")
    }

    @Test func aRetryPostsTheSameChartEvenWhenTheStyleChangedMeanwhile() async throws {
        let dir = try TempDir()
        var config = try Fixture.config(dir: dir)
        let target = ScriptedPublisher(
            name: "pictures", outcomes: [.retryable(reason: "HTTP 503", retryAfter: 1, unconfirmed: false)],
            image: ImageOption(chart: true))
        config.publishers = [target]
        let first = await Fetcher(configuration: config, clock: ContinuousClock()).fetch(
            now: Instant(t0.addingTimeInterval(600)), trigger: [.manual])
        #expect(first.deliveries.map(\.outcome) == [.retryable])
        // A chart drawn again now would be dark and have a goal line: the retry must post the stored one.
        config.chart = WindowChartOptions(style: .dark, goal: 100)
        let retry = await Fetcher(configuration: config, clock: ContinuousClock()).fetch(
            now: Instant(t0.addingTimeInterval(900)), trigger: [.manual])
        #expect(retry.deliveries.first?.outcome == .delivered, "\(retry.line)")
        let posted = await target.received
        #expect(posted.count == 2)
        let image = try #require(posted[0].image)
        #expect(posted[1].image == image)
        let stored = try StateStore(path: config.statePath).outboxImage(idempotencyKey: posted[0].idempotencyKey)
        #expect(stored == image)
        let background = try RasterImage.decodePNG([UInt8](image.png)).pixel(x: 4, y: 4)
        #expect(background.r == 255, "the light style of the first attempt")
    }

    @Test func withoutAChartTargetNoChartIsDrawnOrKept() async throws {
        let dir = try TempDir()
        var config = try Fixture.config(dir: dir)
        let target = ScriptedPublisher()
        config.publishers = [target]
        let fetcher = Fetcher(configuration: config, clock: ContinuousClock())
        #expect(!fetcher.drawsCharts)
        let report = await fetcher.fetch(now: Instant(t0.addingTimeInterval(600)), trigger: [.manual])
        let key = try #require(report.windows.first?.idempotencyKey)
        #expect(report.windows.first?.imageAlt == nil)
        #expect(try StateStore(path: config.statePath).outboxImage(idempotencyKey: key) == nil)
        #expect(await target.received.first?.image == nil)
    }

    /// Step log lines for `day` (in Tokyo): for each hour, `steps` counted between `hour:00` and `hour:50`.
    func readings(day: String, _ steps: [Int: Int]) -> String {
        steps.sorted { $0.key < $1.key }.map { hour, n in
            let at = { (minute: Int) in String(format: "%@T%02d:%02d:00+09:00", day, hour, minute) }
            return #"{"ts": "\#(at(0))", "steps": 0}"# + "\n" + #"{"ts": "\#(at(50))", "steps": \#(n)}"# + "\n"
        }.joined()
    }

    @Test func theDailyPresetComparesWithTheDayBeforeAndNamesTheBusiestHour() async throws {
        let dir = try TempDir()
        let before = [8: 1200, 12: 2500, 18: 900]
        let day = [7: 800, 9: 3100, 13: 1500, 19: 2200]
        let log = readings(day: "2026-11-20", before) + readings(day: "2026-11-21", day)
        var config = try Fixture.config(
            dir: dir, source: try dir.write("steps.jsonl", log), schedule: "window = \"1d\"")
        config.composer = try MessageComposer(
            template: try Template.presetOrTemplate("daily-en"), timeZone: "Asia/Tokyo", locale: "en_US")
        config.publishers = [ScriptedPublisher()]
        let report = await Fetcher(configuration: config, clock: ContinuousClock()).fetch(
            now: Instant(Fixture.date("2026-11-22T00:30:00+09:00")), trigger: [.manual])
        #expect(report.windows.count == 2, "\(report.line)")
        let total = day.values.reduce(0, +)
        let change = total - before.values.reduce(0, +)
        let busiest = try #require(day.max { $0.value < $1.value })
        let number = { (n: Int) in n.formatted(.number.locale(Locale(identifier: "en_US"))) }
        #expect(
            report.windows.last?.text
                == "2026/11/21: \(number(total)) steps (\(change >= 0 ? "+" : "-")\(number(abs(change))) on the day "
                + "before); busiest hour \(String(format: "%02d:00–%02d:00", busiest.key, busiest.key + 1)) (\(number(busiest.value)) "
                + "steps).")
    }

    @Test func theWeeklyPresetPostsMondayToMondayWithTheBusiestDay() async throws {
        let dir = try TempDir()
        // Tuesday 11/10 the week before; Tuesday 11/17 and Saturday 11/21 this week.
        let log =
            readings(day: "2026-11-10", [10: 4000]) + readings(day: "2026-11-17", [10: 3000])
            + readings(day: "2026-11-21", [9: 2000, 15: 2500])
        var config = try Fixture.config(
            dir: dir, source: try dir.write("steps.jsonl", log), schedule: "window = \"7d\"")
        config.composer = try MessageComposer(
            template: try Template.presetOrTemplate("weekly-en"), dateFormat: "MM/dd", timeZone: "Asia/Tokyo")
        config.publishers = [ScriptedPublisher()]
        let report = await Fetcher(configuration: config, clock: ContinuousClock()).fetch(
            now: Instant(Fixture.date("2026-11-23T01:00:00+09:00")), trigger: [.manual])
        let week = try #require(report.windows.last, "\(report.line)")
        #expect(week.span.start.date == Fixture.date("2026-11-16T00:00:00+09:00"))
        #expect(week.span.end.date == Fixture.date("2026-11-23T00:00:00+09:00"))
        #expect(
            week.text
                == "Week 11/16 to 11/23: 7500 steps (+3500 on the week before); busiest day Sat 11/21 (4500 steps)."
        )
    }

    @Test func theChartKeysAndSummaryPresetsAreReadAndChecked() throws {
        let dir = try TempDir()
        func parse(_ text: String, schedule: String = "") throws -> AgentConfiguration {
            try AgentConfiguration.parse(
                "[schedule]\n\(schedule)\n[text]\n\(text)\n[state]\npath = \"s.sqlite\"\n", file: dir.path("c.toml"),
                environment: [:])
        }
        let daily = try parse("preset = \"daily\"\ngoal = 8000\nchart_style = \"dark\"", schedule: "window = \"1d\"")
        #expect(daily.chart == WindowChartOptions(style: .dark, goal: 8000))
        #expect(daily.composer.template.source == Template.daily && daily.warnings.isEmpty)
        #expect(try parse("").chart == WindowChartOptions(style: .light, goal: nil))
        let weekly = try parse("preset = \"weekly-en\"", schedule: "window = \"7d\"")
        #expect(weekly.schedule.window == .aligned(7 * 86_400) && weekly.warnings.isEmpty)
        let mismatched = try parse("preset = \"daily-en\"", schedule: "window = \"1h\"")
        #expect(mismatched.warnings.contains { $0.hasPrefix("text.preset \"daily-en\" sums up aligned periods") })
        #expect(throws: ConfigurationError.self) { try parse("chart_style = \"sepia\"") }
        #expect(throws: ConfigurationError.self) { try parse("goal = 0") }
        do {
            _ = try parse("preset = \"monthly\"")
            Issue.record("an unknown preset was taken")
        } catch let error as ConfigurationError {
            #expect(error.description.contains("'monthly' is not a preset; known: \"daily\", \"daily-en\""))
        }
    }

    /// The chart's words follow `[text] locale` when it is set, else the template's language (the Japanese presets'
    /// is Japanese); the locale changes nothing else of the text's words.
    @Test func theChartsLanguageFollowsTheLocaleElseTheTemplate() throws {
        let dir = try TempDir()
        func language(_ text: String) throws -> TextLanguage {
            try AgentConfiguration.parse(
                "[text]\n\(text)\n[state]\npath = \"s.sqlite\"\n", file: dir.path("c.toml"), environment: [:]
            ).composer.language
        }
        #expect(try language("preset = \"daily\"") == .japanese)
        #expect(try language("") == .japanese)  // the seed text
        #expect(try language("preset = \"daily-en\"") == .english)
        #expect(try language("preset = \"daily-en\"\nlocale = \"ja_JP\"") == .japanese)
        #expect(try language("preset = \"daily\"\nlocale = \"en_US\"") == .english)
    }

    /// A post queued before the outbox kept charts (the 2026-11-23 schema) is sent by a chart target as text alone.
    @Test func aPostQueuedBeforeChartsWereKeptGoesOutAsText() async throws {
        let dir = try TempDir()
        let fixture = SharedData.packageRoot.appendingPathComponent("fixtures/state-schema-2026-11-23.sqlite").path
        try FileManager.default.copyItem(atPath: fixture, toPath: dir.path("state.sqlite"))
        var config = try Fixture.config(dir: dir, source: nil)
        let target = ScriptedPublisher(name: "gone", image: ImageOption(chart: true))
        config.publishers = [target]
        let key = "steps-20261121T010200Z-20261123T013037Z"
        #expect(try StateStore(path: config.statePath).outboxImage(idempotencyKey: key) == nil)
        let report = await Fetcher(configuration: config, clock: ContinuousClock()).fetch(
            now: Instant(Fixture.date("2026-11-23T12:00:00+09:00")), trigger: [.manual])
        #expect(report.deliveries.map(\.outcome) == [.delivered], "\(report.line)")
        let posted = await target.received
        #expect(posted.map(\.idempotencyKey) == [key] && posted.first?.image == nil)
    }
}
