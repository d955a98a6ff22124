import Foundation
import Messages
import SensorInput

/// The picture of a step log (Apple Health, Fitbit, Gadgetbridge, …): steps per interval as bars, from a minute to a
/// day so that there are at most 240, on a time axis in the local time of day.
extension StepPlot {
    /// Steps per interval: `steps[i]` is the interval from `edges[i]` to `edges[i + 1]` (`originNs + i ×
    /// intervalNs` for intervals of fixed length; calendar days, weeks and months differ in length).
    struct ReadingBars: Equatable {
        var originNs: Int64
        /// The length of one interval; nominal for calendar intervals.
        var intervalNs: Int64
        var intervalName: String
        var steps: [Double]
        var edges: [Int64]
        var bin: ChartBin

        func start(_ i: Int) -> Int64 { edges[i] }
        func end(_ i: Int) -> Int64 { edges[i + 1] }
    }

    static let minuteNs: Int64 = 60_000_000_000

    /// The intervals a step log's plot chooses from: the shortest that gives at most 240 bars.
    static let logIntervals: [(ns: Int64, name: String)] = [
        (minuteNs, "1 min"), (5 * minuteNs, "5 min"), (15 * minuteNs, "15 min"), (30 * minuteNs, "30 min"),
        (60 * minuteNs, "hour"), (360 * minuteNs, "6 h"), (1440 * minuteNs, "day"),
    ]

    /// The readings summed per interval, intervals starting on round local times in `zone` (a day at local midnight);
    /// a reading over several intervals is spread evenly over its time. The bars cover `span` (a window) when given,
    /// else the readings; the interval is the first of `intervals` that gives at most `maxBars` bars, else the last.
    static func bars(
        _ readings: [StepReading], zone: TimeZone, span: (startNs: Int64, endNs: Int64)? = nil,
        intervals: [(ns: Int64, name: String)] = logIntervals, maxBars: Int64 = 240
    ) -> ReadingBars {
        let first = span?.startNs ?? readings.map(\.start.nanosecondsSinceEpoch).min() ?? 0
        let last = max(
            span?.endNs ?? readings.map { max($0.end.nanosecondsSinceEpoch, $0.start.nanosecondsSinceEpoch + 1) }.max()
                ?? 1, first + 1)
        let (intervalNs, name) =
            intervals.first { (last - first + $0.ns - 1) / $0.ns <= maxBars } ?? intervals[intervals.count - 1]
        let offsetNs = Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(first) / 1e9))) * 1_000_000_000
        let origin = Int64((Double(first + offsetNs) / Double(intervalNs)).rounded(.down)) * intervalNs - offsetNs
        let count = max(Int((last - origin + intervalNs - 1) / intervalNs), 1)
        let edges = (0...count).map { origin + Int64($0) * intervalNs }
        let steps = sum(readings, edges: edges)
        return ReadingBars(
            originNs: origin, intervalNs: intervalNs, intervalName: name, steps: steps, edges: edges,
            bin: .seconds(Int(intervalNs / 1_000_000_000)))
    }

    /// The readings summed per interval between consecutive `edges` (at least two, increasing); a reading over
    /// several intervals is spread evenly over its time. Parts before the first interval (a reading begun before a
    /// window) are left out; parts after the last are added to it, as is an instant reading outside them.
    static func sum(_ readings: [StepReading], edges: [Int64]) -> [Double] {
        let count = edges.count - 1
        var steps = [Double](repeating: 0, count: count)
        /// The interval holding `ns`: the last whose start is at or before it, clamped to the intervals.
        func index(_ ns: Int64) -> Int {
            var (lo, hi) = (0, count)
            while hi - lo > 1 {
                let mid = (lo + hi) / 2
                if edges[mid] <= ns { lo = mid } else { hi = mid }
            }
            return lo
        }
        for r in readings {
            guard r.end.nanosecondsSinceEpoch > r.start.nanosecondsSinceEpoch else {
                steps[index(r.start.nanosecondsSinceEpoch)] += Double(r.steps)
                continue
            }
            var lo = max(r.start.nanosecondsSinceEpoch, edges[0])
            while lo < r.end.nanosecondsSinceEpoch {
                let i = index(lo)
                let hi = i == count - 1 ? r.end.nanosecondsSinceEpoch : min(r.end.nanosecondsSinceEpoch, edges[i + 1])
                steps[i] +=
                    Double(r.steps) * Double(hi - lo)
                    / Double(r.end.nanosecondsSinceEpoch - r.start.nanosecondsSinceEpoch)
                lo = hi
            }
        }
        return steps
    }

    static func renderReadings(title: String, result: RecordingCount, zone: TimeZone, width: Int, height: Int)
        -> String
    {
        let bars = bars(result.readings, zone: zone)
        let highest = max(bars.steps.max() ?? 1, 1)
        let spanNs = Double(bars.intervalNs) * Double(bars.steps.count)
        let frame = Frame(
            width: width, height: height, start: bars.originNs, spanNs: spanNs, lowest: 0, highest: highest)
        let time = PlotTimeAxis.wallClock(startNs: bars.originNs, spanNs: spanNs, zone: zone)
        let stepWord = result.steps == 1 ? "step" : "steps"
        var out = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(width)" height="\(height)" viewBox="0 0 \(width) \(height)" font-family="sans-serif" font-size="12">
            <rect width="100%" height="100%" fill="white"/>
            <text x="\(f(frame.left))" y="22" font-size="15">\(escape(title)): \(result.steps) \(stepWord) in \(result.readings.count) readings, steps per \(bars.intervalName)</text>

            """
        out += timeTicks(time, left: frame.left, top: frame.top, height: frame.plotH, x: frame.x)
        let valueStep = niceStep(highest / 6)
        var value = 0.0
        while value <= highest * 1.0001 {
            out +=
                "<line x1=\"\(f(frame.left))\" y1=\"\(f(frame.y(value)))\" x2=\"\(f(frame.left + frame.plotW))\" y2=\"\(f(frame.y(value)))\" stroke=\"#e4e4e4\"/>"
            out +=
                "<text x=\"\(f(frame.left - 6))\" y=\"\(f(frame.y(value) + 4))\" text-anchor=\"end\">\(label(value))</text>\n"
            value += valueStep
        }
        let barW = frame.plotW / Double(bars.steps.count)
        for (i, steps) in bars.steps.enumerated() where steps > 0 {
            out +=
                "<rect x=\"\(f(frame.left + Double(i) * barW))\" y=\"\(f(frame.y(steps)))\" width=\"\(f(max(barW - 1, 0.5)))\" height=\"\(f(frame.top + frame.plotH - frame.y(steps)))\" fill=\"#3b6fb6\"/>"
        }
        let midY = frame.top + frame.plotH / 2
        out +=
            "\n<text x=\"\(f(frame.left + frame.plotW / 2))\" y=\"\(f(Double(height) - 8))\" text-anchor=\"middle\">\(time.title)</text>\n"
        out +=
            "<text x=\"16\" y=\"\(f(midY))\" text-anchor=\"middle\" transform=\"rotate(-90 16 \(f(midY)))\">steps per \(bars.intervalName)</text>\n"
        out +=
            "<rect x=\"\(f(frame.left))\" y=\"\(f(frame.top))\" width=\"\(f(frame.plotW))\" height=\"\(f(frame.plotH))\" fill=\"none\" stroke=\"#888\"/>\n</svg>\n"
        return out
    }
}
