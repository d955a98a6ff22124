/// Short bouts a few seconds apart, judged as one (issue #47: pottering about, a few steps at a time; changed in
/// WalkingGate.swift, where the group is judged; the rule that a bout of 4-6 steps counts only in a group is at the
/// end of this file).
///
/// Alone, a bout of four to six steps is never a walk: the rhythm needs `minBoutSteps`, and the short-bout judgement
/// `shortBoutMinSteps`, before it may be one, since a hand's burst has a few regular peaks too. A person pottering
/// about (to the shelf, back to the desk, into the kitchen) walks several such bouts with pauses of a few seconds:
/// together they have the steps, the walk's cadence inside each bout and windows of motion along gravity that one
/// alone lacks. A bout ended with at least `boutGroupMinSteps` steps waits up to `boutGroupGapSeconds` for the next;
/// the group is judged on the intervals inside its bouts (never the pauses between them) and its best window. (Asking
/// each bout for a window of its own cost pottering recall and removed no false step in ../shared.)
struct BoutGroup: Sendable, Codable, Equatable {
    /// The last step of the group's latest bout (`.min`: no group).
    var endNs: Int64 = .min
    /// Steps of the group's bouts so far; `counted`: the group was judged a walk (else those steps wait, first in
    /// `WalkingGateState.undecided`).
    var steps = 0
    var counted = false
    /// The intervals inside the group's bouts: how many, their sum and the sum of their squares, in seconds.
    var intervals = 0
    var intervalSum = 0.0
    var intervalSquares = 0.0
    /// The best short-bout evidence of the windows over its bouts (`WalkingGateState.shortBoutEvidence`).
    var evidence = 0.0
    /// While the group is one bout: that bout's share of the moving energy along gravity over its own seconds, when
    /// measured (`DetectorParameters.loneBoutAlongShare`); nil once a second bout joins.
    var loneShare: Double? = nil
    /// While the group is one bout: true when that bout's own seconds showed a body stepping by the lone bars
    /// (`DetectorParameters.loneBoutBodyShare`); nil otherwise, and once a second bout joins.
    var loneBody: Bool? = nil
    /// The best evidence its bouts of 4-6 steps gave from their own seconds (`DetectorParameters.groupBoutBodyShare`;
    /// nil: none). It judges a group of two bouts or more, never a lone bout (`groupEvidence`).
    var bodyEvidence: Double? = nil
    /// The longest interval inside the group's bouts, in seconds, and how many intervals came before it (a timed up
    /// and go's turn lies between its two legs).
    var intervalLongest = 0.0
    var intervalsBeforeLongest = 0

    fileprivate enum CodingKeys: String, CodingKey {
        case endNs, steps, counted, intervals, intervalSum, intervalSquares, evidence, loneShare, intervalLongest,
            intervalsBeforeLongest, loneBody, bodyEvidence
    }

    var isOpen: Bool { endNs != .min }

    /// Steps of earlier bouts of the group still waiting in `undecided` (before those of the bout being judged).
    var waiting: Int { counted ? 0 : steps }

    /// Adds a bout's steps (in time order) and the best short-bout evidence of its windows to the group; the bout's own
    /// share along gravity (nil: not measured) and whether its own seconds showed a body stepping are kept while it is
    /// the group's only bout.
    mutating func add(
        _ bout: ArraySlice<Int64>, evidence boutEvidence: Double, boutShare: Double?, loneBody: Bool?,
        groupBody: Double? = nil
    ) {
        guard let first = bout.first, let last = bout.last else { return }
        evidence = max(evidence, boutEvidence)
        if let groupBody { bodyEvidence = max(bodyEvidence ?? 0, groupBody) }
        loneShare = steps == 0 ? boutShare : nil
        self.loneBody = steps == 0 && loneBody == true ? true : nil
        var previous = first
        for t in bout.dropFirst() {
            let interval = Double(t - previous) * 1e-9
            intervals += 1
            intervalSum += interval
            intervalSquares += interval * interval
            if interval > intervalLongest { (intervalLongest, intervalsBeforeLongest) = (interval, intervals - 1) }
            previous = t
        }
        steps += bout.count
        endNs = last
    }

    /// The evidence a group of two bouts or more is judged on: its windows' and its bouts' own seconds'.
    var groupEvidence: Double { max(evidence, bodyEvidence ?? 0) }

