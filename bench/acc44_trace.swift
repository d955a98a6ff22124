// acc44 (issue #47): bench/bout_trace.swift's trace plus, for every step the rhythm credits, the recognizer's features
// over the newest seconds alone (a short window), measured at the sample that credits it, while the ring holds them.
// Built by bench/acc44_short_window.py with `swiftc -O` together with Sources/StepDetection/*.swift, in one module:
//
//   acc44_trace PARAMETERS.json FILE...      one JSON line per file on standard output
//
// Each credited step (`credited`): its time, the newest tick's time, the interval from the credited step before it,
// then for each short window in `shortTicks` (the newest n ticks, `WalkingRecognizer.scoreWindow(ticks:)`): the
// trees' P, the gated P, log_std, r_step, along_share, along_own_share, along_step, arm_swing, gravity_steadiness,
// stride_turn, along_stride, vector_stride, direction_steadiness (hasAxes 0: every axis feature −9); then
// `bodyStepping` over the step − W s to the step + 0.3 s at the interval (share, along stride, motion; −9 each: none)
// for W in `bodySeconds`; then `armRepeats` over the newest 3 s at the interval (across at half, along at it).
import Foundation
import WallTimeCore

struct Trace: Encodable {
    var file: String
    var steps: [Double] = []
    var refused: [Double] = []
    var strong: [[Double]] = []
    var weak: [[Double]] = []
    /// start, end, steps, credited (0/1), the bout's own share along gravity when it ended (its first step − 0.3 s to
    /// its last + 0.3 s, what is still in the recognizer's ring: `WalkingRecognizer.alongShare`; −1 without axes),
    /// then `WalkingRecognizer.bodyStepping` over the same ticks: share, along stride, motion (−1 each: none), then
    /// `arm`: across gravity at half the interval, along at the interval, along at half of it (acc41b)
    var rhythm: [[Double]] = []
    /// start, end, p, trees, gated, path, shortBoutEvidence, hasAxes, alongShare, alongOwnShare, armSwing
    var windows: [[Double]] = []
    var credited: [[Double]] = []
}

/// A bout's own share along gravity, as the walking gate measures a lone bout's when it ends (−1: no axes).
func ownShare(_ detector: StepDetector, _ bout: BoutNs) -> Double {
    let margin = StepDetector.loneBoutMarginNs
    return detector.recognizer.alongShare(fromNs: bout.startNs - margin, toNs: bout.endNs + margin) ?? -1
}

/// The bout's own seconds as ShortBoutBody.swift judges them (acc38_lone_bouts.py reads them).
func body(_ detector: StepDetector, _ bout: BoutNs) -> [Double] {
    let margin = StepDetector.loneBoutMarginNs
    guard
        let b = detector.recognizer.bodyStepping(
            fromNs: bout.startNs - margin, toNs: bout.endNs + margin,
            stepNs: bout.meanIntervalNs)
    else { return [-1, -1, -1] + arm(detector, bout) }
    return [b.share, b.alongStride, b.motion] + arm(detector, bout)
}

/// acc41b: over the ticks from the bout's first step − 0.3 s to the newest (`WalkingRecognizer.armRepeats`, as
/// ArmStride.swift reads them): the motion across gravity at half the bout's mean interval, along gravity at the
/// interval and along gravity at half of it (a step, when the rhythm locked at the stride); 0 each: none.
func arm(_ detector: StepDetector, _ bout: BoutNs) -> [Double] {
    guard bout.steps > 1, detector.recognizer.nextTickNs != .min else { return [0, 0, 0] }
    let newestNs = detector.recognizer.nextTickNs - WalkingRecognizer.tickNs
    let fromNs = bout.startNs - StepDetector.loneBoutMarginNs
    guard newestNs > fromNs else { return [0, 0, 0] }
    let ticks = Int((newestNs - fromNs) / WalkingRecognizer.tickNs) + 1
    let interval = Double(bout.meanIntervalNs) / 1e9
    let whole = detector.recognizer.armRepeats(interval: interval, ticks: ticks)
    return [whole.acrossHalf, whole.along, detector.recognizer.armRepeats(interval: interval / 2, ticks: ticks).along]
}

let shortTicks = [25, 38]
let bodySeconds = [2.0, 3.0]

func shortWindow(_ detector: StepDetector, _ n: Int) -> [Double] {
    let r = detector.recognizer
    guard r.filled >= n else { return [Double](repeating: -9, count: 13) }
    let f = r.scoreWindow(ticks: n).features
    let p = detector.parameters.recognizer
    let axes: [Double] =
        f.hasAxes
        ? [
            f.alongShare, f.alongOwnShare, f.alongStep, f.armSwing, f.gravitySteadiness, f.strideTurn, f.alongStride,
            f.vectorStride, f.directionSteadiness,
        ] : [Double](repeating: -9, count: 9)
    return [p.model.probability(f), p.probability(f), f.logStd, f.rStep] + axes
}

