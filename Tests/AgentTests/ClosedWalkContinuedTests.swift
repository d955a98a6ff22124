import Agent
import Analysis
import Foundation
import Publishing
import SensorInput
import Testing
import WallTime

/// A followed recording whose walk was closed because no sample came for over a minute, then appended with samples
/// that go on from its last one (a file synced late, in pieces): the appended part is a new stream and counts as it
/// would alone. Before, the detector went on from the closed walk and credited the first seconds after the seam
/// twice (131 steps for a minute that counts 113 alone; bench/audit34_result.md).
@Suite(.timeLimit(.minutes(1))) struct ClosedWalkContinuedTests {
    @Test func samplesAfterAWalkClosedForLatenessCountAsANewStream() async throws {
        let dir = try TempDir()
        let lines = try String(contentsOfFile: Fixture.walk, encoding: .utf8).split(separator: "\n")
        let header = String(lines[0])
        let rows = lines.dropFirst().map(String.init)
        // The same minute again, 60 s later: its first sample follows the first minute's last by one period.
        let later: String = try rows.map { row in
            let fields = row.split(separator: ",", maxSplits: 1)
            guard fields.count == 2, let t = Double(fields[0]) else { throw CocoaError(.fileReadCorruptFile) }
            return String(format: "%.3f", t + 60_000) + "," + fields[1] + "\n"
        }.joined()
        let source = dir.path("live.csv")
        try Data((header + "\n" + rows.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: source))
        let alone = dir.path("alone.csv")
        try Data((header + "\n" + later).utf8).write(to: URL(fileURLWithPath: alone))
        let expected = try RecordingCounter.count(
            path: alone, options: ReadOptions(start: Instant(secondsSinceEpoch: 0))
        ).steps

        var config = try Fixture.config(
            dir: dir, source: source, start: "2026-11-21T10:00:00+09:00", extra: "follow = true")
        config.publishers = [ScriptedPublisher()]
        let fetcher = Fetcher(configuration: config, clock: ContinuousClock())
        let t0 = Fixture.date("2026-11-21T10:00:00+09:00")
        // Over a minute after the last sample (10:01:00): the walk is closed in this fetch.
        let first = await fetcher.fetch(now: Instant(t0.addingTimeInterval(300)), trigger: [.manual])
        #expect(first.result == .newData, "\(first.line)")
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: source))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(later.utf8))
        try handle.close()
        let second = await fetcher.fetch(now: Instant(t0.addingTimeInterval(600)), trigger: [.manual])
        let steps = try #require(second.windows.first?.steps, "\(second.line)")
        #expect(expected > 90)
        #expect(abs(steps - expected) <= 2, "the appended minute: \(steps) steps, \(expected) alone")
    }
}
