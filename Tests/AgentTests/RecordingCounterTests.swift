import Agent
import Foundation
import SensorInput
import Testing

@Suite struct RecordingCounterTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test func countsTheDemoFixtureWithStepTimesInOrder() throws {
        let path = Self.root.appendingPathComponent("fixtures/demo_walk_50hz.csv").path
        let result = try RecordingCounter.count(path: path, keepStepTimes: true)
        #expect(result.summary.samples == 3000)
        #expect(result.stepTimes.count == result.steps)
        #expect(result.stepTimes == result.stepTimes.sorted())
        #expect(abs(result.steps - 109) <= 11)
        #expect(result.bouts.reduce(0) { $0 + $1.steps } == result.steps)
    }
}
