/// Saved detector states: one flat set of keys, the same as before the state was grouped by concern (so states saved
/// by any earlier version decode). A state saved before the weak peaks (its tracker as four top-level keys) resumes
/// with the weak tracker where the strong one is; what a state saved before the walking recognizer lacks (the
/// recognizer, its decisions and held steps, the `refused` counter) starts fresh, so an agent upgraded mid-walk keeps
/// its rhythm and its counts; the recognizer judges the rest of that walk from its first full window.
extension StepDetector {
    enum CodingKeys: String, CodingKey {
        case parameters, counters, lastTimeNs, stage1, stage2, cachedDtNs, cachedAlpha, peaks, weakPeaks
        case lastCandidateNs, pending, pendingSwings, stepInterval, inBout, boutCredited
        case irregularIntervals, bout, boutDeadlineNs, maxGapNs, lowPassTau, lastStepWeak, weakPeakNs
        case lastInterval, intervalBeforeLast, recentPeaks
        case recognizer, decisions, held, undecided, walkingRun, windowSkip, latestWindowStartNs, gateBoutOpen, gateBout
        case shortBoutOpen, parkedRefused, shortBoutEvidence, boutGroup, groupOnlyUntilNs, weakPeaksOpenBouts
        case stepEnergies, zeroHold, pathMemory
    }

