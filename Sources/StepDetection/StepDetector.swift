/// Streaming step detector: push samples in time order, receive step events and walking bouts.
///
/// 1. The magnitude of acceleration goes through a two-pole low-pass filter whose coefficient follows each sample's
///    own time step, so any rate from 12.5 to 500 Hz and jittered timestamps give the same signal.
/// 2. A hysteresis peak tracker (`minSwing`) turns it into candidate steps: the time of each peak and its swing.
/// 3. A walking gate keeps a run of candidates whose strides (step to next-but-one step, so an asymmetric gait is
///    regular) differ by at most `rhythmTolerance` and whose swings by at most `swingTolerance`; an interval about
///    twice the previous one counts a missed step in between, unless it is the long half of a short-long gait
///    (`shortLongGait`). `confirmSteps` such candidates open a bout (one confirmed from peaks a stride apart whose
///    next peak comes half a stride later is halved: `fillStrideStart`); the bout
///    is credited (all its steps reported, the first ones retroactively) once it reaches `minBoutSteps` steps with
///    at most `irregularIntervalsAllowed` intervals off its rhythm. A credited bout counts every candidate until no
///    step follows within `max(maxStepInterval, 2.5 × its step interval)`.
///
/// Fixed memory (the pending run holds at most `max(2 × confirmSteps, minBoutSteps) + 2` times, reserved up
/// front), no allocation per sample, no statistics over the whole history, integer nanosecond time. The whole state
/// is `Codable`: save it mid-stream, decode it later and continue, and the result equals one pass.
public struct StepDetector: Sendable, Codable {
    public let parameters: DetectorParameters
    public internal(set) var counters = DetectorCounters()

    var lastTimeNs: Int64 = .min
    // Low-pass filter state and the coefficient cached for the last time step.
    var stage1 = 0.0
    var stage2 = 0.0
    var cachedDtNs: Int64 = -1
    var cachedAlpha = 0.0
    /// The recognizer's wide filter coefficient for the same time step (not saved: recomputed with `cachedAlpha`).
    var cachedWideAlpha = 0.0
    /// The peak tracker whose peaks (`minSwing`) are candidate steps.
    var peaks = PeakTracker()
    // Walking gate: the run of candidates waiting for confirmation, and the current bout.
    var lastCandidateNs: Int64 = .min
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
    /// A second tracker with the `minSwingInWalk` hysteresis: the weak peaks a walk's rhythm may need.
    var weakPeaks = PeakTracker()
    /// `parameters.minSwingInWalk < parameters.minSwing`, kept apart for the per-sample path.
    var tracksWeakPeaks: Bool
    var inBout = false
    /// Whether the open bout has reached `minBoutSteps` and its steps were reported.
    var boutCredited = false
    /// Irregular intervals seen in the open bout before it was credited.
    var irregularIntervals = 0
    var bout = WalkingBout(startNs: 0, endNs: 0, steps: 0)
    /// The open bout ends at the first sample after this time (`.max` when no bout is open).
    var boutDeadlineNs: Int64 = .max
    /// `parameters.maxSampleGap` in nanoseconds.
    var maxGapNs: Int64
    /// Time constant of each low-pass stage, in seconds.
    var lowPassTau: Double
    // Walking gate: the recognizer, its latest decisions, the credited steps waiting for them, the bout it reports.
    var recognizer = WalkingRecognizer()
    var decisions: [WalkingDecision] = []
    var held: [HeldEvent] = []
    var undecided: [Int64] = []
    var walkingRun = false
    /// Where the gate is in skipping windows inside a confident walk.
    var windowSkip = WindowSkip.none
    var latestWindowStartNs: Int64 = .min
    var gateBoutOpen = false
    var gateBout = WalkingBout(startNs: 0, endNs: 0, steps: 0)
    /// `parameters.recognizer.enabled`, kept apart for the per-sample path.
    var recognizing: Bool
    /// Whether the recognizer follows the three axes: only when its model uses an axis feature.
    var tracksAxes: Bool

