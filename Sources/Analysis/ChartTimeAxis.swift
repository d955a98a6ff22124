import Foundation
import Messages

/// The time axis of a window's chart: ticks on round local times (seconds to hours, then midnights, Mondays, the
/// first of months, 1 January), the finest step whose labels keep apart at the chart's font size, so two labels
/// never print over each other, whatever the window (a minute or ten years).
enum ChartTimeAxis {
    enum Step {
        case seconds(Int64)
        case calendar(Calendar.Component, Int)
    }

    static let seconds: [Int64] = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200]
    static let calendarSteps: [(Calendar.Component, Int)] = [
        (.day, 1), (.day, 2), (.weekOfYear, 1), (.weekOfYear, 2), (.month, 1), (.month, 2), (.month, 3), (.month, 6),
        (.year, 1), (.year, 2), (.year, 5), (.year, 10), (.year, 20), (.year, 50),
    ]
    /// From the finest: seconds to hours, then calendar days to half centuries.
    static let steps: [Step] = seconds.map(Step.seconds) + calendarSteps.map { Step.calendar($0.0, $0.1) }

    /// The ticks over `[startNs, endNs]` at `x`, labels `fontSize` high: the finest step whose labels are at least
    /// `gap` apart and inside `bounds`.
    static func axis(
        startNs: Int64, endNs: Int64, zone: TimeZone, language: TextLanguage, fontSize: Double, gap: Double,
        bounds: ClosedRange<Double>, x: (Int64) -> Double
    ) -> PlotTimeAxis {
        var fallback: [PlotTimeAxis.Tick] = []
        for step in steps where Double(endNs - startNs) / nominalNs(step) <= 61 {
            let ticks = self.ticks(step, startNs: startNs, endNs: endNs, zone: zone, language: language)
            guard ticks.count <= 60 else { continue }
            fallback = ticks
            let boxes = ticks.map { tick in
                let half = ChartText.width(tick.label, fontSize: fontSize) / 2
                return (x(tick.ns) - half)...(x(tick.ns) + half)
            }
            let inside = boxes.allSatisfy { bounds.contains($0.lowerBound) && bounds.contains($0.upperBound) }
            let apart = zip(boxes, boxes.dropFirst()).allSatisfy { $1.lowerBound - $0.upperBound >= gap }
            if inside && apart { return PlotTimeAxis(ticks: ticks, title: "") }
        }
        return PlotTimeAxis(ticks: Array(fallback.prefix(1)), title: "")
    }

    /// A step's length in ns (a month as 30 days), to leave out steps that give far too many ticks unworked.
    static func nominalNs(_ step: Step) -> Double {
        let day = 86_400e9
        switch step {
        case .seconds(let s): return Double(s) * 1e9
        case .calendar(.weekOfYear, let n): return Double(n) * 7 * day
        case .calendar(.month, let n): return Double(n) * 30 * day
        case .calendar(.year, let n): return Double(n) * 365 * day
        case .calendar(_, let n): return Double(n) * day
        }
    }

    /// The ticks of `step` inside `[startNs, endNs]`, labelled in `zone`: `10:15` (`10:15:30` below a minute), a
    /// date at local midnight and for days and weeks (`11-21`, `11/21` in Japanese), `2019-07` for months, `2019`.
    static func ticks(
        _ step: Step, startNs: Int64, endNs: Int64, zone: TimeZone, language: TextLanguage
    ) -> [PlotTimeAxis.Tick] {
        let format = { (pattern: String) in
            let f = DateFormatter()
            f.locale = Locale(identifier: "en_US_POSIX")
            f.timeZone = zone
            f.dateFormat = pattern
            return f
        }
        let day = format(language == .japanese ? "M/d" : "MM-dd")
        var times: [Int64] = []
        let label: (Date) -> String
        switch step {
        case .seconds(let seconds):
            let time = format(seconds < 60 ? "HH:mm:ss" : "HH:mm")
            let offset = Int64(zone.secondsFromGMT(for: Timestamps.date(nanoseconds: startNs)))
            let startSeconds = (startNs + 999_999_999) / 1_000_000_000
            var t = ((startSeconds + offset + seconds - 1) / seconds) * seconds - offset
            while t * 1_000_000_000 <= endNs && times.count <= 61 {
                times.append(t * 1_000_000_000)
                t += seconds
            }
            label = { date in
                let text = time.string(from: date)
                return text.allSatisfy { $0 == "0" || $0 == ":" } ? day.string(from: date) : text
            }
        case .calendar(let component, let count):
            let edges = ChartBins.calendarEdges(
                startNs: startNs, endNs: endNs, zone: zone, component: component, count: count)
            times = edges.filter { $0 >= startNs && $0 <= endNs }
            let text = component == .year ? format("yyyy") : component == .month ? format("yyyy-MM") : day
            label = { text.string(from: $0) }
        }
        return times.map { PlotTimeAxis.Tick(ns: $0, label: label(Timestamps.date(nanoseconds: $0))) }
    }
}

/// Widths of the chart's text, estimated from DejaVu Sans's advances (IPAexGothic's full width for Japanese): an
/// upper bound for the characters the chart writes, so that labels placed apart by it are apart when drawn.
enum ChartText {
    static func width(_ text: String, fontSize: Double, bold: Bool = false) -> Double {
        let ems = text.unicodeScalars.reduce(0.0) { $0 + advance($1) }
        return ems * fontSize * (bold ? 1.12 : 1)
    }

    /// One character's advance in ems.
    static func advance(_ c: Unicode.Scalar) -> Double {
        switch c.value {
        case 0x30...0x39: return 0.64  // digits
        case 0x20, 0xA0: return 0.32
        case 0x2C, 0x2E, 0x3A, 0x2F, 0xB7: return 0.34  // , . : / ·
        case 0x2D, 0x28, 0x29: return 0.40  // - ( )
        case 0x4D, 0x57, 0x6D, 0x77: return 1.0  // M W m w
        case 0x41...0x5A: return 0.8
        case 0x61...0x7A: return 0.64
        case 0x2E80...0xFFEF: return 1.0  // kana, kanji, full-width forms
        default: return 1.0
        }
    }
}
