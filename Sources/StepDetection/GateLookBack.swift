/// The gate look-back (issue #47, changed in this file; `WalkingGateState.stepEnergies`): a walk's first seconds,
/// which the walking gate refused, count when the run becomes walking and those seconds move along gravity.
///
/// A 10 s window over a walk's first steps is mostly the rest before them, so the hysteresis refuses them (Oxford's
/// Pixel in a purse: its first 10.7 s). When the run reaches `enter`, the refused steps parked before its first
/// accepted one are read backwards: each counts while it lies within `startLookBackSeconds` of that step and the moving
/// energy over its own seconds (the step ± `ownMarginNs`, measured when the rhythm credited it, while its ticks are
/// still in the recognizer's ring) lies at least `startLookBackAlongShare` along gravity, as a step's push does; the
/// first that does not (a hand's motion across gravity before the walk) ends the look-back. The parked steps are
/// those of the run's own rhythm bout (the rhythm gate kept their strides regular; a bout's end refuses them).
/// No share separates a walk's refused start from a hand's (h47start, bench/accuracy.md), so the standard set takes
/// any share of a step measured with three axes (`startLookBackAlongShare` 0), at 4.9 false steps an hour of hand
/// activity out of dataset. Fixed memory (a ring of `StepEnergies.capacity` steps); per credited step, a few ticks read.
extension StepDetector {
    /// Whether the gate look-back is on: the recognizer judges steps, a reach and a share that can be met.
    var startLookBackOn: Bool {
        parameters.recognizer.enabled && parameters.startLookBackSeconds > 0 && parameters.startLookBackAlongShare <= 1
    }

    /// `parameters.startLookBackSeconds` in nanoseconds.
    var startLookBackNs: Int64 { Int64(min(parameters.startLookBackSeconds, 60) * 1e9) }

    /// How far before and after a step its own seconds reach (0.3 s: half a step, as a lone bout's ends).
    static let ownMarginNs: Int64 = 300_000_000

    /// The rhythm credited a step: remember the moving energy along gravity and in all over its own seconds.
    mutating func noteStepEnergy(_ timeNs: Int64) {
        guard startLookBackOn else { return }
        let after = timeNs.addingReportingOverflow(Self.ownMarginNs)
        let (along, total) = recognizer.movingEnergy(
            fromNs: Self.before(timeNs, Self.ownMarginNs), toNs: after.overflow ? .max : after.partialValue)
        gate.stepEnergies.note(StepEnergy(timeNs: timeNs, along: along, total: total))
    }

    /// The run becomes walking (at `enteringNs`, its step that reached `enter`): the steps the hysteresis refused
    /// before it (first in `undecided`) are refused, but for the latest of them that lie within the look-back's reach
    /// of the run's first step and along gravity, which count (`accept` follows in time order).
    mutating func countRefusedStart(enteringAt enteringNs: Int64, _ emit: (DetectorEvent) -> Void) {
        let parked = min(gate.parkedRefused, gate.undecided.count)
        gate.parkedRefused = 0
        guard parked > 0 else { return }
        var first = parked
        if startLookBackOn {
            let runStartNs = parked < gate.undecided.count ? gate.undecided[parked] : enteringNs
            let limit = Self.before(runStartNs, startLookBackNs)
            while first > 0, gate.undecided[first - 1] >= limit, stepMovesAlongGravity(gate.undecided[first - 1]) {
                first -= 1
            }
        }
        for t in gate.undecided[..<first] { refuse(t, emit) }
        for t in gate.undecided[first..<parked] { accept(t, emit) }
        gate.undecided.removeFirst(parked)
    }

    /// Whether a step's own seconds put at least `startLookBackAlongShare` of the moving energy along gravity (false
    /// when they were not measured, or nothing moved along axes).
    func stepMovesAlongGravity(_ timeNs: Int64) -> Bool {
        guard let e = gate.stepEnergies.energy(at: timeNs), e.total > 0 else { return false }
        return e.along >= parameters.startLookBackAlongShare * e.total
    }

    /// Refuses the parked steps that no later run can reach: those more than the look-back's reach before the first
    /// step still undecided and not refused (`newestNs` when every undecided step is refused). A group's waiting steps
    /// come first: refused by the reach, the group is over.
    mutating func refuseParkedOutOfReach(newestNs: Int64, _ emit: (DetectorEvent) -> Void) {
        let parked = min(gate.parkedRefused, gate.undecided.count)
        let runStartNs = parked < gate.undecided.count ? gate.undecided[parked] : newestNs
        let limit = Self.before(runStartNs, startLookBackNs)
        var old = 0
        while old < parked && gate.undecided[old] < limit { old += 1 }
        guard old > 0 else { return }
        gate.parkedRefused = parked - old
        if gate.group.waiting > 0 { gate.group = BoutGroup() }
        for t in gate.undecided[..<old] { refuse(t, emit) }
        gate.undecided.removeFirst(old)
    }
}

/// A credited step's moving energy (0.6-3.5 Hz, with three axes) over its own seconds: along gravity and in all.
struct StepEnergy: Sendable, Codable, Equatable {
    var timeNs: Int64
    var along: Double
    var total: Double
}

/// The latest credited steps' own energies, a ring (the gate look-back reads those of refused steps when their run
/// becomes walking, up to ~22 s later: its reach and a window's delay).
struct StepEnergies: Sendable, Codable, Equatable {
    static let capacity = 128
    var steps: [StepEnergy] = []
    /// Where the next step goes once the ring is full.
    var head = 0

    mutating func reserveCapacity() {
        if steps.capacity < Self.capacity { steps.reserveCapacity(Self.capacity) }
    }

    mutating func note(_ step: StepEnergy) {
        if steps.count < Self.capacity {
            steps.append(step)
        } else {
            steps[head] = step
            head = (head + 1) % Self.capacity
        }
    }

    /// The energy remembered for the step at `timeNs`, the latest noted first.
    func energy(at timeNs: Int64) -> StepEnergy? {
        let count = steps.count
        for k in 0..<count {
            let step = steps[(head + count - 1 - k) % count]
            if step.timeNs == timeNs { return step }
        }
        return nil
    }
}
