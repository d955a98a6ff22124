import Foundation

/// What a window's chart shows, in numbers: the facts its alt text gives to people who cannot see the picture.
public struct ChartSummary: Sendable, Equatable {
    public var start: Date
    public var end: Date
    /// Length of one bar, in seconds (60 to 3600).
    public var intervalSeconds: Int
    public var steps: Int
    /// Walking bouts that ended in the window (the `{bouts}` of the post's text).
    public var walks: Int
    /// The bar with the most steps; nil when the window has none.
    public var busiest: StepPeriod?
    /// The goal line drawn for the window, when there is one.
    public var goal: Int?

    public init(
        start: Date, end: Date, intervalSeconds: Int, steps: Int, walks: Int, busiest: StepPeriod?, goal: Int? = nil
    ) {
        self.start = start
        self.end = end
        self.intervalSeconds = intervalSeconds
        self.steps = steps
        self.walks = walks
        self.busiest = busiest
        self.goal = goal
    }
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
        let language = template.language
        let numbers = NumberFormatter()
        numbers.locale = Locale(identifier: language == .japanese ? "ja_JP" : "en_US")
        numbers.numberStyle = .decimal
        let number = { (n: Int) in numbers.string(from: NSNumber(value: n)) ?? String(n) }
        // The window's ends carry their dates when they fall on different days (a day: 11/21 00:00 to 11/22 00:00);
        // the busiest bar's only when the window is longer than a day.
        let day = formatter("yyyyMMdd")
        let times = Times(
            window: altTextClock(dated: day.string(from: summary.start) != day.string(from: summary.end)),
            bar: altTextClock(dated: summary.end.timeIntervalSince(summary.start) > 86_400))
        let text =
            language == .japanese
            ? japaneseAltText(summary, number: number, time: times)
            : englishAltText(summary, number: number, time: times)
        return Self.altTextRule.shorten(text) ?? text
    }

    /// Times as `17:30`, as `11/21 17:30` when `dated`.
    private func altTextClock(dated: Bool) -> (Date) -> String {
        let format = formatter(dated ? "MM/dd HH:mm" : "HH:mm")
        return { format.string(from: $0) }
    }

    private func englishAltText(_ s: ChartSummary, number: (Int) -> String, time: Times) -> String {
        let minutes = s.intervalSeconds / 60
        let interval = minutes >= 60 ? "hour" : minutes == 1 ? "minute" : "\(minutes) minutes"
        var text = "Bar chart of steps per \(interval), \(time.window(s.start)) to \(time.window(s.end)): "
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
                : " \(number(goal - s.steps)) steps short of the goal of \(number(goal))."
        }
        return text
    }

    private func japaneseAltText(_ s: ChartSummary, number: (Int) -> String, time: Times) -> String {
        let minutes = s.intervalSeconds / 60
        let interval = minutes >= 60 ? "1時間" : "\(minutes)分"
        var text = "\(interval)ごとの歩数の棒グラフ、\(time.window(s.start))〜\(time.window(s.end))："
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
