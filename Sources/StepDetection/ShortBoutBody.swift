/// A short walk judged on its own seconds (issue #47, sw37; `DetectorParameters.shortBoutBodyShare`,
/// `shortBoutBodyStride`, `shortBoutBodyMotion`).
///
/// The short-bout judgement asks a window over the bout for walking evidence, but a 10.24 s window over a timed up and
/// go holds the stand-up, two legs of a few steps, the turn and the sit-down: its |a| does not repeat a stride
/// (`r_stride` 0.30 against a walk's 0.78), and trees that never saw such windows call them hand motion. The bout's own
/// ticks (its first step − 0.3 s to its last + 0.3 s, what the recognizer's ring still holds) say what the body did:
/// a body stepping pushes along gravity (its share of the moving energy), that push repeats a stride later, and |a|
/// moves as a step moves it. Hand bursts the rhythm credits fail one of the three: eating and typing barely move |a|,
/// brushing and clapping move across gravity, folding does not repeat (bench/tug37_result.md).
extension StepDetector {
    /// The end of a rhythm bout for the walking gate, measured while the ring still holds its ticks. A bout too short
    /// to be judged alone: its own share along gravity (`loneBoutAlongShare`) and whether its own seconds show a body
    /// stepping by the lone bars (`loneBodyStepping`: `loneBoutBodyShare`, `loneBoutBodyStride`, `loneBoutBodyMotion`),
    /// which the group keeps while the bout is its only one, or by the group's (`groupBodyEvidence`:
    /// `groupBoutBodyShare`, `groupBoutBodyStride`), which judges its group once another bout joins. A bout of
    /// `shortBoutMinSteps` to `shortBoutMaxSteps` steps: its own seconds' evidence, which the short-bout judgement
    /// takes alone (`bodyEvidence`: `shortBoutEnter` when they show a body stepping).
    func measuredBoutEnd(_ bout: BoutNs) -> HeldEvent {
        var end = HeldEvent(timeNs: bout.endNs, probabilitySum: 0, windows: 0, isBoutEnd: true)
        let (fromNs, toNs) = (Self.before(bout.startNs, Self.loneBoutMarginNs), bout.endNs + Self.loneBoutMarginNs)
        let p = parameters
        if bout.steps < boutGroupPlainSteps {
            // Three steps were credited only when their own seconds showed a body stepping (`pendingBodySteps`, at
            // this same sample): they join a group on that evidence and never count alone (`threeStepBoutSteps`).
            end.groupBodyEvidence = p.shortBoutEnter
        } else if bout.steps < p.shortBoutMinSteps {
            if p.loneBoutAlongShare <= 1 { end.boutShare = recognizer.alongShare(fromNs: fromNs, toNs: toNs) }
            if bout.steps >= shortestJudgedBout, min(p.loneBoutBodyShare, p.groupBoutBodyShare) <= 1,
                let body = recognizer.bodyStepping(fromNs: fromNs, toNs: toNs, stepNs: bout.meanIntervalNs)
            {
                if Self.bodySteps(
                    body, share: p.loneBoutBodyShare, stride: p.loneBoutBodyStride, motion: p.loneBoutBodyMotion)
                {
                    end.loneBodyStepping = true
                }
                if Self.bodySteps(
                    body, share: p.groupBoutBodyShare, stride: p.groupBoutBodyStride, motion: p.loneBoutBodyMotion)
                {
                    end.groupBodyEvidence = p.shortBoutEnter
                }
            }
        } else if p.shortBoutBodyShare <= 1, bout.steps <= p.shortBoutMaxSteps,
            let body = recognizer.bodyStepping(fromNs: fromNs, toNs: toNs, stepNs: bout.meanIntervalNs),
            Self.bodySteps(
                body, share: p.shortBoutBodyShare, stride: p.shortBoutBodyStride, motion: p.shortBoutBodyMotion)
        {
            end.bodyEvidence = p.shortBoutEnter
        }
        return end
    }

    /// Whether a bout of `threeStepBoutSteps` steps or more, too few to join a group on its steps alone, shows a body
    /// stepping over its own seconds (± 0.3 s) by the `threeStepBout` bars: then it joins a group (`measuredBoutEnd`).
    func threeStepBoutShowsBody(_ bout: BoutNs) -> Bool {
        let p = parameters
        let (fromNs, toNs) = (Self.before(bout.startNs, Self.loneBoutMarginNs), bout.endNs + Self.loneBoutMarginNs)
        guard bout.steps >= shortestJudgedBout, p.threeStepBoutShare <= 1,
            let body = recognizer.bodyStepping(fromNs: fromNs, toNs: toNs, stepNs: bout.meanIntervalNs)
        else { return false }
        return Self.bodySteps(
            body, share: p.threeStepBoutShare, stride: p.threeStepBoutStride, motion: p.loneBoutBodyMotion)
    }

