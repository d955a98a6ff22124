import Foundation
import TestSupport
import Testing
import WallTime

@testable import SensorInput

@Suite(.temporaryFolder) struct GoogleFitTests {
    static let takeout = SharedData.fixture("google_fit/biohacker-takeout/Takeout")

    func read(_ path: String, options: ReadOptions = ReadOptions()) throws -> (ReadSummary, [StepReading]) {
        var readings: [StepReading] = []
        let s = try AnyInput.read(path: path, options: options) { if case .reading(let r) = $0 { readings.append(r) } }
        return (s, readings)
    }

    func stream(_ source: String, _ points: [(Int64, Int64, Int)]) -> String {
        let p = points.map { s, e, n in
            "{\"fitValue\":[{\"value\":{\"intVal\":\(n)}}],\"endTimeNanos\":\(e),\"dataTypeName\":\"com.google.step_count.delta\",\"startTimeNanos\":\(s)}"
        }
        return
            "{\n \"Data Source\": \"derived:com.google.step_count.delta:com.google.android.gms:\(source)\",\n \"Data Points\": [\(p.joined(separator: ",\n"))]\n}\n"
    }

    @Test func takeoutFolderGivesTwentyThreeStepsOnItsDay() throws {
        let root = Self.takeout
        let (s, readings) = try read(root)
        #expect(s.format == "google-fit")
        // 23, not 69: the three streams hold the same steps.
        #expect(s.steps == 23)
        // 2020-02-20 local (−05:00): 2020-02-20T05:00Z ..< 2020-02-21T05:00Z.
        #expect(readings.allSatisfy { $0.startNs >= 1_582_174_800_000_000_000 && $0.endNs < 1_582_261_200_000_000_000 })
        // Nanoseconds above 2^53 read exactly (a Double gives …798000 / …798208).
        #expect(readings.first?.startNs == 1_582_253_374_731_798_130)
        let intraday = try read(root + "/Fit/Daily activity metrics/2020-02-20.csv")
        #expect(intraday.0.format == "google-fit-intraday")
        #expect(intraday.0.steps == 23)
        #expect(intraday.1.first?.startNs == 1_582_253_100_000_000_000)  // 21:45-05:00
    }

    /// Every All Data file has the `"Data Source"`/`"Data Points"` shape: one of distance or of the raw cumulative
    /// counter (empty in the real sample), passed alone, says it holds no step deltas instead of counting 0.
    @Test(arguments: [
        ("derived_com.google.distance.delta_com.google.a.json", "com.google.distance.delta"),
        ("raw_com.google.step_count.cumulative_motorola_.json", "step_count.cumulative"),
    ])
    func anotherAllDataFileSaysItHoldsNoSteps(_ file: String, _ named: String) throws {
        let path = Self.takeout + "/Fit/All Data/" + file
        let (s, readings) = try read(path)
        #expect(s.format == "google-fit")
        #expect(readings.isEmpty)
        #expect(s.issues.count == 1)
        #expect(s.issues.first?.file == path)
        #expect(s.issues.first?.message.contains(named) == true)
        #expect(s.issues.first?.message.contains("no steps read") == true)
        // The step streams themselves say nothing.
        let steps = try read(
            Self.takeout + "/Fit/All Data/derived_com.google.step_count.delta_com.google.json")
        #expect(steps.0.issues.isEmpty)
        #expect(steps.0.steps == 23)
    }

