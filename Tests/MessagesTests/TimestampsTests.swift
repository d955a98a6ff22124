import Foundation
import Testing

@testable import Messages

/// The time parser of every option and configuration key (`--start`, `--now`, `source.start`).
@Suite struct TimestampsTests {
    /// ISO 8601 lets a time with an offset leave out its seconds: `2019-07-22T14:30Z` (issue 44).
    @Test func timesWithAnOffsetMayLeaveOutTheirSeconds() throws {
        let utc = try #require(Timestamps.parse("2019-07-22T14:30:00Z"))
        #expect(Timestamps.parse("2019-07-22T14:30Z") == utc)
        #expect(Timestamps.parse(" 2019-07-22T14:30Z ") == utc)
        #expect(Timestamps.parse("2019-07-22T23:30+09:00") == utc)
        #expect(Timestamps.parse("2019-07-22T09:30-05:00") == utc)
        #expect(Timestamps.parse("2019-07-22T14:30:00.5Z") == utc.addingTimeInterval(0.5))
        // Without an offset a time needs a zone, with or without seconds.
        #expect(Timestamps.parse("2019-07-22T14:30") == nil)
        let london = TimeZone(identifier: "Europe/London")!
        #expect(Timestamps.parse("2019-07-22T15:30", zone: london) == utc)
        #expect(Timestamps.parse("2019-07-22T14:30Z", zone: london) == utc)
        // Still refused: not a time.
        for text in ["2019-07-22T14Z", "2019-07-22T14:3Z", "2019-07-22T14:30Q", "14:30Z", "2019-07-22T14:30:Z"] {
            #expect(Timestamps.parse(text) == nil, "\(text)")
        }
    }

    @Test func onlyATimeWithoutSecondsBeforeItsOffsetIsChanged() {
        #expect(Timestamps.withSeconds("2019-07-22T14:30Z") == "2019-07-22T14:30:00Z")
        #expect(Timestamps.withSeconds("2019-07-22 14:30+09:00") == "2019-07-22 14:30:00+09:00")
        for text in ["2019-07-22T14:30:00Z", "2019-07-22T14:30", "2019-07-22", "", "2019-07-22T14:30:00.25+01:00"] {
            #expect(Timestamps.withSeconds(text) == text)
        }
    }
}
