/// Tunable constants of the detector. One set serves every placement and sampling rate; every filter is defined in
/// seconds or hertz, never in samples.
public struct DetectorParameters: Sendable, Equatable, Codable {
    /// Cut-off of the two-pole low-pass filter on the acceleration magnitude, in Hz.
    public var lowPassHz: Double = 3.0
    /// Smallest swing (peak minus trough of the filtered magnitude) that can be a step, in m/s². Also the floor of the
    /// hysteresis that separates one peak from the next.
    public var minSwing: Double = 1.2
    /// Shortest and longest plausible time between steps, in seconds.
    public var minStepInterval: Double = 0.25
    public var maxStepInterval: Double = 2.0
    /// Candidate steps in a row, at a regular rhythm, needed to confirm a walking bout.
    public var confirmSteps: Int = 3
    /// Steps a bout needs before any of them is credited: shorter bursts of regular motion are not walking.
    public var minBoutSteps: Int = 10
    /// Irregular intervals (off the bout's rhythm by more than `rhythmTolerance`, and not a missed step) a bout may
    /// have before it is credited; one more and the run was not walking.
    public var irregularIntervalsAllowed: Int = 2
    /// Largest ratio between the longest and the shortest stride of a run (or between an interval and the bout's
    /// step interval) that still counts as regular.
    public var rhythmTolerance: Double = 1.5
    /// Largest ratio between the largest and the smallest swing of a run that still counts as a consistent amplitude.
    public var swingTolerance: Double = 4.0
    /// An interval about twice the rhythm (1.7-2.4 times) counts two steps: one step was too weak to see (typical on
    /// the wrist, where one arm swing per stride dominates).
    public var fillMissedSteps = true
    /// A gap in the data longer than this (seconds) resets the filters and ends the bout.
    public var maxSampleGap: Double = 2.0

    public init() {}

    /// The parameters `steptweet` uses.
    public static let standard = DetectorParameters()
}

/// Streaming step detector: push samples in time order, receive step events and walking bouts.
///
/// 1. The magnitude of acceleration goes through a two-pole low-pass filter whose coefficient follows each sample's
///    own time step, so any rate from 12.5 to 500 Hz and jittered timestamps give the same signal.
/// 2. A hysteresis peak tracker (`minSwing`) turns it into candidate steps: the time of each peak and its swing.
/// 3. A walking gate keeps a run of candidates whose strides (step to next-but-one step, so an asymmetric gait is
///    regular) differ by at most `rhythmTolerance` and whose swings by at most `swingTolerance`; an interval about
///    twice the previous one counts a missed step in between. `confirmSteps` such candidates open a bout; the bout
///    is credited (all its steps reported, the first ones retroactively) once it reaches `minBoutSteps` steps with
///    at most `irregularIntervalsAllowed` intervals off its rhythm. A credited bout counts every candidate until no
///    step follows within `max(maxStepInterval, 2.5 × its step interval)`.
///
/// Fixed memory (the pending run holds at most `max(2 × confirmSteps, minBoutSteps) + 2` times, reserved up
/// front), no allocation per sample, no statistics over the whole history, integer nanosecond time. The whole state
/// is `Codable`: save it mid-stream, decode it later and continue, and the result equals one pass.
public struct StepDetector: Sendable, Codable {
    public let parameters: DetectorParameters
    public private(set) var counters = DetectorCounters()

