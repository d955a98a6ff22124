import StepDetection

/// A sample whose time jumps more than `aheadNs` past the sample before it, held until the next sample tells a gap
/// from one row's wrong time (a flipped digit, a clock glitch). Delivered at once, such a row made every later row
/// "go backwards" and the rest of the file was dropped (audit36: a 60 s walk kept its first 20 s). The next sample
/// settles it: at or after it, a gap (delivered); between the sample before it and it, the held row's time is the
/// wrong one (dropped, named by its line); before both, the next one is (the hold waits on). A read that ends
/// delivers what it holds. A wrong time less than `aheadNs` ahead is not held: it costs at most that much.
package struct AheadHold: Sendable, Equatable {
    /// A jump held for a look at the next sample: longer than any sensor's interval; a gap in a walk anyway.
    package static let aheadNs: Int64 = 1_000_000_000

    package var sample: AccelerationSample
    package var line: Int?
    /// The time of the delivered sample before it.
    package var previousNs: Int64

    /// Whether a sample at `timeNs` after one delivered at `previousNs` is held.
    @inline(__always)
    package static func holds(_ timeNs: Int64, after previousNs: Int64?) -> Bool {
        guard let p = previousNs else { return false }
        return timeNs > p && timeNs &- p > aheadNs
    }

    /// What a sample at `timeNs` makes of the held one.
    package enum Settled: Equatable {
        /// A gap: deliver the held sample, then judge the next one after it.
        case deliver
        /// The held row's time is wrong: drop it (this message, its line) and judge the next after `previousNs`.
        case drop(String)
        /// The next sample goes back before both: it is skipped as backwards, and the hold waits on.
        case keep
    }

    package func settle(by timeNs: Int64) -> Settled {
        if timeNs >= sample.time.nanosecondsSinceEpoch { return .deliver }
        if timeNs >= previousNs {
            let seconds = Double(sample.time.nanosecondsSinceEpoch &- previousNs) / 1e9
            return .drop(
                "time jumps \(Self.span(seconds)) ahead of the rows around it (\(sample.time.nanosecondsSinceEpoch) ns "
                    + "between \(previousNs) ns and \(timeNs) ns); the rows after it are kept")
        }
        return .keep
    }

    /// `seconds` as a person reads a span: 12.5 s, 3.2 h, 104 days.
    static func span(_ seconds: Double) -> String {
        if seconds < 600 { return "\((seconds * 10).rounded() / 10) s" }
        if seconds < 172_800 { return "\((seconds / 360).rounded() / 10) h" }
        return "\(Int((seconds / 86_400).rounded())) days"
    }
}
