import Foundation
import TestSupport
import Testing

/// Gadgetbridge, Garmin FIT and Google Fit through the commands, as a user runs them.
@Suite(.temporaryFolder) struct FormatsCommandTests {
    @Test func inspectRecognisesTheThreeSourcesWithoutFlags() async throws {
        let cases: [(String, String, Int)] = [
            ("formats/gadgetbridge_backup.zip", "gadgetbridge", 4),
            ("formats/garmin_fit/garmin-fenix-5-run.fit", "garmin-fit", 156),
            ("google_fit/biohacker-takeout/Takeout", "google-fit", 23),
            ("google_fit/daily-activity-metrics_manilmunjal.csv", "google-fit-daily", 1_028_773),
        ]
        for (relative, format, steps) in cases {
            let path = Steptweet.fixture(relative)
            let r = try await Steptweet.run(["inspect", "--json", path])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.contains("\"format\":\"\(format)\""), "\(r.stdout)")
            #expect(r.stdout.contains("\"steps\":\(steps)}"), "\(r.stdout)")
        }
        let zip = Steptweet.fixture("formats/gadgetbridge_backup.zip")
        let count = try await Steptweet.run(["count", zip])
        #expect(count.stdout == "\(zip): 4 steps (1 reading summed, 60.0 s, gadgetbridge)\n", "\(count.stderr)")
    }

    @Test func healthAppExportsAreCountedWithTheirBadRowsNamed() async throws {
        let cases: [(String, String, Int, [Int])] = [
            (
                "samsung_health/com.samsung.shealth.tracker.pedometer_step_count.20260607134546.csv", "samsung-health",
                132, [10, 11, 12]
            ),
            (
                "samsung_health/com.samsung.shealth.step_daily_trend.20260607134546.csv", "samsung-health-daily",
                17_350, [9]
            ),
            ("zepp_life/ACTIVITY_MINUTE/ACTIVITY_MINUTE_1718035200.csv", "zepp-life", 172, [12]),
            ("zepp_life/ACTIVITY/ACTIVITY_1718035200.csv", "zepp-life-daily", 24_124, [4]),
        ]
        for (relative, format, steps, lines) in cases {
            let path = Steptweet.fixture("formats/" + relative)
            let r = try await Steptweet.run(["inspect", "--json", "--time-zone", "Europe/Berlin", path])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.contains("\"format\":\"\(format)\""), "\(r.stdout)")
            #expect(r.stdout.contains("\"steps\":\(steps)}"), "\(r.stdout)")
            let warned = r.stderr.split(separator: "\n").map { $0.hasPrefix("steptweet: warning: skipped \(path):") }
            #expect(warned == lines.map { _ in true }, "\(r.stderr)")
            for line in lines { #expect(r.stderr.contains("\(path):\(line): "), "\(r.stderr)") }
        }
    }

    @Test func binaryFilesAreRefusedInOneLine() async throws {
        let dir = try TempDir()
        let path = try dir.write("a.out", Data([0x7F, 0x45, 0x4C, 0x46] + [UInt8](repeating: 0, count: 1996)))
        let r = try await Steptweet.run(["count", path])
        #expect(r.status == 65)
        #expect(r.stderr == "steptweet: error: \(path): not a recording: ELF executable, 2,000 bytes\n")
    }

    @Test func agentFollowsAFITFolderThatGainsFiles() async throws {
        let walk = Steptweet.fixture("formats/garmin-fenix-5-walk.fit")
        let run = Steptweet.fixture("formats/garmin_fit/garmin-fenix-5-run.fit")
        let dir = try TempDir()
        try dir.write("GARMIN/Activity/walk.fit", try Data(contentsOf: URL(fileURLWithPath: walk)))
        let config = try dir.write(
            "config.toml",
            TestBudget.applied(
                to: """
                    [source]
                    path = "GARMIN"
                    follow = true
                    [state]
                    path = "state.sqlite"
                    [[publish]]
                    kind = "stdout"
                    """))
        let steps = ["steps", "--config", config, "--from", "2017-06-11T00:00:00Z", "--to", "2017-06-12T00:00:00Z"]
        let first = try await Steptweet.run(["fetch", "--config", config, "--now", "2017-06-11T14:34:00Z"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try await Steptweet.run(steps).stdout.hasPrefix("82 steps"))
        try dir.write("GARMIN/Activity/run.fit", try Data(contentsOf: URL(fileURLWithPath: run)))
        let second = try await Steptweet.run(["fetch", "--config", config, "--now", "2017-06-11T15:00:00Z"])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(try await Steptweet.run(steps).stdout.hasPrefix("238 steps"))  // the walk not counted again
    }
}