    private var lastTimeNs: Int64 = .min
    // Low-pass filter state and the coefficient cached for the last time step.
    private var stage1 = 0.0
    private var stage2 = 0.0
    private var cachedDtNs: Int64 = -1
    private var cachedAlpha = 0.0
    // Hysteresis peak tracker on the filtered magnitude.
    private var seekingPeak = true
    private var extremeValue = 0.0
    private var extremeNs: Int64 = 0
    private var troughValue = 0.0
    // Walking gate: the run of candidates waiting for confirmation, and the current bout.
    private var lastCandidateNs: Int64 = .min
    private var pending: [Int64] = []
    private var pendingSwings: [Double] = []
    /// Typical time between steps of the current bout, in seconds.
    private var stepInterval = 0.5
    private var inBout = false
    /// Whether the open bout has reached `minBoutSteps` and its steps were reported.
    private var boutCredited = false
    /// Irregular intervals seen in the open bout before it was credited.
    private var irregularIntervals = 0
    private var bout = WalkingBout(startNs: 0, endNs: 0, steps: 0)
    /// The open bout ends at the first sample after this time (`.max` when no bout is open).
    private var boutDeadlineNs: Int64 = .max
    /// `parameters.maxSampleGap` in nanoseconds.
    private var maxGapNs: Int64
    /// Time constant of each low-pass stage, in seconds.
    private var lowPassTau: Double

    public init(parameters: DetectorParameters = .standard) {
        self.parameters = parameters
        lowPassTau = 1 / (2 * Double.pi * max(parameters.lowPassHz, 1e-6))
        maxGapNs = parameters.maxSampleGap < 9e9 ? Int64(max(parameters.maxSampleGap, 0) * 1e9) : .max
        reservePending()
    }

    /// Reserves the pending run's whole capacity up front (again after decoding, which gives exact-size arrays):
    /// real candidates plus at most one filled-in step between each two of them, or a bout not yet credited.
    private mutating func reservePending() {
        let capacity = max(2 * parameters.confirmSteps, parameters.minBoutSteps) + 2
        if pending.capacity < capacity { pending.reserveCapacity(capacity) }
        if pendingSwings.capacity < capacity { pendingSwings.reserveCapacity(capacity) }
    }

    /// Pushes one sample with three axes in m/s². Magnitude-only data may come as `x` = magnitude, `y` = `z` = 0.
    @inlinable
    public mutating func push(timeNs: Int64, x: Double, y: Double, z: Double, _ emit: (DetectorEvent) -> Void) {
        push(timeNs: timeNs, magnitude: (x * x + y * y + z * z).squareRoot(), emit)
    }

    /// Pushes one sample given as the magnitude of acceleration in m/s². NaN, infinite, negative or absurd values
    /// (≥ 50 g) are dropped and counted in `counters.invalid`; samples not after the previous one in time are dropped
    /// and counted in `counters.outOfOrder`.
    public mutating func push(timeNs: Int64, magnitude: Double, _ emit: (DetectorEvent) -> Void) {
        guard magnitude >= 0, magnitude < maximumPlausibleAcceleration else {  // false for NaN too
            counters.invalid += 1
            return
        }
        if timeNs <= lastTimeNs {
            counters.outOfOrder += 1
            return
        }
        counters.accepted += 1
        let (dtNs, overflow) = timeNs.subtractingReportingOverflow(lastTimeNs)
        let first = lastTimeNs == .min
        lastTimeNs = timeNs
        if first || overflow || dtNs > maxGapNs {
            restart(at: timeNs, value: magnitude, emit)
            return
        }
        if dtNs != cachedDtNs {
            let dt = Double(dtNs) * 1e-9
            cachedAlpha = dt / (lowPassTau + dt)
            cachedDtNs = dtNs
        }
        stage1 += (magnitude - stage1) * cachedAlpha
        stage2 += (stage1 - stage2) * cachedAlpha
        let value = stage2
        let hysteresis = parameters.minSwing
        if seekingPeak {
            if value > extremeValue {
                extremeValue = value
                extremeNs = timeNs
            } else if value < extremeValue - hysteresis {
                let swing = extremeValue - troughValue
                seekingPeak = false
                let peakNs = extremeNs
                extremeValue = value
                extremeNs = timeNs
                candidate(at: peakNs, swing: swing, emit)
            }
        } else {
            if value < extremeValue {
                extremeValue = value
                extremeNs = timeNs
            } else if value > extremeValue + hysteresis {
                troughValue = extremeValue
                seekingPeak = true
                extremeValue = value
                extremeNs = timeNs
            }
        }
        if timeNs > boutDeadlineNs { endBout(emit) }
    }

