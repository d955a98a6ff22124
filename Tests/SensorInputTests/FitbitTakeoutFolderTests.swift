import Foundation
import TestSupport
import Testing

@testable import SensorInput

/// A Fitbit Takeout's `Physical Activity/` folder (one `steps-YYYY-MM-DD.json` a month beside calories, distance,
/// heart rate… files) was refused: "no recording steptweet reads in this folder". Built from the committed real
/// Fitbit file (`fixtures/formats/steps-1995-06-23_Fitbit.json`, GGIRread, Apache-2.0: 34 minutes, 607 steps).
@Suite struct FitbitTakeoutFolderTests {
    static let real = try! String(
        contentsOfFile: SharedData.fixture("formats/steps-1995-06-23_Fitbit.json"), encoding: .utf8)

    /// June (the real file), July (the same minutes a month later, one more minute of 40 steps appended) and, as a
    /// re-export written beside them, 16:20-16:22 of June again (58, 79, 95: already counted), with the Takeout's
    /// other files.
    static func takeout(_ dir: TempDir) throws -> String {
        let folder = "Takeout/Fitbit/Physical Activity/"
        try dir.write(folder + "steps-1995-06-23.json", real)
        let july = real.replacingOccurrences(of: "06/24/95", with: "07/24/95")
        try dir.write(
            folder + "steps-1995-07-23.json",
            july.dropLast(2) + ",{\n  \"dateTime\" : \"07/24/95 17:00:00\",\n  \"value\" : \"40\"\n}]\n")
        try dir.write(
            folder + "steps-1995-06-24.json",
            """
            [{"dateTime" : "06/24/95 16:20:00", "value" : "58"},{"dateTime" : "06/24/95 16:21:00", "value" : "79"},
            {"dateTime" : "06/24/95 16:22:00", "value" : "95"}]
            """)
        try dir.write(
            folder + "calories-1995-06-23.json", "[{\"dateTime\" : \"06/24/95 16:00:00\", \"value\" : \"1.2\"}]")
        try dir.write(folder + "heart_rate-1995-06-24.json", "[{\"dateTime\" : \"06/24/95 16:00:05\", \"value\" : {}}]")
        try dir.write(folder + "Active Zone Minutes (AZM).csv", "date_time,heart_zone_id,total_minutes\n")
        return dir.path("Takeout/Fitbit/Physical Activity")
    }

    func read(_ path: String, options: ReadOptions = ReadOptions()) throws -> (ReadSummary, [StepReading]) {
        var readings: [StepReading] = []
        let summary = try AnyInput.read(path: path, options: options) {
            if case .reading(let r) = $0 { readings.append(r) }
        }
        return (summary, readings)
    }

    @Test func thePhysicalActivityFolderIsReadAsOneExport() throws {
        let dir = try TempDir()
        let folder = try Self.takeout(dir)
        let (summary, readings) = try read(folder)
        #expect(summary.steps == 607 + 607 + 40)
        #expect(readings.map(\.startNs) == readings.map(\.startNs).sorted())
        // The folder holding it, too, and `--format fitbit-steps` on it.
        #expect(try read(dir.path("Takeout/Fitbit")).0.steps == 1_254)
        var options = ReadOptions()
        options.format = "fitbit-steps"
        #expect(try read(folder, options: options).0.steps == 1_254)
    }

    /// Followed (the agent's `source.path`): a month added later yields its minutes alone.
    @Test func followedItYieldsOnlyTheMinutesOfANewMonth() throws {
        let dir = try TempDir()
        let folder = try Self.takeout(dir)
        var steps = 0
        let sink: (InputItem) -> Void = { if case .reading(let r) = $0 { steps += r.steps } }
        let first = try SourceReader.readNew(path: folder, cursor: nil, sink)
        #expect(steps == 1_254)
        let august = Self.real.replacingOccurrences(of: "06/24/95", with: "08/24/95")
        try dir.write("Takeout/Fitbit/Physical Activity/steps-1995-08-23.json", august)
        steps = 0
        let second = try SourceReader.readNew(path: folder, cursor: first.cursor, sink)
        #expect(steps == 607)
        steps = 0
        _ = try SourceReader.readNew(path: folder, cursor: second.cursor, sink)
        #expect(steps == 0)
    }

