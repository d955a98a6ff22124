import Foundation
import StepDetection
import TestSupport
import Testing

@testable import SensorInput

/// Date-time text without an offset in the lab formats (ActiGraph, Axivity, GENEActiv) is read on the clock of
/// `ReadOptions.timeZone` as a generic CSV's is; and a recording across a clock change loses no row: the hour the
/// clocks repeat is read as its second pass once the times go back, a time they skip forward by the gap, each with a
/// note (issue 44).
@Suite(.temporaryFolder) struct ClockChangeTests {
    static let london = TimeZone(identifier: "Europe/London")!

    func options(_ zone: TimeZone?, jobs: Int = 1, chunkBytes: Int = 1 << 17) -> ReadOptions {
        var options = ReadOptions()
        options.timeZone = zone
        options.jobs = jobs
        options.chunkBytes = chunkBytes
        return options
    }

    static let axivity = (0..<100).map { String(format: "2019-07-22 10:00:00.%03d,0.010,-0.990,0.050", $0 * 10) }

    /// A UK recording that starts at 10:00 on the local clock in summer, in each format that writes local time.
    static let ukRecordings: [(format: String, text: String)] = [
        ("generic-csv", (["time,x,y,z"] + axivity).joined(separator: "\n")),
        ("axivity", axivity.joined(separator: "\n")),
        (
            "geneactiv",
            (["Device Identity", "Device Type,GENEActiv", "Measurement Frequency,100 Hz"]
                + axivity.map { $0.replacingOccurrences(of: "00.", with: "00:") + ",0,0,21.5" })
                .joined(separator: "\n")
        ),
        (
            "actigraph-raw",
            FormatNotesTests.actiGraphHeader().replacingOccurrences(of: "09:00:00", with: "10:00:00")
                .replacingOccurrences(of: "9/20/2017", with: "7/22/2019")
                + (0..<100).map { _ in "0.010,-0.990,0.050" }.joined(separator: "\n")
        ),
        (
            "actigraph-epoch",
            FormatNotesTests.actiGraphHeader(rate: "", epoch: "00:00:01", mode: 13)
                + "TimeStamp,axis1,axis2,axis3,steps\n"
                + (0..<10).map { "2019-07-22 10:00:0\($0),300,200,100,4" }.joined(separator: "\n")
        ),
    ]

    /// Europe/London in summer: 10:00 on the clock is 09:00 UTC, in every format; UTC's 10:00 stays 10:00.
    @Test(arguments: 0..<5) func aUKRecordingIsReadOnTheLondonClock(_ which: Int) throws {
        let (format, text) = Self.ukRecordings[which]
        let path = try temporaryFile(Array((text + "\n").utf8), name: "uk-\(format).csv")
        let (summary, _) = try readAll(path, options: options(Self.london))
        #expect(summary.format == format)
        #expect(summary.skippedLines == 0, "\(summary.issues)")
        #expect(summary.first?.nanosecondsSinceEpoch == TimeParsing.parseISO8601("2019-07-22T09:00:00Z"), "\(format)")
        let (utc, _) = try readAll(path, options: options(TimeZone(identifier: "UTC")))
        #expect(utc.first?.nanosecondsSinceEpoch == TimeParsing.parseISO8601("2019-07-22T10:00:00Z"), "\(format)")
    }

    /// GENEActiv's own `Time Zone` wins over `--time-zone`: the file says where it was recorded.
    @Test func geneActivsStatedOffsetWinsOverTheZone() throws {
        let (_, text) = Self.ukRecordings[2]
        let stated = text.replacingOccurrences(
            of: "Device Type,GENEActiv", with: "Device Type,GENEActiv\nTime Zone,GMT +02:00")
        let path = try temporaryFile(Array((stated + "\n").utf8), name: "stated.csv")
        let (summary, _) = try readAll(path, options: options(Self.london))
        #expect(summary.first?.nanosecondsSinceEpoch == TimeParsing.parseISO8601("2019-07-22T08:00:00Z"))
        #expect(summary.skippedLines == 0)
    }