    /// `axisFeatures`: also follow the three axes and compute their window features when the model does not use them
    /// (`eval --features`, to study them; not kept in a saved state).
    public init(parameters: DetectorParameters = .standard, axisFeatures: Bool = false) {
        self.parameters = parameters
        recognizing = parameters.recognizer.enabled
        tracksWeakPeaks = parameters.minSwingInWalk < parameters.minSwing
        tracksAxes = Self.tracksAxes(parameters, axisFeatures: axisFeatures)
        lowPassTau = 1 / (2 * Double.pi * max(parameters.lowPassHz, 1e-6))
        maxGapNs = parameters.maxSampleGap < 9e9 ? Int64(max(parameters.maxSampleGap, 0) * 1e9) : .max
        reservePending()
    }

    /// Whether a detector with these parameters follows the three axes (see `tracksAxes`).
    static func tracksAxes(_ parameters: DetectorParameters, axisFeatures: Bool) -> Bool {
        parameters.recognizer.enabled && (axisFeatures || parameters.recognizer.model.usesAxes)
    }

    /// Reserves the pending run's whole capacity up front (again after decoding, which gives exact-size arrays):
    /// real candidates plus at most one filled-in step between each two of them, or a bout not yet credited.
    mutating func reservePending() {
        let capacity = max(2 * parameters.confirmSteps, parameters.minBoutSteps) + 2
        if pending.capacity < capacity { pending.reserveCapacity(capacity) }
        if pendingSwings.capacity < capacity { pendingSwings.reserveCapacity(capacity) }
        if decisions.capacity < Self.decisionCapacity { decisions.reserveCapacity(Self.decisionCapacity) }
        if held.capacity < Self.heldCapacity { held.reserveCapacity(Self.heldCapacity) }
        if undecided.capacity < Self.heldCapacity { undecided.reserveCapacity(Self.heldCapacity) }
    }

    /// Pushes samples in order, as `push(timeNs:x:y:z:_:)` one by one (a run a reader hands over at once). Runs of
    /// quiet samples go through `quietRun`, whose state stays in registers; each other sample through `push` itself.
    public mutating func push(_ samples: UnsafeBufferPointer<AccelerationSample>, _ emit: (DetectorEvent) -> Void) {
        var i = 0
        while i < samples.count {
            i = quietRun(samples, from: i)
            guard i < samples.count else { break }
            let s = samples[i]
            push(timeNs: s.timeNs, x: s.x, y: s.y, z: s.z, emit)
            i += 1
        }
    }

    /// Takes samples from `start` on while each is quiet: valid, in order, no gap before it, and moving only the
    /// filters, the peak trackers' extremes and the recognizer's ticks (no candidate, no bout ended, at most one tick
    /// reached and no window completed by it). Returns the index of the first sample that is not. The same arithmetic
    /// as `push`, in the same order, on local copies written back at the end: a run costs no store and reload of the
    /// state per sample, whose filters would otherwise wait on them. Its acceptance checks are `push`'s (which also
    /// counts what it drops); a sample failing one ends the run and goes to `push`. (Only the time-step cache may
    /// already hold that sample's coefficients, which `push` would compute alike.)
    mutating func quietRun(_ samples: UnsafeBufferPointer<AccelerationSample>, from start: Int) -> Int {
        guard lastTimeNs != .min else { return start }
        var (last, s1, s2, strong, weak) = (lastTimeNs, stage1, stage2, peaks, weakPeaks)
        var (dtCached, alpha, wideAlpha) = (cachedDtNs, cachedAlpha, cachedWideAlpha)
        var rec = QuietRecognizerState(recognizer, recognizing: recognizing)
        let (deadline, maxGap, tau) = (boutDeadlineNs, maxGapNs, lowPassTau)
        let (minSwing, minSwingInWalk) = (parameters.minSwing, parameters.minSwingInWalk)
        let (axes, weakOn, recognizing) = (tracksAxes, tracksWeakPeaks, recognizing)
        var i = start
        while i < samples.count {
            let s = samples[i]
            let magnitude = (s.x * s.x + s.y * s.y + s.z * s.z).squareRoot()
            guard magnitude >= 0, magnitude < maximumPlausibleAcceleration, s.timeNs > last, s.timeNs <= deadline
            else { break }
            let tick = recognizing && s.timeNs >= rec.nextTickNs
            if tick && !recognizer.quietTick(at: s.timeNs) { break }
            let (dtNs, overflow) = s.timeNs.subtractingReportingOverflow(last)
            guard !overflow, dtNs <= maxGap else { break }
            if dtNs != dtCached {  // only a cache: kept even when this sample ends the run
                (alpha, wideAlpha) = Self.filterCoefficients(dtNs: dtNs, tau: tau)
                dtCached = dtNs
            }
            var n1 = s1
            var n2 = s2
            Self.lowPass(&n1, &n2, magnitude, alpha)
            var nextStrong = strong
            var nextWeak = weak
            if nextStrong.push(n2, at: s.timeNs, hysteresis: minSwing) != nil { break }
            if weakOn && nextWeak.push(n2, at: s.timeNs, hysteresis: minSwingInWalk) != nil { break }
            if axes && (s.y != 0 || s.z != 0) { rec.addAxes(s) }
            if recognizing {
                WalkingRecognizer.followRaw(
                    &rec.wide1, &rec.wide2, &rec.excess, raw: magnitude, value: n2, wideAlpha: wideAlpha)
            }
            if tick {
                // A tick that completes no window: the recognizer takes it with the state it would have here.
                rec.handBack(to: &recognizer, lastNs: last, value: s2, axes: axes)
                _ = recognizer.advance(timeNs: s.timeNs, value: n2, raw: magnitude, score: false)
                rec.reload(after: recognizer)
            }
            (s1, s2, strong, weak, last) = (n1, n2, nextStrong, nextWeak, s.timeNs)
            i += 1
        }
        (cachedDtNs, cachedAlpha, cachedWideAlpha) = (dtCached, alpha, wideAlpha)
        guard i > start else { return i }
        counters.accepted += i - start
        (lastTimeNs, stage1, stage2, peaks, weakPeaks) = (last, s1, s2, strong, weak)
        if recognizing { rec.handBack(to: &recognizer, lastNs: last, value: s2, axes: axes) }
        return i
    }