    /// The mean interval inside the group's bouts, and their spread around it (seconds).
    var meanInterval: Double { intervals > 0 ? intervalSum / Double(intervals) : 0 }
    var intervalSpread: Double { Self.spread(count: intervals, sum: intervalSum, squares: intervalSquares) }

    /// The mean and spread of the intervals inside the group's bouts, without the longest when there are at least
    /// three and it lies within `turnFromMiddle` of them from their middle (`DetectorParameters
    /// .shortBoutTurnFromMiddle`): a timed up and go's turn between its two legs is a pause, not an uneven step.
    func judgedIntervals(turnFromMiddle: Double) -> (mean: Double, spread: Double) {
        let position = (Double(intervalsBeforeLongest) + 0.5) / Double(max(intervals, 1))
        guard turnFromMiddle > 0, intervals >= 3, abs(position - 0.5) <= turnFromMiddle else {
            return (meanInterval, intervalSpread)
        }
        let (count, sum) = (intervals - 1, intervalSum - intervalLongest)
        let squares = intervalSquares - intervalLongest * intervalLongest
        return (sum / Double(count), Self.spread(count: count, sum: sum, squares: squares))
    }

    private static func spread(count: Int, sum: Double, squares: Double) -> Double {
        guard count > 0 else { return 0 }
        let mean = sum / Double(count)
        return max(squares / Double(count) - mean * mean, 0).squareRoot()
    }
}

extension BoutGroup {
    /// Decodes a saved group; one saved before the longest interval was kept has none (its bouts are judged on their
    /// full spread, as when they were saved).
    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        endNs = try c.decode(Int64.self, forKey: .endNs)
        steps = try c.decode(Int.self, forKey: .steps)
        counted = try c.decode(Bool.self, forKey: .counted)
        intervals = try c.decode(Int.self, forKey: .intervals)
        intervalSum = try c.decode(Double.self, forKey: .intervalSum)
        intervalSquares = try c.decode(Double.self, forKey: .intervalSquares)
        evidence = try c.decode(Double.self, forKey: .evidence)
        loneShare = try c.decodeIfPresent(Double.self, forKey: .loneShare)
        intervalLongest = try c.decodeIfPresent(Double.self, forKey: .intervalLongest) ?? 0
        intervalsBeforeLongest = try c.decodeIfPresent(Int.self, forKey: .intervalsBeforeLongest) ?? 0
        loneBody = try c.decodeIfPresent(Bool.self, forKey: .loneBody)
        bodyEvidence = try c.decodeIfPresent(Double.self, forKey: .bodyEvidence)
    }
}

/// The bouts too short to be judged alone (`boutGroupMinSteps` to `shortBoutMinSteps` − 1 steps: 4-6) that the rhythm
/// credited when they ended: their steps count only with their group (changed at the end of this file).
struct GroupOnlyBouts: Sendable, Equatable {
    /// Steps up to this time belong to such a bout (`.min`: none).
    var untilNs: Int64 = .min
}

/// The short-bout group rule: a bout of 4-6 steps counts in a group, or alone only on its own seconds' share along
/// gravity (`loneBoutAlongShare`, when no next bout joins it), never on windows. The rhythm credits it when it ends
/// (RhythmGate.swift: `endBout`); the walking gate judges it with its group and never lets its steps enter the
/// hysteresis on their own (WalkingGate.swift: `decide`).
extension StepDetector {
    /// The fewest steps of a bout credited when it ends, for the walking gate to judge: `shortBoutMinSteps`, or
    /// `boutGroupMinSteps` when short bouts are grouped (a bout that short counts only in a group).
    var shortestJudgedBout: Int {
        parameters.boutGroupGapSeconds > 0
            ? min(
                boutGroupPlainSteps, parameters.threeStepBoutShare <= 1 ? max(parameters.threeStepBoutSteps, 2) : .max)
            : parameters.shortBoutMinSteps
    }

    /// The fewest steps of a bout that joins a group without its own seconds' body evidence (`boutGroupMinSteps`).
    var boutGroupPlainSteps: Int { max(min(parameters.shortBoutMinSteps, parameters.boutGroupMinSteps), 2) }

