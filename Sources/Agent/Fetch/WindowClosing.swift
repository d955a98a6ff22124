import Analysis
import Foundation
import Messages
import Publishing
import SensorInput
import StepDetection
import Store

/// What closing windows did, committed with them: the windows queued for posting, and the window considered (the
/// last one closed, or the open one when none closed). The fetch's report takes it after the commit.
struct ClosingOutcome: Sendable {
    var windows: [ClosedWindow] = []
    /// What the operator should know about closing (a fetch time before the last posted window, a text a target
    /// would refuse).
    var warnings: [String] = []
    var considered: (span: Range<Int64>, steps: Int)?
    var lateSteps: Int { windows.reduce(0) { $0 + $1.lateSteps } }
}

extension FetchReport {
    /// Takes what a committed transaction closed.
    mutating func record(_ closed: ClosingOutcome) {
        windows += closed.windows
        warnings += closed.warnings
        lateSteps += closed.lateSteps
        if let considered = closed.considered {
            windowStart = Timestamps.date(nanoseconds: considered.span.lowerBound)
            windowEnd = Timestamps.date(nanoseconds: considered.span.upperBound)
            steps = considered.steps
        }
    }
}

extension Fetcher {
    /// Closes the window(s) ending by the sources' watermark and, when they have steps (or `post_zero`), adds one
    /// outbox row per target for each. Late steps (stored for time already posted) go into the first window closed.
    func closeWindows(_ tx: StateTransaction, watermarkNs: Int64, firstDataNs: Int64?, nowNs: Int64) throws
        -> ClosingOutcome
    {
        let endLimit = StepReading.floorSecond(min(watermarkNs, nowNs)) * 1_000_000_000
        let posted = try tx.postedUntil()
        // A backlog's oldest steps are stored at the start of their minute (`StepsCompaction.placed`), which can be
        // before the source's first data.
        let firstData = try [firstDataNs, tx.firstStepNs()].compactMap { $0 }.min()
        let startNs = posted ?? firstWindowStart(firstDataNs: firstData, endLimit: endLimit)
        var closed = ClosingOutcome()
        if let posted, nowNs < posted {
            // An earlier `--now` (or a clock set back) cannot reopen what was posted: say so rather than show an
            // empty window at the old end.
            let zone = configuration.composer.timeZone
            let time = { (ns: Int64) in Timestamps.format(Timestamps.date(nanoseconds: ns), zone: zone) }
            closed.warnings.append(
                "the fetch time \(time(nowNs)) is before the end of the last posted window, \(time(posted)): windows "
                    + "never go back, so nothing closes until then")
        }
        var late = try tx.lateSteps()
        let spans = windowsToClose(from: startNs, to: endLimit)
        var newEnd: Int64?
        for span in spans {
            let steps = try tx.steps(fromNs: span.lowerBound, toNs: span.upperBound) + late
            closed.considered = (span, steps)
            guard steps > 0 || configuration.schedule.postZero else {
                // Aligned periods without steps are passed over; a since-last window stays open.
                if case .aligned = configuration.schedule.window { newEnd = span.upperBound }
                continue
            }
            let composed = try composeWindow(tx, span, steps: steps)
            let window = ClosedWindow(
                closingFrom: span.lowerBound, to: span.upperBound, steps: steps, lateSteps: late, text: composed.text)
            if let chart = composed.chart { try requestChart(chart, of: window, tx, nowNs: nowNs) }
            closed.warnings += try queue(window, tx, nowNs: nowNs)
            closed.windows.append(window)
            newEnd = span.upperBound
            if late != 0 { try tx.clearLateSteps() }
            late = 0
        }
        if let newEnd {
            try tx.setPostedUntil(newEnd)
        } else if posted == nil, firstData != nil {
            try tx.setPostedUntilIfUnset(startNs)
        }
        if spans.isEmpty { closed.considered = (startNs..<max(startNs, endLimit), 0) }
        return closed
    }

    /// Adds the window's outbox row for each target. A target that would refuse its text gets it as failed, never
    /// sent; the returned warnings say so now.
    func queue(_ window: ClosedWindow, _ tx: StateTransaction, nowNs: Int64) throws -> [String] {
        var warnings: [String] = []
        for (name, publisher) in publishers {
            let refusal = publisher.refusal(of: window.text)
            if let refusal {
                let end = Timestamps.format(window.end, zone: configuration.composer.timeZone)
                warnings.append(
                    "\(name) would refuse the text of the window ending \(end): \(refusal); kept as failed in the outbox, "
                        + "not sent (shorten the template, or set shorten = true)")
            }
            try tx.queue(
                OutboxRecord(
                    window: window, target: name, nowNs: nowNs,
                    refusal: refusal.map { "refused when the window closed: \($0)" }))
        }
        return warnings
    }

