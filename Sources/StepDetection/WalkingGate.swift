import WallTimeCore

/// Skipping windows inside a confident walk: none; the next due window is skipped (the walk's last window scored at
/// least `RecognizerParameters.confident`); the last due window was skipped (the newest ticks are in no scored window
/// yet, so the end of the stream scores them).
enum WindowSkip: String, Sendable, Codable {
    case none, next, skipped
}

/// A step the rhythm credited (or the end of its bout), held until every window of motion around it is scored.
struct HeldEvent: Sendable, Codable, Equatable {
    var timeNs: Int64
    /// Sum and count of the walking probabilities of the scored windows that contain the step.
    var probabilitySum: Double
    var windows: Int
    /// The rhythm's bout ended here (no step).
    var isBoutEnd: Bool
    /// A bout end's share of the moving energy along gravity over the bout's own seconds, for a bout too short to be
    /// judged alone (nil: not measured; states saved before it have none).
    var boutShare: Double? = nil
    /// How much less than `probabilitySum` its windows' probabilities to become walking on sum to (the repeat gate,
    /// RepeatGate.swift; nil: none less; states saved before it have none).
    var enterShortfall: Double? = nil
    /// The same for the probabilities to stay on (`DetectorParameters.gatedStay`; nil: none less).
    var stayShortfall: Double? = nil
    /// A bout end's evidence from its own seconds (ShortBoutBody.swift; nil: not measured or none).
    var bodyEvidence: Double? = nil
    /// A bout too short to be judged alone whose own seconds show a body stepping by the lone bars
    /// (`DetectorParameters.loneBoutBodyShare`; nil: not measured or not shown).
    var loneBodyStepping: Bool? = nil
    /// The evidence such a bout's own seconds give its group (`DetectorParameters.groupBoutBodyShare`; nil: none).
    var groupBodyEvidence: Double? = nil
}

/// The walking gate's state (changed in this file; `groupOnly` in ShortBoutGroup.swift): the recognizer's latest
/// decisions, the credited steps waiting for them, the run's hysteresis and the bout it reports.
struct WalkingGateState: Sendable {
    var decisions: [WindowDecision] = []
    /// Beside each decision, its probability as evidence for a short bout: 0 without three axes or with less than
    /// `shortBoutAlongShare` of the moving energy along gravity (a bout is judged short on physics, not on |a| alone).
    var shortBoutEvidence: [Double] = []
    var held: [HeldEvent] = []
    /// Steps that held `stay`, waiting for their run to reach `enter`.
    var undecided: [Int64] = []
    var walkingRun = false
    /// Where the gate is in skipping windows inside a confident walk.
    var windowSkip = WindowSkip.none
    var latestWindowStartNs: Int64 = .min
    var boutOpen = false
    var bout = BoutNs.none
    /// Whether the rhythm's current bout may still be judged as a short bout when it ends (none of its steps accepted,
    /// at most `shortBoutMaxSteps` of them); its steps then all wait in `undecided`, the first `parkedRefused` of
    /// them already refused by the hysteresis.
    var shortBoutOpen = true
    var parkedRefused = 0
    /// Short bouts a few seconds apart judged as one, and the bouts that count only in one (ShortBoutGroup.swift).
    var group = BoutGroup()
    var groupOnly = GroupOnlyBouts()
    /// The latest credited steps' own energies along gravity, for the gate look-back (GateLookBack.swift).
    var stepEnergies = StepEnergies()
    /// The latest scored window is walking by a physical path (`DetectorParameters.weakPeaksOpenAtPathEvidence`):
    /// the weak tracker's peaks may open a bout.
    var weakPeaksOpenBouts = false
    /// The latest window a physical path called walking, for path continuity (PathContinuity.swift).
    var pathMemory = PathMemory()

    /// Reserves the decisions', held steps' and undecided steps' whole capacity.
    mutating func reserveCapacity() {
        let (decisionCapacity, heldCapacity) = (StepDetector.decisionCapacity, StepDetector.heldCapacity)
        if decisions.capacity < decisionCapacity { decisions.reserveCapacity(decisionCapacity) }
        if shortBoutEvidence.capacity < decisionCapacity { shortBoutEvidence.reserveCapacity(decisionCapacity) }
        if held.capacity < heldCapacity { held.reserveCapacity(heldCapacity) }
        if undecided.capacity < heldCapacity { undecided.reserveCapacity(heldCapacity) }
        stepEnergies.reserveCapacity()
    }

