import Foundation

/// The time axis of a plot: where its ticks go, what they say and the axis title. A recording whose times are
/// relative is labelled in time since its first sample; one with wall-clock times (and every step log) in the local
/// time of day, so a walk can be matched with when it happened.
struct PlotTimeAxis: Equatable {
    struct Tick: Equatable {
        var ns: Int64
        var label: String
    }

    var ticks: [Tick]
    var title: String

    /// Seconds, minutes or hours since `startNs`, whichever keeps the labels short, about ten ticks.
    static func sinceStart(startNs: Int64, spanNs: Double) -> PlotTimeAxis {
        let seconds = spanNs * 1e-9
        let (unit, unitSeconds) = seconds > 7200 ? ("h", 3600.0) : seconds > 300 ? ("min", 60.0) : ("s", 1.0)
        let step = StepPlot.niceStep(seconds / unitSeconds / 10)
        var ticks: [Tick] = []
        var tick = 0.0
        while tick <= seconds / unitSeconds + 1e-9 {
            ticks.append(Tick(ns: startNs + Int64((tick * unitSeconds * 1e9).rounded()), label: StepPlot.label(tick)))
            tick += step
        }
        return PlotTimeAxis(ticks: ticks, title: "time since the first sample (\(unit))")
    }

    /// Round clock steps a tick may take, in seconds.
    static let clockSteps: [Int64] = [
        1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400, 172_800, 604_800,
    ]

    /// The local time of day in `zone`, ticks on round clock times (`10:15`, `10:15:30`; a date at midnight), the
    /// title naming the zone and the date or dates.
    static func wallClock(startNs: Int64, spanNs: Double, zone: TimeZone) -> PlotTimeAxis {
        let endNs = startNs + Int64(spanNs)
        let step = clockSteps.first { Double($0) * 1e9 * 10 >= spanNs } ?? clockSteps.last!
        let time = formatter(step < 60 ? "HH:mm:ss" : "HH:mm", zone)
        let date = formatter("yyyy-MM-dd", zone)
        let day = formatter("MM-dd", zone)
        // Aligned in local time: the zone's offset at the start, added, floored to the step, taken off again.
        let offset = Int64(zone.secondsFromGMT(for: Self.date(startNs)))
        let startSeconds = Int64((Double(startNs) / 1e9).rounded(.up))
        var seconds = ((startSeconds + offset + step - 1) / step) * step - offset
        var ticks: [Tick] = []
        while seconds * 1_000_000_000 <= endNs {
            let at = Self.date(seconds * 1_000_000_000)
            let midnight = time.string(from: at).allSatisfy { $0 == "0" || $0 == ":" }
            ticks.append(
                Tick(
                    ns: seconds * 1_000_000_000,
                    label: step >= 86400 || midnight ? day.string(from: at) : time.string(from: at)))
            seconds += step
        }
        let first = date.string(from: Self.date(startNs))
        let last = date.string(from: Self.date(endNs))
        let dates = first == last ? first : "\(first) to \(last)"
        return PlotTimeAxis(ticks: ticks, title: "local time in \(zone.identifier), \(dates)")
    }

    private static func date(_ ns: Int64) -> Date { Date(timeIntervalSince1970: Double(ns) / 1e9) }

    private static func formatter(_ format: String, _ zone: TimeZone) -> DateFormatter {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = zone
        f.dateFormat = format
        return f
    }
}
