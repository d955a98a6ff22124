// Which path of the walking gate accepted each counted step, for bench/fold_paths.py (issue #47, h47fold: WISDM
// folding-clothes and clapping false steps). Built by fold_paths.py with `swiftc -O` together with a copy of
// Sources/StepDetection/*.swift in which fold_paths.py sets `traceRunCause` where the gate lets a run count (the
// hysteresis at `enter`, a short bout, a bout group, a lone bout): the detector itself has no trace flag.
//
//   fold_trace PARAMETERS.json FILE...      one JSON line per file on standard output
//
// Each line: the counted steps (time, the cause of the run that counted it, the time of the step that entered the
// run), the strong and weak peaks' times, the rhythm's bouts (start, end, steps, credited) and every scored window
// (start, end, the decision's probability, the trees' alone, after the gravity and own-share gates, the steady-stride
// and held-arm evidence, then the 21 features in `WindowFeatures.names` order, NaN as -9).
import Foundation
import WallTimeCore

struct Trace: Encodable {
    var file: String
    var steps: [[Double]] = []
    var causes: [String] = []
    var refused: [Double] = []
    var strong: [Double] = []
    var weak: [Double] = []
    var rhythm: [[Double]] = []
    var windows: [[Double]] = []
}

func trace(_ path: String, _ parameters: DetectorParameters) -> Trace {
    var out = Trace(file: path)
    var detector = StepDetector(parameters: parameters)
    let judge = StepDetector(parameters: parameters)
    let (times, values) = readSamples(path)
    traceRunCause = ""
    func emit(_ event: DetectorEvent) {
        switch event {
        case .step(let at):
            out.steps.append([seconds(at.nanosecondsSinceEpoch), seconds(traceEnterNs)])
            out.causes.append(traceRunCause)
        case .refused(let at): out.refused.append(seconds(at.nanosecondsSinceEpoch))
        case .decision(let d, let f):
            let r = parameters.recognizer
            var row = [
                seconds(d.start.nanosecondsSinceEpoch), seconds(d.end.nanosecondsSinceEpoch), d.probability,
                r.model.probability(f), r.probability(f), judge.steadyStrideEvidence(f), judge.heldArmEvidence(f),
            ]
            row += f.values.map { $0.isNaN ? -9 : $0 }
            // After the features: the vector repeat gate's two measures (h47fold35_candidates.py), -9 without axes.
            row += f.hasAxes ? [f.vectorStride, f.alongStride] : [-9, -9]
            out.windows.append(row)
        default: break
        }
    }
    for (t, v) in zip(times, values) {
        let (strong, weak, rhythm) = (detector.peaks, detector.weakPeaks, detector.rhythm)
        pushSample(&detector, t, v, emit)
        if strong.seekingPeak && !detector.peaks.seekingPeak { out.strong.append(seconds(strong.extremeNs)) }
        if weak.seekingPeak && !detector.weakPeaks.seekingPeak { out.weak.append(seconds(weak.extremeNs)) }
        let after = detector.rhythm
        if rhythm.inBout && (!after.inBout || after.bout.startNs > rhythm.bout.endNs) {
            let ended = after.inBout ? rhythm : after
            out.rhythm.append([
                seconds(ended.bout.startNs), seconds(ended.bout.endNs), Double(ended.bout.steps),
                ended.boutCredited ? 1 : 0,
            ])
        }
    }
    detector.finish(emit)
    return out
}

try traceFiles(usage: "fold_trace", trace)
