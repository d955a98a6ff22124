import Analysis
import Foundation
import GRDB
import Messages
import Publishing
import SensorInput
import StepDetection

/// What closing windows did, committed with them: the windows queued for posting, and the window considered (the
/// last one closed, or the open one when none closed).
struct ClosedWindows: Sendable {
    var windows: [FetchReport.Window] = []
    /// What the operator should know about closing (a fetch time before the last posted window).
    var warnings: [String] = []
    var considered: (start: Date, end: Date, steps: Int)?
    var lateSteps: Int { windows.reduce(0) { $0 + $1.lateSteps } }
}

extension FetchReport {
    /// Takes what a committed transaction closed.
    mutating func record(_ closed: ClosedWindows) {
        windows += closed.windows
        warnings += closed.warnings
        lateSteps += closed.lateSteps
        if let considered = closed.considered {
            windowStart = considered.start
            windowEnd = considered.end
            steps = considered.steps
        }
    }
}

extension Fetcher {
    /// Closes the window(s) ending by the sources' watermark and, when they have steps (or `post_zero`), adds one
    /// outbox row per target for each. Late steps (stored for time already posted) go into the first window closed.
    func closeWindows(_ db: Database, watermarkNs: Int64, firstDataNs: Int64?, nowNs: Int64) throws -> ClosedWindows {
        let endLimit = StateStore.floorSecond(min(watermarkNs, nowNs)) * 1_000_000_000
        let posted = try StateStore.postedUntil(db)
        let firstData = try firstDataNs ?? StepsTable.firstNs(db)
        let startNs = posted ?? firstWindowStart(firstDataNs: firstData, endLimit: endLimit)
        var closed = ClosedWindows()
        if let posted, nowNs < posted {
            // An earlier `--now` (or a clock set back) cannot reopen what was posted: say so rather than show an
            // empty window at the old end.
            let zone = configuration.composer.timeZone
            closed.warnings.append(
                "the fetch time \(Timestamps.format(StateStore.date(nowNs), zone: zone)) is before the end of the "
                    + "last posted window, \(Timestamps.format(StateStore.date(posted), zone: zone)): windows never go "
                    + "back, so nothing closes until then")
        }
        var late = try WindowStateRecord.lateSteps(db)
        let windows = windowsToClose(from: startNs, to: endLimit)
        var newEnd: Int64?
        for (lo, hi) in windows {
            let steps = try StateStore.steps(db, fromNs: lo, toNs: hi) + late
            closed.considered = (StateStore.date(lo), StateStore.date(hi), steps)
            guard steps > 0 || configuration.schedule.postZero else {
                // Aligned periods without steps are passed over; a since-last window stays open.
                if case .aligned = configuration.schedule.window { newEnd = hi }
                continue
            }
            let composed = try composeWindow(db, fromNs: lo, toNs: hi, steps: steps)
            let (start, end) = (composed.window.start, composed.window.end)
            let key = Post.idempotencyKey(windowStart: start, windowEnd: end)
            var report = FetchReport.Window(
                start: start, end: end, steps: steps, lateSteps: late, text: composed.text, idempotencyKey: key)
            closed.warnings += try keepChart(composed.image, in: &report, db, nowNs: nowNs)
            closed.windows.append(report)
            newEnd = hi
            if late != 0 { try WindowStateRecord.clearLateSteps(db) }
            for (name, publisher) in publishers {
                var post = NewOutboxPost(
                    windowStartNs: lo, windowEndNs: hi, steps: steps, text: composed.text, target: name,
                    idempotencyKey: key, nextAttemptNs: nowNs, createdNs: nowNs)
                if let refusal = publisher.refusal(of: composed.text) {
                    // No attempt could deliver it: kept as failed, never sent, and said now.
                    (post.status, post.lastError) = (.failed, "refused when the window closed: \(refusal)")
                    closed.warnings.append(
                        "\(name) would refuse the text of the window ending \(Timestamps.format(end, zone: configuration.composer.timeZone)): \(refusal); kept as failed in the outbox, not sent (shorten the template, or set shorten = true)"
                    )
                }
                try post.add(db)
            }
            late = 0
        }
        if let newEnd {
            try WindowStateRecord.setPostedUntil(db, newEnd)
        } else if posted == nil, firstData != nil {
            try WindowStateRecord.setPostedUntilIfUnset(db, startNs)
        }
        if windows.isEmpty {
            closed.considered = (StateStore.date(startNs), StateStore.date(max(startNs, endLimit)), 0)
        }
        return closed
    }