    /// How states saved before `PeakTracker` held the one tracker: four keys at the top.
    enum FlatTrackerKeys: String, CodingKey { case seekingPeak, extremeValue, extremeNs, troughValue }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        parameters = try c.decode(DetectorParameters.self, forKey: .parameters)
        recognizing = parameters.recognizer.enabled
        tracksWeakPeaks = parameters.minSwingInWalk < parameters.minSwing
        tracksAxes = Self.tracksAxes(parameters, axisFeatures: false)  // not saved: `eval --features` never resumes
        maxGapNs = try c.decode(Int64.self, forKey: .maxGapNs)
        lowPassTau = try c.decode(Double.self, forKey: .lowPassTau)
        zeroHoldNs = ZeroHold.holdNs(seconds: parameters.zeroHoldSeconds)
        counters = try c.decode(DetectorCounters.self, forKey: .counters)
        lastTimeNs = try c.decode(Int64.self, forKey: .lastTimeNs)
        // The cached coefficients are recomputed from the time step on the next sample (the same value: resuming
        // stays exact).
        filter = LowPassState(
            stage1: try c.decode(Double.self, forKey: .stage1), stage2: try c.decode(Double.self, forKey: .stage2))
        peaks = try Self.decodePeaks(c, decoder)
        weakPeaks = try c.decodeIfPresent(PeakTracker.self, forKey: .weakPeaks) ?? peaks
        rhythm = try Self.decodeRhythm(c)
        recognizer = try c.decodeIfPresent(WalkingRecognizer.self, forKey: .recognizer) ?? WalkingRecognizer()
        gate = try Self.decodeGate(c)
        // A state saved before the zero hold has no valid sample to repeat (a zero next is dropped) and no gap pending.
        zeroHold = try c.decodeIfPresent(ZeroHold.self, forKey: .zeroHold) ?? ZeroHold(gapNs: maxGapNs)
        if !zeroHold.gapPending { zeroHold.gapNs = maxGapNs }
        guard rhythm.pending.count == rhythm.pendingSwings.count, gate.held.count <= Self.heldCapacity,
            rhythm.recentPeaks.count <= Self.lookBackCapacity,
            gate.decisions.count <= Self.decisionCapacity, gate.undecided.count <= Self.heldCapacity,
            (0...gate.undecided.count).contains(gate.parkedRefused), gate.group.waiting <= gate.undecided.count,
            gate.shortBoutEvidence.count == gate.decisions.count,
            gate.stepEnergies.steps.count <= StepEnergies.capacity,
            (0..<max(gate.stepEnergies.steps.count, 1)).contains(gate.stepEnergies.head)
        else {
            throw DecodingError.dataCorruptedError(
                forKey: .pending, in: c, debugDescription: "inconsistent detector state")
        }
        reserveCapacity()
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(parameters, forKey: .parameters)
        try c.encode(counters, forKey: .counters)
        try c.encode(lastTimeNs, forKey: .lastTimeNs)
        try c.encode(filter.stage1, forKey: .stage1)
        try c.encode(filter.stage2, forKey: .stage2)
        try c.encode(filter.cachedDtNs, forKey: .cachedDtNs)
        try c.encode(filter.cachedAlpha, forKey: .cachedAlpha)
        try c.encode(peaks, forKey: .peaks)
        try c.encode(weakPeaks, forKey: .weakPeaks)
        try encodeRhythm(&c)
        try c.encode(maxGapNs, forKey: .maxGapNs)
        try c.encode(lowPassTau, forKey: .lowPassTau)
        try c.encode(recognizer, forKey: .recognizer)
        try c.encode(gate.decisions, forKey: .decisions)
        try c.encode(gate.held, forKey: .held)
        try c.encode(gate.undecided, forKey: .undecided)
        try c.encode(gate.walkingRun, forKey: .walkingRun)
        try c.encode(gate.windowSkip, forKey: .windowSkip)
        try c.encode(gate.latestWindowStartNs, forKey: .latestWindowStartNs)
        try c.encode(gate.boutOpen, forKey: .gateBoutOpen)
        try c.encode(gate.bout, forKey: .gateBout)
        try c.encode(gate.shortBoutOpen, forKey: .shortBoutOpen)
        try c.encode(gate.parkedRefused, forKey: .parkedRefused)
        try c.encode(gate.shortBoutEvidence, forKey: .shortBoutEvidence)
        try c.encode(gate.group, forKey: .boutGroup)
        try c.encode(gate.groupOnly.untilNs, forKey: .groupOnlyUntilNs)
        try c.encode(gate.weakPeaksOpenBouts, forKey: .weakPeaksOpenBouts)
        try c.encode(gate.stepEnergies, forKey: .stepEnergies)
        try c.encode(zeroHold, forKey: .zeroHold)
        try c.encode(gate.pathMemory, forKey: .pathMemory)
    }

    private func encodeRhythm(_ c: inout KeyedEncodingContainer<CodingKeys>) throws {
        try c.encode(rhythm.lastCandidateNs, forKey: .lastCandidateNs)
        try c.encode(rhythm.pending, forKey: .pending)
        try c.encode(rhythm.pendingSwings, forKey: .pendingSwings)
        try c.encode(rhythm.stepInterval, forKey: .stepInterval)
        try c.encode(rhythm.inBout, forKey: .inBout)
        try c.encode(rhythm.boutCredited, forKey: .boutCredited)
        try c.encode(rhythm.irregularIntervals, forKey: .irregularIntervals)
        try c.encode(rhythm.bout, forKey: .bout)
        try c.encode(rhythm.boutDeadlineNs, forKey: .boutDeadlineNs)
        try c.encode(rhythm.lastStepWeak, forKey: .lastStepWeak)
        try c.encode(rhythm.weakPeakNs, forKey: .weakPeakNs)
        try c.encode(rhythm.lastInterval, forKey: .lastInterval)
        try c.encode(rhythm.intervalBeforeLast, forKey: .intervalBeforeLast)
        try c.encode(rhythm.recentPeaks, forKey: .recentPeaks)
    }

    /// The strong tracker, from its key or, in a state saved before `PeakTracker`, from four keys at the top.
    private static func decodePeaks(_ c: KeyedDecodingContainer<CodingKeys>, _ decoder: any Decoder) throws
        -> PeakTracker
    {
        if let saved = try c.decodeIfPresent(PeakTracker.self, forKey: .peaks) { return saved }
        let flat = try decoder.container(keyedBy: FlatTrackerKeys.self)
        return PeakTracker(
            seekingPeak: try flat.decode(Bool.self, forKey: .seekingPeak),
            extremeValue: try flat.decode(Double.self, forKey: .extremeValue),
            extremeNs: try flat.decode(Int64.self, forKey: .extremeNs),
            troughValue: try flat.decode(Double.self, forKey: .troughValue))
    }

    private static func decodeRhythm(_ c: KeyedDecodingContainer<CodingKeys>) throws -> RhythmState {
        var r = RhythmState()
        r.lastCandidateNs = try c.decode(Int64.self, forKey: .lastCandidateNs)
        r.pending = try c.decode([Int64].self, forKey: .pending)
        r.pendingSwings = try c.decode([Double].self, forKey: .pendingSwings)
        r.stepInterval = try c.decode(Double.self, forKey: .stepInterval)
        r.inBout = try c.decode(Bool.self, forKey: .inBout)
        r.boutCredited = try c.decode(Bool.self, forKey: .boutCredited)
        r.irregularIntervals = try c.decode(Int.self, forKey: .irregularIntervals)
        r.bout = try c.decode(BoutNs.self, forKey: .bout)
        r.boutDeadlineNs = try c.decode(Int64.self, forKey: .boutDeadlineNs)
        r.lastStepWeak = try c.decodeIfPresent(Bool.self, forKey: .lastStepWeak) ?? false
        r.weakPeakNs = try c.decodeIfPresent(Int64.self, forKey: .weakPeakNs) ?? .min
        r.lastInterval = try c.decodeIfPresent(Double.self, forKey: .lastInterval) ?? 0
        r.intervalBeforeLast = try c.decodeIfPresent(Double.self, forKey: .intervalBeforeLast) ?? 0
        // A state saved before the look-back has no peaks to look back on: its next bout starts where its rhythm did.
        r.recentPeaks = try c.decodeIfPresent([Int64].self, forKey: .recentPeaks) ?? []
        return r
    }

    private static func decodeGate(_ c: KeyedDecodingContainer<CodingKeys>) throws -> WalkingGateState {
        var g = WalkingGateState()
        g.decisions = try c.decodeIfPresent([WindowDecision].self, forKey: .decisions) ?? []
        g.held = try c.decodeIfPresent([HeldEvent].self, forKey: .held) ?? []
        g.undecided = try c.decodeIfPresent([Int64].self, forKey: .undecided) ?? []
        g.walkingRun = try c.decodeIfPresent(Bool.self, forKey: .walkingRun) ?? false
        g.windowSkip = try c.decodeIfPresent(WindowSkip.self, forKey: .windowSkip) ?? .none
        g.latestWindowStartNs = try c.decodeIfPresent(Int64.self, forKey: .latestWindowStartNs) ?? .min
        g.boutOpen = try c.decodeIfPresent(Bool.self, forKey: .gateBoutOpen) ?? false
        g.bout = try c.decodeIfPresent(BoutNs.self, forKey: .gateBout) ?? g.bout
        // A state saved before short bouts were judged refused its bout's steps as they came: none is parked.
        g.shortBoutOpen = try c.decodeIfPresent(Bool.self, forKey: .shortBoutOpen) ?? true
        g.parkedRefused = try c.decodeIfPresent(Int.self, forKey: .parkedRefused) ?? 0
        g.shortBoutEvidence =
            try c.decodeIfPresent([Double].self, forKey: .shortBoutEvidence)
            ?? [Double](repeating: 0, count: g.decisions.count)
        // A state saved before short bouts were grouped has no group waiting.
        g.group = try c.decodeIfPresent(BoutGroup.self, forKey: .boutGroup) ?? BoutGroup()
        g.groupOnly.untilNs = try c.decodeIfPresent(Int64.self, forKey: .groupOnlyUntilNs) ?? .min
        // A state saved before weak peaks could open a bout opens none until its next window is scored.
        g.weakPeaksOpenBouts = try c.decodeIfPresent(Bool.self, forKey: .weakPeaksOpenBouts) ?? false
        // A state saved before the gate look-back has no step energies: its refused steps before then stay refused.
        g.stepEnergies = try c.decodeIfPresent(StepEnergies.self, forKey: .stepEnergies) ?? StepEnergies()
        // A state saved before path continuity remembers no window a path called walking.
        g.pathMemory = try c.decodeIfPresent(PathMemory.self, forKey: .pathMemory) ?? PathMemory()
        return g
    }
}
