import StepDetection
import WallTime

/// Steps a pedometer reported for a period (a delta), from a step log, a health export or a hardware counter: a
/// `StepSpan`, as a detected bout is, so both are stored and charted alike. A point reading has `start == end`.
public typealias StepReading = StepSpan

extension StepReading {
    /// A reading from times in nanoseconds, as the readers parse them.
    init(startNs: Int64, endNs: Int64, steps: Int) {
        self.init(
            start: Instant(nanosecondsSinceEpoch: startNs), end: Instant(nanosecondsSinceEpoch: endNs), steps: steps)
    }

    /// The times in nanoseconds, for the readers' arithmetic.
    var startNs: Int64 {
        get { start.nanosecondsSinceEpoch }
        set { start = Instant(nanosecondsSinceEpoch: newValue) }
    }

    var endNs: Int64 {
        get { end.nanosecondsSinceEpoch }
        set { end = Instant(nanosecondsSinceEpoch: newValue) }
    }
}

extension StepReading {
    /// Step counts and cumulative totals are below this (2^40): a larger one is garbled, and summing such readings
    /// would overflow. Every reader and payload refuses one with the same bound.
    public static let countLimit: Int64 = 1 << 40

    /// The one rule for where a reading's steps fall in time, used by `count`, `preview` and `fetch` alike: spread
    /// evenly over its period, rounded so that the steps before any instant never decrease and the parts of any
    /// partition of the period add up to `steps` exactly. A point reading's steps all fall at its time.
    public func steps(before instant: Instant) -> Int { steps(beforeNs: instant.nanosecondsSinceEpoch) }

    /// `steps(before:)` with the instant in nanoseconds.
    func steps(beforeNs ns: Int64) -> Int {
        guard endNs > startNs else { return ns > startNs ? steps : 0 }
        if ns <= startNs { return 0 }
        if ns >= endNs { return steps }
        // steps × elapsed / duration, rounded half up, without overflow (a day in ns times many steps passes 2^63).
        let duration = UInt64(endNs - startNs)
        let product = UInt64(max(steps, 0)).multipliedFullWidth(by: UInt64(ns - startNs))
        let (quotient, remainder) = duration.dividingFullWidth(product)
        let rounded = Int(quotient) + (remainder >= duration - remainder ? 1 : 0)
        return steps < 0 ? -rounded : rounded
    }

    /// Steps in `[from, to)` by the rule of `steps(before:)`.
    public func steps(from: Instant, to: Instant) -> Int {
        guard to > from else { return 0 }
        if end <= start { return start >= from && start < to ? steps : 0 }
        return steps(before: to) - steps(before: from)
    }

    /// The reading's steps per whole second (seconds since the Unix epoch), by the same rule; seconds without a step
    /// are left out, so a day-long total of a few thousand steps gives a few thousand entries.
    public func stepsPerSecond(_ body: (_ second: Int64, _ steps: Int) -> Void) {
        let first = Self.floorSecond(startNs)
        guard endNs > startNs else {
            if steps != 0 { body(first, steps) }
            return
        }
        var before = 0
        var second = first
        while second * 1_000_000_000 < endNs {
            let after = steps(beforeNs: (second + 1) * 1_000_000_000)
            if after != before { body(second, after - before) }
            before = after
            second += 1
        }
    }

    /// The steps between two readings of a running total (a pedometer's counter): their difference, or the later
    /// value whole when it dropped (the counter was reset and counts from 0 again).
    public static func stepsBetween(total before: Int64, and after: Int64) -> Int64 {
        after >= before ? after - before : after
    }

    /// A running total rising more than this a second (beyond `glitchAllowance`) since the last one counted is a
    /// counter glitch (a bad read of the sensor, e.g. 65535), not steps: nobody keeps up more than 5 steps a second.
    public static let glitchStepsPerSecond: Int64 = 5
    public static let glitchAllowance: Int64 = 10

    /// The steps between two readings of a running total `elapsed` apart (`stepsBetween`), or nil when they are more than
    /// anyone walks in that time: the later one is a counter glitch, not counted, and the next one is counted from
    /// the earlier one. The one rule of the step log reader and of pushed totals.
    public static func stepsBetween(total before: Int64, and after: Int64, over elapsed: Duration) -> Int64? {
        let steps = stepsBetween(total: before, and: after)
        return steps > glitchAllowance + glitchStepsPerSecond * max(0, elapsed.components.seconds) ? nil : steps
    }

    /// The second (since the Unix epoch) holding `ns`, rounding down for times before 1970 too.
    public static func floorSecond(_ ns: Int64) -> Int64 { TimeParsing.floorDiv(ns, 1_000_000_000) }

    /// The minute (since the Unix epoch) holding `second`, rounding down for times before 1970 too.
    public static func floorMinute(second: Int64) -> Int64 { TimeParsing.floorDiv(second, 60) }
}