    /// Where the first window of a state begins: at its first data (never after `endLimit`), or at the start of the
    /// aligned period (hour, day, week) holding it.
    func firstWindowStart(firstDataNs: Int64?, endLimit: Int64) -> Int64 {
        let start = StepReading.floorSecond(min(firstDataNs ?? endLimit, endLimit)) * 1_000_000_000
        guard case .aligned(let length) = configuration.schedule.window else { return start }
        return Self.periodStart(containing: start, length: length, zone: configuration.composer.timeZone)
    }

    /// Asks for the window's chart, drawn after the commit (`drawRequestedCharts`) so that no write waits for it. What
    /// it draws is read here and kept with the request: the chart shows the window as it closed.
    func requestChart(_ chart: WindowActivity, of window: ClosedWindow, _ tx: StateTransaction, nowNs: Int64) throws {
        let inputs = try JSONEncoder().encode(chart)
        try tx.requestChart(ChartRequestRecord(key: window.idempotencyKey, inputs: inputs, createdNs: nowNs))
    }

    /// A closing window as it is posted: its text, with what the template asks of the stored steps (the window
    /// before, the busiest hour or day), and what its chart draws when a target wants one (or a dry run shows it).
    func composeWindow(_ tx: StateTransaction, _ span: Range<Int64>, steps: Int) throws -> (
        text: String, chart: WindowActivity?
    ) {
        let (lo, hi) = (span.lowerBound, span.upperBound)
        let composer = configuration.composer
        var window = StepWindow(
            start: Timestamps.date(nanoseconds: lo), end: Timestamps.date(nanoseconds: hi), steps: steps,
            bouts: try tx.boutCount(endingFrom: lo, before: hi))
        let fields = Set(composer.template.fields)
        if !fields.isDisjoint(with: ["previous_steps", "change"]) {
            window.previousSteps = try tx.steps(fromNs: previousWindowStart(lo, hi), toNs: lo)
        }
        let needsMinutes = drawsCharts || !fields.isDisjoint(with: ["busiest", "busiest_steps"])
        let minutes = needsMinutes ? try tx.stepsPerMinute(fromNs: lo, toNs: hi) : []
        if !fields.isDisjoint(with: ["busiest", "busiest_steps"]) {
            window.busiest = WindowChart.busiestPeriod(
                readings: minutes, startNs: lo, endNs: hi, zone: composer.timeZone)
        }
        guard drawsCharts else { return (composer.compose(window), nil) }
        let activity = WindowActivity(
            window: window, readings: minutes, bouts: try tx.bouts(overlappingFrom: lo, to: hi))
        return (composer.compose(window), activity)
    }

    /// Where the window before `[lo, hi)` begins: the aligned period before it, or as long a stretch for since-last.
    func previousWindowStart(_ lo: Int64, _ hi: Int64) -> Int64 {
        guard case .aligned(let length) = configuration.schedule.window else { return lo - (hi - lo) }
        // A second before: a nanosecond is lost in a Date's Double.
        return Self.periodStart(containing: lo - 1_000_000_000, length: length, zone: configuration.composer.timeZone)
    }

    /// The windows from `startNs` whose end has settled by `endLimit`: one since-last window, or whole aligned periods
    /// (48 at most per fetch).
    func windowsToClose(from startNs: Int64, to endLimit: Int64) -> [Range<Int64>] {
        var windows: [Range<Int64>] = []
        switch configuration.schedule.window {
        case .sinceLast:
            if endLimit > startNs { windows = [startNs..<endLimit] }
        case .aligned(let length):
            let zone = configuration.composer.timeZone
            var p = Self.periodStart(containing: startNs, length: length, zone: zone)
            if p < startNs { p = Self.periodStart(containing: startNs, length: length, zone: zone, next: true) }
            while windows.count < 48 {
                let e = Self.periodStart(containing: p, length: length, zone: zone, next: true)
                guard e <= endLimit else { break }
                windows.append(p..<e)
                p = e
            }
        }
        return windows
    }

    /// Start (ns) of the period of `length` seconds containing `ns` (or the following one), aligned in `zone`.
    static func periodStart(containing ns: Int64, length: TimeInterval, zone: TimeZone, next: Bool = false) -> Int64 {
        let date = Timestamps.date(nanoseconds: ns)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        // Weeks begin on Monday, as ISO 8601's do.
        calendar.firstWeekday = 2
        calendar.minimumDaysInFirstWeek = 4
        let unit: Calendar.Component = length >= 7 * 86_400 ? .weekOfYear : length >= 86_400 ? .day : .hour
        guard let start = calendar.dateInterval(of: unit, for: date)?.start else { return ns }
        let out = next ? calendar.date(byAdding: unit, value: 1, to: start) ?? start : start
        return Timestamps.nanoseconds(out)
    }
}