    /// The two low-pass coefficients for a time step: the detector's and the recognizer's wide filter's.
    @inline(__always)
    static func filterCoefficients(dtNs: Int64, tau: Double) -> (alpha: Double, wideAlpha: Double) {
        // Exact for any time step: the same filter at any rate.
        let alpha = (Double(dtNs) * 1e-9 / tau).lowPassCoefficient
        return (alpha, WalkingRecognizer.wideAlpha(alpha))
    }

    /// One step of the two-pole low-pass.
    @inline(__always)
    static func lowPass(_ stage1: inout Double, _ stage2: inout Double, _ magnitude: Double, _ alpha: Double) {
        stage1 += (magnitude - stage1) * alpha
        stage2 += (stage1 - stage2) * alpha
    }

    /// Pushes one sample with three axes in m/s². Magnitude-only data may come as `x` = magnitude, `y` = `z` = 0.
    public mutating func push(timeNs: Int64, x: Double, y: Double, z: Double, _ emit: (DetectorEvent) -> Void) {
        let magnitude = (x * x + y * y + z * z).squareRoot()
        // Three axes help a recognizer whose model uses them; `y = z = 0` is how magnitude-only readers deliver |a|.
        if tracksAxes && (y != 0 || z != 0) && magnitude < maximumPlausibleAcceleration
            && timeNs > lastTimeNs
        {
            recognizer.addAxes(x: x, y: y, z: z)
        }
        push(timeNs: timeNs, magnitude: magnitude, emit)
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
            (cachedAlpha, cachedWideAlpha) = Self.filterCoefficients(dtNs: dtNs, tau: lowPassTau)
            cachedDtNs = dtNs
        }
        Self.lowPass(&stage1, &stage2, magnitude, cachedAlpha)
        let value = stage2
        if let peak = peaks.push(value, at: timeNs, hysteresis: parameters.minSwing) {
            if recognizing { recognizer.notePeak(at: peak.timeNs) }
            candidate(at: peak.timeNs, swing: peak.swing, emit)
        }
        if tracksWeakPeaks, let peak = weakPeaks.push(value, at: timeNs, hysteresis: parameters.minSwingInWalk) {
            weakCandidate(at: peak.timeNs, swing: peak.swing, emit)
        }
        if timeNs > boutDeadlineNs { endBout(emit) }
        // Windows are scored only while the rhythm has something for them to judge.
        if recognizing && recognizer.push(timeNs: timeNs, value: value, raw: magnitude, wideAlpha: cachedWideAlpha)
            && recognizer.advance(
                timeNs: timeNs, value: value, raw: magnitude,
                score: windowSkip != .next
                    && (inBout || !pending.isEmpty || !held.isEmpty || !undecided.isEmpty))
        {
            if let window = recognizer.window {
                recognizer.window = nil
                windowScored(window, emit)
            } else {
                windowSkip = windowSkip == .next ? .skipped : .none
            }
        }
    }

    /// Steps before this time (ns) are final: no later sample can make the detector report a step earlier than it
    /// (a peak still being tracked and candidates waiting for a bout's confirmation are at or after it). Nil before
    /// the first sample. A fetch closes its window no later than this, so steps credited retroactively are never lost.
    public var settledNs: Int64? {
        if lastTimeNs == .min { return nil }
        // The next peak can be no earlier than the one being tracked, or than now.
        let nextPeak = peaks.seekingPeak ? min(peaks.extremeNs, lastTimeNs) : lastTimeNs
        var settled = nextPeak
        if let first = pending.first { settled = min(settled, first) }
        if weakPeakNs != .min { settled = min(settled, weakPeakNs) }
        if let first = held.first { settled = min(settled, first.timeNs) }
        if let first = undecided.first { settled = min(settled, first) }
        // In a bout, a missed step may be filled in halfway between the last step and the next peak.
        if inBout && parameters.fillMissedSteps && nextPeak > bout.endNs {
            settled = min(settled, bout.endNs + (nextPeak - bout.endNs) / 2)
        }
        return settled
    }

    /// Ends the stream: closes an open walking bout. Candidates never confirmed are discarded.
    public mutating func finish(_ emit: (DetectorEvent) -> Void) {
        endBout(emit)
        if parameters.recognizer.enabled { flushRecognizer(emit) }
        pending.removeAll(keepingCapacity: true)
        pendingSwings.removeAll(keepingCapacity: true)
        peaks.seekingPeak = false  // a peak still being tracked can no longer become a step
        peaks.extremeNs = lastTimeNs
    }

    mutating func restart(at timeNs: Int64, value: Double, _ emit: (DetectorEvent) -> Void) {
        endBout(emit)
        if parameters.recognizer.enabled {
            flushRecognizer(emit)
            if recognizer.push(timeNs: timeNs, value: value, raw: value, wideAlpha: 0) {
                _ = recognizer.advance(timeNs: timeNs, value: value, raw: value, score: false)
            }
        }
        pending.removeAll(keepingCapacity: true)
        pendingSwings.removeAll(keepingCapacity: true)
        lastCandidateNs = .min
        stage1 = value
        stage2 = value
        peaks.restart(at: timeNs, value: value)
        weakPeaks.restart(at: timeNs, value: value)
    }
}