    /// A due window was not scored: the next one is scored again.
    mutating func windowSkipped() {
        windowSkip = windowSkip == .next ? .skipped : .none
    }
}

/// The walking gate between the rhythm gate and the caller. Steps the rhythm credits are held until every window
/// containing them is scored by the `WalkingRecognizer`; then each step's walking probability (the mean over those
/// windows) goes through a hysteresis: a run becomes walking at `enter` and its earlier steps that held `stay` count
/// with it (a walk is counted from its first confirmed step); walking holds while steps keep `stay`; anything else is
/// refused. Held steps, undecided steps and remembered decisions are bounded.
extension StepDetector {
    /// Decisions remembered for steps the rhythm credits late (a bout is credited up to ~20 s after its first step).
    static let decisionCapacity = 48
    /// Held steps, and steps waiting for their run to become walking; beyond it the oldest is decided with what is known.
    static let heldCapacity = 256

    mutating func rhythmBoutStarted(_ timeNs: Int64, _ emit: (DetectorEvent) -> Void) {
        guard !parameters.recognizer.enabled else { return }
        counters.bouts += 1
        emit(.boutStarted(at: Instant(nanosecondsSinceEpoch: timeNs)))
    }

    mutating func rhythmStep(_ timeNs: Int64, _ emit: (DetectorEvent) -> Void) {
        guard parameters.recognizer.enabled else {
            counters.steps += 1
            emit(.step(at: Instant(nanosecondsSinceEpoch: timeNs)))
            return
        }
        noteStepEnergy(timeNs)
        var event = HeldEvent(timeNs: timeNs, probabilitySum: 0, windows: 0, isBoutEnd: false)
        for d in gate.decisions where d.contains(timeNs) { event.add(d) }
        hold(event, emit)
    }

    mutating func rhythmBoutEnded(_ bout: BoutNs, _ emit: (DetectorEvent) -> Void) {
        guard parameters.recognizer.enabled else {
            emit(.boutEnded(bout.walkingBout))
            return
        }
        hold(measuredBoutEnd(bout), emit)
    }

    private mutating func hold(_ event: HeldEvent, _ emit: (DetectorEvent) -> Void) {
        if gate.held.count >= Self.heldCapacity { releaseHeld(emit, forcing: 1) }
        gate.held.append(event)
        releaseHeld(emit)
    }

    /// A window was scored: remember its decision, add it to the held steps inside it, release what is now decided.
    mutating func windowScored(
        _ window: (startNs: Int64, endNs: Int64, features: WindowFeatures),
        _ emit: (DetectorEvent) -> Void
    ) {
        let path = pathEvidence(window)  // its own, and for `stay` (PathContinuity.swift)
        let trees = recognizerProbability(window)
        let decision = gatedForRepeat(
            WindowDecision(startNs: window.startNs, endNs: window.endNs, probability: max(trees, path.toStay)),
            trees: trees, pathEvidence: path, window.features)
        gate.weakPeaksOpenBouts = path.own >= parameters.weakPeaksOpenAtPathEvidence
        if gate.decisions.count >= Self.decisionCapacity {
            gate.decisions.removeFirst()
            gate.shortBoutEvidence.removeFirst()
        }
        gate.decisions.append(decision)
        let f = window.features
        // A window a physical path calls walking is evidence for a short bout inside it whatever its share along
        // gravity: a hand on a rail moves across gravity (acc46).
        gate.shortBoutEvidence.append(
            max(
                Self.axesSayMore(f) && f.alongShare >= parameters.shortBoutAlongShare ? decision.probability : 0,
                path.own >= parameters.weakPeaksOpenAtPathEvidence ? path.own : 0))
        gate.latestWindowStartNs = decision.startNs
        emit(.decision(decision.walkingDecision, window.features))
        for i in gate.held.indices
        where !gate.held[i].isBoutEnd && decision.contains(gate.held[i].timeNs) {
            gate.held[i].add(decision)
        }
        releaseHeld(emit)
        expireBoutGroup(before: decision.startNs, emit)
        gate.windowSkip = gate.walkingRun && decision.probability >= parameters.recognizer.confident ? .next : .none
    }

