import Analysis
import Foundation
import Messages
import SensorInput
import StepDetection
import TestSupport
import Testing
import WallTime

/// The window's chart as it is posted: a PNG decoded back into pixels, and its alt text checked against the data the
/// test made up.
@Suite struct WindowChartTests {
    static let tokyo = TimeZone(identifier: "Asia/Tokyo")!
    static let dayStart = Timestamps.parse("2026-11-21T00:00:00+09:00")!
    static let minuteNs: Int64 = 60_000_000_000

    /// A day of `walks` walks at random times between 07:00 and 21:00: steps per minute and the walks' bouts.
    static func dayOfWalks(seed: UInt64, walks: Int = 5) -> WindowActivity {
        var random = SeededRandom(seed: seed)
        let startNs = Timestamps.nanoseconds(dayStart)
        var perMinute: [Int64: Int] = [:]
        var bouts: [WalkingBout] = []
        for _ in 0..<walks {
            let first = Int64.random(in: 420..<1200, using: &random)
            let minutes = Int64.random(in: 10...40, using: &random)
            var steps = 0
            for minute in first..<first + minutes {
                let n = Int.random(in: 80...120, using: &random)
                perMinute[minute, default: 0] += n
                steps += n
            }
            bouts.append(
                WalkingBout(
                    start: Instant(nanosecondsSinceEpoch: startNs + first * minuteNs),
                    end: Instant(nanosecondsSinceEpoch: startNs + (first + minutes) * minuteNs), steps: steps))
        }
        let readings = perMinute.sorted { $0.key < $1.key }.map {
            StepReading(
                start: Instant(nanosecondsSinceEpoch: startNs + $0.key * minuteNs),
                end: Instant(nanosecondsSinceEpoch: startNs + ($0.key + 1) * minuteNs), steps: $0.value)
        }
        let window = StepWindow(
            TimeWindow(start: dayStart, end: dayStart.addingTimeInterval(86_400)),
            steps: readings.reduce(0) { $0 + $1.steps },
            bouts: bouts.count)
        return WindowActivity(window: window, readings: readings, bouts: bouts)
    }

    static func composer(_ template: String = Template.english) throws -> MessageComposer {
        try MessageComposer(template: try Template(template), timeZone: "Asia/Tokyo")
    }

    /// The 30-minute bar (a day's, at most 60 bars) with the most steps, worked out here from the readings (the
    /// first of equals).
    static func busiestHalfHour(_ activity: WindowActivity) -> (start: Date, steps: Int) {
        var sums: [Int64: Int] = [:]
        let startNs = activity.window.span.start.nanosecondsSinceEpoch
        for r in activity.readings {
            sums[(r.start.nanosecondsSinceEpoch - startNs) / (30 * minuteNs), default: 0] += r.steps
        }
        let top = sums.sorted { $0.key < $1.key }.max { $0.value < $1.value }!
        return (activity.window.span.start.date.addingTimeInterval(Double(top.key * 1800)), top.value)
    }