    /// The rhythm's bout ends uncredited, having kept its rhythm: credited now when it has `shortestJudgedBout`
    /// steps, its steps counting only with their group when it has fewer than `shortBoutMinSteps` (a bout of 3 only
    /// on its own seconds: `threeStepBoutSteps`, `pendingBodySteps`). A 10 s window
    /// around four steps is mostly what surrounds them; that it looks like walking says little of them (WISDM hand
    /// activity: +3 false steps/h when they could enter on it).
    mutating func creditEndingShortBout(_ emit: (DetectorEvent) -> Void) {
        let shortest = shortestJudgedBout
        let needsBody = rhythm.pending.count < boutGroupPlainSteps
        if needsBody && !pendingBodySteps { return }
        if let last = rhythm.pending.last, rhythm.pending.count >= shortest,
            rhythm.pending.count < parameters.shortBoutMinSteps
        {
            gate.groupOnly.untilNs = max(gate.groupOnly.untilNs, last)
        }
        // A bout credited on its own seconds is those seconds only: earlier weak peaks would make it a longer bout.
        creditBoutIfLongEnough(emit, minimum: shortest, lookingBack: !needsBody)
    }

    /// Whether the pending run of `threeStepBoutSteps` or more steps, too few to join a group on its steps alone, shows
    /// a body stepping over its own seconds (± 0.3 s) by the `threeStepBout` bars (ShortBoutBody.swift).
    var pendingBodySteps: Bool {
        let pending = rhythm.pending
        guard let first = pending.first, let last = pending.last, pending.count >= shortestJudgedBout else {
            return false
        }
        let bout = BoutNs(startNs: first, endNs: last, steps: pending.count)
        return threeStepBoutShowsBody(bout)
    }

    /// The least best-window evidence of a lone bout of `steps` steps (`DetectorParameters.loneBoutEnter`): fixed, or
    /// scaled by `steps` / `shortBoutMinSteps`. A window holds the same 10.24 s whatever the bout's length, so the
    /// fewer steps, the more of it is the rest around them and the less walking it can show.
    func loneBoutEnter(steps: Int) -> Double {
        let bar = parameters.loneBoutEnter
        guard bar < 0 else { return bar }
        return -bar * min(Double(steps) / Double(max(parameters.shortBoutMinSteps, 1)), 1)
    }

    /// Whether the waiting group is a lone bout (no next bout came) that counts: its own seconds lie along gravity as a
    /// walk's do (`loneBoutAlongShare`) and it walked as a short walk does (its best window at
    /// `loneBoutEnter(steps:)`), or they show a body stepping by the lone bars (`loneBoutBodyShare`,
    /// ShortBoutBody.swift) and its cadence and spread over all its intervals are a walk's: judged without a window,
    /// four to six steps leave no interval out as a turn (a hand's 4 peaks 1.7, 0.45 and 0.7 s apart, WISDM 1620).
    var loneBoutWalks: Bool {
        let g = gate.group
        if g.loneBody == true {
            let (mean, spread) = g.judgedIntervals(turnFromMiddle: 0)
            return Self.shortBoutCadence.contains(mean) && spread <= parameters.shortBoutIntervalCV * mean
        }
        return (g.loneShare.map { $0 >= parameters.loneBoutAlongShare } ?? false)
            && walksAsAShortBout(g, evidence: g.evidence, enter: loneBoutEnter(steps: g.steps))
    }

    /// Whether a short bout or group walked as a short walk does: a walk's cadence, intervals that vary by at most
    /// `shortBoutIntervalCV` (without a timed up and go's turn: `shortBoutTurnFromMiddle`), and a window over it that
    /// reached `enter` along gravity (`shortBoutEnter`; a lone bout's `loneBoutEnter(steps:)`), or the `evidence` of
    /// its bouts' own seconds did (a group's: `BoutGroup.groupEvidence`; a lone bout's windows alone).
    func walksAsAShortBout(_ g: BoutGroup, evidence: Double, enter: Double? = nil) -> Bool {
        let (mean, spread) = g.judgedIntervals(turnFromMiddle: parameters.shortBoutTurnFromMiddle)
        return Self.shortBoutCadence.contains(mean) && spread <= parameters.shortBoutIntervalCV * mean
            && evidence >= (enter ?? parameters.shortBoutEnter)
    }

    /// Whether the step at `timeNs` may make a run walking on its own (at `enter`): not one of a bout that counts only
    /// in its group.
    func mayEnterAlone(_ timeNs: Int64) -> Bool { timeNs > gate.groupOnly.untilNs }
}