    /// Scores the tail of the signal and decides everything held (the stream ended or broke), then forgets the signal.
    mutating func flushRecognizer(_ emit: (DetectorEvent) -> Void) {
        if let tail = recognizer.tailWindow(lastSkipped: gate.windowSkip == .skipped) { windowScored(tail, emit) }
        gate.windowSkip = .none
        releaseHeld(emit, forcing: gate.held.count)
        // No next bout can join a group across the end of the data: a lone bout is judged now.
        if gate.group.isOpen && gate.undecided.count <= gate.group.waiting {
            releaseWaitingGroup(counting: loneBoutWalks, emit)
        }
        endWalkingRun(emit)
        gate.group = BoutGroup()
        recognizer.reset()
    }

    /// Releases held events in order: each step once a window starting after it has been scored (no later window can
    /// contain it), or the first `forcing` whatever is known.
    private mutating func releaseHeld(_ emit: (DetectorEvent) -> Void, forcing: Int = 0) {
        var forced = forcing
        while let head = gate.held.first {
            if forced > 0 {
                forced -= 1
            } else if !head.isBoutEnd && head.timeNs >= gate.latestWindowStartNs {
                break
            }
            gate.held.removeFirst()
            if head.isBoutEnd {
                // A short bout waiting for its group's next bout keeps its steps; any other bout's run is over.
                if !judgeShortBout(emit, end: head) { endWalkingRun(emit) }
                gate.shortBoutOpen = true
            } else {
                decide(head, emit)
            }
        }
    }

    /// The hysteresis over decided steps, in time order. While the bout may still be a short one, a step it refuses
    /// waits with the undecided ones (`parkedRefused`): refused all the same if the bout becomes walking or long, or
    /// counted with its bout if the bout, ended, is judged a short walk (`judgeShortBout`).
    private mutating func decide(_ step: HeldEvent, _ emit: (DetectorEvent) -> Void) {
        let (timeNs, p, pEnter) = (step.timeNs, step.meanProbability, step.meanEnterProbability)
        let r = parameters.recognizer
        expireBoutGroup(before: timeNs, emit)
        if gate.walkingRun {
            if p >= r.stay && step.meanStayProbability >= parameters.gatedStay {
                accept(timeNs, emit)
            } else {
                endWalkingRun(emit)
                refuse(timeNs, emit)
            }
        } else if (pEnter >= r.enter || continuesWalk(timeNs, probability: p)) && mayEnterAlone(timeNs) {
            gate.walkingRun = true
            gate.shortBoutOpen = false
            releaseWaitingGroup(counting: true, emit)  // the same walk, paused a few seconds: it counts with this one
            countRefusedStart(enteringAt: timeNs, emit)
            for t in gate.undecided { accept(t, emit) }
            gate.undecided.removeAll(keepingCapacity: true)
            accept(timeNs, emit)
        } else if p >= r.stay || gate.shortBoutOpen || startLookBackOn {
            if gate.undecided.count >= Self.heldCapacity {
                refuse(gate.undecided.removeFirst(), emit)
                gate.parkedRefused = max(gate.parkedRefused - 1, 0)
            }
            gate.undecided.append(timeNs)
            if p < r.stay { gate.parkedRefused = gate.undecided.count }
            if gate.shortBoutOpen && gate.undecided.count > parameters.shortBoutMaxSteps {
                gate.shortBoutOpen = false
                if !startLookBackOn { refuseParked(emit) }
            }
            // Refused steps a later run's look-back can no longer reach go now.
            if !gate.shortBoutOpen && startLookBackOn { refuseParkedOutOfReach(newestNs: timeNs, emit) }
        } else {
            endWalkingRun(emit)
            refuse(timeNs, emit)
        }
    }

    /// Refuses the undecided steps that the hysteresis refused while their bout might have been a short walk.
    private mutating func refuseParked(_ emit: (DetectorEvent) -> Void) {
        let parked = min(gate.parkedRefused, gate.undecided.count)
        gate.parkedRefused = 0
        guard parked > 0 else { return }
        for t in gate.undecided[..<parked] { refuse(t, emit) }
        gate.undecided.removeFirst(parked)
    }

