import Foundation
import Messages
import Publishing
import SensorInput
import StepDetection
import WallTime

/// How the window's chart looks: `text.chart_style` and `text.goal`.
public struct WindowChartOptions: Sendable, Equatable {
    /// Dark text on white, or light text on a dark background (for accounts whose followers read in dark mode).
    public enum Style: String, Sendable, CaseIterable {
        case light, dark
    }

    public var style: Style
    /// Steps a day: windows of a day or more get a goal line (the goal times their whole days) and a running total.
    public var goal: Int?

    public init(style: Style = .light, goal: Int? = nil) {
        self.style = style
        self.goal = goal
    }
}

/// One window's steps as the chart draws them: the window as posted (its total and walks are the text's), the steps
/// per minute inside it, and the walking bouts that overlap it. Codable: the transaction that closes the window keeps
/// it, and the chart is drawn from it after the commit.
public struct WindowActivity: Sendable, Codable {
    public var window: StepWindow
    /// Steps per minute (or any readings) inside the window; late steps counted in `window.steps` are in no bar.
    public var readings: [StepReading]
    public var bouts: [WalkingBout]

    public init(window: StepWindow, readings: [StepReading], bouts: [WalkingBout]) {
        self.window = window
        self.readings = readings
        self.bouts = bouts
    }

    var startNs: Int64 { window.span.start.nanosecondsSinceEpoch }
    var endNs: Int64 { window.span.end.nanosecondsSinceEpoch }
}

/// A window's chart as a PNG with its alt text, what a post with `image = "chart"` carries: steps per interval as
/// bars (at most about 60, `ChartBins`), walks shaded behind them, the total and the window's local times on top, and with a goal, the running total
/// against a dashed goal line. Drawn as an SVG (reusing the plots' bars, time axis and ticks) and rasterised by
/// librsvg.
public enum WindowChart {
    /// The picture's layout size: 16:9, the shape Mastodon, Bluesky and X show uncropped in a timeline.
    public static let layoutWidth = 1200
    public static let layoutHeight = 675
    /// Pixels per layout unit: 2, so the picture stays sharp on phones' high-density screens when opened.
    public static let scale = 2

    /// The window's bars (`ChartBins`): at most about 60, of a length that follows the window's.
    static func bars(_ activity: WindowActivity, zone: TimeZone) -> StepPlot.ReadingBars {
        ChartBins.bars(activity.readings, zone: zone, startNs: activity.startNs, endNs: activity.endNs)
    }

    /// The chart and its alt text for `activity`, in `composer`'s zone and language.
    public static func image(
        _ activity: WindowActivity, composer: MessageComposer, options: WindowChartOptions
    ) throws(RasterizeError) -> PostImage {
        let bars = bars(activity, zone: composer.timeZone)
        let summary = summary(activity, bars: bars, goal: options.goal)
        let svg = svg(
            activity, bars: bars, summary: summary, zone: composer.timeZone, style: options.style,
            language: composer.language)
        let width = layoutWidth * scale
        let height = layoutHeight * scale
        let png = try SVGRasterizer.png(svg: svg, width: width, height: height)
        return PostImage(png: png, alt: composer.altText(summary), width: width, height: height)
    }

    /// What the chart shows, in numbers: the window's total and walks as posted, the busiest bar (within the window),
    /// and the goal for the window's whole days.
    static func summary(_ activity: WindowActivity, bars: StepPlot.ReadingBars, goal: Int?) -> ChartSummary {
        ChartSummary(
            window: activity.window.span, intervalSeconds: Int(bars.intervalNs / 1_000_000_000),
            steps: activity.window.steps, walks: activity.window.bouts,
            busiest: busiest(bars, startNs: activity.startNs, endNs: activity.endNs),
            goal: windowGoal(goal, startNs: activity.startNs, endNs: activity.endNs), bin: bars.bin)
    }

    /// The daily goal times the window's whole days; nil for a window shorter than 20 hours, which a day's goal does
    /// not measure.
    static func windowGoal(_ goal: Int?, startNs: Int64, endNs: Int64) -> Int? {
        guard let goal, goal > 0 else { return nil }
        let days = (Double(endNs - startNs) / 86_400e9).rounded()
        return days >= 1 ? goal * Int(days) : nil
    }

    /// The bar with the most steps (the first of equals), cut to the window; nil when no bar has a whole step.
    static func busiest(_ bars: StepPlot.ReadingBars, startNs: Int64, endNs: Int64) -> StepPeriod? {
        guard let top = bars.steps.indices.max(by: { bars.steps[$0] < bars.steps[$1] }),
            bars.steps[top].rounded() >= 1
        else { return nil }
        return StepPeriod(
            start: Timestamps.date(nanoseconds: max(bars.start(top), startNs)),
            end: Timestamps.date(nanoseconds: min(bars.end(top), endNs)),
            steps: Int(bars.steps[top].rounded()))
    }

    /// The busiest hour of a window of up to a day and a half, the busiest local day of a longer one (`{busiest}`).
    public static func busiestPeriod(readings: [StepReading], in window: TimeWindow, zone: TimeZone) -> StepPeriod? {
        let (startNs, endNs) = (window.start.nanosecondsSinceEpoch, window.end.nanosecondsSinceEpoch)
        let hour = 60 * StepPlot.minuteNs
        let period = endNs - startNs > 36 * hour ? (24 * hour, "day") : (hour, "hour")
        let bars = StepPlot.bars(
            readings, zone: zone, span: (startNs, endNs), intervals: [period], maxBars: Int64.max)
        return busiest(bars, startNs: startNs, endNs: endNs)
    }
}

extension RecordingCount {
    /// The steps in `[from, to)` per minute, by the rule a fetch stores them (per whole second, a step reading
    /// spread evenly over its time), so `preview --image` draws what a fetch of the same data would.
    public func stepsPerMinute(from: Instant, to: Instant) -> [StepReading] {
        let firstSecond = (from.nanosecondsSinceEpoch + 999_999_999) / 1_000_000_000
        let endSecond = (to.nanosecondsSinceEpoch + 999_999_999) / 1_000_000_000
        var minutes: [Int64: Int] = [:]
        func add(_ second: Int64, _ steps: Int) {
            guard second >= firstSecond, second < endSecond else { return }
            minutes[second / 60 * 60, default: 0] += steps
        }
        if kind == .steps {
            // A reading of 0 steps adds nothing: a step log's line after a day's pause spans the whole day.
            for reading in readings where reading.steps > 0 && reading.end >= from && reading.start < to {
                reading.stepsPerSecond(add)
            }
        } else {
            for time in stepTimes { add(time.secondsSinceEpoch, 1) }
        }
        return minutes.sorted { $0.key < $1.key }.map {
            StepReading(
                start: Instant(secondsSinceEpoch: $0.key), end: Instant(secondsSinceEpoch: $0.key + 60), steps: $0.value
            )
        }
    }
}
