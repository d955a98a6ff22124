import WallTimeCore

/// The rhythm gate's state: the run of candidates waiting for confirmation and the open bout (changed in this file
/// only; `StepDetector.restart` and `finish` forget the run through `restart()` and `forgetPendingRun()`).
struct RhythmState: Sendable {
    var lastCandidateNs: Int64 = .min
    /// The pending run: candidate times, and their swings (0: a step filled in between two candidates).
    var pending: [Int64] = []
    var pendingSwings: [Double] = []
    /// Typical time between steps of the current bout, in seconds.
    var stepInterval = 0.5
    /// Whether the latest step was a weak peak (`minSwingInWalk`): an interval that begins or ends at one does
    /// not move `stepInterval`, so weak peaks can never talk the rhythm into accepting more of them.
    var lastStepWeak = false
    /// The last two intervals between candidates in seconds (0: none yet).
    var lastInterval = 0.0
    var intervalBeforeLast = 0.0
    /// A weak peak on the bout's rhythm, waiting for the next peak (`.min`: none).
    var weakPeakNs: Int64 = .min
    var inBout = false
    /// Whether the open bout has reached `minBoutSteps` and its steps were reported.
    var boutCredited = false
    /// Irregular intervals seen in the open bout before it was credited.
    var irregularIntervals = 0
    var bout = BoutNs.none
    /// The open bout ends at the first sample after this time (`.max` when no bout is open).
    var boutDeadlineNs: Int64 = .max
    /// Peaks outside a credited bout, oldest first, for the look-back (BoutLookBack.swift).
    var recentPeaks: [Int64] = []
    /// The steps one look-back recovered, latest first (scratch: empty between pushes, not saved).
    var recovered: [Int64] = []

    /// Reserves the pending run's whole capacity: real candidates plus at most one filled-in step between each two
    /// of them, or a bout not yet credited.
    mutating func reserveCapacity(_ parameters: DetectorParameters) {
        let capacity = max(2 * parameters.confirmSteps, parameters.minBoutSteps) + 2
        if pending.capacity < capacity { pending.reserveCapacity(capacity) }
        if pendingSwings.capacity < capacity { pendingSwings.reserveCapacity(capacity) }
        let peaks = StepDetector.lookBackCapacity
        if recentPeaks.capacity < peaks { recentPeaks.reserveCapacity(peaks) }
        if recovered.capacity < peaks { recovered.reserveCapacity(peaks) }
    }

    /// Forgets the pending run (keeping its capacity).
    mutating func forgetPendingRun() {
        pending.removeAll(keepingCapacity: true)
        pendingSwings.removeAll(keepingCapacity: true)
    }

    /// Forgets the pending run and the last candidate: the data broke off (a gap), so no interval spans it.
    mutating func restart() {
        forgetPendingRun()
        recentPeaks.removeAll(keepingCapacity: true)
        lastCandidateNs = .min
    }
}

/// The rhythm gate: candidate peaks → regular runs → walking bouts whose steps are credited (see `StepDetector`).
extension StepDetector {
    /// Longest silence after the last step before the bout ends (longer where the rail bridge applies).
    @inline(__always)
    var boutTimeout: Double {
        let timeout = max(parameters.maxStepInterval, rhythm.stepInterval * 2.5)
        return bridgesRailGaps ? max(timeout, parameters.railBridgeSeconds) : timeout
    }

    /// Keeps the per-sample check an integer comparison: the bout ends at the first sample after this time.
    mutating func updateBoutDeadline() {
        let (deadline, overflow) = rhythm.bout.endNs.addingReportingOverflow(
            Int64(min(boutTimeout * 1e9, 9e18)))
        rhythm.boutDeadlineNs = overflow ? .max : deadline
    }