    @Test func estimatedStepsIsPreferredAndStreamsAreNeverAdded() throws {
        let dir = try TempDir()
        try dir.write(
            "All Data/derived_com.google.step_count.delta_com.google.json",
            stream("merge_step_deltas", [(1_000_000_000_000_000_000, 1_000_000_060_000_000_000, 12)]))
        try dir.write(
            "All Data/derived_com.google.step_count.delta_com.google(1).json",
            stream("motorola:x:derive_step_deltas", [(1_000_000_000_000_000_000, 1_000_000_060_000_000_000, 15)]))
        #expect(try read(dir.root).0.steps == 12)  // no estimated_steps: merge_step_deltas
        // A stream split over name(2).json and name(3).json, one point in both: merged, counted once.
        try dir.write(
            "All Data/derived_com.google.step_count.delta_com.google(2).json",
            stream(
                "estimated_steps",
                [
                    (1_000_000_000_000_000_000, 1_000_000_060_000_000_000, 10),
                    (1_000_000_060_000_000_000, 1_000_000_120_000_000_000, 4),
                ]))
        try dir.write(
            "All Data/derived_com.google.step_count.delta_com.google(3).json",
            stream(
                "estimated_steps",
                [
                    (1_000_000_060_000_000_000, 1_000_000_120_000_000_000, 4),
                    (1_000_000_120_000_000_000, 1_000_000_180_000_000_000, 6),
                ]))
        #expect(try read(dir.root).0.steps == 20)
        // A point given again with the same start and end but a revised count (a later export part): counted once,
        // the larger count, not both.
        try dir.write(
            "All Data/derived_com.google.step_count.delta_com.google(4).json",
            stream("estimated_steps", [(1_000_000_120_000_000_000, 1_000_000_180_000_000_000, 9)]))
        let (s, readings) = try read(dir.root)
        #expect(s.steps == 23)
        #expect(readings.map(\.steps) == [10, 4, 9])
    }

    @Test func dailySummaryFindsStepCountByName() throws {
        let path = SharedData.fixture("google_fit/daily-activity-metrics_manilmunjal.csv")
        let (s, readings) = try read(path)
        #expect(s.format == "google-fit-daily")
        #expect(s.steps == 1_028_773)
        #expect(readings.count == 177)
        let dir = try TempDir()
        let moved = try dir.write(
            "Daily activity metrics.csv", "Step count,Date,Heart Points\n120,2022-02-12,\n,2022-02-13,3\n")
        let other = try read(moved)
        // empty = no data
        #expect(other.0.format == "google-fit-daily" && other.0.steps == 120 && other.0.readings == 1)
        // Older exports name the summary `Daily Summaries.csv` (NOTES.md layout table): a folder holding it reads it.
        let old = try TempDir()
        try old.write("Takeout/Fit/Daily Summaries.csv", "Date,Step count\n2019-05-01,4321\n")
        let (oldSummary, _) = try read(old.root)
        #expect(oldSummary.format == "google-fit" && oldSummary.steps == 4321)
        var tokyo = ReadOptions()
        tokyo.timeZone = TimeZone(identifier: "Asia/Tokyo")
        let day = try read(moved, options: tokyo).1.first
        #expect(day?.startNs == 1_644_591_600_000_000_000)  // 2022-02-12T00:00+09:00
        #expect(day.map { $0.endNs - $0.startNs } == 86_400_000_000_000)
    }

