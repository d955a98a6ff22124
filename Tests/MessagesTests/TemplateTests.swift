import Foundation
import Messages
import Testing
import WallTime

@Suite struct TemplateTests {
    @Test func seedTemplateRendersTheSeedText() throws {
        let composer = try MessageComposer(template: try Template(Template.seed), timeZone: "Asia/Tokyo")
        let start = Date(timeIntervalSince1970: 1_763_686_800)  // 2025-11-21T01:00:00Z = 10:00 in Tokyo
        let text = composer.compose(
            StepWindow(TimeWindow(start: start, end: start.addingTimeInterval(1800)), steps: 1234))
        #expect(text == "11/21 10:00:00 〜 11/21 10:30:00 の期間に iPhone 5s を持って 1234 歩 歩きました。 Tweet By Background Fetch")
    }

    @Test func unknownPlaceholderIsAnError() {
        #expect(throws: TemplateError.unknownPlaceholder("stpes")) { try Template("{stpes} steps") }
        #expect(throws: TemplateError.self) { try Template("{steps") }
        #expect(throws: TemplateError.self) { try Template("steps}") }
    }

    @Test func bracesCanBeEscaped() throws {
        #expect(try Template("{{x}} {steps}").render(["steps": "5"]) == "{x} 5")
    }

    @Test func unknownZoneIsRefusedNotUTC() {
        #expect(throws: ComposerError.unknownTimeZone("Bogus/Zone")) {
            try MessageComposer(template: try Template(Template.seed), timeZone: "Bogus/Zone")
        }
    }

    /// "1 steps", "in 1 walks": the English presets' counts of one read in the singular; other counts, other words
    /// and the Japanese presets are left as written.
    @Test func aCountOfOneTakesTheSingular() throws {
        let english = try Template(Template.english)
        #expect(english.render(["steps": "1", "device": "Pixel"]).hasPrefix("1 step between  and  with Pixel."))
        #expect(english.render(["steps": "2", "device": "Pixel"]).hasPrefix("2 steps between"))
        #expect(english.render(["steps": "11", "device": "Pixel"]).hasPrefix("11 steps between"))
        let daily = try Template(Template.dailyEnglish)
        let values = [
            "date": "11/21", "steps": "1,234", "change": "+1", "bouts": "1", "busiest": "10:00", "busiest_steps": "1",
        ]
        #expect(
            daily.render(values) == "11/21: 1,234 steps (+1 on the day before) in 1 walk; busiest hour 10:00 (1 step).")
        #expect(
            try Template("{steps} stepsister {bouts} walkstep").render(["steps": "1", "bouts": "1"])
                == "1 stepsister 1 walkstep")
        #expect(try Template(Template.seed).render(["steps": "1"]).contains("1 歩 歩きました"))
    }

    /// The English alt text's goal line counts in the singular too: "1 step short of the goal", not "1 steps".
    @Test func anAltTextOneStepShortOfTheGoalSaysStep() throws {
        let composer = try MessageComposer(template: try Template(Template.english), timeZone: "UTC")
        let start = Date(timeIntervalSince1970: 1_763_686_800)
        let window = TimeWindow(start: start, end: start.addingTimeInterval(3600))
        var summary = ChartSummary(
            window: window, intervalSeconds: 600, steps: 7999, walks: 1, busiest: nil, goal: 8000)
        #expect(composer.altText(summary).hasSuffix(" 1 step short of the goal of 8,000."))
        summary.steps = 7998
        #expect(composer.altText(summary).hasSuffix(" 2 steps short of the goal of 8,000."))
    }
}
