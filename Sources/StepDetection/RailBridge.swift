/// The rail bridge (issue #47, `DetectorParameters.railBridgeSeconds`): a walk a hand-on-a-rail path recognised is
/// counted across the gaps in its peaks.
///
/// A hand held on a treadmill's rail feels each step only through the body's carry. Its |a| peaks stray ±0.2 s from
/// the steps, often fall between two of them, and vanish for a few seconds, while the window's axes keep saying the
/// body steps (the held-arm or carried-arm path). Judged peak by peak, the rhythm broke such a walk into bouts 2-3 s
/// apart: a peak 1.4 steps after the last was no step, 2.5 steps was no missed step, and after 2 s without either
/// the bout ended. Only rail-path windows whose motion lies across gravity (under `minAlongShare` of its moving
/// energy along it) count here: a pocket phone or a free wrist, whose rail-path windows push along gravity, keeps the
/// rhythm's own rules. While the latest such window ended at most `pathContinuitySeconds` before the bout's last
/// step, a gap after that step longer than `missedStepRatio` allows and up to `railBridgeSeconds`:
/// - holds as many steps as the bout's step interval fits in it, rounded, spaced evenly up to the peak that ends it;
/// - may end at a weak peak, which is a step when the next peak is no nearer to it than `weakStepRatio`'s lower bound
///   of a step interval, or when none came by the bout's deadline;
/// - keeps the bout open (`boutTimeout`);
/// - and only when its inside moved as the walk does (`railGapMoves`: not a stop).
/// A bout whose step interval is about that window's stride counts strides and is halved (`railLockedAtStride`).
/// Nothing else changes: the steps are judged by the walking recognizer as every other, the step interval moves only
/// on steady strong peaks, and without a rail path's window nothing is bridged. Nothing is saved but
/// `PathMemory.railEndNs` and `railStrideNs`. Measured: bench/rail43_result.md.
extension StepDetector {
    /// Whether a gap after the open bout's last step may be bridged: a rail path's window covers that step (and
    /// missed steps are filled at all: `fillMissedSteps`).
    /// Inlined, as the rail bridge's other checks at each peak: out of line, a getter on the detector copied the
    /// detector's whole state at every call (7 instructions a sample, bench/detector_instructions.sh).
    @inline(__always)
    var bridgesRailGaps: Bool {
        parameters.railBridgeSeconds > 0 && parameters.fillMissedSteps && rhythm.inBout
            && gate.pathMemory.railCovers(rhythm.bout.endNs, continuityNs: pathContinuityNs)
    }

    /// The steps a gap of `gap` seconds after the bout's last step holds, the peak ending it included, when the rail
    /// bridge applies: nil without a rail window over the bout, for a gap a missed step explains (`missedStepRatio`)
    /// or longer than `railBridgeSeconds`, and for one that did not move as the walk does.
    @inline(__always)
    func railBridgeSteps(gap: Double) -> Int? {
        guard bridgesRailGaps, gap <= parameters.railBridgeSeconds,
            gap > Self.missedStepRatio.upperBound * rhythm.stepInterval, railGapMoves(seconds: gap)
        else { return nil }
        return Int((gap / rhythm.stepInterval).rounded())
    }

    /// Whether the `seconds` after the bout's last step moved as the walk does: their inside (half a step interval in
    /// from each end, where the steps around the gap still ring in the band-pass) has a moving energy a tick of at
    /// least `railBridgeMotion` of the recognizer's ring's (the newest 10.24 s). A hand that stops on the rail with
    /// the body (a stop at a door, a trolley waiting) leaves only the sensor's noise; a walk whose jolts faded still
    /// carries the arm.
    @inline(__always)
    func railGapMoves(seconds: Double) -> Bool {
        let margin = Int64(rhythm.stepInterval * 0.5e9)
        let startNs = rhythm.bout.endNs + margin
        let endNs = rhythm.bout.endNs + Int64(seconds * 1e9) - margin
        guard endNs > startNs else { return true }
        let gap = recognizer.movingEnergy(fromNs: startNs, toNs: endNs).total
        let ring = recognizer.movingEnergy(fromNs: .min, toNs: .max).total
        let gapTicks = max(1, Double(endNs - startNs) / Double(WalkingRecognizer.tickNs))
        return ring > 0 && gap / gapTicks >= Self.railBridgeMotion * ring / Double(max(1, recognizer.filled))
    }