    @Test func fifteenMinuteFilesTakeTheirDateFromTheName() throws {
        let dir = try TempDir()
        let header = "Start time,End time,Step count,Distance (m)\n"
        let path = try dir.write(
            "2021-03-28.csv",
            header + "00:00:00.000+01:00,00:15:00.000+01:00,40,\n"
                + "00:00:00.000+01:00,00:15:00.000+01:00,40,\n"  // duplicated first row (real exports)
                + "23:45:00.000+02:00,00:00:00.000+02:00,7,\n")  // DST: the offset changes inside the file
        let (s, readings) = try read(path)
        #expect(s.steps == 47)
        #expect(readings.last?.endNs == 1_616_968_800_000_000_000)  // 2021-03-29T00:00+02:00, the next day
        let undated = try dir.write("steps.csv", header + "00:00:00.000+01:00,00:15:00.000+01:00,40,\n")
        let (u, _) = try read(undated)
        #expect(
            u.issues.first?.description
                == "\(undated):2: the date of a 15-minute file comes from its name (YYYY-MM-DD.csv)")
    }

    @Test func badJSONIsNamedWithItsByteOffset() throws {
        let dir = try TempDir()
        let garbled = try dir.write(
            "garbled.json", stream("estimated_steps", [(1, 2, 3)]).replacingOccurrences(of: ":3}", with: ":3x}"))
        let (s, _) = try read(garbled)
        #expect(s.issues.first?.description.hasPrefix("\(garbled): not valid JSON at byte") == true)
        let wrong = try dir.write("wrong.json", stream("estimated_steps", [(5, 2, 3)]))
        #expect(
            try read(wrong).0.issues.first?.message == "data point 0: no valid startTimeNanos, endTimeNanos and intVal")
        #expect(throws: InputError.self) { try read(wrong, options: ReadOptions(strict: true)) }
    }

    /// A file cut short (a partial download, a copy cut off) keeps every complete data point before the cut, and
    /// says where the file ends early; with `strict` the cut is an error.
    @Test func aTruncatedFileKeepsTheCompletePointsBeforeTheCut() throws {
        let real = Self.takeout + "/Fit/All Data/derived_com.google.step_count.delta_com.google.json"
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: real)))
        let text = String(decoding: bytes, as: UTF8.self)
        // The sample: 20 steps, then 3 steps in the second and last point, which starts line 5.
        let first = try #require(text.range(of: "{\"fitValue\""))
        let second = try #require(text.range(of: "{\"fitValue\"", range: first.upperBound..<text.endIndex))
        let secondAt = text.utf8.distance(from: text.startIndex, to: second.lowerBound)
        let secondEnd = try #require(text.range(of: "}\n", range: second.upperBound..<text.endIndex))
        let secondEndAt = text.utf8.distance(from: text.startIndex, to: secondEnd.upperBound) - 1
        let dir = try TempDir()
        let cases: [(cut: Int, line: Int, steps: Int, kept: Int)] = [
            (secondAt + 1, 5, 20, 1),  // just inside the second point
            (secondAt + 150, 5, 20, 1),  // inside the second point's strings
            (secondAt + 41, 5, 20, 1),  // inside its fitValue, after the steps
            (secondEndAt, 5, 23, 2),  // right after the second point
            (bytes.count - 1, 7, 23, 2),  // only the last "}" missing
        ]
        for c in cases {
            let path = try dir.write("cut\(c.cut).json", Data(bytes.prefix(c.cut)))
            let (s, readings) = try read(path)
            #expect(s.format == "google-fit")
            #expect(s.steps == c.steps, "cut at \(c.cut)")
            #expect(readings.count == c.kept, "cut at \(c.cut)")
            #expect(
                s.issues.map(\.description)
                    == [
                        "\(path):\(c.line): the file ends early, at byte \(c.cut) (JSON cut short): kept the "
                            + (c.kept == 1 ? "1 data point" : "\(c.kept) data points") + " before it"
                    ])
            #expect(throws: InputError.self) { try read(path, options: ReadOptions(strict: true)) }
        }
        // A Takeout folder with a cut stream file: the same.
        let folder = try dir.write(
            "Takeout/Fit/All Data/derived_com.google.step_count.delta_com.google.json", Data(bytes.prefix(secondAt + 1))
        )
        let (f, _) = try read(String(folder.dropLast("/derived_com.google.step_count.delta_com.google.json".count)))
        #expect(f.steps == 20 && f.issues.count == 1)
    }

    @Test func followModeDeliversOnlyNewPoints() throws {
        let dir = try TempDir()
        let path = try dir.write(
            "steps.json", stream("estimated_steps", [(1_000_000_000_000_000_000, 1_000_000_060_000_000_000, 10)]))
        var (s, cursor) = try SourceReader.readNew(path: path, cursor: nil) { _ in }
        #expect(s.steps == 10)
        try dir.write(
            "steps.json",
            stream(
                "estimated_steps",
                [
                    (1_000_000_000_000_000_000, 1_000_000_060_000_000_000, 10),
                    (1_000_000_060_000_000_000, 1_000_000_120_000_000_000, 5),
                ]))
        (s, cursor) = try SourceReader.readNew(path: path, cursor: cursor) { _ in }
        #expect(s.steps == 5)
    }

    /// A saved state another version wrote (or damaged) cannot be used: the reader starts over and says so, and the
    /// readings counted before (`countedThroughNs`) are not delivered again.
    @Test func anUnreadableSavedStateStartsOverWithoutTheReadingsCountedBefore() throws {
        let dir = try TempDir()
        let first = (1_000_000_000_000_000_000 as Int64, 1_000_000_060_000_000_000 as Int64, 10)
        let second = (1_000_000_060_000_000_000 as Int64, 1_000_000_120_000_000_000 as Int64, 5)
        let path = try dir.write("steps.json", stream("estimated_steps", [first]))
        var (s, cursor) = try SourceReader.readNew(path: path, cursor: nil) { _ in }
        #expect(s.steps == 10 && !s.savedStateUnreadable)
        try dir.write("steps.json", stream("estimated_steps", [first, second]))
        cursor?.parserState = Data("{\"version\": 99}".utf8)
        var options = ReadOptions()
        options.countedThrough = Instant(nanosecondsSinceEpoch: first.1)
        var readings: [StepReading] = []
        (s, cursor) = try SourceReader.readNew(path: path, options: options, cursor: cursor) {
            if case .reading(let r) = $0 { readings.append(r) }
        }
        #expect(s.savedStateUnreadable)
        #expect(
            readings == [
                StepReading(
                    start: Instant(nanosecondsSinceEpoch: second.0), end: Instant(nanosecondsSinceEpoch: second.1),
                    steps: 5)
            ])
        // Without what was counted before, starting over delivers everything again: what the agent guards against.
        (s, _) = try SourceReader.readNew(
            path: path,
            cursor: cursor.map {
                var c = $0
                c.parserState = Data("x".utf8)
                return c
            }
        ) { _ in }
        #expect(s.steps == 15 && s.savedStateUnreadable)
    }
}

