import Agent
import Foundation
import Store
import TestSupport
import Testing
import WallTime

/// Exports read in slices (`Fetcher.sliceBytes`, 16 MiB; here a row or two a slice): records of one walk either side
/// of a slice's end count as when the file is read whole.
@Suite(.timeLimit(.minutes(1))) struct SliceBoundaryTests {
    let t0 = Fixture.date("2026-11-21T10:00:00+09:00")

    /// A Samsung Health `pedometer_step_count` CSV of `rows` (UTC start and end `HH:MM`, steps, device).
    static func samsung(_ rows: [(String, String, Int, String)]) -> String {
        let p = "com.samsung.health.step_count."
        return "com.samsung.shealth.tracker.pedometer_step_count,6313005,13\n"
            + "\(p)start_time,\(p)end_time,\(p)time_offset,\(p)count,\(p)deviceuuid\n"
            + rows.map { start, end, steps, device in
                "2026-11-21 \(start):00.000,2026-11-21 \(end):00.000,UTC+0900,\(steps),\(device)\n"
            }.joined()
    }

    func stored(_ state: String) throws -> Int {
        let day = TimeWindow(
            start: Instant(t0.addingTimeInterval(-36_000)), end: Instant(t0.addingTimeInterval(50_000)))
        return try StateStore(path: state).steps(in: day)
    }

    /// Samsung Health got Apple Health's slice pause (its last run of overlapping rows kept for the next slice): the
    /// phone's and the watch's rows of one walk either side of a slice's end count once, by the overlap rule.
    @Test(arguments: [("", 420), ("prefer = \"phone0uuid\"", 300)])
    func samsungPhoneAndWatchEitherSideOfASliceBoundaryCountOnce(prefer: String, expected: Int) async throws {
        let dir = try TempDir()
        let path = try dir.write(
            "steps.csv",
            Self.samsung([
                ("01:00", "01:05", 300, "phone0uuid"), ("01:00", "01:05", 420, "watch0uuid"),
                ("01:20", "01:25", 400, "phone0uuid"),
            ]))
        var config = try Fixture.config(dir: dir, source: path, extra: prefer)
        config.publishers = [ScriptedPublisher()]
        var fetcher = Fetcher(configuration: config, clock: ContinuousClock())
        fetcher.sliceBytes = 60  // a row a slice
        let report = await fetcher.fetch(now: Instant(t0.addingTimeInterval(1800)), trigger: [.manual])
        #expect(!report.backlog, "\(report.line)")
        #expect(try stored(config.statePath) == expected + 400)
    }
}
