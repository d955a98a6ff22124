import Foundation
import TestSupport
import Testing

@testable import SensorInput

/// The shared date-time parser reads only times that exist: an offset is RFC 3339's (hours 00-23, minutes 00-59) and
/// a day is in its month. `+24:00`, `+05:99` or `2023-02-29` used to be read as a time a day, 39 minutes or a day
/// away from any that was written, and a record carrying one was counted in another hour or day.
@Suite(.temporaryFolder) struct DateTimeRangeTests {
    static func parsed(_ text: String) -> Int64? { TimeParsing.parseDateTime(Substring(text))?.ns }

    @Test(arguments: [
        "2024-05-01T10:00:00+24:00", "2024-05-01T10:00:00-24:00", "2024-05-01T10:00:00+99:00",
        "2024-05-01T10:00:00+05:99", "2024-05-01T10:00:00+05:60", "2024-05-01 10:00:00 +0599",
        "2024-05-01 10:00:00 +2400",
        "2023-02-29T10:00:00Z", "2024-04-31T10:00:00Z", "2024-06-31", "1900-02-29T00:00:00Z", "2024-02-30T00:00:00Z",
    ])
    func aTimeThatDoesNotExistIsRefused(_ text: String) {
        #expect(Self.parsed(text) == nil, "\(text)")
    }

    @Test func theOffsetsAndDaysThatExistAreRead() {
        let noon = Self.parsed("2024-05-01T12:00:00Z")
        #expect(noon != nil)
        for (text, hours, minutes) in [
            ("+14:00", 14, 0), ("-12:00", -12, 0), ("+05:45", 5, 45), ("-09:30", -9, -30), ("+23:59", 23, 59),
            ("+0545", 5, 45), ("+09", 9, 0), ("-00:00", 0, 0),
        ] {
            let shift = Int64(hours * 3600 + minutes * 60) * 1_000_000_000
            #expect(Self.parsed("2024-05-01T12:00:00" + text) == noon.map { $0 - shift }, "\(text)")
        }
        #expect(
            Self.parsed("2024-02-29T00:00:00Z") == Self.parsed("2024-02-28T00:00:00Z").map { $0 + 86_400_000_000_000 })
        #expect(Self.parsed("2000-02-29T00:00:00Z") != nil)
        #expect(Self.parsed("2024-12-31T23:59:59Z") != nil)
    }

    /// In an Apple Health export, a record whose time does not exist is skipped and named; the others are kept.
    @Test func anExportRecordAtATimeThatDoesNotExistIsSkippedAndTheRestKept() throws {
        var xml = StepReadingFormatTests.healthHeader
        xml += StepReadingFormatTests.record("iPhone", "10:00:00", "10:05:00", 300)
        xml += StepReadingFormatTests.record("iPhone", "11:00:00", "11:05:00", 400)
            .replacingOccurrences(
                of: "startDate=\"2016-01-01 11:00:00 +0100\"", with: "startDate=\"2016-01-01 11:00:00 +2400\"")
        xml += StepReadingFormatTests.record("iPhone", "12:00:00", "12:05:00", 500)
            .replacingOccurrences(of: "2016-01-01 12:0", with: "2016-02-30 12:0")
        xml += StepReadingFormatTests.record("iPhone", "13:00:00", "13:05:00", 600)
        xml += "</HealthData>\n"
        let path = try temporaryFile(Array(xml.utf8), name: "export.xml")
        let (summary, _) = try readAll(path)
        #expect(summary.steps == 900)
        #expect(summary.skippedLines == 2)
        #expect(summary.issues.map(\.message).allSatisfy { $0.contains("startDate/endDate") }, "\(summary.issues)")
        #expect(summary.issues.allSatisfy { $0.file == path && ($0.line ?? 0) > 0 }, "\(summary.issues)")
    }
}
