// What the detector did with each recording, for bench/bout_misses.py (issue #47: where the steps of short bouts go).
// Built by bout_misses.py with `swiftc -O` together with Sources/StepDetection/*.swift, in one module, so it can read
// the detector's state after each sample without a trace flag in the detector itself:
//
//   bout_trace PARAMETERS.json FILE...      one JSON line per file on standard output
//
// Each line: the counted and refused steps (the detector's events), the strong and weak peak trackers' peaks (time,
// swing), the rhythm's bouts (start, end, steps, whether credited) and every scored window (start, end, the decision's
// probability, the trees' alone, after the gravity and own-share gates, the physical paths' evidence, the short-bout
// evidence, and the gate's inputs). Times in seconds of the file's time column. Samples are read as `count` reads a
// `t_ms,x,y,z` or `t_ms,magnitude` CSV (median |a| under 3.5: g) and pushed one by one, which gives the events
// pushing in runs gives (BatchPushTests).
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
    /// start, end, p, trees, gated, path, shortBoutEvidence, hasAxes, alongShare, alongOwnShare, armSwing, then (acc46)
    /// the held-arm and carried-arm paths' evidence, vectorStride, carriedStep, carriedJolt, bodySway, rStride
    var windows: [[Double]] = []
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
            let path = max(judge.steadyStrideEvidence(f), judge.heldArmEvidence(f), judge.carriedArmEvidence(f))
            let evidence =
                StepDetector.axesSayMore(f) && f.alongShare >= parameters.shortBoutAlongShare ? d.probability : 0
            out.windows.append([
                seconds(d.start.nanosecondsSinceEpoch), seconds(d.end.nanosecondsSinceEpoch), d.probability,
                r.model.probability(f), r.probability(f), path, evidence, f.hasAxes ? 1 : 0, f.alongShare,
                f.alongOwnShare, f.armSwing, judge.heldArmEvidence(f), judge.carriedArmEvidence(f), f.vectorStride,
                f.carriedStep, f.carriedJolt, f.bodySway, f.rStride,
            ])
        default: break
        }
    }
    for (t, v) in zip(times, values) {
        let (strong, weak, rhythm) = (detector.peaks, detector.weakPeaks, detector.rhythm)
        pushSample(&detector, t, v, emit)
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
