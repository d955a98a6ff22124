import Foundation
import Messages
import SensorInput

/// The bars of a window's chart follow the window: minutes for an hour, half hours for a day, days for a month,
/// weeks for a year, months or quarters for years, at most `maxBars` of them, each starting on a round local time
/// (a day at local midnight, a week on Monday, a month on its first day). A seven-year window in hourly bars would
/// draw 61,000 bars of less than a pixel each: nothing would be seen.
enum ChartBins {
    static let maxBars = 60

    /// One choice of bar: a fixed length (minutes, hours) or a number of calendar units.
    struct Choice {
        var nominalNs: Int64
        var bin: ChartBin
        var calendar: (component: Calendar.Component, count: Int)?
    }

    static let minuteNs: Int64 = 60_000_000_000
    static let dayNs: Int64 = 1440 * minuteNs

    /// From the shortest: the first that gives at most `maxBars` bars is drawn.
    static let choices: [Choice] =
        [1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720].map {
            Choice(nominalNs: Int64($0) * minuteNs, bin: .seconds($0 * 60), calendar: nil)
        } + [
            Choice(nominalNs: dayNs, bin: .days(1), calendar: (.day, 1)),
            Choice(nominalNs: 7 * dayNs, bin: .weeks(1), calendar: (.weekOfYear, 1)),
            Choice(nominalNs: 30 * dayNs, bin: .months(1), calendar: (.month, 1)),
            Choice(nominalNs: 91 * dayNs, bin: .months(3), calendar: (.month, 3)),
            Choice(nominalNs: 365 * dayNs, bin: .years(1), calendar: (.year, 1)),
            Choice(nominalNs: 5 * 365 * dayNs, bin: .years(5), calendar: (.year, 5)),
            Choice(nominalNs: 10 * 365 * dayNs, bin: .years(10), calendar: (.year, 10)),
        ]

    /// The readings summed into the window's bars in `zone`.
    static func bars(_ readings: [StepReading], zone: TimeZone, startNs: Int64, endNs: Int64) -> StepPlot.ReadingBars {
        let end = max(endNs, startNs + 1)
        for choice in choices where (end - startNs + choice.nominalNs - 1) / choice.nominalNs <= maxBars {
            guard let (component, count) = choice.calendar else {
                return StepPlot.bars(
                    readings, zone: zone, span: (startNs, end),
                    intervals: [(choice.nominalNs, choice.bin.englishName)], maxBars: .max)
            }
            let edges = calendarEdges(startNs: startNs, endNs: end, zone: zone, component: component, count: count)
            if edges.count - 1 > maxBars && choice.nominalNs < choices[choices.count - 1].nominalNs { continue }
            return StepPlot.ReadingBars(
                originNs: edges[0], intervalNs: choice.nominalNs, intervalName: choice.bin.englishName,
                steps: StepPlot.sum(readings, edges: edges), edges: edges, bin: choice.bin)
        }
        let last = choices[choices.count - 1]
        let edges = calendarEdges(startNs: startNs, endNs: end, zone: zone, component: .year, count: 10)
        return StepPlot.ReadingBars(
            originNs: edges[0], intervalNs: last.nominalNs, intervalName: last.bin.englishName,
            steps: StepPlot.sum(readings, edges: edges), edges: edges, bin: last.bin)
    }

    /// Local calendar boundaries in `zone` from the one at or before `startNs` to the first at or after `endNs`:
    /// days from midnight, weeks from Monday, months from the 1st, quarters from January, April, July and October,
    /// years from 1 January (`count` years from a year divisible by it).
    static func calendarEdges(
        startNs: Int64, endNs: Int64, zone: TimeZone, component: Calendar.Component, count: Int
    ) -> [Int64] {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let start = Timestamps.date(nanoseconds: startNs)
        let first = unitStart(start, calendar: calendar, component: component, count: count)
        var edges = [Timestamps.nanoseconds(first)]
        var k = 1
        while edges[edges.count - 1] < endNs,
            let next = calendar.date(byAdding: component, value: count * k, to: first)
        {
            edges.append(Timestamps.nanoseconds(next))
            k += 1
        }
        return edges
    }

    /// The start of the calendar unit (`count` of `component`) that holds `date`.
    static func unitStart(_ date: Date, calendar: Calendar, component: Calendar.Component, count: Int) -> Date {
        let day = calendar.startOfDay(for: date)
        switch component {
        case .weekOfYear:
            let weekday = calendar.component(.weekday, from: day)  // 1 = Sunday … 7 = Saturday
            return calendar.date(byAdding: .day, value: -((weekday + 5) % 7), to: day) ?? day
        case .month:
            let month = calendar.date(from: calendar.dateComponents([.year, .month], from: day)) ?? day
            let back = (calendar.component(.month, from: month) - 1) % count
            return calendar.date(byAdding: .month, value: -back, to: month) ?? month
        case .year:
            let year = calendar.date(from: calendar.dateComponents([.year], from: day)) ?? day
            return calendar.date(byAdding: .year, value: -(calendar.component(.year, from: year) % count), to: year)
                ?? year
        default:
            return day
        }
    }
}
