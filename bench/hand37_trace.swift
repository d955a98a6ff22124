// Every counted step's role and every window's gates, for bench/hand37_trace.py (issue #47, hand37: WISDM hand
// activities out of dataset). Built by hand37_trace.py with `swiftc -O` together with a copy of Sources/StepDetection
// in which the gate notes why a run counts (`traceRunCause`), which accept counted a step (`traceRole`) and, per
// scored window, its probability to become walking on and the gates' factors (`traceWindow`): the detector itself
// has no trace flag.
//
//   hand37_trace PARAMETERS.json FILE...      one JSON line per file on standard output
//
// Each line: the counted steps (time, the time of the step that entered the run), their causes and roles, the strong
// and weak peaks' times and every scored window (start, end, the decision's probability, then `traceWindow`: the
// probability to become walking on, the repeat, hands and vector repeat gates' factors, the trees after the gravity
// gates, the path's own evidence and its evidence for `stay`; then the 21 features in `WindowFeatures.names` order,
// NaN as -9, then `vectorStride` and `alongStride`).
import Foundation
import WallTimeCore

struct Trace: Encodable {
    var file: String
    var steps: [[Double]] = []
    var causes: [String] = []
    var roles: [String] = []
    var strong: [Double] = []
    var weak: [Double] = []
    var windows: [[Double]] = []
}

func trace(_ path: String, _ parameters: DetectorParameters) -> Trace {
    var out = Trace(file: path)
    var detector = StepDetector(parameters: parameters)
    let (times, values) = readSamples(path)
    traceRunCause = ""
    func emit(_ event: DetectorEvent) {
        switch event {
        case .step(let at):
            out.steps.append([seconds(at.nanosecondsSinceEpoch), seconds(traceEnterNs)])
            out.causes.append(traceRunCause)
            out.roles.append(traceRole)
        case .decision(let d, let f):
            var row = [seconds(d.start.nanosecondsSinceEpoch), seconds(d.end.nanosecondsSinceEpoch), d.probability]
            row += traceWindow
            row += f.values.map { $0.isNaN ? -9 : $0 }
            row += f.hasAxes ? [f.vectorStride, f.alongStride] : [-9, -9]
            out.windows.append(row)
        default: break
        }
    }
    for (t, v) in zip(times, values) {
        let (strong, weak) = (detector.peaks, detector.weakPeaks)
        pushSample(&detector, t, v, emit)
        if strong.seekingPeak && !detector.peaks.seekingPeak { out.strong.append(seconds(strong.extremeNs)) }
        if weak.seekingPeak && !detector.weakPeaks.seekingPeak { out.weak.append(seconds(weak.extremeNs)) }
    }
    detector.finish(emit)
    return out
}

try traceFiles(usage: "hand37_trace", trace)
