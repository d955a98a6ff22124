import Foundation
import Messages
import Testing
import WallTime

/// The `daily` and `weekly` presets and the placeholders they are made of, in Japanese and English.
@Suite struct SummaryPresetTests {
    let dayStart = Timestamps.parse("2026-11-21T00:00:00+09:00")!

    func composer(_ preset: String, locale: String = "en_US") throws -> MessageComposer {
        try MessageComposer(template: try Template.presetOrTemplate(preset), timeZone: "Asia/Tokyo", locale: locale)
    }

    func day(steps: Int, previous: Int?, busiestHour: Int, busiestSteps: Int) -> StepWindow {
        let busiest = dayStart.addingTimeInterval(Double(busiestHour) * 3600)
        return StepWindow(
            TimeWindow(start: dayStart, end: dayStart.addingTimeInterval(86_400)), steps: steps, bouts: 4,
            previousSteps: previous,
            busiest: StepPeriod(start: busiest, end: busiest.addingTimeInterval(3600), steps: busiestSteps))
    }

    @Test func theDailyPresetGivesTheTotalTheChangeTheWalksAndTheBusiestHour() throws {
        let window = day(steps: 9120, previous: 7890, busiestHour: 17, busiestSteps: 2345)
        #expect(
            try composer("daily").compose(window)
                == "2026/11/21 の歩数は 9,120 歩（前日比 +1,230）。4 回歩いて、いちばん歩いたのは 17:00–18:00（2,345 歩）でした。")
        #expect(
            try composer("daily-en").compose(window)
                == "2026/11/21: 9,120 steps (+1,230 on the day before) in 4 walks; busiest hour 17:00–18:00 (2,345 steps)."
        )
        let fewer = day(steps: 500, previous: 800, busiestHour: 8, busiestSteps: 500)
        #expect(try composer("daily-en").compose(fewer).contains("(-300 on the day before)"))
        let same = day(steps: 500, previous: 500, busiestHour: 8, busiestSteps: 500)
        #expect(try composer("daily-en").compose(same).contains("(±0 on the day before)"))
    }

    @Test(arguments: ["daily", "daily-en", "weekly", "weekly-en"])
    func aSummaryPresetLeavesItsWalksOutWhenNoWalkEnded(preset: String) throws {
        // A step log or an export has no walks: "9,120 steps in 0 walks" would say something false.
        var window = day(steps: 9120, previous: 7890, busiestHour: 17, busiestSteps: 2345)
        let withWalks = try composer(preset).compose(window)
        window.bouts = 0
        let without = try composer(preset).compose(window)
        // The words for the walks, and what is left where they were.
        let (walks, left) = preset.hasSuffix("-en") ? (" in 4 walks;", ";") : ("4 回歩いて、", "")
        #expect(withWalks.contains(walks))
        #expect(without == withWalks.replacingOccurrences(of: walks, with: left))
        // A template of one's own says what it says.
        let own = try MessageComposer(template: try Template("{steps} steps in {bouts} walks"), timeZone: "UTC")
        #expect(own.compose(window) == "9120 steps in 0 walks")
    }

    @Test func theWeeklyPresetNamesTheBusiestDayInTheTemplatesLanguage() throws {
        let saturday = dayStart
        let week = StepWindow(
            TimeWindow(start: dayStart.addingTimeInterval(-2 * 86_400), end: dayStart.addingTimeInterval(5 * 86_400)),
            steps: 61_000, bouts: 30, previousSteps: 70_000,
            busiest: StepPeriod(start: saturday, end: saturday.addingTimeInterval(86_400), steps: 15_000))
        let japanese = try composer("weekly").compose(week)
        #expect(japanese.contains("（前週比 -9,000）") && japanese.contains("いちばん歩いた日は 11/21(土)（15,000 歩）"))
        let english = try composer("weekly-en").compose(week)
        #expect(english.contains("(-9,000 on the week before)") && english.contains("busiest day Sat 11/21 (15,000"))
    }

    @Test func placeholdersWithoutDataReadAsADash() throws {
        let composer = try MessageComposer(
            template: try Template("{previous_steps}|{change}|{busiest}|{busiest_steps}"), timeZone: "UTC")
        #expect(composer.compose(StepWindow(TimeWindow(start: dayStart, end: dayStart), steps: 3)) == "—|—|—|—")
    }

    @Test func aTemplatesLanguageIsJapaneseWhenItsOwnWordsAre() throws {
        #expect(try Template(Template.seed).language == .japanese)
        #expect(try Template(Template.english).language == .english)
        #expect(try Template.presetOrTemplate("weekly").language == .japanese)
        #expect(try Template.presetOrTemplate("daily-en").language == .english)
        // Placeholders are not words: a device named in Japanese does not make an English template Japanese.
        #expect(try Template("{steps} steps {device}").language == .english)
        #expect(try Template("{steps} 歩").language == .japanese)
    }
}
