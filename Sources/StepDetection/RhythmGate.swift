/// The rhythm gate: candidate peaks → regular runs → walking bouts whose steps are credited (see `StepDetector`).
extension StepDetector {
    /// Longest silence after the last step before the bout ends.
    var boutTimeout: Double {
        max(parameters.maxStepInterval, stepInterval * 2.5)
    }

    /// Keeps the per-sample check an integer comparison: the bout ends at the first sample after this time.
    mutating func updateBoutDeadline() {
        let (deadline, overflow) = bout.endNs.addingReportingOverflow(Int64(min(boutTimeout * 1e9, 9e18)))
        boutDeadlineNs = overflow ? .max : deadline
    }

    mutating func candidate(at timeNs: Int64, swing: Double, _ emit: (DetectorEvent) -> Void) {
        guard swing >= parameters.minSwing else { return }
        var interval = lastCandidateNs == .min ? Double.infinity : Double(timeNs - lastCandidateNs) * 1e-9
        if interval < parameters.minStepInterval { return }
        if let fromWeakStep = settleWeakPeak(before: timeNs, emit) { interval = fromWeakStep }
        defer {
            intervalBeforeLast = lastInterval
            lastInterval = interval.isFinite ? interval : 0
        }
        lastCandidateNs = timeNs
        let afterWeak = lastStepWeak
        lastStepWeak = false
        reservePending()
        // A bout just confirmed from peaks a stride apart (its run still exactly the confirming peaks, none filled
        // in), whose next peak comes half a stride later: the walk was seen once a stride at first and now shows
        // every step.
        if inBout && !boutCredited && parameters.fillStrideStart && parameters.fillMissedSteps
            && pending.count == parameters.confirmSteps && Self.missedStepRatio.contains(stepInterval / interval)
        {
            halveBout()
        }
        if inBout && !boutCredited { keepRhythmUntilCredited(interval: interval, emit) }
        if inBout {
            if interval <= boutTimeout {
                extendBout(to: timeNs, interval: interval, afterWeak: afterWeak, emit)
                return
            }
            endBout(emit)
        }
        if interval > parameters.maxStepInterval {
            pending.removeAll(keepingCapacity: true)
            pendingSwings.removeAll(keepingCapacity: true)
        }
        if parameters.fillMissedSteps && pending.count >= 2 {
            fillMissedPendingStep(before: timeNs, interval: interval)
        }
        pending.append(timeNs)
        pendingSwings.append(swing)
        // Keep the longest regular run ending here: drop the oldest candidates until strides and swings agree, and
        // never start a run with a filled-in step.
        while pending.count > 1 && (!pendingIsRegular() || pendingSwings[0] == 0) {
            pending.removeFirst()
            pendingSwings.removeFirst()
        }
        if pendingSwings.count(where: { $0 > 0 }) >= parameters.confirmSteps { confirmPending(emit) }
    }

    /// A bout must keep its rhythm until it is credited: a few intervals off the bout's rhythm (and not a missed step)
    /// and it was not walking.
    mutating func keepRhythmUntilCredited(interval: Double, _ emit: (DetectorEvent) -> Void) {
        let ratio = interval / stepInterval
        let steady = ratio * parameters.rhythmTolerance >= 1 && ratio <= parameters.rhythmTolerance
        let missed = parameters.fillMissedSteps && Self.missedStepRatio.contains(ratio)
        if !steady && !missed {
            irregularIntervals += 1
            if irregularIntervals > parameters.irregularIntervalsAllowed { endBout(emit) }
        }
    }

    /// The peak at `timeNs` is the open bout's next step; a peak two steps after the last one brings the step too weak
    /// to see between them, and a steady one moves the bout's rhythm towards its interval.
    mutating func extendBout(to timeNs: Int64, interval: Double, afterWeak: Bool, _ emit: (DetectorEvent) -> Void) {
        let ratio = interval / stepInterval
        if parameters.fillMissedSteps && Self.missedStepRatio.contains(ratio) && !isShortLongGait(interval) {
            addBoutStep(bout.endNs + (timeNs - bout.endNs) / 2, emit)
        } else if ratio < Self.steadyRatio && !afterWeak {
            stepInterval += (interval - stepInterval) * 0.2
            updateBoutDeadline()
        }
        addBoutStep(timeNs, emit)
    }

    /// Before a bout: about twice the previous interval (or half of it) means one step in between was too weak to
    /// see; it is filled in among the pending candidates.
    mutating func fillMissedPendingStep(before timeNs: Int64, interval: Double) {
        let previous = Double(pending[pending.count - 1] - pending[pending.count - 2]) * 1e-9
        let ratio = interval / previous
        if Self.missedStepRatio.contains(ratio) && !isShortLongGait(interval) {
            let last = pending[pending.count - 1]
            pending.append(last + (timeNs - last) / 2)
            pendingSwings.append(0)
        } else if Self.missedStepRatio.contains(1 / ratio) && pendingSwings[pending.count - 2] > 0 {
            let before = pending[pending.count - 2]
            let last = pending[pending.count - 1]
            pending.insert(before + (last - before) / 2, at: pending.count - 1)
            pendingSwings.insert(0, at: pendingSwings.count - 1)
        }
    }

    /// The weak tracker found a peak (`minSwingInWalk`): inside a bout, on its rhythm and where no step came yet, it
    /// waits for the next peak to say whether it was a step (`settleWeakPeak`).
    mutating func weakCandidate(at timeNs: Int64, swing: Double, _ emit: (DetectorEvent) -> Void) {
        guard inBout, swing >= parameters.minSwingInWalk, lastCandidateNs != .min else { return }
        // The strong tracker's peaks are seen here first (a smaller drop declares them): this one waits too, and the
        // strong candidate at the same time forgets it.
        var interval = Double(timeNs - lastCandidateNs) * 1e-9
        if interval < parameters.minStepInterval { return }
        if let fromWeakStep = settleWeakPeak(before: timeNs, emit) { interval = fromWeakStep }
        if Self.weakStepRatio.contains(interval / stepInterval) { weakPeakNs = timeNs }
    }

