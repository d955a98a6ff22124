import SensorInput
import StepDetection

/// Steps found in one recording.
public struct RecordingCount: Sendable {
    public var summary: ReadSummary
    public var steps: Int
    public var bouts: [WalkingBout]
    /// Time of every counted step (ns, same time base as the samples), when requested.
    public var stepTimes: [Int64]
    /// Samples the detector dropped: out of time order, or NaN/infinite/absurd values.
    public var outOfOrder: Int
    public var invalid: Int
}

/// Reads a recording and runs the step detector over it: the path behind `steptweet count` and `preview`.
public enum RecordingCounter {
    public static func count(
        path: String,
        options: ReadOptions = ReadOptions(),
        parameters: DetectorParameters = .standard,
        keepStepTimes: Bool = false,
        onSample: ((AccelerationSample) -> Void)? = nil
    ) throws -> RecordingCount {
        var detector = StepDetector(parameters: parameters)
        var bouts: [WalkingBout] = []
        var times: [Int64] = []
        let handle: (DetectorEvent) -> Void = { event in
            switch event {
            case .step(let t): if keepStepTimes { times.append(t) }
            case .boutEnded(let b): bouts.append(b)
            case .boutStarted: break
            }
        }
        let summary = try AccelerationInput.read(path: path, options: options) { s in
            onSample?(s)
            detector.push(timeNs: s.timeNs, x: s.x, y: s.y, z: s.z, handle)
        }
        detector.finish(handle)
        let c = detector.counters
        return RecordingCount(summary: summary, steps: c.steps, bouts: bouts, stepTimes: times,
                              outOfOrder: c.outOfOrder, invalid: c.invalid)
    }
}
