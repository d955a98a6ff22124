/// Saved detector states: a state saved before the weak peaks (its tracker as four top-level keys) resumes with the
/// weak tracker where the strong one is; what a state saved before the walking recognizer lacks (the recognizer, its decisions and
/// held steps, the `refused` counter) starts fresh, so an agent upgraded mid-walk keeps its rhythm and its counts; the recognizer judges
/// the rest of that walk from its first full window.
extension StepDetector {
    enum CodingKeys: String, CodingKey {
        case parameters, counters, lastTimeNs, stage1, stage2, cachedDtNs, cachedAlpha, peaks, weakPeaks
        case lastCandidateNs, pending, pendingSwings, stepInterval, inBout, boutCredited
        case irregularIntervals, bout, boutDeadlineNs, maxGapNs, lowPassTau, lastStepWeak, weakPeakNs
        case lastInterval, intervalBeforeLast
        case recognizer, decisions, held, undecided, walkingRun, windowSkip, latestWindowStartNs, gateBoutOpen, gateBout
    }

    /// How states saved before `PeakTracker` held the one tracker: four keys at the top.
    enum FlatTrackerKeys: String, CodingKey { case seekingPeak, extremeValue, extremeNs, troughValue }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        parameters = try c.decode(DetectorParameters.self, forKey: .parameters)
        recognizing = parameters.recognizer.enabled
        tracksWeakPeaks = parameters.minSwingInWalk < parameters.minSwing
        tracksAxes = Self.tracksAxes(parameters, axisFeatures: false)  // not saved: `eval --features` never resumes
        counters = try c.decode(DetectorCounters.self, forKey: .counters)
        lastTimeNs = try c.decode(Int64.self, forKey: .lastTimeNs)
        stage1 = try c.decode(Double.self, forKey: .stage1)
        stage2 = try c.decode(Double.self, forKey: .stage2)
        cachedDtNs = -1  // recomputed from the time step on the next sample (the same value: resuming stays exact)
        cachedAlpha = 0
        if let saved = try c.decodeIfPresent(PeakTracker.self, forKey: .peaks) {
            peaks = saved
        } else {
            let flat = try decoder.container(keyedBy: FlatTrackerKeys.self)
            peaks = PeakTracker(
                seekingPeak: try flat.decode(Bool.self, forKey: .seekingPeak),
                extremeValue: try flat.decode(Double.self, forKey: .extremeValue),
                extremeNs: try flat.decode(Int64.self, forKey: .extremeNs),
                troughValue: try flat.decode(Double.self, forKey: .troughValue))
        }
        lastCandidateNs = try c.decode(Int64.self, forKey: .lastCandidateNs)
        pending = try c.decode([Int64].self, forKey: .pending)
        pendingSwings = try c.decode([Double].self, forKey: .pendingSwings)
        stepInterval = try c.decode(Double.self, forKey: .stepInterval)
        inBout = try c.decode(Bool.self, forKey: .inBout)
        boutCredited = try c.decode(Bool.self, forKey: .boutCredited)
        irregularIntervals = try c.decode(Int.self, forKey: .irregularIntervals)
        bout = try c.decode(WalkingBout.self, forKey: .bout)
        boutDeadlineNs = try c.decode(Int64.self, forKey: .boutDeadlineNs)
        maxGapNs = try c.decode(Int64.self, forKey: .maxGapNs)
        lowPassTau = try c.decode(Double.self, forKey: .lowPassTau)
        lastStepWeak = try c.decodeIfPresent(Bool.self, forKey: .lastStepWeak) ?? false
        weakPeakNs = try c.decodeIfPresent(Int64.self, forKey: .weakPeakNs) ?? .min
        lastInterval = try c.decodeIfPresent(Double.self, forKey: .lastInterval) ?? 0
        intervalBeforeLast = try c.decodeIfPresent(Double.self, forKey: .intervalBeforeLast) ?? 0
        weakPeaks = try c.decodeIfPresent(PeakTracker.self, forKey: .weakPeaks) ?? peaks
        recognizer = try c.decodeIfPresent(WalkingRecognizer.self, forKey: .recognizer) ?? WalkingRecognizer()
        decisions = try c.decodeIfPresent([WalkingDecision].self, forKey: .decisions) ?? []
        held = try c.decodeIfPresent([HeldEvent].self, forKey: .held) ?? []
        undecided = try c.decodeIfPresent([Int64].self, forKey: .undecided) ?? []
        walkingRun = try c.decodeIfPresent(Bool.self, forKey: .walkingRun) ?? false
        windowSkip = try c.decodeIfPresent(WindowSkip.self, forKey: .windowSkip) ?? .none
        latestWindowStartNs = try c.decodeIfPresent(Int64.self, forKey: .latestWindowStartNs) ?? .min
        gateBoutOpen = try c.decodeIfPresent(Bool.self, forKey: .gateBoutOpen) ?? false
        gateBout =
            try c.decodeIfPresent(WalkingBout.self, forKey: .gateBout) ?? WalkingBout(startNs: 0, endNs: 0, steps: 0)
        guard pending.count == pendingSwings.count, held.count <= Self.heldCapacity,
            decisions.count <= Self.decisionCapacity, undecided.count <= Self.heldCapacity
        else {
            throw DecodingError.dataCorruptedError(
                forKey: .pending, in: c, debugDescription: "inconsistent detector state")
        }
        reservePending()
    }
}
