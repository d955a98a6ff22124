import WallTimeCore

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

    // What the parameters say for the per-sample path, fixed when the detector is made (or decoded).
    /// `parameters.recognizer.enabled`.
    let recognizing: Bool
    /// `parameters.minSwingInWalk < parameters.minSwing`.
    let tracksWeakPeaks: Bool
    /// Whether the recognizer follows the three axes: only when its model uses an axis feature.
    let tracksAxes: Bool
    /// `parameters.maxSampleGap` in nanoseconds.
    let maxGapNs: Int64
    /// Time constant of each low-pass stage, in seconds.
    let lowPassTau: Double
    /// `parameters.zeroHoldSeconds` in nanoseconds; nil: off (an all-zero sample is a reading of |a| = 0).
    let zeroHoldNs: Int64?

    // The state, one group per concern, each changed in one file: the samples taken (here), the two peak trackers
    // (here), the rhythm gate (RhythmGate.swift), the recognizer (its own type) and the walking gate
    // (WalkingGate.swift).
    var lastTimeNs: Int64 = .min
    var filter = LowPassState()
    /// The peak tracker whose peaks (`minSwing`) are candidate steps.
    var peaks = PeakTracker()
    /// A second tracker with the `minSwingInWalk` hysteresis: the weak peaks a walk's rhythm may need.
    var weakPeaks = PeakTracker()
    var rhythm = RhythmState()
    var recognizer = WalkingRecognizer()
    var gate = WalkingGateState()
    /// The last valid sample, which an all-zero one repeats (ZeroHold.swift).
    var zeroHold = ZeroHold(gapNs: .max)

    /// `axisFeatures`: also follow the three axes and compute their window features when the model does not use them
    /// (`eval --features`, to study them; not kept in a saved state).
    public init(parameters: DetectorParameters = .standard, axisFeatures: Bool = false) {
        self.parameters = parameters
        recognizing = parameters.recognizer.enabled
        tracksWeakPeaks = parameters.minSwingInWalk < parameters.minSwing
        tracksAxes = Self.tracksAxes(parameters, axisFeatures: axisFeatures)
        lowPassTau = 1 / (2 * Double.pi * max(parameters.lowPassHz, 1e-6))
        maxGapNs = parameters.maxSampleGap < 9e9 ? Int64(max(parameters.maxSampleGap, 0) * 1e9) : .max
        zeroHoldNs = ZeroHold.holdNs(seconds: parameters.zeroHoldSeconds)
        zeroHold.gapNs = maxGapNs
        reserveCapacity()
    }

    /// Whether a detector with these parameters follows the three axes (see `tracksAxes`).
    static func tracksAxes(_ parameters: DetectorParameters, axisFeatures: Bool) -> Bool {
        parameters.recognizer.enabled && (axisFeatures || parameters.recognizer.usesAxes)
    }

    /// Reserves the rhythm's and the walking gate's whole capacity up front (again after decoding, which gives
    /// exact-size arrays).
    mutating func reserveCapacity() {
        rhythm.reserveCapacity(parameters)
        gate.reserveCapacity()
    }

    /// Pushes samples in order, as `push(time:x:y:z:_:)` one by one (a run a reader hands over at once). Runs of
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
        guard lastTimeNs != .min, !zeroHold.gapPending else { return start }
        var (last, s1, s2, strong, weak) = (lastTimeNs, filter.stage1, filter.stage2, peaks, weakPeaks)
        var (dtCached, alpha, wideAlpha) = (filter.cachedDtNs, filter.cachedAlpha, filter.cachedWideAlpha)
        var rec = QuietRecognizerState(recognizer, recognizing: recognizing)
        let (deadline, maxGap, tau) = (rhythm.boutDeadlineNs, maxGapNs, lowPassTau)
        let (minSwing, minSwingInWalk) = (parameters.minSwing, parameters.minSwingInWalk)
        let (axes, weakOn, recognizing) = (tracksAxes, tracksWeakPeaks, recognizing)
        var i = start
        while i < samples.count {
            let s = samples[i]
            let magnitude = (s.x * s.x + s.y * s.y + s.z * s.z).squareRoot()
            guard magnitude > 0, magnitude < maximumPlausibleAcceleration, s.timeNs > last, s.timeNs <= deadline
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
            if tick {
                // A tick that completes no window: the recognizer takes it with the state it would have here.
                rec.handBack(to: &recognizer, lastNs: last, value: s2, axes: axes)
                _ = recognizer.advance(timeNs: s.timeNs, value: n2, raw: magnitude, wideAlpha: wideAlpha, score: false)
                rec.reload(after: recognizer)
            } else if recognizing {
                rec.area += rec.excess * Double(dtNs)
                rec.excess = WalkingRecognizer.followRaw(
                    &rec.wide1, &rec.wide2, raw: magnitude, value: n2, wideAlpha: wideAlpha)
            }
            (s1, s2, strong, weak, last) = (n1, n2, nextStrong, nextWeak, s.timeNs)
            i += 1
        }
        (filter.cachedDtNs, filter.cachedAlpha, filter.cachedWideAlpha) = (dtCached, alpha, wideAlpha)
        guard i > start else { return i }
        counters.accepted += i - start
        zeroHold.remember(x: samples[i - 1].x, y: samples[i - 1].y, z: samples[i - 1].z)
        (lastTimeNs, filter.stage1, filter.stage2, peaks, weakPeaks) = (last, s1, s2, strong, weak)
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
    public mutating func push(time: Instant, x: Double, y: Double, z: Double, _ emit: (DetectorEvent) -> Void) {
        push(timeNs: time.nanosecondsSinceEpoch, x: x, y: y, z: z, emit)
    }

    /// Pushes one sample given as the magnitude of acceleration in m/s². NaN, infinite, negative or absurd values
    /// (≥ 50 g) are dropped and counted in `counters.invalid`; samples not after the previous one in time are dropped
    /// and counted in `counters.outOfOrder`.
    public mutating func push(time: Instant, magnitude: Double, _ emit: (DetectorEvent) -> Void) {
        push(timeNs: time.nanosecondsSinceEpoch, magnitude: magnitude, emit)
    }

    /// `push(time:x:y:z:_:)` with the time in nanoseconds, as the detector's state holds it.
    @inline(__always)
    mutating func push(timeNs: Int64, x: Double, y: Double, z: Double, _ emit: (DetectorEvent) -> Void) {
        let magnitude = (x * x + y * y + z * z).squareRoot()  // never below 0: NaN is what the test below refuses
        guard magnitude < maximumPlausibleAcceleration, timeNs > lastTimeNs else {  // false for NaN
            drop(timeNs: timeNs, magnitude: magnitude)
            return
        }
        guard magnitude > 0 else { return zeroSample(timeNs: timeNs, axes: true, emit) }  // a missing value (0,0,0)
        zeroHold.remember(x: x, y: y, z: z)
        // Three axes help a recognizer whose model uses them; `y = z = 0` is how magnitude-only readers deliver |a|.
        if tracksAxes && (y != 0 || z != 0) { recognizer.addAxes(x: x, y: y, z: z) }
        take(timeNs: timeNs, magnitude: magnitude, emit)
    }

    /// `push(time:magnitude:_:)` with the time in nanoseconds, as the detector's state holds it. Inlined into its
    /// callers: what every sample does stays here, what few do (a dropped sample, a restart, a peak, a tick) is a call.
    @inline(__always)
    mutating func push(timeNs: Int64, magnitude: Double, _ emit: (DetectorEvent) -> Void) {
        guard magnitude >= 0, magnitude < maximumPlausibleAcceleration, timeNs > lastTimeNs else {  // false for NaN
            drop(timeNs: timeNs, magnitude: magnitude)
            return
        }
        guard magnitude > 0 else { return zeroSample(timeNs: timeNs, axes: false, emit) }  // a missing value
        zeroHold.remember(x: magnitude, y: 0, z: 0)
        take(timeNs: timeNs, magnitude: magnitude, emit)
    }

    /// A sample `push` accepted (valid and after the last one), or the one a zero repeats (ZeroHold.swift).
    @inline(__always)
    mutating func take(timeNs: Int64, magnitude: Double, _ emit: (DetectorEvent) -> Void) {
        counters.accepted += 1
        let (dtNs, overflow) = timeNs.subtractingReportingOverflow(lastTimeNs)
        let first = lastTimeNs == .min
        lastTimeNs = timeNs
        if first || overflow || dtNs > zeroHold.gapNs {  // `maxGapNs`, or a run of zeros past the hold
            restart(at: timeNs, value: magnitude, emit)
            return
        }
        if dtNs != filter.cachedDtNs {
            (filter.cachedAlpha, filter.cachedWideAlpha) = Self.filterCoefficients(dtNs: dtNs, tau: lowPassTau)
            filter.cachedDtNs = dtNs
        }
        Self.lowPass(&filter.stage1, &filter.stage2, magnitude, filter.cachedAlpha)
        let value = filter.stage2
        if let peak = peaks.push(value, at: timeNs, hysteresis: parameters.minSwing) {
            strongPeak(at: peak.timeNs, swing: peak.swing, emit)
        }
        if tracksWeakPeaks, let peak = weakPeaks.push(value, at: timeNs, hysteresis: parameters.minSwingInWalk) {
            weakPeak(at: peak.timeNs, swing: peak.swing, emit)
        }
        if timeNs > rhythm.boutDeadlineNs { boutDeadlinePassed(at: timeNs, emit) }
        if recognizing
            && recognizer.push(timeNs: timeNs, value: value, raw: magnitude, wideAlpha: filter.cachedWideAlpha)
        {
            tickReached(timeNs: timeNs, value: value, raw: magnitude, emit)
        }
    }

    /// Counts a sample `push` drops: NaN, infinite, negative or absurd (`invalid`), or not after the last one.
    @inline(never)
    mutating func drop(timeNs: Int64, magnitude: Double) {
        if magnitude >= 0, magnitude < maximumPlausibleAcceleration {
            counters.outOfOrder += 1
        } else {
            counters.invalid += 1
        }
    }

    /// A peak of the strong tracker: a candidate step.
    @inline(never)
    mutating func strongPeak(at timeNs: Int64, swing: Double, _ emit: (DetectorEvent) -> Void) {
        if recognizing { recognizer.notePeak(at: timeNs) }
        if !tracksWeakPeaks && swing >= parameters.minSwing { notePeakForLookBack(at: timeNs) }
        candidate(at: timeNs, swing: swing, emit)
    }

    /// A peak of the weak tracker.
    @inline(never)
    mutating func weakPeak(at timeNs: Int64, swing: Double, _ emit: (DetectorEvent) -> Void) {
        if swing >= parameters.minSwingInWalk { notePeakForLookBack(at: timeNs) }
        // In a window a physical path calls walking, a weak peak may open a bout (inside one, it waits as any).
        if !rhythm.inBout && weakPeaksMayOpen(at: timeNs) {
            candidate(at: timeNs, swing: swing, emit)
        } else {
            weakCandidate(at: timeNs, swing: swing, emit)
        }
    }

    /// The sample reached the recognizer's next tick: the ticks, and the window they complete if any. Windows are
    /// scored only while the rhythm has something for them to judge.
    @inline(never)
    mutating func tickReached(timeNs: Int64, value: Double, raw: Double, _ emit: (DetectorEvent) -> Void) {
        let score =
            gate.windowSkip != .next
            && (rhythm.inBout || !rhythm.pending.isEmpty || !gate.held.isEmpty || !gate.undecided.isEmpty)
        let wideAlpha = filter.cachedWideAlpha
        guard recognizer.advance(timeNs: timeNs, value: value, raw: raw, wideAlpha: wideAlpha, score: score) else {
            return
        }
        if let window = recognizer.window {
            recognizer.window = nil
            windowScored(window, emit)
        } else {
            gate.windowSkipped()
        }
    }

    /// The time of the last sample taken (nil before the first).
    public var lastSample: Instant? { lastTimeNs == .min ? nil : Instant(nanosecondsSinceEpoch: lastTimeNs) }

    /// Steps before this time are final: no later sample can make the detector report a step earlier than it (a
    /// peak still being tracked and candidates waiting for a bout's confirmation are at or after it). Nil before the
    /// first sample. A fetch closes its window no later than this, so steps credited retroactively are never lost.
    public var settled: Instant? { settledNs.map(Instant.init(nanosecondsSinceEpoch:)) }

    /// `settled` in nanoseconds.
    var settledNs: Int64? {
        if lastTimeNs == .min { return nil }
        // The next peak can be no earlier than the one being tracked, or than now.
        let nextPeak = peaks.seekingPeak ? min(peaks.extremeNs, lastTimeNs) : lastTimeNs
        var settled = nextPeak
        if let first = rhythm.pending.first { settled = min(settled, first) }
        if rhythm.weakPeakNs != .min { settled = min(settled, rhythm.weakPeakNs) }
        if let first = gate.held.first { settled = min(settled, first.timeNs) }
        if let first = gate.undecided.first { settled = min(settled, first) }
        // A bout credited later may count peaks up to `lookBackSeconds` before its first step: those remembered, and
        // the one the weak tracker is following.
        if lookBackNs > 0 && !(rhythm.inBout && rhythm.boutCredited) {
            let nextWeak = weakPeaks.seekingPeak ? min(weakPeaks.extremeNs, lastTimeNs) : lastTimeNs
            let oldest = min(rhythm.recentPeaks.first ?? .max, tracksWeakPeaks ? nextWeak : .max)
            settled = min(settled, max(oldest, Self.before(rhythm.pending.first ?? nextPeak, lookBackNs)))
        }
        // In a bout, a missed step may be filled in halfway between the last step and the next peak, and the rail
        // bridge's sooner (RailBridge.swift).
        if rhythm.inBout && parameters.fillMissedSteps && nextPeak > rhythm.bout.endNs {
            settled = min(settled, rhythm.bout.endNs + missedStepSettledOffset(gapNs: nextPeak - rhythm.bout.endNs))
        }
        return settled
    }

    /// Ends the stream: closes an open walking bout. Candidates never confirmed are discarded. A sample pushed after
    /// it, however soon, starts a new stream (as after a gap): going on from the closed walk credited its last
    /// seconds again (a followed file appended after its walk was closed for lateness: 131 steps for 113).
    public mutating func finish(_ emit: (DetectorEvent) -> Void) {
        endBout(emit)
        if parameters.recognizer.enabled { flushRecognizer(emit) }
        rhythm.forgetPendingRun()
        forgetRecentPeaks()
        peaks.seekingPeak = false  // a peak still being tracked can no longer become a step
        peaks.extremeNs = lastTimeNs
        if lastTimeNs != .min { zeroHold.gapNs = -1 }  // the next sample restarts (`take`), and is saved so
    }

    mutating func restart(at timeNs: Int64, value: Double, _ emit: (DetectorEvent) -> Void) {
        endBout(emit)
        if parameters.recognizer.enabled {
            flushRecognizer(emit)
            if recognizer.push(timeNs: timeNs, value: value, raw: value, wideAlpha: 0) {
                _ = recognizer.advance(timeNs: timeNs, value: value, raw: value, wideAlpha: 0, score: false)
            }
        }
        rhythm.restart()
        zeroHold.gapNs = maxGapNs
        gate.weakPeaksOpenBouts = false  // the walk a window saw before the gap is over
        gate.pathMemory = PathMemory()
        filter.stage1 = value
        filter.stage2 = value
        peaks.restart(at: timeNs, value: value)
        weakPeaks.restart(at: timeNs, value: value)
    }
}