    /// Steps before this time (ns) are final: no later sample can make the detector report a step earlier than it
    /// (a peak still being tracked and candidates waiting for a bout's confirmation are at or after it). Nil before
    /// the first sample. A fetch closes its window no later than this, so steps credited retroactively are never lost.
    public var settledNs: Int64? {
        if lastTimeNs == .min { return nil }
        // The next peak can be no earlier than the one being tracked, or than now.
        let nextPeak = seekingPeak ? min(extremeNs, lastTimeNs) : lastTimeNs
        var settled = nextPeak
        if let first = pending.first { settled = min(settled, first) }
        // In a bout, a missed step may be filled in halfway between the last step and the next peak.
        if inBout && parameters.fillMissedSteps && nextPeak > bout.endNs {
            settled = min(settled, bout.endNs + (nextPeak - bout.endNs) / 2)
        }
        return settled
    }

    /// Whether a walking bout is open (confirmed and not yet ended).
    public var isWalking: Bool { inBout && boutCredited }

    /// Ends the stream: closes an open walking bout. Candidates never confirmed are discarded.
    public mutating func finish(_ emit: (DetectorEvent) -> Void) {
        endBout(emit)
        pending.removeAll(keepingCapacity: true)
        pendingSwings.removeAll(keepingCapacity: true)
        seekingPeak = false  // a peak still being tracked can no longer become a step
        extremeNs = lastTimeNs
    }

    /// Longest silence after the last step before the bout ends.
    private var boutTimeout: Double {
        max(parameters.maxStepInterval, stepInterval * 2.5)
    }

    /// Keeps the per-sample check an integer comparison: the bout ends at the first sample after this time.
    private mutating func updateBoutDeadline() {
        let (deadline, overflow) = bout.endNs.addingReportingOverflow(Int64(min(boutTimeout * 1e9, 9e18)))
        boutDeadlineNs = overflow ? .max : deadline
    }

    private mutating func restart(at timeNs: Int64, value: Double, _ emit: (DetectorEvent) -> Void) {
        endBout(emit)
        pending.removeAll(keepingCapacity: true)
        pendingSwings.removeAll(keepingCapacity: true)
        lastCandidateNs = .min
        stage1 = value
        stage2 = value
        seekingPeak = false
        extremeValue = value
        extremeNs = timeNs
        troughValue = value
    }

