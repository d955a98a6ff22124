import Foundation
import Messages
import Testing
import WallTime

@Suite struct ComposerTests {
    let start = Date(timeIntervalSince1970: 1_763_686_800)  // 2025-11-21T01:00:00Z

    func window(steps: Int = 1234, minutes: Double = 30, bouts: Int = 2) -> StepWindow {
        StepWindow(TimeWindow(start: start, end: start.addingTimeInterval(minutes * 60)), steps: steps, bouts: bouts)
    }

    @Test func everyPlaceholder() throws {
        let template = try Template("{date}|{from}|{to}|{steps}|{device}|{duration}|{cadence}|{bouts}")
        let composer = try MessageComposer(template: template, device: "Pixel 8", timeZone: "Asia/Tokyo")
        #expect(composer.compose(window()) == "2025/11/21|11/21 10:00:00|11/21 10:30:00|1234|Pixel 8|30m|41|2")
        #expect(
            composer.compose(window(steps: 0, minutes: 0, bouts: 0))
                == "2025/11/21|11/21 10:00:00|11/21 10:00:00|0|Pixel 8|0s|0|0")
        #expect(composer.compose(window(minutes: 65)).contains("|1h 05m|"))
    }

    @Test func dateFormatAndZone() throws {
        let composer = try MessageComposer(
            template: try Template("{from}-{to}"), dateFormat: "yyyy-MM-dd HH:mm",
            timeZone: "Europe/Berlin")
        #expect(composer.compose(window()) == "2025-11-21 02:00-2025-11-21 02:30")
        let utc = try MessageComposer(template: try Template("{from}"), timeZone: "UTC")
        #expect(utc.compose(window()) == "11/21 01:00:00")
    }

    @Test func localeGroupsNumbers() throws {
        let template = try Template("{steps}")
        #expect(
            try MessageComposer(template: template, timeZone: "UTC", locale: "en_US").compose(window(steps: 12345))
                == "12,345")
        #expect(
            try MessageComposer(template: template, timeZone: "UTC", locale: "de_DE").compose(window(steps: 12345))
                == "12.345")
        #expect(try MessageComposer(template: template, timeZone: "UTC").compose(window(steps: 12345)) == "12345")
    }

    @Test func englishPresetAndPresetNames() throws {
        let composer = try MessageComposer(template: try Template.presetOrTemplate("english"), timeZone: "Asia/Tokyo")
        #expect(
            composer.compose(window())
                == "1234 steps between 11/21 10:00:00 and 11/21 10:30:00 with iPhone 5s. Tweet By Background Fetch")
        #expect(try Template.presetOrTemplate("seed") == Template(Template.seed))
        #expect(try Template.presetOrTemplate("{steps} steps").fields == ["steps"])
        #expect(throws: TemplateError.unknownPlaceholder("step")) { try Template.presetOrTemplate("{step}") }
    }

    @Test func unknownPlaceholderMessageListsTheKnownOnes() {
        let message = TemplateError.unknownPlaceholder("stpes").description
        #expect(message.hasPrefix("unknown placeholder {stpes}; known: {bouts}, {busiest}, {busiest_steps}, {cadence}"))
    }

    @Test func windowAcrossYearsShowsTheYearInBothDates() throws {
        let composer = try MessageComposer(template: try Template(Template.seed), timeZone: "Asia/Tokyo")
        let start = try #require(Timestamps.parse("2025-09-20T18:00:00+09:00"))
        let end = try #require(Timestamps.parse("2026-11-23T06:49:53+09:00"))
        #expect(
            composer.compose(StepWindow(TimeWindow(start: start, end: end), steps: 5)).hasPrefix(
                "2025/09/20 18:00:00 〜 2026/11/23 06:49:53 の期間に"))
        // New Year's Eve in Tokyo is still one year in UTC's terms only until 09:00: the zone decides.
        let eve = try #require(Timestamps.parse("2025-12-31T23:30:00+09:00"))
        let newYear = eve.addingTimeInterval(3600)
        #expect(
            composer.compose(StepWindow(TimeWindow(start: eve, end: newYear), steps: 5)).hasPrefix(
                "2025/12/31 23:30:00 〜 2026/01/01 00:30:00"))
        let utc = try MessageComposer(template: try Template("{from} 〜 {to}"), timeZone: "UTC")
        #expect(
            utc.compose(StepWindow(TimeWindow(start: eve, end: newYear), steps: 5)) == "12/31 14:30:00 〜 12/31 15:30:00"
        )
        // A format that already has a year is kept as it is.
        let dated = try MessageComposer(
            template: try Template("{from}|{to}"), dateFormat: "yyyy-MM-dd", timeZone: "Asia/Tokyo")
        #expect(dated.compose(StepWindow(TimeWindow(start: start, end: end), steps: 5)) == "2025-09-20|2026-11-23")
    }

    @Test func seedWindowWithinOneYearKeepsTheSeedFormat() throws {
        let composer = try MessageComposer(template: try Template(Template.seed), timeZone: "Asia/Tokyo")
        #expect(
            composer.compose(window())
                == "11/21 10:00:00 〜 11/21 10:30:00 の期間に iPhone 5s を持って 1234 歩 歩きました。 Tweet By Background Fetch")
    }
}