    /// How far off the bout's step interval a weak peak, and the peak after it, may fall for the weak one to be a step.
    static let weakStepRatio = (1 / 1.3)...1.3

    /// Decides the weak peak waiting for this one: a step when this peak follows it at the bout's rhythm (returns the
    /// interval from it), else forgotten (a hump on a step's own peak, or the walk ended). A weak step never moves
    /// `stepInterval`, so weak peaks cannot talk the rhythm into accepting more of them.
    mutating func settleWeakPeak(before timeNs: Int64, _ emit: (DetectorEvent) -> Void) -> Double? {
        guard weakPeakNs != .min else { return nil }
        let weakNs = weakPeakNs
        weakPeakNs = .min
        let interval = Double(timeNs - weakNs) * 1e-9
        guard inBout, Self.weakStepRatio.contains(interval / stepInterval) else { return nil }
        lastCandidateNs = weakNs
        lastStepWeak = true
        addBoutStep(weakNs, emit)
        return interval
    }

    /// Whether `interval` is the long half of a short-long gait rather than a gap left by a missed step: the
    /// interval before it was short (at most `interval` / `steadyRatio`, the bound `stepInterval` follows) and the
    /// one before that was as long as this one (within `shortLongTolerance`). A phone in one front pocket sees its
    /// own leg's step and the other leg's unevenly spaced, 0.43 s then 0.76 s; a missed step leaves one long interval
    /// among even ones, and a walk seen once a stride has only long ones. Those are filled; this is not.
    func isShortLongGait(_ interval: Double) -> Bool {
        parameters.shortLongGait && lastInterval > 0 && interval >= Self.steadyRatio * lastInterval
            && intervalBeforeLast * Self.shortLongTolerance >= interval
            && intervalBeforeLast <= interval * Self.shortLongTolerance
    }

    /// How alike the two long intervals of a short-long gait are.
    static let shortLongTolerance = 1.25

    /// Inside a bout, an interval under this many step intervals moves `stepInterval` toward it.
    static let steadyRatio = 1.5

    /// Ratio of an interval to the previous one that means one step was missed in between.
    static let missedStepRatio = 1.7...2.4

    /// Whether the pending run has a steady rhythm and amplitude: its longest stride (time from a step to the next
    /// but one, so a limping or pocket-sided gait with alternating intervals is still regular) is at most
    /// `rhythmTolerance` times its shortest, and its largest swing at most `swingTolerance` times its smallest.
    func pendingIsRegular() -> Bool {
        if pending.count >= 3 {
            var shortest = Int64.max
            var longest = Int64.min
            for i in 2..<pending.count {
                let stride = pending[i] - pending[i - 2]
                shortest = min(shortest, stride)
                longest = max(longest, stride)
            }
            if Double(longest) > parameters.rhythmTolerance * Double(shortest) { return false }
        }
        var smallest = Double.infinity
        var largest = 0.0
        for s in pendingSwings where s > 0 {
            smallest = min(smallest, s)
            largest = max(largest, s)
        }
        return largest <= parameters.swingTolerance * smallest
    }

    /// Opens a walking bout from the pending run. Its steps are credited once the bout has `minBoutSteps` steps.
    mutating func confirmPending(_ emit: (DetectorEvent) -> Void) {
        inBout = true
        boutCredited = false
        irregularIntervals = 0
        let first = pending[0]
        let last = pending[pending.count - 1]
        stepInterval = Double(last - first) * 1e-9 / Double(pending.count - 1)
        bout = WalkingBout(startNs: first, endNs: last, steps: pending.count)
        updateBoutDeadline()
        creditBoutIfLongEnough(emit)
    }

    mutating func addBoutStep(_ timeNs: Int64, _ emit: (DetectorEvent) -> Void) {
        bout.endNs = timeNs
        updateBoutDeadline()
        bout.steps += 1
        if boutCredited {
            rhythmStep(timeNs, emit)
        } else {
            pending.append(timeNs)
            pendingSwings.append(0)
            creditBoutIfLongEnough(emit)
        }
    }

    /// The bout was seen once a stride and now shows every step: a step in the middle of each of its intervals, and
    /// half the step interval.
    mutating func halveBout() {
        var k = pending.count - 1
        while k > 0 {
            pending.insert(pending[k - 1] + (pending[k] - pending[k - 1]) / 2, at: k)
            pendingSwings.insert(0, at: k)
            k -= 1
        }
        bout.steps = pending.count
        stepInterval /= 2
        updateBoutDeadline()
    }

    /// Reports the bout and all its steps so far once it is long enough to be walking.
    mutating func creditBoutIfLongEnough(_ emit: (DetectorEvent) -> Void) {
        guard pending.count >= parameters.minBoutSteps else { return }
        boutCredited = true
        rhythmBoutStarted(pending[0], emit)
        for t in pending { rhythmStep(t, emit) }
        pending.removeAll(keepingCapacity: true)
        pendingSwings.removeAll(keepingCapacity: true)
    }

    /// Ends the current bout: reports it if it was credited, forgets it if it stayed too short.
    mutating func endBout(_ emit: (DetectorEvent) -> Void) {
        weakPeakNs = .min
        guard inBout else { return }
        inBout = false
        boutDeadlineNs = .max
        if boutCredited { rhythmBoutEnded(bout, emit) }
        pending.removeAll(keepingCapacity: true)
        pendingSwings.removeAll(keepingCapacity: true)
    }
}