/// The two-pole low-pass on |a| and the coefficients cached for the last time step (changed in StepDetector.swift).
struct LowPassState: Sendable {
    var stage1 = 0.0
    var stage2 = 0.0
    var cachedDtNs: Int64 = -1
    var cachedAlpha = 0.0
    /// The recognizer's wide filter coefficient for the same time step (not saved: recomputed with `cachedAlpha`).
    var cachedWideAlpha = 0.0
}

/// The recognizer's per-sample state as local copies during `StepDetector.quietRun`, so a run of samples costs no
/// store and reload of it per sample.
struct QuietRecognizerState {
    var wide1: Double, wide2: Double, excess: Double, area: Double
    var sumX: Double, sumY: Double, sumZ: Double, axisSamples: Int
    var nextTickNs: Int64

    @inline(__always)
    init(_ r: WalkingRecognizer, recognizing: Bool) {
        (wide1, wide2, excess, area) = (r.wide1, r.wide2, r.lastExcess, r.tickArea)
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
        (r.wide1, r.wide2, r.lastExcess, r.tickArea) = (wide1, wide2, excess, area)
        (r.previousNs, r.previousValue) = (lastNs, value)
        if axes { (r.sumX, r.sumY, r.sumZ, r.axisSamples) = (sumX, sumY, sumZ, axisSamples) }
    }

    /// Takes back what a tick of the recognizer changed (it took the tick's sample into the wide filter).
    @inline(__always)
    mutating func reload(after r: WalkingRecognizer) {
        (wide1, wide2, excess, area, nextTickNs) = (r.wide1, r.wide2, r.lastExcess, r.tickArea, r.nextTickNs)
        (sumX, sumY, sumZ, axisSamples) = (r.sumX, r.sumY, r.sumZ, r.axisSamples)
    }
}