    /// The least share of the ring's moving energy a tick that a bridged gap's ticks must have, each (`railGapMoves`).
    static let railBridgeMotion = 0.4

    /// Adds the `steps − 1` steps a bridged gap holds before the step at `timeNs`, evenly between the bout's last step
    /// and it.
    mutating func fillRailGap(before timeNs: Int64, steps: Int, _ emit: (DetectorEvent) -> Void) {
        guard steps > 1 else { return }
        let start = rhythm.bout.endNs
        let span = timeNs - start
        for k in 1..<steps {
            addBoutStep(start + span / Int64(steps) * Int64(k), emit)
        }
    }

    /// How far after the open bout's last step `settled` may reach while a missed step may still be filled in: half
    /// the gap so far, and while the rail bridge is on no more than half a step interval (a bridged gap of n step
    /// intervals, rounded, holds steps at least three quarters of one apart). It holds whether or not a rail path's
    /// window covers the bout yet, so that a window scored later never makes `settled` go back.
    func missedStepSettledOffset(gapNs: Int64) -> Int64 {
        parameters.railBridgeSeconds > 0 ? min(gapNs / 2, Int64(rhythm.stepInterval * 0.5e9)) : gapNs / 2
    }

    /// The open bout's deadline passed at `timeNs`: it ends, unless a weak peak waits in a bridged gap with no peak
    /// after it for at least `weakStepRatio`'s lower bound of a step interval. That peak is a step, and the bout goes
    /// on from it. Out of line: it runs once a bout.
    @inline(never)
    mutating func boutDeadlinePassed(at timeNs: Int64, _ emit: (DetectorEvent) -> Void) {
        let weakNs = rhythm.weakPeakNs
        if rhythm.inBout, weakNs != .min,
            let steps = railBridgeSteps(gap: Double(weakNs - rhythm.bout.endNs) * 1e-9),
            Double(timeNs - weakNs) * 1e-9 >= Self.weakStepRatio.lowerBound * rhythm.stepInterval
        {
            rhythm.weakPeakNs = .min
            rhythm.lastCandidateNs = weakNs
            rhythm.lastStepWeak = true
            fillRailGap(before: weakNs, steps: steps, emit)
            addBoutStep(weakNs, emit)
            if timeNs <= rhythm.boutDeadlineNs { return }
        }
        endBout(emit)
    }

    /// Whether the open bout counts strides, not steps: the rail bridge applies and its step interval is about the
    /// stride of the rail window over it (`railStrideLock`). A hand on a rail swings |a| past `minSwing` about once a
    /// stride, so a bout confirmed from those peaks alone counted every other step (DSADS p3's 15° walks: 1.31 s a
    /// step at first, where the window's motion repeats every 1.40-1.56 s).
    @inline(__always)
    var railLockedAtStride: Bool {
        let strideNs = gate.pathMemory.railStrideNs
        guard strideNs > 0, bridgesRailGaps else { return false }
        return Self.railStrideLock.contains(rhythm.stepInterval * 1e9 / Double(strideNs))
    }

    /// The step interval to the rail window's stride that means the bout counts strides.
    static let railStrideLock = 0.75...1.33

    /// Halves a bout that counts strides: the steps not yet credited get one between each two (`halveBout`, as when
    /// the rhythm first sees a walk once a stride); a credited bout's next steps come at half the interval, the one
    /// in the gap to the next peak filled as a missed step.
    mutating func halveRailBout() {
        guard rhythm.boutCredited else { return halveBout() }
        rhythm.stepInterval /= 2
        updateBoutDeadline()
    }
}