@Suite(.temporaryFolder) struct BinaryInputTests {
    /// input-formats.md: "`MD` = Axivity .cwa". The native recording is named, with the command that converts it to
    /// the CSV steptweet reads, whether the file is whole or cut short inside its first block.
    @Test func anAxivityCwaIsNamedWithItsConversion() throws {
        let dir = try TempDir()
        // A .cwa header block: "MD", its packet length 1020 (little-endian), then mostly 0xFF.
        let header: [UInt8] = Array("MD".utf8) + [0xFC, 0x03, 0, 0] + [UInt8](repeating: 0xFF, count: 1018)
        for (name, bytes) in [("walk.cwa", header), ("cut.cwa", Array(header.prefix(300)))] {
            let path = try dir.write(name, Data(bytes))
            #expect { try AnyInput.read(path: path) { _ in } } throws: {
                ($0 as? InputError)?.message
                    == "not a recording: Axivity .cwa (binary; convert it to CSV with "
                    + "`omconvert FILE.cwa -csv-file FILE.csv`), \(BinarySniff.byteCount(bytes.count))"
            }
        }
    }

    @Test func nonTextFilesAreRejectedInOneLine() throws {
        let dir = try TempDir()
        let elf = try dir.write(
            "prog", Data([0x7F, 0x45, 0x4C, 0x46, 2, 1, 1, 0] + [UInt8](repeating: 0, count: 142_304)))
        #expect { try AnyInput.read(path: elf) { _ in } } throws: {
            ($0 as? InputError)?.description == "\(elf): not a recording: ELF executable, 142,312 bytes"
        }
        let png = try dir.write("p.csv", Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]))
        #expect { try AnyInput.read(path: png) { _ in } } throws: {
            ($0 as? InputError)?.message == "not a recording: PNG image, 12 bytes"
        }
        let zip = try dir.write("a.zip", Data([0x50, 0x4B, 0x05, 0x06] + [UInt8](repeating: 0, count: 18)))
        #expect { try AnyInput.read(path: zip) { _ in } } throws: {
            ($0 as? InputError)?.message.contains("no recording steptweet reads in this zip (it holds 0 files)")
                ?? false
        }
    }

    @Test func folderWithoutKnownFilesIsSaid() throws {
        let dir = try TempDir()
        try dir.write("notes.txt", "hello\n")
        // A folder holding one file is read as that file (as a zip holding one): its own error.
        #expect { try AnyInput.read(path: dir.root) { _ in } } throws: {
            ($0 as? InputError)?.description.hasPrefix(dir.root + "/notes.txt:1: unrecognised format") ?? false
        }
        try dir.write("todo.txt", "later\n")
        #expect { try AnyInput.read(path: dir.root) { _ in } } throws: {
            let e = $0 as? InputError
            return e?.file == dir.root
                && e?.message.hasPrefix(
                    "no recording steptweet reads in this folder (it holds 2 files: notes.txt, todo.txt); from a "
                        + "folder it reads Garmin FIT files, a Google Fit Takeout, export.xml") == true
        }
    }
}