    /// Whether a bout's own seconds (`WalkingRecognizer.bodyStepping`) show a body stepping by these bars: the lone
    /// bouts', the groups' and the short bouts' judgements differ only in them. A bar above 1 is never met.
    static func bodySteps(
        _ body: (share: Double, alongStride: Double, motion: Double), share: Double, stride: Double, motion: Double
    ) -> Bool {
        body.share >= share && body.alongStride >= stride && body.motion >= motion
    }
}

extension BoutNs {
    /// The mean interval between the bout's steps (0 for fewer than two).
    var meanIntervalNs: Int64 { steps > 1 ? (endNs - startNs) / Int64(steps - 1) : 0 }
}

extension WalkingRecognizer {
    /// Over the three-axis ticks from `fromNs` to `toNs` still in the ring: the share of the moving energy along
    /// gravity, the largest autocorrelation of the motion along gravity at a stride (0.8 to 1 times two `stepNs`, one
    /// tick beyond: a turn or a pause lengthens a short bout's mean interval) and the standard deviation of the
    /// low-passed |a| (m/s²); nil without such ticks, with axes that never leave one direction (|a| on one axis, a
    /// device at rest knocked along gravity: `StepDetector.oneDirection`) or without a stride inside them.
    func bodyStepping(fromNs: Int64, toNs: Int64, stepNs: Int64) -> (
        share: Double, alongStride: Double, motion: Double
    )? {
        let (alongEnergy, energy) = movingEnergy(fromNs: fromNs, toNs: toNs)
        let newestNs = nextTickNs - Self.tickNs
        guard energy > 0, filled > 0, stepNs > 0, toNs >= fromNs else { return nil }
        // k counts ticks back from the newest: the span is k in first...last.
        let first = toNs < newestNs ? Int(min((newestNs - toNs + Self.tickNs - 1) / Self.tickNs, Int64(filled))) : 0
        let fromBack = newestNs > fromNs ? (newestNs - fromNs) / Self.tickNs : 0
        let last = Int(min(fromBack, Int64(filled - 1)))
        let stride = Double(2 * stepNs) / Double(Self.tickNs)
        let (shortest, longest) = (max(Int((0.8 * stride).rounded(.down)) - 1, 1), Int(stride.rounded(.up)) + 1)
        guard last - first > longest, !oneDirection(first, last) else { return nil }
        var best = -1.0
        for lag in shortest...longest {
            var (product, early, late) = (0.0, 0.0, 0.0)
            for k in first...(last - lag) {
                let (newer, older) = (ring(k), ring(k + lag))
                guard axisTicks[newer] && axisTicks[older] else { continue }
                product += along[newer] * along[older]
                (early, late) = (early + along[older] * along[older], late + along[newer] * along[newer])
            }
            if early > 0 && late > 0 { best = max(best, product / (early * late).squareRoot()) }
        }
        var (sum, squares) = (0.0, 0.0)
        for k in first...last {
            let m = magnitudes[ring(k)]
            (sum, squares) = (sum + m, squares + m * m)
        }
        let n = Double(last - first + 1)
        let variance = max(squares / n - (sum / n) * (sum / n), 0)
        return (alongEnergy / energy, best, variance.squareRoot())
    }

    /// Whether the direction of the whole acceleration held still over ticks `first`...`last` (back from the newest),
    /// as a window's `directionSteadiness` measures it.
    private func oneDirection(_ first: Int, _ last: Int) -> Bool {
        var (x, y, z, n) = (0.0, 0.0, 0.0, 0.0)
        for k in first...last where axisTicks[ring(k)] {
            let d = 3 * ring(k)
            (x, y, z, n) = (x + direction[d], y + direction[d + 1], z + direction[d + 2], n + 1)
        }
        return n == 0 || (x * x + y * y + z * z).squareRoot() / n >= StepDetector.oneDirection
    }

    /// The ring index of the tick `k` ticks before the newest.
    @inline(__always)
    private func ring(_ k: Int) -> Int { (head - 1 - k + 2 * Self.windowTicks) % Self.windowTicks }
}
