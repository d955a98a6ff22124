import Clocks
import Foundation
import Testing
import WallTime

@Suite struct InstantTests {
    @Test func encodesAsTheBareIntegerItHolds() throws {
        let instant = Instant(nanosecondsSinceEpoch: 1_763_686_800_123_456_789)
        let data = try JSONEncoder().encode([instant])
        #expect(String(decoding: data, as: UTF8.self) == "[1763686800123456789]")
        #expect(try JSONDecoder().decode([Instant].self, from: data) == [instant])
        let window = TimeWindow(start: .epoch, end: Instant(secondsSinceEpoch: 60))
        let encoded = try JSONEncoder().encode(window)
        #expect(try JSONDecoder().decode(TimeWindow.self, from: encoded) == window)
    }

    @Test func wholeSecondsRoundDownAndUpAlsoBeforeTheEpoch() {
        #expect(Instant(nanosecondsSinceEpoch: 1_500_000_000).secondsSinceEpoch == 1)
        #expect(Instant(nanosecondsSinceEpoch: 1_500_000_000).secondsSinceEpochRoundedUp == 2)
        #expect(Instant(nanosecondsSinceEpoch: 2_000_000_000).secondsSinceEpochRoundedUp == 2)
        #expect(Instant(nanosecondsSinceEpoch: -1).secondsSinceEpoch == -1)
        #expect(Instant(nanosecondsSinceEpoch: -1).secondsSinceEpochRoundedUp == 0)
        #expect(Instant(nanosecondsSinceEpoch: -1_500_000_000).wholeSecond == Instant(secondsSinceEpoch: -2))
    }

    @Test func arithmeticWithDurations() {
        let start = Instant(secondsSinceEpoch: 1_000)
        let later = start + .milliseconds(1_500)
        #expect(later.nanosecondsSinceEpoch == 1_001_500_000_000)
        #expect(later - start == .milliseconds(1_500))
        #expect(later - .seconds(2) == Instant(nanosecondsSinceEpoch: 999_500_000_000))
        #expect(start < later)
        var moving = start
        moving += .nanoseconds(7)
        #expect(moving.nanosecondsSinceEpoch == 1_000_000_000_007)
    }

    @Test func datesConvertBothWaysAsTimestampsDid() {
        let instant = Instant(nanosecondsSinceEpoch: 1_763_686_800_000_000_000)
        #expect(instant.date == Date(timeIntervalSince1970: 1_763_686_800))
        #expect(Instant(instant.date) == instant)
        let fraction = Instant(nanosecondsSinceEpoch: -1_250_000_000)
        #expect(fraction.date.timeIntervalSince1970 == -1.25)
        #expect(Instant(Date(timeIntervalSince1970: 1.25)) == Instant(nanosecondsSinceEpoch: 1_250_000_000))
    }

    @Test func aWindowIsHalfOpenAndNeverNegative() {
        let window = TimeWindow(start: Instant(secondsSinceEpoch: 10), end: Instant(secondsSinceEpoch: 70))
        #expect(window.contains(Instant(secondsSinceEpoch: 10)))
        #expect(!window.contains(Instant(secondsSinceEpoch: 70)))
        #expect(window.duration == .seconds(60))
        #expect(window.previous == TimeWindow(start: Instant(secondsSinceEpoch: -50), end: window.start))
        let backwards = TimeWindow(start: Instant(secondsSinceEpoch: 5), end: Instant(secondsSinceEpoch: 1))
        #expect(backwards.end == backwards.start && backwards.duration == .zero)
    }

    @Test func aWallClockOnATestClockGivesInstants() async throws {
        let clock = TestClock()
        let wall = WallClock(clock, startingAt: Instant(secondsSinceEpoch: 100))
        #expect(wall.nowInstant() == Instant(secondsSinceEpoch: 100))
        await clock.advance(by: .seconds(3))
        #expect(wall.nowInstant() == Instant(secondsSinceEpoch: 103))
        #expect(wall.now() == Date(timeIntervalSince1970: 103))
    }
}
