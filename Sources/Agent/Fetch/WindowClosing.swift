import Analysis
import Foundation
import Messages
import Publishing
import SensorInput
import StepDetection
import Store
import WallTime

/// What closing windows did, committed with them: the windows queued for posting, and the window considered (the
/// last one closed, or the open one when none closed). The fetch's report takes it after the commit.
struct ClosingOutcome: Sendable {
    var windows: [ClosedWindow] = []
    /// What the operator should know about closing (a fetch time before the last posted window, a text a target
    /// would refuse).
    var warnings: [String] = []
    var considered: (window: TimeWindow, steps: Int)?
    var lateSteps: Int { windows.reduce(0) { $0 + $1.lateSteps } }
}

extension FetchReport {
    /// Takes what a committed transaction closed.
    mutating func record(_ closed: ClosingOutcome) {
        windows += closed.windows
        warnings += closed.warnings
        lateSteps += closed.lateSteps
        if let considered = closed.considered {
            window = considered.window
            steps = considered.steps
        }
    }
}

extension Fetcher {
    /// Closes the window(s) ending by the sources' watermark and, when they have steps (or `post_zero`), adds one
    /// outbox row per target for each. Late steps (stored for time already posted) go into the first window closed.
    func closeWindows(_ tx: StateTransaction, watermark: Instant, firstData sourcesFirst: Instant?, now: Instant)
        throws -> ClosingOutcome
    {
        let endLimit = min(watermark, now).wholeSecond
        let posted = try tx.postedUntil()
        // A backlog's oldest steps are stored at the start of their minute (`StepsCompaction.placed`), which can be
        // before the source's first data.
        let firstData = try [sourcesFirst, tx.firstStep()].compactMap { $0 }.min()
        let start = posted ?? firstWindowStart(firstData: firstData, endLimit: endLimit)
        var closed = ClosingOutcome()
        if let posted, now < posted {
            // An earlier `--now` (or a clock set back) cannot reopen what was posted: say so rather than show an
            // empty window at the old end.
            let zone = configuration.composer.timeZone
            let time = { (instant: Instant) in Timestamps.format(instant.date, zone: zone) }
            closed.warnings.append(
                "the fetch time \(time(now)) is before the end of the last posted window, \(time(posted)): windows "
                    + "never go back, so nothing closes until then")
        }
        var late = try tx.lateSteps()
        let spans = windowsToClose(from: start, to: endLimit)
        var newEnd: Instant?
        for span in spans {
            let steps = try tx.steps(in: span) + late
            closed.considered = (span, steps)
            guard steps > 0 || configuration.schedule.postZero else {
                // Aligned periods without steps are passed over; a since-last window stays open.
                if case .aligned = configuration.schedule.window { newEnd = span.end }
                continue
            }
            let composed = try composeWindow(tx, span, steps: steps)
            let window = ClosedWindow(closing: span, steps: steps, lateSteps: late, text: composed.text)
            if let chart = composed.chart { try requestChart(chart, of: window, tx, now: now) }
            closed.warnings += try queue(window, tx, now: now)
            closed.windows.append(window)
            newEnd = span.end
            if late != 0 { try tx.clearLateSteps() }
            late = 0
        }
        if let newEnd {
            try tx.setPostedUntil(newEnd)
        } else if posted == nil, firstData != nil {
            try tx.setPostedUntilIfUnset(start)
        }
        if spans.isEmpty { closed.considered = (TimeWindow(start: start, end: endLimit), 0) }
        return closed
    }

    /// Adds the window's outbox row for each target. A target that would refuse its text gets it as failed, never
    /// sent; the returned warnings say so now.
    func queue(_ window: ClosedWindow, _ tx: StateTransaction, now: Instant) throws -> [String] {
        var warnings: [String] = []
        for (name, publisher) in publishers {
            let refusal = publisher.refusal(of: window.text)
            if let refusal {
                let end = Timestamps.format(window.span.end.date, zone: configuration.composer.timeZone)
                warnings.append(
                    "\(name) would refuse the text of the window ending \(end): \(refusal); kept as failed in the outbox, "
                        + "not sent (shorten the template, or set shorten = true)")
            }
            try tx.queue(
                OutboxRecord(
                    window: window, target: name, now: now,
                    refusal: refusal.map { "refused when the window closed: \($0)" }))
        }
        return warnings
    }