    /// Followed, then exported again: the same files (rewritten) deliver nothing; minutes synced late into the older
    /// June file make the read start over, every minute delivered again (the agent's ledger counts the difference).
    @Test func followedALateMinuteInAnOlderMonthStartsItOver() throws {
        let dir = try TempDir()
        let folder = try Self.takeout(dir)
        var steps = 0
        let sink: (InputItem) -> Void = { if case .reading(let r) = $0 { steps += r.steps } }
        let first = try SourceReader.readNew(path: folder, cursor: nil, sink)
        _ = try Self.takeout(dir)  // the same export written again
        steps = 0
        let same = try SourceReader.readNew(path: folder, cursor: first.cursor, sink)
        #expect(steps == 0)
        #expect(!same.summary.startedOver)
        let june = Self.real.dropLast(2) + ",{\n  \"dateTime\" : \"06/24/95 23:00:00\",\n  \"value\" : \"33\"\n}]\n"
        try dir.write("Takeout/Fitbit/Physical Activity/steps-1995-06-23.json", String(june))
        steps = 0
        let late = try SourceReader.readNew(path: folder, cursor: same.cursor, sink)
        #expect(late.summary.startedOver)
        #expect(steps == 1_254 + 33)
        steps = 0
        let after = try SourceReader.readNew(path: folder, cursor: late.cursor, sink)
        #expect(steps == 0)
        #expect(!after.summary.startedOver)
    }

    @Test func aBadLineIsNamedByFileAndLineAndTheRestKept() throws {
        let dir = try TempDir()
        let folder = try Self.takeout(dir)
        let broken = Self.real.replacingOccurrences(of: "06/24/95", with: "08/24/95")
            .replacingOccurrences(of: "\"08/24/95 16:18:00\"", with: "\"08/24/95 16:18\"")
        try dir.write("Takeout/Fitbit/Physical Activity/steps-1995-08-23.json", broken)
        let (summary, _) = try read(folder)
        #expect(summary.steps == 1_254 + 607 - 44)
        let problem = try #require(summary.issues.first?.description)
        let line = try #require(broken.split(separator: "\n").firstIndex { $0.contains("\"08/24/95 16:18\"") }) + 1
        #expect(problem.hasPrefix(dir.path("Takeout/Fitbit/Physical Activity/steps-1995-08-23.json") + ":\(line):"))
    }

    @Test func aFitbitFolderWithoutStepFilesSaysSo() throws {
        let dir = try TempDir()
        let folder = try Self.takeout(dir)
        for name in ["steps-1995-06-23.json", "steps-1995-07-23.json", "steps-1995-06-24.json"] {
            try FileManager.default.removeItem(atPath: folder + "/" + name)
        }
        #expect {
            try read(folder)
        } throws: { error in
            "\(error)".contains("without steps-YYYY-MM-DD.json") && "\(error)".contains("calories-*.json")
                && "\(error)".contains("carry no per-minute steps")
        }
    }

    /// What a read holds per minute: a day's 1,440 counts, the larger value kept, 0 steps told from a minute not read.
    @Test func minuteCountsKeepTheLargerValuePerMinute() {
        var counts = MinuteCounts()
        let t: Int64 = 803_577_600_000_000_000  // 1995-06-24 16:00 UTC
        #expect(counts.raise(minuteStartingAt: t, to: 10) == nil)
        #expect(counts.raise(minuteStartingAt: t, to: 5) == 10)
        #expect(counts.raise(minuteStartingAt: t, to: 12) == 10)
        #expect(counts.raise(minuteStartingAt: t, to: 0) == 12)
        #expect(counts.raise(minuteStartingAt: t + 86_400_000_000_000, to: 3) == nil)  // the next day's minute
        #expect(counts.raise(minuteStartingAt: -60_000_000_000, to: 0) == nil)  // 1969-12-31 23:59
        #expect(counts.raise(minuteStartingAt: -60_000_000_000, to: 0) == 0)
        #expect(counts.raise(minuteStartingAt: 0, to: 7) == nil)
    }
}
