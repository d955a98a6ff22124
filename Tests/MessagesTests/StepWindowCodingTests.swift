import Foundation
import Messages
import Testing
import WallTime

@Suite struct StepWindowCodingTests {
    /// A chart request keeps the window it draws as JSON; one written before the window held a `TimeWindow` (its ends
    /// as dates, Foundation's default: seconds since 2001) is still read, and a window is written the same way.
    @Test func aWindowIsKeptUnderItsEarlierKeysAndDates() throws {
        let old = #"{"start":785000000,"end":785001800,"steps":1234,"bouts":2,"previousSteps":1000}"#
        let window = try JSONDecoder().decode(StepWindow.self, from: Data(old.utf8))
        let start = Date(timeIntervalSinceReferenceDate: 785_000_000)
        #expect(window.span == TimeWindow(start: start, end: start.addingTimeInterval(1800)))
        #expect(window.steps == 1234 && window.bouts == 2 && window.previousSteps == 1000 && window.busiest == nil)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let written = String(decoding: try encoder.encode(window), as: UTF8.self)
        #expect(written == #"{"bouts":2,"end":785001800,"previousSteps":1000,"start":785000000,"steps":1234}"#)
    }
}
