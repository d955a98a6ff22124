import Agent
import Foundation
import Store
import TestSupport
import Testing
import WallTime

/// A followed Fitbit Takeout folder (`Physical Activity/`, a `steps-YYYY-MM-DD.json` a month) exported again with
/// minutes synced late into an OLDER month file: counted, once (through the reading ledger); the same export again
/// counts nothing, and a month that only grew adds its new minutes.
@Suite(.timeLimit(.minutes(1))) struct FitbitFolderLedgerTests {
    let t0 = Fixture.date("2026-11-21T10:00:00+09:00")

    /// A month file of `minutes` (UTC `11/DD/26 HH:MM:00`, steps), pretty-printed as Fitbit writes it.
    static func month(_ minutes: [(String, Int)]) -> String {
        "["
            + minutes.map { time, steps in
                "{\n  \"dateTime\" : \"\(time):00\",\n  \"value\" : \"\(steps)\"\n}"
            }.joined(separator: ",") + "]\n"
    }

    /// October's file (the older month): 20 Nov 23:50-23:59 UTC, 30 steps each; November's: 21 Nov 01:00-01:09 UTC
    /// (10:00 +09:00), 50 each.
    static let october = (0..<10).map { ("11/20/26 23:5\($0)", 30) }
    static let november = (0..<10).map { ("11/21/26 01:0\($0)", 50) }
    /// Minutes a watch synced late, written into October's file by the next export: 00:30-00:34 UTC, 100 each.
    static let late = (0..<5).map { ("11/21/26 00:3\($0)", 100) }

    func export(_ dir: TempDir, october: [(String, Int)], november: [(String, Int)]) throws {
        // A Takeout unzipped over the old one: each file replaced.
        try dir.write("Physical Activity/steps-2026-10-22.json", Self.month(october))
        try dir.write("Physical Activity/steps-2026-11-21.json", Self.month(november))
        try dir.write("Physical Activity/calories-2026-11-21.json", "[]\n")
    }

    func stored(_ state: String) throws -> Int {
        let day = TimeWindow(
            start: Instant(t0.addingTimeInterval(-36_000)), end: Instant(t0.addingTimeInterval(50_000)))
        return try StateStore(path: state).steps(in: day)
    }

    @Test func lateMinutesInAnOlderMonthFileAreCountedOnce() async throws {
        let dir = try TempDir()
        try export(dir, october: Self.october, november: Self.november)
        var config = try Fixture.config(dir: dir, source: dir.path("Physical Activity"))
        config.publishers = [ScriptedPublisher()]
        let fetcher = Fetcher(configuration: config, clock: ContinuousClock())
        let fetch = { (s: TimeInterval) in
            await fetcher.fetch(now: Instant(self.t0.addingTimeInterval(s)), trigger: [.manual])
        }
        #expect(await fetch(1800).steps == 300 + 500)
        try export(dir, october: Self.october + Self.late, november: Self.november)
        let second = await fetch(3600)
        #expect(second.steps == 500, "\(second.line)")
        #expect(try stored(config.statePath) == 300 + 500 + 500)
        try export(dir, october: Self.october + Self.late, november: Self.november)  // the same export again
        let third = await fetch(5400)
        #expect(third.steps == 0, "\(third.line)")
        // November grew (and October is as it was): its new minutes, 01:10-01:11 UTC, add.
        let grown = Self.november + [("11/21/26 01:10", 70), ("11/21/26 01:11", 80)]
        try export(dir, october: Self.october + Self.late, november: grown)
        let fourth = await fetch(7200)
        #expect(fourth.steps == 150, "\(fourth.line)")
        #expect(try stored(config.statePath) == 300 + 500 + 500 + 150)
        // A value corrected downwards in October (a minute of 100 now 40): the folder's word, per minute.
        var corrected = Self.october + Self.late
        corrected[10].1 = 40
        try export(dir, october: corrected, november: grown)
        _ = await fetch(9000)
        #expect(try stored(config.statePath) == 300 + 440 + 500 + 150)
    }
}