    /// Rows every `step` seconds on London's clock from 00:30 (summer time) through the hour that 2024-10-27 repeats
    /// to 02:30 (winter time), as a device writing local time gives them; with the instants they are.
    static func autumnNight(step: Int) -> (rows: [String], instants: [Int64]) {
        let start = TimeParsing.parseISO8601("2024-10-26T23:30:00Z")!
        let end = TimeParsing.parseISO8601("2024-10-27T02:30:00Z")!
        var rows: [String] = []
        var instants: [Int64] = []
        for t in stride(from: start, through: end, by: step * 1_000_000_000) {
            let summer = t < TimeParsing.parseISO8601("2024-10-27T01:00:00Z")!
            let clock = StepLogLine.rfc3339(t + (summer ? 3_600_000_000_000 : 0)).dropLast()  // no Z
            rows.append(
                "\(clock.replacingOccurrences(of: "T", with: " ")),0.010,-0.990,\(instants.count % 2 == 0 ? 0.05 : 0.06)"
            )
            instants.append(t)
        }
        return (rows, instants)
    }

    /// The hour the clocks repeat loses no row, whether its rows are read in the file's first lines (60 s apart) or
    /// in ranges parsed on two threads (5 s apart, a range of 4 KB): once the clock time goes back, the second pass.
    @Test(arguments: [("time,x,y,z\n", 60), ("time,x,y,z\n", 5), ("", 60), ("", 5)])
    func theRepeatedHourIsReadAsItsSecondPass(_ header: String, _ step: Int) throws {
        let (rows, instants) = Self.autumnNight(step: step)
        let path = try temporaryFile(Array((header + rows.joined(separator: "\n") + "\n").utf8), name: "autumn.csv")
        let (summary, items) = try readAll(path, options: options(Self.london, jobs: 2, chunkBytes: 4096))
        #expect(summary.format == (header.isEmpty ? "axivity" : "generic-csv"))
        #expect(summary.skippedLines == 0, "\(summary.issues.prefix(3))")
        #expect(samples(items).map(\.time.nanosecondsSinceEpoch) == instants)
        // Every row of the second pass went back, and is counted.
        let (second, end) = (
            TimeParsing.parseISO8601("2024-10-27T01:00:00Z")!, TimeParsing.parseISO8601("2024-10-27T02:00:00Z")!
        )
        let repeated = instants.filter { $0 >= second && $0 < end }.count
        let note = try #require(summary.notes.first { $0.contains("repeat") }, "\(summary.notes)")
        #expect(note.hasPrefix("\(repeated) rows"), "\(note)")
        #expect(note.contains("Europe/London") && note.contains("2024-10-27 01:00:00"))
    }

    /// A followed file read in two parts (the agent's follow mode) with the second part inside the repeated hour:
    /// the later read goes on in the second pass, as one read does.
    @Test func aLaterReadGoesOnInTheSecondPass() throws {
        let (rows, instants) = Self.autumnNight(step: 10)
        let cut = rows.count * 3 / 4  // inside the second pass (01:00-02:00 GMT)
        let (skipped, times) = try followInTwoParts(rows, cut: cut)
        #expect(skipped == 0)
        #expect(times == instants)
    }

    /// Clock times the spring change skips (2024-03-31 01:00-02:00 in London) are not lost: a clock that shows them
    /// did not move forward, so they and the rows after them are read at the offset before the change (01:10 and
    /// 02:30 as 01:10 and 02:30 UTC), with a note saying so.
    @Test(arguments: ["time,x,y,z\n", ""]) func skippedClockTimesAreReadForwardWithANote(_ header: String) throws {
        let clock = ["00:50:00", "00:55:00", "01:10:00", "01:20:00", "02:30:00", "02:40:00"]
        let rows = clock.map { "2024-03-31 \($0).000,0.010,-0.990,0.050" }
        let path = try temporaryFile(Array((header + rows.joined(separator: "\n") + "\n").utf8), name: "spring.csv")
        let (summary, items) = try readAll(path, options: options(Self.london))
        #expect(summary.skippedLines == 0, "\(summary.issues)")
        let utc = clock.map {
            TimeParsing.parseISO8601("2024-03-31T\($0)Z")!
        }
        #expect(samples(items).map(\.time.nanosecondsSinceEpoch) == utc)
        let note = try #require(summary.notes.first { $0.contains("skips") }, "\(summary.notes)")
        #expect(note.hasPrefix("2 rows") && note.contains("2024-03-31 01:10:00"), "\(note)")
    }

