import Foundation
import TestSupport
import Testing

@testable import SensorInput

/// Date-time text without an offset in a CSV (a UK recording's `2019-07-22 14:30:00`) is a time on the local clock
/// of `ReadOptions.timeZone` (`--time-zone`, the configuration's `text.time_zone`), not UTC (issue 44).
@Suite(.temporaryFolder) struct NaiveTimeZoneTests {
    static let london = TimeZone(identifier: "Europe/London")!

    /// A generic CSV of 300 samples 20 ms apart from `start` (`YYYY-MM-DD hh:mm:ss` on some clock) with `suffix`
    /// after each time (an offset, or nothing).
    func recording(_ start: String, suffix: String = "") throws -> String {
        let t0 = try #require(TimeParsing.parseISO8601(start + "Z"))
        let rows = (0..<300).map { i -> String in
            let ms = Int(t0 / 1_000_000) + i * 20
            let whole = StepLogLine.rfc3339(Int64(ms) * 1_000_000).dropLast()  // `…T14:30:00.020`, no Z
            return "\(whole)\(suffix),0.1,0.2,\(9.81 + Double(i % 7) * 0.01)"
        }
        return try temporaryFile(Array(("time,x,y,z\n" + rows.joined(separator: "\n") + "\n").utf8), name: "uk.csv")
    }

    func firstNs(_ path: String, zone: TimeZone?) throws -> Int64? {
        var options = ReadOptions()
        options.timeZone = zone
        let (summary, _) = try readAll(path, options: options)
        #expect(summary.samples == 300 && summary.skippedLines == 0 && summary.absoluteTime)
        return summary.first?.nanosecondsSinceEpoch
    }

    @Test func naiveTimesAreReadInTheGivenZone() throws {
        let path = try recording("2019-07-22T14:30:00")
        // British Summer Time: 14:30 in London is 13:30 UTC.
        #expect(try firstNs(path, zone: Self.london) == TimeParsing.parseISO8601("2019-07-22T13:30:00Z"))
        #expect(
            try firstNs(path, zone: TimeZone(identifier: "UTC")) == TimeParsing.parseISO8601("2019-07-22T14:30:00Z"))
        #expect(
            try firstNs(path, zone: TimeZone(identifier: "Asia/Tokyo"))
                == TimeParsing.parseISO8601("2019-07-22T05:30:00Z"))
        // In winter London is on UTC.
        #expect(
            try firstNs(try recording("2019-01-22T14:30:00"), zone: Self.london)
                == TimeParsing.parseISO8601("2019-01-22T14:30:00Z"))
    }

    /// A time that carries its offset is that instant, whatever the zone.
    @Test func timesWithAnOffsetIgnoreTheZone() throws {
        let path = try recording("2019-07-22T14:30:00", suffix: "+09:00")
        for zone in [Self.london, TimeZone(identifier: "UTC")!] {
            #expect(try firstNs(path, zone: zone) == TimeParsing.parseISO8601("2019-07-22T05:30:00Z"))
        }
    }

    /// Every quarter hour of 2019 in London read back from its local clock time is that instant; in the hour the
    /// clocks repeat, the first pass; in the hour they skip, the offset before the change.
    @Test func theZoneTableGivesFoundationsInstantsAcrossBothChanges() throws {
        let table = ZoneOffsets(zone: Self.london)
        #expect(table.changes.count > 200)  // two a year, 1970 to 2100
        let start = try #require(TimeParsing.parseISO8601("2019-01-01T00:00:00Z")) / 1_000_000_000
        for t in stride(from: start, to: start + 365 * 86_400, by: 900) {
            let offset = Int64(Self.london.secondsFromGMT(for: Date(timeIntervalSince1970: Double(t))))
            #expect(table.offset(atUTC: t) == offset)
            let back = table.instant(local: t + offset)
            #expect(back == t || (back == t - 3600 && table.offset(atUTC: back) == offset + 3600), "\(t)")
        }
        let local = { (text: String) in TimeParsing.parseISO8601(text + "Z")! / 1_000_000_000 }
        let utc = { (text: String) in TimeParsing.parseISO8601(text)! / 1_000_000_000 }
        #expect(table.instant(local: local("2019-10-27T01:30:00")) == utc("2019-10-27T00:30:00Z"))  // first pass
        #expect(table.instant(local: local("2019-03-31T01:30:00")) == utc("2019-03-31T01:30:00Z"))  // skipped hour
        #expect(ZoneOffsets(zone: TimeZone(identifier: "UTC")!).changes.isEmpty)
        // UTC's local times are instants already: a reader converts nothing (its rows cost what they did).
        #expect(ZoneOffsets.converting(TimeZone(identifier: "UTC")) == nil)
        #expect(ZoneOffsets.converting(Self.london) != nil)
    }

    /// ISO 8601 lets a time leave out its seconds, with an offset or `Z` (issue 44).
    @Test func timesWithoutSecondsAreRead() throws {
        #expect(TimeParsing.parseISO8601("2019-07-22T14:30Z") == TimeParsing.parseISO8601("2019-07-22T14:30:00Z"))
        #expect(
            TimeParsing.parseISO8601("2019-07-22T14:30+09:00") == TimeParsing.parseISO8601("2019-07-22T05:30:00Z"))
        let log = try temporaryFile(
            Array("{\"ts\":\"2019-07-22T14:30Z\",\"steps\":4}\n{\"ts\":\"2019-07-22T14:31+09:00\",\"steps\":5}\n".utf8),
            name: "steps.jsonl")
        let (summary, _) = try readAll(log)
        #expect(summary.steps == 9 && summary.skippedLines == 0, "\(summary.issues)")
    }
}