/// The recognizer's per-sample state as local copies during `StepDetector.quietRun`, so a run of samples costs no
/// store and reload of it per sample.
struct QuietRecognizerState {
    var wide1: Double, wide2: Double, excess: Double
    var sumX: Double, sumY: Double, sumZ: Double, axisSamples: Int
    var nextTickNs: Int64

    @inline(__always)
    init(_ r: WalkingRecognizer, recognizing: Bool) {
        (wide1, wide2, excess) = (r.wide1, r.wide2, r.tickExcess)
        (sumX, sumY, sumZ, axisSamples) = (r.sumX, r.sumY, r.sumZ, r.axisSamples)
        nextTickNs = recognizing ? r.nextTickNs : .max
    }

    @inline(__always)
    mutating func addAxes(_ s: AccelerationSample) {
        sumX += s.x
        sumY += s.y
        sumZ += s.z
        axisSamples += 1
    }

    /// Hands the recognizer its per-sample state as the samples taken so far left it (`lastNs`, `value`: the latest).
    @inline(__always)
    func handBack(to r: inout WalkingRecognizer, lastNs: Int64, value: Double, axes: Bool) {
        (r.wide1, r.wide2, r.tickExcess) = (wide1, wide2, excess)
        (r.previousNs, r.previousValue) = (lastNs, value)
        if axes { (r.sumX, r.sumY, r.sumZ, r.axisSamples) = (sumX, sumY, sumZ, axisSamples) }
    }

    /// Takes back what a tick of the recognizer changed.
    @inline(__always)
    mutating func reload(after r: WalkingRecognizer) {
        (excess, nextTickNs) = (r.tickExcess, r.nextTickNs)
        (sumX, sumY, sumZ, axisSamples) = (r.sumX, r.sumY, r.sumZ, r.axisSamples)
    }
}