    /// The rhythm's bout ended: a short one that no window accepted counts whole when it walked at a walk's cadence
    /// (`shortBoutCadence`) and its best window reached `shortBoutEnter`. A window over a bout of a few seconds is
    /// mostly the rest around it, so `enter` would refuse nearly every short walk (issue #47: timed up and go).
    /// Grouped (`boutGroupGapSeconds`), the bout joins the short bouts that ended a few seconds before it and is judged
    /// with them (ShortBoutGroup.swift); a group still short of `shortBoutMinSteps` waits for its next bout (returns
    /// true: its steps stay undecided). A group judged a walk counts each later bout of it on the same judgement.
    /// `end`: the bout's end, with its own share along gravity (kept by the group for a lone bout) and its own
    /// seconds' evidence (`bodyEvidence`), when measured.
    private mutating func judgeShortBout(_ emit: (DetectorEvent) -> Void, end: HeldEvent) -> Bool {
        let grouping = parameters.boutGroupGapSeconds > 0
        let waiting = min(gate.group.waiting, gate.undecided.count)
        let bout = gate.undecided[waiting...]
        guard gate.shortBoutOpen, !gate.walkingRun, parameters.shortBoutMinSteps > 0, !bout.isEmpty,
            gate.undecided.count <= parameters.shortBoutMaxSteps,
            grouping || bout.count >= parameters.shortBoutMinSteps
        else {
            gate.group = BoutGroup()
            return false
        }
        let windows = bestShortBoutEvidence(from: bout.first ?? 0, to: bout.last ?? 0)
        gate.group.add(
            bout, evidence: max(windows, end.bodyEvidence ?? 0), boutShare: end.boutShare,
            loneBody: end.loneBodyStepping, groupBody: end.groupBodyEvidence)
        if gate.group.steps < parameters.shortBoutMinSteps { return true }
        let g = gate.group
        guard walksAsAShortBout(g, evidence: g.groupEvidence) else {
            gate.group = BoutGroup()
            return false
        }
        gate.parkedRefused = 0
        gate.walkingRun = true
        for t in gate.undecided { accept(t, emit) }
        gate.undecided.removeAll(keepingCapacity: true)
        gate.group.counted = grouping
        if !grouping { gate.group = BoutGroup() }
        return false
    }

    /// The best short-bout evidence (`shortBoutEvidence`) of the remembered windows over a bout's span.
    private func bestShortBoutEvidence(from firstNs: Int64, to lastNs: Int64) -> Double {
        var best = 0.0
        for (d, evidence) in zip(gate.decisions, gate.shortBoutEvidence)
        where d.startNs <= lastNs && firstNs < d.endNs {
            best = max(best, evidence)
        }
        return best
    }

    /// Ends the group of short bouts whose next bout did not come within `boutGroupGapSeconds` of its last step
    /// (`timeNs`: a step being decided, or the start of a window scored, after which no step of a bout not yet seen
    /// can come): its waiting steps are refused.
    private mutating func expireBoutGroup(before timeNs: Int64, _ emit: (DetectorEvent) -> Void) {
        guard gate.group.isOpen else { return }
        let gapNs = Int64(min(parameters.boutGroupGapSeconds, 60) * 1e9)
        let limit = gate.group.endNs.addingReportingOverflow(gapNs)
        guard !limit.overflow, timeNs > limit.partialValue,
            gate.undecided.count <= gate.group.waiting, (rhythm.pending.first ?? .max) > limit.partialValue
        else { return }
        releaseWaitingGroup(counting: loneBoutWalks, emit)
    }

    /// How far before a lone bout's first step and after its last its share along gravity is measured (0.3 s: half a
    /// step, the rest of each end's arm swing).
    static let loneBoutMarginNs: Int64 = 300_000_000

    /// Ends the group: the steps of its earlier bouts still waiting (first in `undecided`) are counted or refused.
    private mutating func releaseWaitingGroup(counting: Bool, _ emit: (DetectorEvent) -> Void) {
        let waiting = min(gate.group.waiting, gate.undecided.count)
        gate.group = BoutGroup()
        guard waiting > 0 else { return }
        for t in gate.undecided[..<waiting] {
            if counting { accept(t, emit) } else { refuse(t, emit) }
        }
        gate.undecided.removeFirst(waiting)
        gate.parkedRefused = max(gate.parkedRefused - waiting, 0)
    }