    /// A GMT clock across the spring change (it never moved forward), written every 10 s from 00:00 to 04:00 on
    /// 2024-03-31, and its UTC instants: the same clock times.
    static func gmtClockNight() -> (rows: [String], instants: [Int64]) {
        let start = TimeParsing.parseISO8601("2024-03-31T00:00:00Z")!
        let instants = (0...1440).map { start + Int64($0) * 10_000_000_000 }
        let rows = instants.map {
            String(StepLogLine.rfc3339($0).prefix(19)).replacingOccurrences(of: "T", with: " ")
                + ".000,0.010,-0.990,0.050"
        }
        return (rows, instants)
    }

    /// A device whose clock stayed on GMT over the spring change writes 01:00-01:59 (skipped by London's clocks) and
    /// then 02:00-02:59 on: once a row lies in the gap, the rest are read at the offset before the change, so no row
    /// goes back and none is lost; on one thread and several, as a generic CSV and as Axivity's lines.
    @Test(arguments: [("time,x,y,z\n", 1), ("time,x,y,z\n", 2), ("", 1)])
    func aClockThatDidNotMoveLosesNoRow(_ header: String, _ jobs: Int) throws {
        let (rows, instants) = Self.gmtClockNight()
        let path = try temporaryFile(Array((header + rows.joined(separator: "\n") + "\n").utf8), name: "gmt.csv")
        let (summary, items) = try readAll(path, options: options(Self.london, jobs: jobs, chunkBytes: 4096))
        #expect(summary.skippedLines == 0, "\(summary.issues.prefix(3))")
        #expect(samples(items).map(\.time.nanosecondsSinceEpoch) == instants)
        let note = try #require(summary.notes.first { $0.contains("skips") }, "\(summary.notes)")
        #expect(note.hasPrefix("360 rows") && note.contains("2024-03-31 01:00:00"), "\(note)")
        #expect(note.contains("+00:00") && note.contains("did not move"), "\(note)")
    }

    /// The same file followed in two parts, cut inside the gap: the later read goes on at the offset before the
    /// change, as one read does.
    @Test func aLaterReadKeepsTheClockThatDidNotMove() throws {
        let (rows, instants) = Self.gmtClockNight()
        let cut = 400  // 01:06:40, in the gap
        let (skipped, times) = try followInTwoParts(rows, cut: cut)
        #expect(skipped == 0)
        #expect(times == instants)
    }

    /// A generic CSV of `rows` read as the agent's follow mode does while it is written: up to `cut`, then the rest
    /// from where the first read stopped; the lines skipped and the times read.
    func followInTwoParts(_ rows: [String], cut: Int) throws -> (skipped: Int, times: [Int64]) {
        let path = try temporaryFile(Array(("time,x,y,z\n" + rows[..<cut].joined(separator: "\n") + "\n").utf8))
        var times: [Int64] = []
        let first = try GenericCSVReader.read(
            path: path, options: options(Self.london), resume: nil, completeLinesOnly: true
        ) { times.append($0.time.nanosecondsSinceEpoch) }
        let handle = try #require(FileHandle(forWritingAtPath: path))
        handle.seekToEndOfFile()
        handle.write(Data((rows[cut...].joined(separator: "\n") + "\n").utf8))
        try handle.close()
        let second = try GenericCSVReader.read(
            path: path, options: options(Self.london), resume: first.resume, completeLinesOnly: true
        ) { times.append($0.time.nanosecondsSinceEpoch) }
        return (first.summary.skippedLines + second.summary.skippedLines, times)
    }
}