    /// Where the first window of a state begins: at its first data (never after `endLimit`), or at the start of the
    /// aligned period (hour, day, week) holding it.
    func firstWindowStart(firstDataNs: Int64?, endLimit: Int64) -> Int64 {
        let start = StateStore.floorSecond(min(firstDataNs ?? endLimit, endLimit)) * 1_000_000_000
        guard case .aligned(let length) = configuration.schedule.window else { return start }
        return Self.periodStart(containing: start, length: length, zone: configuration.composer.timeZone)
    }

    /// Keeps a drawn chart with the outbox, so every retry posts these very bytes, and notes its alt text in the
    /// window's report; a chart that could not be drawn is a warning, and its window's posts go out as text.
    func keepChart(
        _ drawing: Result<PostImage, RasterizeError>?, in report: inout FetchReport.Window, _ db: Database, nowNs: Int64
    ) throws -> [String] {
        switch drawing {
        case nil: return []
        case .success(let image):
            try OutboxImageRecord(key: report.idempotencyKey, image: image, createdNs: nowNs).add(db)
            report.imageAlt = image.alt
            return []
        case .failure(let error):
            return ["\(error); the window's posts go out without it"]
        }
    }

    /// A closing window as it is posted: its text, with what the template asks of the stored steps (the window
    /// before, the busiest hour or day), and its chart when a target wants one (or a dry run shows it).
    func composeWindow(_ db: Database, fromNs lo: Int64, toNs hi: Int64, steps: Int) throws -> (
        window: StepWindow, text: String, image: Result<PostImage, RasterizeError>?
    ) {
        let composer = configuration.composer
        var window = StepWindow(
            start: StateStore.date(lo), end: StateStore.date(hi), steps: steps,
            bouts: try BoutRecord.count(db, endingFrom: lo, before: hi))
        let fields = Set(composer.template.fields)
        if !fields.isDisjoint(with: ["previous_steps", "change"]) {
            window.previousSteps = try StateStore.steps(db, fromNs: previousWindowStart(lo, hi), toNs: lo)
        }
        let needsMinutes = drawsCharts || !fields.isDisjoint(with: ["busiest", "busiest_steps"])
        let minutes = needsMinutes ? try StateStore.stepsPerMinute(db, fromNs: lo, toNs: hi) : []
        if !fields.isDisjoint(with: ["busiest", "busiest_steps"]) {
            window.busiest = WindowChart.busiestPeriod(
                readings: minutes, startNs: lo, endNs: hi, zone: composer.timeZone)
        }
        guard drawsCharts else { return (window, composer.compose(window), nil) }
        let activity = WindowActivity(
            window: window, readings: minutes, bouts: try BoutRecord.overlapping(db, fromNs: lo, toNs: hi))
        let image = Result { () throws(RasterizeError) in
            try WindowChart.image(activity, composer: composer, options: configuration.chart)
        }
        return (window, composer.compose(window), image)
    }

    /// Where the window before `[lo, hi)` begins: the aligned period before it, or as long a stretch for since-last.
    func previousWindowStart(_ lo: Int64, _ hi: Int64) -> Int64 {
        guard case .aligned(let length) = configuration.schedule.window else { return lo - (hi - lo) }
        // A second before: a nanosecond is lost in a Date's Double.
        return Self.periodStart(containing: lo - 1_000_000_000, length: length, zone: configuration.composer.timeZone)
    }

    /// The windows from `startNs` whose end has settled by `endLimit`: one since-last window, or whole aligned periods
    /// (48 at most per fetch).
    func windowsToClose(from startNs: Int64, to endLimit: Int64) -> [(Int64, Int64)] {
        var windows: [(Int64, Int64)] = []
        switch configuration.schedule.window {
        case .sinceLast:
            if endLimit > startNs { windows = [(startNs, endLimit)] }
        case .aligned(let length):
            let zone = configuration.composer.timeZone
            var p = Self.periodStart(containing: startNs, length: length, zone: zone)
            if p < startNs { p = Self.periodStart(containing: startNs, length: length, zone: zone, next: true) }
            while windows.count < 48 {
                let e = Self.periodStart(containing: p, length: length, zone: zone, next: true)
                guard e <= endLimit else { break }
                windows.append((p, e))
                p = e
            }
        }
        return windows
    }

    /// Start (ns) of the period of `length` seconds containing `ns` (or the following one), aligned in `zone`.
    static func periodStart(containing ns: Int64, length: TimeInterval, zone: TimeZone, next: Bool = false) -> Int64 {
        let date = StateStore.date(ns)
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

    /// Tries one outbox entry: count the attempt first (so a crash mid-request is retried with the same key),
}