func credit(_ detector: StepDetector, _ timeNs: Int64, _ previousNs: Int64?) -> [Double] {
    let r = detector.recognizer
    let newestNs = r.nextTickNs - WalkingRecognizer.tickNs
    let stepNs = previousNs.map { min(max(timeNs - $0, 300_000_000), 1_200_000_000) } ?? 550_000_000
    var row = [seconds(timeNs), seconds(newestNs), Double(stepNs) * 1e-9]
    for n in shortTicks { row += shortWindow(detector, n) }
    for w in bodySeconds {
        if let b = r.bodyStepping(
            fromNs: timeNs - Int64(w * 1e9), toNs: timeNs + StepDetector.ownMarginNs, stepNs: stepNs)
        {
            row += [b.share, b.alongStride, b.motion]
        } else {
            row += [-9, -9, -9]
        }
    }
    let arm = r.armRepeats(interval: Double(stepNs) * 1e-9, ticks: 38)
    return row + [arm.acrossHalf, arm.along]
}

func trace(_ path: String, _ parameters: DetectorParameters) -> Trace {
    var out = Trace(file: path)
    var detector = StepDetector(parameters: parameters)
    let judge = StepDetector(parameters: parameters)  // the paths' evidence, read while `detector` is being pushed
    let (times, values) = readSamples(path)
    func emit(_ event: DetectorEvent) {
        switch event {
        case .step(let at): out.steps.append(seconds(at.nanosecondsSinceEpoch))
        case .refused(let at): out.refused.append(seconds(at.nanosecondsSinceEpoch))
        case .decision(let d, let f):
            let r = parameters.recognizer
            let path = max(judge.steadyStrideEvidence(f), judge.heldArmEvidence(f))
            let evidence =
                StepDetector.axesSayMore(f) && f.alongShare >= parameters.shortBoutAlongShare ? d.probability : 0
            out.windows.append([
                seconds(d.start.nanosecondsSinceEpoch), seconds(d.end.nanosecondsSinceEpoch), d.probability,
                r.model.probability(f), r.probability(f), path, evidence, f.hasAxes ? 1 : 0, f.alongShare,
                f.alongOwnShare, f.armSwing,
            ])
        default: break
        }
    }
    for (t, v) in zip(times, values) {
        let (strong, weak, rhythm) = (detector.peaks, detector.weakPeaks, detector.rhythm)
        let energies = detector.gate.stepEnergies
        pushSample(&detector, t, v, emit)
        let now = detector.gate.stepEnergies
        let cap = StepEnergies.capacity
        var added = now.steps.count - energies.steps.count
        if now.steps.count == cap { added += (now.head - energies.head + cap) % cap }
        if added > 0 {
            let count = now.steps.count
            for i in (count - min(added, count))..<count {
                let e = now.steps[(now.head + i) % count]
                let previous = i > 0 ? now.steps[(now.head + i - 1) % count].timeNs : nil
                out.credited.append(credit(detector, e.timeNs, previous))
            }
        }
        if strong.seekingPeak && !detector.peaks.seekingPeak {
            out.strong.append([seconds(strong.extremeNs), strong.extremeValue - strong.troughValue])
        }
        if weak.seekingPeak && !detector.weakPeaks.seekingPeak {
            out.weak.append([seconds(weak.extremeNs), weak.extremeValue - weak.troughValue])
        }
        let after = detector.rhythm
        if rhythm.inBout && (!after.inBout || after.bout.startNs > rhythm.bout.endNs) {
            // The ended bout as `endBout` left it (credited when it ended, look-back included), unless a new one
            // opened at the same sample (it starts after the old one's end; a look-back only moves a start earlier):
            // then as it was before it.
            let ended = after.inBout ? rhythm : after
            out.rhythm.append(
                [
                    seconds(ended.bout.startNs), seconds(ended.bout.endNs),
                    Double(ended.bout.steps), ended.boutCredited ? 1 : 0, ownShare(detector, ended.bout),
                ] + body(detector, ended.bout))
        }
    }
    let (last, unfinished) = (detector.rhythm, detector)
    detector.finish(emit)
    if last.inBout {
        // `finish` ends the bout before it forgets the signal: its share over the ring as it was.
        let ended = detector.rhythm
        out.rhythm.append(
            [
                seconds(ended.bout.startNs), seconds(ended.bout.endNs),
                Double(ended.bout.steps), ended.boutCredited ? 1 : 0, ownShare(unfinished, ended.bout),
            ] + body(unfinished, ended.bout))
    }
    return out
}

try traceFiles(usage: "bout_trace", trace)