    mutating func candidate(at timeNs: Int64, swing: Double, _ emit: (DetectorEvent) -> Void) {
        guard swing >= parameters.minSwing || (weakPeaksMayOpen(at: timeNs) && swing >= parameters.minSwingInWalk)
        else { return }
        var interval = rhythm.lastCandidateNs == .min ? Double.infinity : Double(timeNs - rhythm.lastCandidateNs) * 1e-9
        if interval < parameters.minStepInterval { return }
        if let fromWeakStep = settleWeakPeak(before: timeNs, emit) { interval = fromWeakStep }
        defer {
            rhythm.intervalBeforeLast = rhythm.lastInterval
            rhythm.lastInterval = interval.isFinite ? interval : 0
        }
        rhythm.lastCandidateNs = timeNs
        let afterWeak = rhythm.lastStepWeak
        rhythm.lastStepWeak = false
        rhythm.reserveCapacity(parameters)
        // A bout just confirmed from peaks a stride apart (its run still exactly the confirming peaks, none filled
        // in), whose next peak comes half a stride later: the walk was seen once a stride at first and now shows
        // every step.
        if rhythm.inBout && !rhythm.boutCredited && parameters.fillStrideStart
            && rhythm.pending.count == parameters.confirmSteps
            && holdsMissedStep(rhythm.stepInterval, ratio: rhythm.stepInterval / interval)
        {
            halveBout()
        }
        if rhythm.inBout && railLockedAtStride { halveRailBout() }  // RailBridge.swift
        if rhythm.inBout && !rhythm.boutCredited { keepRhythmUntilCredited(interval: interval, emit) }
        if rhythm.inBout {
            if interval <= boutTimeout {
                extendBout(to: timeNs, interval: interval, afterWeak: afterWeak, emit)
                return
            }
            endBout(emit)
        }
        if interval > parameters.maxStepInterval {
            rhythm.forgetPendingRun()
        }
        if parameters.fillMissedSteps && rhythm.pending.count >= 2 {
            fillMissedPendingStep(before: timeNs, interval: interval)
        }
        rhythm.pending.append(timeNs)
        rhythm.pendingSwings.append(swing)
        // Keep the longest regular run ending here: drop the oldest candidates until strides and swings agree, and
        // never start a run with a filled-in step.
        while rhythm.pending.count > 1 && (!pendingIsRegular() || rhythm.pendingSwings[0] == 0) {
            rhythm.pending.removeFirst()
            rhythm.pendingSwings.removeFirst()
        }
        if rhythm.pendingSwings.count(where: { $0 > 0 }) >= parameters.confirmSteps { confirmPending(emit) }
    }

    /// A bout must keep its rhythm until it is credited: a few intervals off the bout's rhythm (and not a missed step)
    /// and it was not walking.
    mutating func keepRhythmUntilCredited(interval: Double, _ emit: (DetectorEvent) -> Void) {
        let ratio = interval / rhythm.stepInterval
        let steady = ratio * parameters.rhythmTolerance >= 1 && ratio <= parameters.rhythmTolerance
        let missed = holdsMissedStep(interval, ratio: ratio) || railBridgeSteps(gap: interval) != nil
        if !steady && !missed {
            rhythm.irregularIntervals += 1
            if rhythm.irregularIntervals > parameters.irregularIntervalsAllowed { endBout(emit, irregular: true) }
        }
    }

    /// The peak at `timeNs` is the open bout's next step; a peak two steps after the last one brings the step too weak
    /// to see between them, and a steady one moves the bout's rhythm towards its interval.
    mutating func extendBout(to timeNs: Int64, interval: Double, afterWeak: Bool, _ emit: (DetectorEvent) -> Void) {
        let ratio = interval / rhythm.stepInterval
        if let steps = railBridgeSteps(gap: interval) {
            fillRailGap(before: timeNs, steps: steps, emit)
        } else if holdsMissedStep(interval, ratio: ratio) && !isShortLongGait(interval) {
            addBoutStep(
                rhythm.bout.endNs + (timeNs - rhythm.bout.endNs) / 2, emit)
        } else if ratio < Self.steadyRatio && !afterWeak {
            rhythm.stepInterval += (interval - rhythm.stepInterval) * 0.2
            updateBoutDeadline()
        }
        addBoutStep(timeNs, emit)
    }

    /// Before a bout: about twice the previous interval (or half of it) means one step in between was too weak to
    /// see; it is filled in among the pending candidates.
    mutating func fillMissedPendingStep(before timeNs: Int64, interval: Double) {
        let previous =
            Double(rhythm.pending[rhythm.pending.count - 1] - rhythm.pending[rhythm.pending.count - 2]) * 1e-9
        let ratio = interval / previous
        if holdsMissedStep(interval, ratio: ratio) && !isShortLongGait(interval) {
            let last = rhythm.pending[rhythm.pending.count - 1]
            rhythm.pending.append(last + (timeNs - last) / 2)
            rhythm.pendingSwings.append(0)
        } else if holdsMissedStep(previous, ratio: 1 / ratio) && rhythm.pendingSwings[rhythm.pending.count - 2] > 0 {
            let before = rhythm.pending[rhythm.pending.count - 2]
            let last = rhythm.pending[rhythm.pending.count - 1]
            rhythm.pending.insert(before + (last - before) / 2, at: rhythm.pending.count - 1)
            rhythm.pendingSwings.insert(0, at: rhythm.pendingSwings.count - 1)
        }
    }