    private mutating func candidate(at timeNs: Int64, swing: Double, _ emit: (DetectorEvent) -> Void) {
        guard swing >= parameters.minSwing else { return }
        let interval = lastCandidateNs == .min ? Double.infinity : Double(timeNs - lastCandidateNs) * 1e-9
        if interval < parameters.minStepInterval { return }
        lastCandidateNs = timeNs
        reservePending()
        if inBout && !boutCredited {
            // A bout must keep its rhythm until it is credited: a few intervals off the bout's rhythm (and not a
            // missed step) and it was not walking.
            let ratio = interval / stepInterval
            let steady = ratio * parameters.rhythmTolerance >= 1 && ratio <= parameters.rhythmTolerance
            let missed = parameters.fillMissedSteps && Self.missedStepRatio.contains(ratio)
            if !steady && !missed {
                irregularIntervals += 1
                if irregularIntervals > parameters.irregularIntervalsAllowed { endBout(emit) }
            }
        }
        if inBout {
            if interval <= boutTimeout {
                let ratio = interval / stepInterval
                if parameters.fillMissedSteps && Self.missedStepRatio.contains(ratio) {
                    // One step too weak to see between two regular ones.
                    addBoutStep(bout.endNs + (timeNs - bout.endNs) / 2, emit)
                } else if ratio < 1.5 {
                    stepInterval += (interval - stepInterval) * 0.2
                    updateBoutDeadline()
                }
                addBoutStep(timeNs, emit)
                return
            }
            endBout(emit)
        }
        if interval > parameters.maxStepInterval {
            pending.removeAll(keepingCapacity: true)
            pendingSwings.removeAll(keepingCapacity: true)
        }
        if parameters.fillMissedSteps && pending.count >= 2 {
            // About twice the previous interval (or half of it): one step in between was too weak to see.
            let previous = Double(pending[pending.count - 1] - pending[pending.count - 2]) * 1e-9
            let ratio = interval / previous
            if ratio >= Self.missedStepRatio.lowerBound && ratio <= Self.missedStepRatio.upperBound {
                let last = pending[pending.count - 1]
                pending.append(last + (timeNs - last) / 2)
                pendingSwings.append(0)
            } else if 1 / ratio >= Self.missedStepRatio.lowerBound && 1 / ratio <= Self.missedStepRatio.upperBound
                        && pendingSwings[pending.count - 2] > 0 {
                let before = pending[pending.count - 2], last = pending[pending.count - 1]
                pending.insert(before + (last - before) / 2, at: pending.count - 1)
                pendingSwings.insert(0, at: pendingSwings.count - 1)
            }
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

    /// Ratio of an interval to the previous one that means one step was missed in between.
    static let missedStepRatio = 1.7...2.4

    /// Whether the pending run has a steady rhythm and amplitude: its longest stride (time from a step to the next
    /// but one, so a limping or pocket-sided gait with alternating intervals is still regular) is at most
    /// `rhythmTolerance` times its shortest, and its largest swing at most `swingTolerance` times its smallest.
    private func pendingIsRegular() -> Bool {
        if pending.count >= 3 {
            var shortest = Int64.max, longest = Int64.min
            for i in 2..<pending.count {
                let stride = pending[i] - pending[i - 2]
                shortest = min(shortest, stride)
                longest = max(longest, stride)
            }
            if Double(longest) > parameters.rhythmTolerance * Double(shortest) { return false }
        }
        var smallest = Double.infinity, largest = 0.0
        for s in pendingSwings where s > 0 {
            smallest = min(smallest, s)
            largest = max(largest, s)
        }
        return largest <= parameters.swingTolerance * smallest
    }

    /// Opens a walking bout from the pending run. Its steps are credited once the bout has `minBoutSteps` steps.
    private mutating func confirmPending(_ emit: (DetectorEvent) -> Void) {
        inBout = true
        boutCredited = false
        irregularIntervals = 0
        let first = pending[0], last = pending[pending.count - 1]
        stepInterval = Double(last - first) * 1e-9 / Double(pending.count - 1)
        bout = WalkingBout(startNs: first, endNs: last, steps: pending.count)
        updateBoutDeadline()
        creditBoutIfLongEnough(emit)
    }

    private mutating func addBoutStep(_ timeNs: Int64, _ emit: (DetectorEvent) -> Void) {
        bout.endNs = timeNs
        updateBoutDeadline()
        bout.steps += 1
        if boutCredited {
            counters.steps += 1
            emit(.step(timeNs: timeNs))
        } else {
            pending.append(timeNs)
            pendingSwings.append(0)
            creditBoutIfLongEnough(emit)
        }
    }

    /// Reports the bout and all its steps so far once it is long enough to be walking.
    private mutating func creditBoutIfLongEnough(_ emit: (DetectorEvent) -> Void) {
        guard pending.count >= parameters.minBoutSteps else { return }
        boutCredited = true
        counters.bouts += 1
        emit(.boutStarted(timeNs: pending[0]))
        for t in pending { emit(.step(timeNs: t)) }
        counters.steps += pending.count
        pending.removeAll(keepingCapacity: true)
        pendingSwings.removeAll(keepingCapacity: true)
    }

    /// Ends the current bout: reports it if it was credited, forgets it if it stayed too short.
    private mutating func endBout(_ emit: (DetectorEvent) -> Void) {
        guard inBout else { return }
        inBout = false
        boutDeadlineNs = .max
        if boutCredited { emit(.boutEnded(bout)) }
        pending.removeAll(keepingCapacity: true)
        pendingSwings.removeAll(keepingCapacity: true)
    }
}
