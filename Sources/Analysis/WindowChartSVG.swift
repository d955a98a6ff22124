import Foundation
import Messages
import WallTime

/// The SVG of a window's chart, in layout units (1200 × 675) scaled by the rasteriser. Colours come from one style
/// sheet per style, which also recolours the grid that `StepPlot.timeTicks` draws (a CSS rule outranks a presentation
/// attribute).
extension WindowChart {
    /// Where things go, in layout units; the right margin holds the running total's axis when there is a goal.
    struct Layout {
        let left = 104.0, top = 140.0, bottom = 565.0
        let right: Double
        var width: Double { right - left }
        var height: Double { bottom - top }
    }

    static func styleSheet(_ style: WindowChartOptions.Style) -> String {
        let (background, text, muted, grid, bar, walk, total, goal) =
            style == .light
            ? ("#ffffff", "#1d2430", "#5b6573", "#e3e7ec", "#2f6fca", "#d9efdc", "#d9730d", "#c0392b")
            : ("#14181e", "#e8edf3", "#9aa6b4", "#2b323c", "#5aa0ff", "#1e3b2b", "#ffad4d", "#ff6b5e")
        return """
            <style>
            .background{fill:\(background)} text{fill:\(text)} .muted{fill:\(muted)} .grid line{stroke:\(grid)}
            .bar{fill:\(bar)} .walk{fill:\(walk)} .total{stroke:\(total);fill:none;stroke-width:3}
            .goal{stroke:\(goal);stroke-width:2.5;stroke-dasharray:10 7} .goal-label{fill:\(goal)}
            .frame{fill:none;stroke:\(muted);stroke-width:1.2} .legend-total{fill:\(total)}
            </style>
            """
    }