    /// The weak tracker found a peak (`minSwingInWalk`): inside a bout, on its rhythm and where no step came yet, it
    /// waits for the next peak to say whether it was a step (`settleWeakPeak`).
    mutating func weakCandidate(at timeNs: Int64, swing: Double, _ emit: (DetectorEvent) -> Void) {
        guard rhythm.inBout, swing >= parameters.minSwingInWalk, rhythm.lastCandidateNs != .min else { return }
        // The strong tracker's peaks are seen here first (a smaller drop declares them): this one waits too, and the
        // strong candidate at the same time forgets it.
        var interval = Double(timeNs - rhythm.lastCandidateNs) * 1e-9
        if interval < parameters.minStepInterval { return }
        if let fromWeakStep = settleWeakPeak(before: timeNs, emit) { interval = fromWeakStep }
        if Self.weakStepRatio.contains(interval / rhythm.stepInterval) || railBridgeSteps(gap: interval) != nil {
            rhythm.weakPeakNs = timeNs
        }
    }

    /// How far off the bout's step interval a weak peak, and the peak after it, may fall for the weak one to be a step.
    static let weakStepRatio = (1 / 1.3)...1.3

    /// Decides the weak peak waiting for this one: a step when this peak follows it at the bout's rhythm (returns the
    /// interval from it), else forgotten (a hump on a step's own peak, or the walk ended). A weak step never moves
    /// `stepInterval`, so weak peaks cannot talk the rhythm into accepting more of them.
    mutating func settleWeakPeak(before timeNs: Int64, _ emit: (DetectorEvent) -> Void) -> Double? {
        guard rhythm.weakPeakNs != .min else { return nil }
        let weakNs = rhythm.weakPeakNs
        rhythm.weakPeakNs = .min
        let interval = Double(timeNs - weakNs) * 1e-9
        guard rhythm.inBout else { return nil }
        // A weak peak ending a bridged gap is a step when the next peak is no nearer to it than a step.
        let bridged = railBridgeSteps(gap: Double(weakNs - rhythm.bout.endNs) * 1e-9)
        let next = interval / rhythm.stepInterval
        guard Self.weakStepRatio.contains(next) || (bridged != nil && next >= Self.weakStepRatio.lowerBound)
        else { return nil }
        rhythm.lastCandidateNs = weakNs
        rhythm.lastStepWeak = true
        if let bridged { fillRailGap(before: weakNs, steps: bridged, emit) }
        addBoutStep(weakNs, emit)
        return interval
    }

    /// Whether `interval` is the long half of a short-long gait rather than a gap left by a missed step: the
    /// interval before it was short (at most `interval` / `steadyRatio`, the bound `stepInterval` follows) and the
    /// one before that was as long as this one (within `shortLongTolerance`). A phone in one front pocket sees its
    /// own leg's step and the other leg's unevenly spaced, 0.43 s then 0.76 s; a missed step leaves one long interval
    /// among even ones, and a walk seen once a stride has only long ones. Those are filled; this is not.
    func isShortLongGait(_ interval: Double) -> Bool {
        parameters.shortLongGait && rhythm.lastInterval > 0 && interval >= Self.steadyRatio * rhythm.lastInterval
            && rhythm.intervalBeforeLast * Self.shortLongTolerance >= interval
            && rhythm.intervalBeforeLast <= interval * Self.shortLongTolerance
    }

    /// How alike the two long intervals of a short-long gait are.
    static let shortLongTolerance = 1.25

    /// Inside a bout, an interval under this many step intervals moves `stepInterval` toward it.
    static let steadyRatio = 1.5

    /// Ratio of an interval to the previous one that means one step was missed in between.
    static let missedStepRatio = 1.7...2.4

    /// Whether a `gap` seconds long, `ratio` times the rhythm, held a step too weak to see: about twice the rhythm,
    /// and no longer than `maxMissedStepGap` (a slow walker's step is its own peak, however far from the last).
    func holdsMissedStep(_ gap: Double, ratio: Double) -> Bool {
        parameters.fillMissedSteps && Self.missedStepRatio.contains(ratio)
            && (parameters.maxMissedStepGap <= 0 || gap <= parameters.maxMissedStepGap)
    }

