import Foundation
import WallTime

/// The length of one bar of a window's chart: fixed (a minute to 12 hours) or a calendar unit.
public enum ChartBin: Sendable, Equatable {
    case seconds(Int)
    case days(Int)
    case weeks(Int)
    case months(Int)
    case years(Int)

    /// `hour`, `10 minutes`, `day`, `3 months`: what one bar is, after "steps per".
    public var englishName: String {
        switch self {
        case .seconds(let s) where s % 3600 == 0: return Self.english(s / 3600, "hour")
        case .seconds(let s): return Self.english(max(s / 60, 1), "minute")
        case .days(let n): return Self.english(n, "day")
        case .weeks(let n): return Self.english(n, "week")
        case .months(let n): return Self.english(n, "month")
        case .years(let n): return Self.english(n, "year")
        }
    }

    /// `1時間`, `10分`, `1日`, `3か月`.
    public var japaneseName: String {
        switch self {
        case .seconds(let s) where s % 3600 == 0: return "\(s / 3600)時間"
        case .seconds(let s): return "\(max(s / 60, 1))分"
        case .days(let n): return "\(n)日"
        case .weeks(let n): return "\(n)週間"
        case .months(let n): return "\(n)か月"
        case .years(let n): return "\(n)年"
        }
    }

    private static func english(_ n: Int, _ unit: String) -> String { n == 1 ? unit : "\(n) \(unit)s" }
}

/// What a window's chart shows, in numbers: the facts its alt text gives to people who cannot see the picture.
public struct ChartSummary: Sendable, Equatable {
    public var window: TimeWindow
    /// Length of one bar, in seconds (nominal for calendar bars: a month is 30 days here).
    public var intervalSeconds: Int
    /// Length of one bar as the chart's words say it.
    public var bin: ChartBin
    public var steps: Int
    /// Walking bouts that ended in the window (the `{bouts}` of the post's text).
    public var walks: Int
    /// The bar with the most steps; nil when the window has none.
    public var busiest: StepPeriod?
    /// The goal line drawn for the window, when there is one.
    public var goal: Int?

    public init(
        window: TimeWindow, intervalSeconds: Int, steps: Int, walks: Int, busiest: StepPeriod?, goal: Int? = nil,
        bin: ChartBin? = nil
    ) {
        self.window = window
        self.intervalSeconds = intervalSeconds
        self.bin = bin ?? .seconds(intervalSeconds)
        self.steps = steps
        self.walks = walks
        self.busiest = busiest
        self.goal = goal
    }

    /// The window's ends as dates, for the alt text's formatters.
    var start: Date { window.start.date }
    var end: Date { window.end.date }
}

extension MessageComposer {
    /// How the alt text writes the window's ends and the busiest bar's.
    private struct Times {
        var window: (Date) -> String
        var bar: (Date) -> String
    }

    /// The longest alt text every target takes: Mastodon's 1,500 characters (Bluesky takes 2,000 graphemes).
    public static let altTextRule = LengthRule.characters(1500)

    /// The chart's alt text in the template's language, written from `summary`, e.g. "Bar chart of steps per 10
    /// minutes, 10:00 to 22:00: 8,432 steps in 5 walks, most (1,210) between 17:30 and 17:40." Times in the composer's
    /// zone, with the date when the window spans more than one day.
    public func altText(_ summary: ChartSummary) -> String {
        let language = self.language
        let numbers = NumberFormatter()
        numbers.locale = Locale(identifier: language == .japanese ? "ja_JP" : "en_US")
        numbers.numberStyle = .decimal
        let number = { (n: Int) in numbers.string(from: NSNumber(value: n)) ?? String(n) }
        // The window's ends carry their dates when they fall on different days (a day: 11/21 00:00 to 11/22 00:00);
        // the busiest bar's only when the window is longer than a day.
        let day = formatter("yyyyMMdd")
        let year = formatter("yyyy")
        // Years too when the window's ends fall in different years (a first fetch over an old recording).
        let years = year.string(from: summary.start) != year.string(from: summary.end.addingTimeInterval(-1))
        let times = Times(
            window: altTextClock(
                dated: day.string(from: summary.start) != day.string(from: summary.end), withYear: years),
            bar: altTextClock(dated: summary.end.timeIntervalSince(summary.start) > 86_400, withYear: years))
        let text =
            language == .japanese
            ? japaneseAltText(summary, number: number, time: times)
            : englishAltText(summary, number: number, time: times)
        return Self.altTextRule.shorten(text) ?? text
    }

    /// Times as `17:30`, as `11/21 17:30` when `dated`, as `2019/07/22 14:30` also `withYear`.
    private func altTextClock(dated: Bool, withYear: Bool = false) -> (Date) -> String {
        let format = formatter(withYear ? "yyyy/MM/dd HH:mm" : dated ? "MM/dd HH:mm" : "HH:mm")
        return { format.string(from: $0) }
    }

    private func englishAltText(_ s: ChartSummary, number: (Int) -> String, time: Times) -> String {
        var text = "Bar chart of steps per \(s.bin.englishName), \(time.window(s.start)) to \(time.window(s.end)): "
        guard s.steps > 0 else { return text + "no steps." }
        text += "\(number(s.steps)) \(s.steps == 1 ? "step" : "steps")"
        if s.walks > 0 { text += " in \(number(s.walks)) \(s.walks == 1 ? "walk" : "walks")" }
        if let b = s.busiest {
            text += ", most (\(number(b.steps))) between \(time.bar(b.start)) and \(time.bar(b.end))"
        }
        text += "."
        if let goal = s.goal {
            text +=
                s.steps >= goal
                ? " Goal of \(number(goal)) steps reached."
                : " \(number(goal - s.steps)) \(goal - s.steps == 1 ? "step" : "steps") short of the goal of \(number(goal))."
        }
        return text
    }

    private func japaneseAltText(_ s: ChartSummary, number: (Int) -> String, time: Times) -> String {
        var text = "\(s.bin.japaneseName)ごとの歩数の棒グラフ、\(time.window(s.start))〜\(time.window(s.end))："
        guard s.steps > 0 else { return text + "歩数はありません。" }
        text += "合計\(number(s.steps))歩"
        if s.walks > 0 { text += "、\(number(s.walks))回歩きました" }
        text += "。"
        if let b = s.busiest {
            text += "最も多かったのは\(time.bar(b.start))〜\(time.bar(b.end))の\(number(b.steps))歩。"
        }
        if let goal = s.goal {
            text += s.steps >= goal ? "目標の\(number(goal))歩を達成。" : "目標の\(number(goal))歩まであと\(number(goal - s.steps))歩。"
        }
        return text
    }
}