    static func svg(
        _ activity: WindowActivity, bars: StepPlot.ReadingBars, summary: ChartSummary, zone: TimeZone,
        style: WindowChartOptions.Style, language: TextLanguage = .english
    ) -> String {
        let words = ChartWords(language: language)
        let layout = Layout(right: Double(layoutWidth) - (summary.goal == nil ? 40 : 110))
        let spanNs = Double(activity.endNs - activity.startNs)
        let x = { (ns: Int64) in layout.left + Double(ns - activity.startNs) / spanNs * layout.width }
        var out = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(layoutWidth)" height="\(layoutHeight)" viewBox="0 0 \(layoutWidth) \(layoutHeight)" font-family="DejaVu Sans, IPAexGothic, sans-serif" font-size="21">
            \(styleSheet(style))
            <rect class="background" width="100%" height="100%"/>

            """
        out += heading(summary, zone: zone, words: words)
        for bout in activity.bouts
        where bout.end.nanosecondsSinceEpoch > activity.startNs && bout.start.nanosecondsSinceEpoch < activity.endNs {
            let x0 = x(max(bout.start.nanosecondsSinceEpoch, activity.startNs))
            let x1 = max(x(min(bout.end.nanosecondsSinceEpoch, activity.endNs)), x0 + 2)
            out +=
                "<rect class=\"walk\" x=\"\(StepPlot.f(x0))\" y=\"\(StepPlot.f(layout.top))\" width=\"\(StepPlot.f(x1 - x0))\" height=\"\(StepPlot.f(layout.height))\"/>\n"
        }
        let time = ChartTimeAxis.axis(
            startNs: activity.startNs, endNs: activity.endNs, zone: zone, language: language, fontSize: 21, gap: 16,
            bounds: 4...Double(layoutWidth - 4), x: x)
        out += "<g class=\"grid\">"
        out += StepPlot.timeTicks(time, left: layout.left, top: layout.top, height: layout.height, labelGap: 30, x: x)
        out += stepAxis(bars, layout: layout, words: words) + "</g>\n"
        out += barRects(bars, x: x, layout: layout)
        if let goal = summary.goal { out += runningTotal(bars, goal: goal, x: x, layout: layout, words: words) }
        out +=
            "<rect class=\"frame\" x=\"\(StepPlot.f(layout.left))\" y=\"\(StepPlot.f(layout.top))\" width=\"\(StepPlot.f(layout.width))\" height=\"\(StepPlot.f(layout.height))\"/>\n"
        out += legend(bars, goal: summary.goal, walks: !activity.bouts.isEmpty, words: words)
        return out + "</svg>\n"
    }

    /// The total in large type with the walks, then the window's local times and zone. The words keep their
    /// distance from the number with `dx`: librsvg drops a no-break space that starts a `tspan` ("2,459steps").
    static func heading(_ summary: ChartSummary, zone: TimeZone, words: ChartWords) -> String {
        // Walks come from the step detector: a step log has none, which is not the same as not walking.
        let walks = summary.walks == 0 ? "" : " · " + words.walks(summary.walks, grouped: grouped(summary.walks))
        var out =
            "<text x=\"40\" y=\"66\"><tspan font-size=\"52\" font-weight=\"bold\">\(grouped(summary.steps))</tspan>"
            + "<tspan font-size=\"28\" dx=\"12\">\(StepPlot.escape(words.steps(summary.steps) + walks))</tspan></text>\n"
        out +=
            "<text class=\"muted\" x=\"40\" y=\"108\" font-size=\"24\">\(StepPlot.escape(windowTimes(summary, zone: zone, words: words)))</text>\n"
        if let goal = summary.goal {
            let progress =
                summary.steps >= goal ? "✓" : "\(Int((Double(summary.steps) / Double(goal) * 100).rounded(.down)))%"
            out +=
                "<text class=\"goal-label\" x=\"\(layoutWidth - 40)\" y=\"66\" font-size=\"28\" text-anchor=\"end\">\(words.goal) \(grouped(goal)) \(progress)</text>\n"
        }
        return out
    }

    /// `Sat 2026-11-21 10:00 – 22:00 (Asia/Tokyo)` (`2026-11-21(土) …` in Japanese), both dates when the window spans
    /// days.
    static func windowTimes(_ summary: ChartSummary, zone: TimeZone, words: ChartWords) -> String {
        let format = { (pattern: String, locale: String) in
            let f = DateFormatter()
            f.locale = Locale(identifier: locale)
            f.timeZone = zone
            f.dateFormat = pattern
            return f
        }
        let day =
            words.language == .japanese ? format("yyyy-MM-dd(E)", "ja_JP") : format("EEE yyyy-MM-dd", "en_US_POSIX")
        let clock = format("HH:mm", "en_US_POSIX")
        let (start, finish) = (summary.window.start.date, summary.window.end.date)
        let lastInstant = finish.addingTimeInterval(-1)
        let end =
            day.string(from: start) == day.string(from: lastInstant)
            ? (clock.string(from: finish) == "00:00" ? "24:00" : clock.string(from: finish))
            : day.string(from: finish) + " " + clock.string(from: finish)
        return "\(day.string(from: start)) \(clock.string(from: start)) – \(end) (\(zone.identifier))"
    }

    /// Horizontal grid lines and labels for steps per bar on the left.
    static func stepAxis(_ bars: StepPlot.ReadingBars, layout: Layout, words: ChartWords) -> String {
        let highest = max(bars.steps.max() ?? 0, 10) * 1.08
        let step = StepPlot.niceStep(highest / 5)
        var out = ""
        var value = 0.0
        while value <= highest {
            let y = layout.bottom - value / highest * layout.height
            out +=
                "<line x1=\"\(StepPlot.f(layout.left))\" y1=\"\(StepPlot.f(y))\" x2=\"\(StepPlot.f(layout.right))\" y2=\"\(StepPlot.f(y))\"/>"
            out +=
                "<text class=\"muted\" x=\"\(StepPlot.f(layout.left - 10))\" y=\"\(StepPlot.f(y + 7))\" text-anchor=\"end\">\(words.axisNumber(Int(value)))</text>\n"
            value += step
        }
        return out
    }

    static func barRects(_ bars: StepPlot.ReadingBars, x: (Int64) -> Double, layout: Layout) -> String {
        let highest = max(bars.steps.max() ?? 0, 10) * 1.08
        var out = ""
        for (i, steps) in bars.steps.enumerated() where steps > 0 {
            let x0 = max(x(bars.start(i)), layout.left)
            let x1 = min(x(bars.end(i)), layout.right)
            let gap = x1 - x0 > 5 ? 1.0 : 0
            let top = layout.bottom - steps / highest * layout.height
            out +=
                "<rect class=\"bar\" x=\"\(StepPlot.f(x0 + gap / 2))\" y=\"\(StepPlot.f(top))\" width=\"\(StepPlot.f(max(x1 - x0 - gap, 0.6)))\" height=\"\(StepPlot.f(layout.bottom - top))\"/>"
        }
        return out + "\n"
    }

    /// The running total (at each bar's end) on its own axis on the right, up to the goal or the total, with the goal
    /// as a dashed line: how the day went towards it.
    static func runningTotal(
        _ bars: StepPlot.ReadingBars, goal: Int, x: (Int64) -> Double, layout: Layout, words: ChartWords
    ) -> String {
        let highest = Double(max(goal, Int(bars.steps.reduce(0, +).rounded()))) * 1.08
        let y = { (value: Double) in layout.bottom - value / highest * layout.height }
        var total = 0.0
        var points = ["\(StepPlot.f(layout.left)),\(StepPlot.f(layout.bottom))"]
        for (i, steps) in bars.steps.enumerated() {
            total += steps
            let end = bars.end(i)
            points.append("\(StepPlot.f(min(x(end), layout.right))),\(StepPlot.f(y(total)))")
        }
        var out = "<polyline class=\"total\" points=\"\(points.joined(separator: " "))\"/>\n"
        out +=
            "<line class=\"goal\" x1=\"\(StepPlot.f(layout.left))\" y1=\"\(StepPlot.f(y(Double(goal))))\" x2=\"\(StepPlot.f(layout.right))\" y2=\"\(StepPlot.f(y(Double(goal))))\"/>\n"
        let step = StepPlot.niceStep(highest / 5)
        var value = 0.0
        while value <= highest {
            out +=
                "<text class=\"legend-total\" x=\"\(StepPlot.f(layout.right + 8))\" y=\"\(StepPlot.f(y(value) + 7))\">\(words.axisNumber(Int(value)))</text>\n"
            value += step
        }
        return out
    }

    /// What each mark is, along the bottom, in the text's language; item widths from `ChartText`.
    static func legend(_ bars: StepPlot.ReadingBars, goal: Int?, walks: Bool, words: ChartWords) -> String {
        var items = [("bar", words.stepsPer(bars.bin))]
        if walks { items.append(("walk", words.walking)) }
        if goal != nil { items += [("legend-total", words.runningTotal), ("goal-label", words.goal)] }
        var x = 104.0
        var out = ""
        for (mark, label) in items {
            out +=
                "<rect class=\"\(mark)\" x=\"\(StepPlot.f(x))\" y=\"636\" width=\"22\" height=\"18\"/><text class=\"muted\" x=\"\(StepPlot.f(x + 30))\" y=\"653\">\(label)</text>"
            x += 30 + ChartText.width(label, fontSize: 21) + 30
        }
        return out + "\n"
    }

    /// `8,432`: grouped, as a person reads a count on a picture.
    static func grouped(_ n: Int) -> String {
        let numbers = NumberFormatter()
        numbers.locale = Locale(identifier: "en_US")
        numbers.numberStyle = .decimal
        return numbers.string(from: NSNumber(value: n)) ?? String(n)
    }
}

/// The chart's few words in the text's language (`MessageComposer.language`): a Japanese post carries a Japanese
/// chart. Numbers and times are written the same in both.
struct ChartWords {
    var language: TextLanguage

    func steps(_ n: Int) -> String { language == .japanese ? "歩" : n == 1 ? "step" : "steps" }

    func walks(_ n: Int, grouped: String) -> String {
        language == .japanese ? "歩行 \(grouped) 回" : n == 1 ? "1 walk" : "\(grouped) walks"
    }

    /// `steps per hour`, `10分ごとの歩数`.
    func stepsPer(_ bin: ChartBin) -> String {
        language == .japanese ? "\(bin.japaneseName)ごとの歩数" : "steps per \(bin.englishName)"
    }

    var walking: String { language == .japanese ? "歩行" : "walking" }
    var runningTotal: String { language == .japanese ? "累計" : "running total" }
    var goal: String { language == .japanese ? "目標" : "goal" }

    /// An axis label: `250,000`, and from a million on `1.5M` (`150万` in Japanese), which the margins hold.
    func axisNumber(_ n: Int) -> String {
        guard n >= 1_000_000 else { return WindowChart.grouped(n) }
        if language == .japanese { return WindowChart.grouped(n / 10_000) + "万" }
        let millions = String(format: "%.1f", Double(n) / 1e6)
        return (millions.hasSuffix(".0") ? String(millions.dropLast(2)) : millions) + "M"
    }
}