    /// How surely a window is a body stepping at a steady stride, 0-1 (`DetectorParameters.steadyStride`): |a| repeats
    /// a stride later and the moving energy lies along gravity. The trees judge |a| by the wrists they were trained
    /// on; a runner holding the arm still (DSADS p6: |a| a quarter of the others', no arm swing) or a phone in a back
    /// pocket (Oxford: short-long steps) falls outside them, yet steps along gravity stride after stride.
    func steadyStrideEvidence(_ f: WindowFeatures) -> Double {
        guard Self.axesSayMore(f), parameters.steadyStride <= 1 else { return 0 }
        return Self.bothReach(f.rStride, parameters.steadyStride, f.alongShare, parameters.steadyStrideAlongShare)
    }

    /// How surely a window is a body stepping with a hand held on a rail or handles, 0-1 (`DetectorParameters
    /// .heldArmSway`): the moving acceleration traces the body's figure of eight (rise and fall along one line, sway
    /// beside it once a stride) and |a| repeats a stride later. The held arm moves along one line tilted from
    /// gravity, which the gravity gates refuse as they refuse a clapping hand (DSADS treadmill walks and steppers);
    /// the sway beside that line is what a clapping or brushing hand does not have.
    func heldArmEvidence(_ f: WindowFeatures) -> Double {
        // Under the sway's ramp the evidence is 0 whatever the stride: the rounding is not read (most windows).
        guard Self.axesSayMore(f), parameters.heldArmSway <= 1,
            f.bodySway > parameters.heldArmSway - RecognizerParameters.alongShareRamp
        else { return 0 }
        let stride = f.rStride.withoutRounding(
            windowVariance: (2 * f.logStd).exponential,
            rounding: recognizer.rounding.tickVariance(alpha: filter.cachedAlpha))
        return Self.bothReach(f.bodySway, parameters.heldArmSway, stride, parameters.heldArmStride)
    }

    /// 0-1: how surely both `a` and `b` reach their least values, each through a ramp of ±0.05 (the gravity gate's).
    static func bothReach(_ a: Double, _ aLeast: Double, _ b: Double, _ bLeast: Double) -> Double {
        let ramp = RecognizerParameters.alongShareRamp
        return min((a - aLeast) / ramp, (b - bLeast) / ramp).rampedAcrossThreshold
    }

    /// Whether a window's axes say more than |a| does (they exist and are not one direction: see `oneDirection`).
    static func axesSayMore(_ f: WindowFeatures) -> Bool { f.hasAxes && f.directionSteadiness < oneDirection }

    /// A window whose acceleration kept one direction this steadily (the mean of its unit vectors this long) has axes
    /// that say nothing |a| does not: |a| put on one axis, as a replay of a magnitude-only recording does. Real motion
    /// on a wrist or in a pocket turns the acceleration far more (0.8-0.99 in walking).
    static let oneDirection = 0.9999

    /// Mean step interval of a short bout that may count (seconds): 60-150 steps a minute, a walk's cadence.
    static let shortBoutCadence = 0.4...1.0

    mutating func accept(_ timeNs: Int64, _ emit: (DetectorEvent) -> Void) {
        if !gate.boutOpen {
            gate.boutOpen = true
            gate.bout = BoutNs(startNs: timeNs, endNs: timeNs, steps: 0)
            counters.bouts += 1
            emit(.boutStarted(at: Instant(nanosecondsSinceEpoch: timeNs)))
        }
        gate.bout.endNs = timeNs
        gate.bout.steps += 1
        counters.steps += 1
        emit(.step(at: Instant(nanosecondsSinceEpoch: timeNs)))
    }

    mutating func refuse(_ timeNs: Int64, _ emit: (DetectorEvent) -> Void) {
        counters.refused += 1
        emit(.refused(at: Instant(nanosecondsSinceEpoch: timeNs)))
    }

    /// The run is over (its rhythm ended, or it was refused): steps still waiting for it are refused.
    private mutating func endWalkingRun(_ emit: (DetectorEvent) -> Void) {
        gate.walkingRun = false
        gate.parkedRefused = 0
        for t in gate.undecided { refuse(t, emit) }
        gate.undecided.removeAll(keepingCapacity: true)
        guard gate.boutOpen else { return }
        gate.boutOpen = false
        emit(.boutEnded(gate.bout.walkingBout))
    }
}
