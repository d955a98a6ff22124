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
}
