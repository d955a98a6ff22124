/// The bout look-back: the peaks seen before a bout's first step, kept so that a bout, once credited, counts its first
/// steps too (changed in this file; `RhythmState.recentPeaks` and `recovered`).
///
/// A walk's first steps are weaker and less even than the rest: the arm swing builds up, the first interval is longer,
/// and the rhythm gate drops a run's oldest candidates until strides and swings agree, so a bout used to start a
/// step or three after the walk did. Every peak of the weak tracker (`minSwingInWalk`; the strong one's when the weak
/// one is off) outside a credited bout goes into a ring of `lookBackCapacity` times. When a bout is credited, the ring
/// is read backwards from its first step: a peak about one step interval earlier (`weakStepRatio`, the one nearest one
/// interval) is a step, and the look-back ends where no peak is, or more than `lookBackSeconds` before the bout. No
/// missed step is filled in between (tried: on the 12.5 Hz wrist walks it found steps the truth does not have).
/// Fixed memory, nothing per sample; the steps it recovers are judged by the walking recognizer like every other step.
extension StepDetector {
    /// Peaks remembered for the look-back: more than `lookBackSeconds` can hold at the shortest step interval.
    static let lookBackCapacity = 32

    /// `parameters.lookBackSeconds` in nanoseconds (0: off).
    var lookBackNs: Int64 {
        parameters.lookBackSeconds > 0 ? Int64(min(parameters.lookBackSeconds, 60) * 1e9) : 0
    }

    /// Remembers a peak outside a credited bout, forgetting those too old to be reached from any later bout's start.
    mutating func notePeakForLookBack(at timeNs: Int64) {
        guard !(rhythm.inBout && rhythm.boutCredited), lookBackNs > 0 else { return }
        if let last = rhythm.recentPeaks.last, last >= timeNs { return }
        let oldest = Self.before(rhythm.pending.first ?? timeNs, lookBackNs)
        let count = rhythm.recentPeaks.count
        var stale = 0
        while stale < count && rhythm.recentPeaks[stale] < oldest { stale += 1 }
        if count - stale >= Self.lookBackCapacity { stale = count - Self.lookBackCapacity + 1 }
        if stale > 0 { rhythm.recentPeaks.removeFirst(stale) }
        rhythm.recentPeaks.append(timeNs)
    }

    /// The steps before `firstNs` that keep the bout's rhythm, latest first, into `rhythm.recovered`.
    mutating func lookBack(before firstNs: Int64) {
        rhythm.recovered.removeAll(keepingCapacity: true)
        guard lookBackNs > 0 else { return }
        let limit = Self.before(firstNs, lookBackNs)
        let intervalNs = rhythm.stepInterval * 1e9
        var anchor = firstNs
        var index = rhythm.recentPeaks.count - 1
        while index >= 0 {
            // The peak before the anchor whose distance is nearest one step interval.
            var best = -1
            var bestOff = Double.infinity
            var k = index
            while k >= 0, rhythm.recentPeaks[k] >= limit {
                let ratio = (Double(anchor) - Double(rhythm.recentPeaks[k])) / intervalNs
                if ratio > Self.weakStepRatio.upperBound { break }
                if Self.weakStepRatio.contains(ratio) && abs(ratio - 1) < bestOff {
                    (best, bestOff) = (k, abs(ratio - 1))
                }
                k -= 1
            }
            guard best >= 0, rhythm.recovered.count < rhythm.recovered.capacity else { break }
            let peak = rhythm.recentPeaks[best]
            rhythm.recovered.append(peak)
            anchor = peak
            index = best - 1
        }
    }

    /// `timeNs − spanNs`, or `Int64.min` where that is earlier than any time.
    static func before(_ timeNs: Int64, _ spanNs: Int64) -> Int64 {
        let (earlier, overflow) = timeNs.subtractingReportingOverflow(spanNs)
        return overflow ? .min : earlier
    }

    /// The bout was credited: forget the peaks before it (its look-back has read them).
    mutating func forgetRecentPeaks() {
        rhythm.recentPeaks.removeAll(keepingCapacity: true)
    }
}