    /// Where the first window of a state begins: at its first data (never after `endLimit`), or at the start of the
    /// aligned period (hour, day, week) holding it.
    func firstWindowStart(firstData: Instant?, endLimit: Instant) -> Instant {
        let start = min(firstData ?? endLimit, endLimit).wholeSecond
        guard case .aligned(let length) = configuration.schedule.window else { return start }
        return Self.periodStart(containing: start, length: length, zone: configuration.composer.timeZone)
    }

    /// Asks for the window's chart, drawn after the commit (`drawRequestedCharts`) so that no write waits for it. What
    /// it draws is read here and kept with the request: the chart shows the window as it closed.
    func requestChart(_ chart: WindowActivity, of window: ClosedWindow, _ tx: StateTransaction, now: Instant) throws {
        let inputs = try JSONEncoder().encode(chart)
        try tx.requestChart(ChartRequestRecord(key: window.idempotencyKey, inputs: inputs, created: now))
    }

    /// A closing window as it is posted: its text, with what the template asks of the stored steps (the window
    /// before, the busiest hour or day), and what its chart draws when a target wants one (or a dry run shows it).
    func composeWindow(_ tx: StateTransaction, _ span: TimeWindow, steps: Int) throws -> (
        text: String, chart: WindowActivity?
    ) {
        let composer = configuration.composer
        var window = StepWindow(span, steps: steps, bouts: try tx.boutCount(endingIn: span))
        let fields = Set(composer.template.fields)
        if !fields.isDisjoint(with: ["previous_steps", "change"]) {
            window.previousSteps = try tx.steps(in: previousWindow(span))
        }
        let needsMinutes = drawsCharts || !fields.isDisjoint(with: ["busiest", "busiest_steps"])
        let minutes = needsMinutes ? try tx.stepsPerMinute(in: span) : []
        if !fields.isDisjoint(with: ["busiest", "busiest_steps"]) {
            window.busiest = WindowChart.busiestPeriod(readings: minutes, in: span, zone: composer.timeZone)
        }
        guard drawsCharts else { return (composer.compose(window), nil) }
        let activity = WindowActivity(window: window, readings: minutes, bouts: try tx.bouts(overlapping: span))
        return (composer.compose(window), activity)
    }

    /// The window before `span`: the aligned period before it, or as long a stretch for since-last.
    func previousWindow(_ span: TimeWindow) -> TimeWindow {
        guard case .aligned(let length) = configuration.schedule.window else { return span.previous }
        // A second before: a nanosecond is lost in a Date's Double.
        let start = Self.periodStart(
            containing: span.start - .seconds(1), length: length, zone: configuration.composer.timeZone)
        return TimeWindow(start: start, end: span.start)
    }

    /// The windows from `start` whose end has settled by `endLimit`: one since-last window, or whole aligned periods
    /// (48 at most per fetch).
    func windowsToClose(from start: Instant, to endLimit: Instant) -> [TimeWindow] {
        var windows: [TimeWindow] = []
        switch configuration.schedule.window {
        case .sinceLast:
            if endLimit > start { windows = [TimeWindow(start: start, end: endLimit)] }
        case .aligned(let length):
            let zone = configuration.composer.timeZone
            var p = Self.periodStart(containing: start, length: length, zone: zone)
            if p < start { p = Self.periodStart(containing: start, length: length, zone: zone, next: true) }
            while windows.count < 48 {
                let e = Self.periodStart(containing: p, length: length, zone: zone, next: true)
                guard e <= endLimit else { break }
                windows.append(TimeWindow(start: p, end: e))
                p = e
            }
        }
        return windows
    }

    /// Start of the period of `length` seconds containing `instant` (or the following one), aligned in `zone`.
    static func periodStart(containing instant: Instant, length: TimeInterval, zone: TimeZone, next: Bool = false)
        -> Instant
    {
        let date = instant.date
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        // Weeks begin on Monday, as ISO 8601's do.
        calendar.firstWeekday = 2
        calendar.minimumDaysInFirstWeek = 4
        let unit: Calendar.Component = length >= 7 * 86_400 ? .weekOfYear : length >= 86_400 ? .day : .hour
        guard let start = calendar.dateInterval(of: unit, for: date)?.start else { return instant }
        let out = next ? calendar.date(byAdding: unit, value: 1, to: start) ?? start : start
        return Instant(out)
    }
}