    static func clock(_ date: Date) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = tokyo
        f.dateFormat = "HH:mm"
        return f.string(from: date)
    }

    static func grouped(_ n: Int) -> String {
        let f = NumberFormatter()
        f.locale = Locale(identifier: "en_US")
        f.numberStyle = .decimal
        return f.string(from: NSNumber(value: n))!
    }

    /// The PNG's own header: signature, then IHDR's width and height.
    static func headerSize(_ png: Data) -> (width: Int, height: Int)? {
        let bytes = [UInt8](png)
        guard bytes.count > 24, bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]),
            bytes[12..<16].elementsEqual("IHDR".utf8)
        else { return nil }
        let be32 = { (i: Int) in bytes[i..<i + 4].reduce(0) { $0 << 8 | Int($1) } }
        return (be32(16), be32(20))
    }

    func isBarBlue(_ p: RasterImage.Pixel) -> Bool { Int(p.b) > Int(p.r) + 80 && p.b > 150 }

    @Test func aDayIsA2400By1350PNGWithItsBusiestBarDrawnWhereItsTimeIs() throws {
        let activity = Self.dayOfWalks(seed: 7)
        let image = try WindowChart.image(activity, composer: try Self.composer(), options: WindowChartOptions())
        let size = try #require(Self.headerSize(image.png), "not a PNG")
        #expect(size.width == 2400 && size.height == 1350)
        #expect(image.width == 2400 && image.height == 1350)
        let pixels = try RasterImage.decodePNG([UInt8](image.png))
        let corner = pixels.pixel(x: 4, y: 4)
        #expect([corner.r, corner.g, corner.b, corner.a] == [255, 255, 255, 255], "\(corner)")
        // The plot spans layout x 104...1160 over the day and ends at layout y 565; pixels are twice that.
        let busiest = Self.busiestHalfHour(activity)
        let middle = busiest.start.timeIntervalSince(activity.window.span.start.date) + 900
        let x = Int((104 + middle / 86_400 * (1160 - 104)) * 2)
        #expect(isBarBlue(pixels.pixel(x: x, y: 565 * 2 - 6)), "no bar at x \(x): \(pixels.pixel(x: x, y: 1124))")
        // At 03:00 nobody walked: the plot's background, no bar.
        let night = Int((104 + 3.0 / 24 * (1160 - 104)) * 2) + 3
        #expect(!isBarBlue(pixels.pixel(x: night, y: 565 * 2 - 6)))
    }

    @Test func theAltTextGivesTheTotalTheWalksAndTheBusiestBarOfTheData() throws {
        let activity = Self.dayOfWalks(seed: 11)
        let image = try WindowChart.image(activity, composer: try Self.composer(), options: WindowChartOptions())
        let busiest = Self.busiestHalfHour(activity)
        let expected =
            "Bar chart of steps per 30 minutes, 11/21 00:00 to 11/22 00:00: "
            + "\(Self.grouped(activity.window.steps)) steps in 5 walks, most (\(Self.grouped(busiest.steps))) between "
            + "\(Self.clock(busiest.start)) and \(Self.clock(busiest.start.addingTimeInterval(1800)))."
        #expect(image.alt == expected)
        #expect(LengthRule.characters(1500).check(image.alt).valid && image.alt.count <= 2000)
    }

    @Test func theAltTextFollowsAJapaneseTemplate() throws {
        let activity = Self.dayOfWalks(seed: 11)
        let image = try WindowChart.image(
            activity, composer: try Self.composer(Template.seed), options: WindowChartOptions(goal: 100_000))
        let busiest = Self.busiestHalfHour(activity)
        let total = activity.window.steps
        #expect(
            image.alt
                == "30分ごとの歩数の棒グラフ、11/21 00:00〜11/22 00:00：合計\(Self.grouped(total))歩、5回歩きました。"
                + "最も多かったのは\(Self.clock(busiest.start))〜\(Self.clock(busiest.start.addingTimeInterval(1800)))の"
                + "\(Self.grouped(busiest.steps))歩。目標の100,000歩まであと\(Self.grouped(100_000 - total))歩。")
    }

    @Test func anEmptyWindowIsAnEmptyChartThatSaysSo() throws {
        let window = StepWindow(TimeWindow(start: Self.dayStart, end: Self.dayStart.addingTimeInterval(3600)), steps: 0)
        let image = try WindowChart.image(
            WindowActivity(window: window, readings: [], bouts: []), composer: try Self.composer(),
            options: WindowChartOptions(style: .dark, goal: 8000))
        #expect(Self.headerSize(image.png)?.width == 2400)
        #expect(image.alt == "Bar chart of steps per minute, 00:00 to 01:00: no steps.")
        let pixels = try RasterImage.decodePNG([UInt8](image.png))
        let plot = stride(from: 220, to: 2300, by: 7).map { pixels.pixel(x: $0, y: 1000) }
        #expect(!plot.contains(where: isBarBlue), "a bar in an empty window")
        // The dark style: a dark background.
        let corner = pixels.pixel(x: 4, y: 4)
        #expect(corner.r < 40 && corner.g < 40 && corner.b < 40, "\(corner)")
    }

    @Test func a31DayWindowIsDrawnInDailyBarsWithItsGoalLine() throws {
        var activity = Self.dayOfWalks(seed: 3, walks: 40)
        activity.readings = activity.readings.enumerated().map { i, r in
            // Spread the walks over the month: one day later every few readings.
            let shift = Int64(i / 20) * 86_400_000_000_000
            return StepReading(
                start: Instant(nanosecondsSinceEpoch: r.start.nanosecondsSinceEpoch + shift),
                end: Instant(nanosecondsSinceEpoch: r.end.nanosecondsSinceEpoch + shift), steps: r.steps)
        }
        activity.window.span.end = Instant(Self.dayStart.addingTimeInterval(31 * 86_400))
        let image = try WindowChart.image(
            activity, composer: try Self.composer(), options: WindowChartOptions(goal: 8000))
        #expect(Self.headerSize(image.png).map { [$0.width, $0.height] } == [2400, 1350])
        #expect(image.alt.hasPrefix("Bar chart of steps per day, 11/21 00:00 to 12/22 00:00: "))
        #expect(image.alt.hasSuffix("of the goal of 248,000."), "\(image.alt)")
        #expect(image.png.count < 1_000_000, "over Bluesky's 1 MB: \(image.png.count)")
    }

    @Test func theBusiestPeriodIsAnHourForADayAndADayForAWeek() throws {
        let activity = Self.dayOfWalks(seed: 5)
        let startNs = activity.window.span.start.nanosecondsSinceEpoch
        var hours: [Int64: Int] = [:]
        for r in activity.readings {
            hours[(r.start.nanosecondsSinceEpoch - startNs) / (60 * Self.minuteNs), default: 0] += r.steps
        }
        let top = hours.sorted { $0.key < $1.key }.max { $0.value < $1.value }!
        let start = activity.window.span.start
        let hour = WindowChart.busiestPeriod(
            readings: activity.readings, in: TimeWindow(start: start, end: start + .seconds(86_400)), zone: Self.tokyo)
        #expect(hour?.start == start.date.addingTimeInterval(Double(top.key * 3600)))
        #expect(hour?.steps == top.value)
        let day = WindowChart.busiestPeriod(
            readings: activity.readings,
            in: TimeWindow(start: start - .seconds(3 * 86_400), end: start + .seconds(4 * 86_400)),
            zone: Self.tokyo)
        #expect(
            day
                == StepPeriod(
                    start: Self.dayStart, end: Self.dayStart.addingTimeInterval(86_400),
                    steps:
                        activity.window.steps))
    }
}