    /// Whether the pending run has a steady rhythm and amplitude: its longest stride (time from a step to the next
    /// but one, so a limping or pocket-sided gait with alternating intervals is still regular) is at most
    /// `rhythmTolerance` times its shortest, and its largest swing at most `swingTolerance` times its smallest.
    func pendingIsRegular() -> Bool {
        if rhythm.pending.count >= 3 {
            var shortest = Int64.max
            var longest = Int64.min
            for i in 2..<rhythm.pending.count {
                let stride = rhythm.pending[i] - rhythm.pending[i - 2]
                shortest = min(shortest, stride)
                longest = max(longest, stride)
            }
            if Double(longest) > parameters.rhythmTolerance * Double(shortest) { return false }
        }
        var smallest = Double.infinity
        var largest = 0.0
        for s in rhythm.pendingSwings where s > 0 {
            smallest = min(smallest, s)
            largest = max(largest, s)
        }
        return largest <= parameters.swingTolerance * smallest
    }

    /// Opens a walking bout from the pending run. Its steps are credited once the bout has `minBoutSteps` steps.
    mutating func confirmPending(_ emit: (DetectorEvent) -> Void) {
        rhythm.inBout = true
        rhythm.boutCredited = false
        rhythm.irregularIntervals = 0
        let first = rhythm.pending[0]
        let last = rhythm.pending[rhythm.pending.count - 1]
        rhythm.stepInterval = Double(last - first) * 1e-9 / Double(rhythm.pending.count - 1)
        rhythm.bout = BoutNs(startNs: first, endNs: last, steps: rhythm.pending.count)
        updateBoutDeadline()
        if seenOnceAStride() { halveBout() }
        creditBoutIfLongEnough(emit)
    }

    mutating func addBoutStep(_ timeNs: Int64, _ emit: (DetectorEvent) -> Void) {
        rhythm.bout.endNs = timeNs
        updateBoutDeadline()
        rhythm.bout.steps += 1
        if rhythm.boutCredited {
            rhythmStep(timeNs, emit)
        } else {
            rhythm.pending.append(timeNs)
            rhythm.pendingSwings.append(0)
            creditBoutIfLongEnough(emit)
        }
    }

    /// The bout was seen once a stride and now shows every step: a step in the middle of each of its intervals, and
    /// half the step interval.
    mutating func halveBout() {
        var k = rhythm.pending.count - 1
        while k > 0 {
            rhythm.pending.insert(rhythm.pending[k - 1] + (rhythm.pending[k] - rhythm.pending[k - 1]) / 2, at: k)
            rhythm.pendingSwings.insert(0, at: k)
            k -= 1
        }
        rhythm.bout.steps = rhythm.pending.count
        rhythm.stepInterval /= 2
        updateBoutDeadline()
    }

    /// Reports the bout and all its steps so far once it is long enough to be walking.
    mutating func creditBoutIfLongEnough(_ emit: (DetectorEvent) -> Void, minimum: Int? = nil, lookingBack: Bool = true)
    {
        guard rhythm.pending.count >= minimum ?? parameters.minBoutSteps else { return }
        rhythm.boutCredited = true
        if lookingBack {
            lookBack(before: rhythm.pending[0])
        } else {
            rhythm.recovered.removeAll(keepingCapacity: true)
        }
        let first = rhythm.recovered.last ?? rhythm.pending[0]
        rhythm.bout.startNs = first
        rhythm.bout.steps += rhythm.recovered.count
        rhythmBoutStarted(first, emit)
        for t in rhythm.recovered.reversed() { rhythmStep(t, emit) }
        for t in rhythm.pending { rhythmStep(t, emit) }
        rhythm.recovered.removeAll(keepingCapacity: true)
        rhythm.forgetPendingRun()
        forgetRecentPeaks()
    }

    /// Ends the current bout: reports it if it was credited, forgets it if it stayed too short. A bout that kept its
    /// rhythm to the end (not `irregular`) with at least `shortBoutMinSteps` steps (or `boutGroupMinSteps`, to count in
    /// a group: ShortBoutGroup.swift) is credited now, for the walking gate to judge as a short bout
    /// (WalkingGate.swift); without the recognizer no gate would judge it. Out of line: it runs once a bout, and
    /// inlined into `push` it cost every sample 1-2 instructions (bench/detector_instructions.sh).
    @inline(never)
    mutating func endBout(_ emit: (DetectorEvent) -> Void, irregular: Bool = false) {
        rhythm.weakPeakNs = .min
        guard rhythm.inBout else { return }
        if !rhythm.boutCredited && !irregular && recognizing && parameters.shortBoutMinSteps > 0 {
            if endedOnceAStride() { halveBout() }
            creditEndingShortBout(emit)
        }
        rhythm.inBout = false
        rhythm.boutDeadlineNs = .max
        if rhythm.boutCredited { rhythmBoutEnded(rhythm.bout, emit) }
        rhythm.forgetPendingRun()
    }
}
