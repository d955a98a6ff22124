import StepDetection

/// A sample whose time jumps more than `aheadNs` past the sample before it, held until the next sample tells a gap
/// from one row's wrong time (a flipped digit, a clock glitch). Delivered at once, such a row made every later row
/// "go backwards" and the rest of the file was dropped (audit36: a 60 s walk kept its first 20 s). The next sample
/// settles it: at or after it, a gap (delivered); between the sample before it and it, the held row's time is the
/// wrong one (dropped, named by its line); before both, the next one is (the hold waits on). A read that ends
/// delivers what it holds. A wrong time less than `aheadNs` ahead is not held: it costs at most that much.
struct AheadHold: Sendable, Equatable {
    /// A jump held for a look at the next sample: longer than any sensor's interval; a gap in a walk anyway.
    static let aheadNs: Int64 = 1_000_000_000

    var sample: AccelerationSample
    var line: Int?
    /// The time of the delivered sample before it.
    var previousNs: Int64

    /// Whether a sample at `timeNs` after one delivered at `previousNs` is held.
    @inline(__always)
    static func holds(_ timeNs: Int64, after previousNs: Int64?) -> Bool {
        guard let p = previousNs else { return false }
        return timeNs > p && timeNs &- p > aheadNs
    }

    /// What a sample at `timeNs` makes of the held one (`judge`'s first step).
    private enum Settled: Equatable {
        /// A gap: deliver the held sample, then judge the next one after it.
        case deliver
        /// The held row's time is wrong: drop it (this message, its line) and judge the next after `previousNs`.
        case drop(String)
        /// The next sample goes back before both: it is skipped as backwards, and the hold waits on.
        case keep
    }

    private func settle(by timeNs: Int64) -> Settled {
        if timeNs >= sample.time.nanosecondsSinceEpoch { return .deliver }
        if timeNs >= previousNs {
            let seconds = Double(sample.time.nanosecondsSinceEpoch &- previousNs) / 1e9
            return .drop(
                "time jumps \(Self.span(seconds)) ahead of the rows around it (\(sample.time.nanosecondsSinceEpoch) ns "
                    + "between \(previousNs) ns and \(timeNs) ns); the rows after it are kept")
        }
        return .keep
    }

    /// What a reader does with one sample: deliver it, skip it (`backwards`: the message), or hold it.
    enum Verdict: Equatable {
        case deliver
        case backwards(String)
        case held
    }

    /// A sample judged for time order after the delivered `lastNs`, `ahead` the one held (updated): the held sample
    /// to deliver first (`released`), or its line and message to skip it with (`dropped`), and the sample's verdict.
    struct Judgement {
        var released: AccelerationSample?
        var dropped: (line: Int?, message: String)?
        var verdict: Verdict
    }

    /// Judges `sample` on `line` (the line a held sample is named by) after the delivered `lastNs`.
    static func judge(
        _ sample: AccelerationSample, line: Int?, lastNs: Int64?, ahead: inout AheadHold?
    ) -> Judgement {
        let timeNs = sample.time.nanosecondsSinceEpoch
        var judgement = Judgement(released: nil, dropped: nil, verdict: .deliver)
        var last = lastNs
        if let held = ahead {
            switch held.settle(by: timeNs) {
            case .deliver:
                ahead = nil
                judgement.released = held.sample
                last = held.sample.time.nanosecondsSinceEpoch
            case .drop(let message):
                ahead = nil
                judgement.dropped = (held.line, message)
            case .keep: break
            }
        }
        if let problem = SampleCheck.orderProblem(timeNs, previousNs: last) {
            judgement.verdict = .backwards(problem)
        } else if holds(timeNs, after: last), let previous = last {
            ahead = AheadHold(sample: sample, line: line, previousNs: previous)
            judgement.verdict = .held
        }
        return judgement
    }

    /// `seconds` as a person reads a span: 12.5 s, 3.2 h, 104 days.
    static func span(_ seconds: Double) -> String {
        if seconds < 600 { return "\((seconds * 10).rounded() / 10) s" }
        if seconds < 172_800 { return "\((seconds / 360).rounded() / 10) h" }
        return "\(Int((seconds / 86_400).rounded())) days"
    }
}

/// The time order of the samples a line format emits, one at a time (`AccelerationInput.runEscaping`): a sample going
/// backwards is skipped, one far ahead held (`AheadHold`), a held one found wrong kept for its line's report.
struct EmittedOrder {
    private var lastNs: Int64?
    private var ahead: AheadHold?
    private var dropped: InputError?

    /// Takes `sample` (its values checked) of `line`: what to `deliver`, in order, and the problem that skips it.
    mutating func admit(
        _ sample: AccelerationSample, line: Int, path: String, _ deliver: (AccelerationSample) -> Void
    ) -> String? {
        let judged = AheadHold.judge(sample, line: line, lastNs: lastNs, ahead: &ahead)
        if let held = judged.released {
            lastNs = held.time.nanosecondsSinceEpoch
            deliver(held)
        }
        if let d = judged.dropped { dropped = InputError(file: path, line: d.line, message: d.message) }
        switch judged.verdict {
        case .backwards(let problem): return problem
        case .held: return nil
        case .deliver:
            lastNs = sample.time.nanosecondsSinceEpoch
            deliver(sample)
            return nil
        }
    }

    /// The held row found wrong since the last call, to report once.
    mutating func takeDropped() -> InputError? {
        defer { dropped = nil }
        return dropped
    }

    /// The read ends: a sample still held was a gap's first.
    mutating func finish(_ deliver: (AccelerationSample) -> Void) {
        guard let held = ahead else { return }
        ahead = nil
        lastNs = held.sample.time.nanosecondsSinceEpoch
        deliver(held.sample)
    }
}
