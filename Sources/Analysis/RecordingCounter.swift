import SensorInput
import StepDetection
import WallTime

/// Steps found in one recording or step log.
public struct RecordingCount: Sendable {
    public var summary: ReadSummary
    public var steps: Int
    public var bouts: [WalkingBout]
    /// Time of every counted step (same time base as the samples), when requested.
    public var stepTimes: [Instant]
    /// Samples the detector dropped: out of time order, or NaN/infinite/absurd values.
    public var outOfOrder: Int
    public var invalid: Int
    /// `acceleration` (steps detected) or `steps` (readings summed).
    public var kind: InputKind = .acceleration
    /// The step readings of a step input, in file order (empty for acceleration).
    public var readings: [StepReading] = []

    /// Steps in `[from, to)`: detected steps by their time; step readings by `StepReading`'s one rule (spread
    /// evenly over their period), as a fetch stores them.
    public func steps(from: Instant, to: Instant) -> Int {
        guard kind == .steps else { return stepTimes.filter { $0 >= from && $0 < to }.count }
        return readings.reduce(0) { $0 + $1.steps(from: from, to: to) }
    }
}

/// Reads a recording and runs the step detector over it, or sums the readings of a step log: the path behind
/// `steptweet count` and `preview`.
public enum RecordingCounter {
    public static func count(
        path: String,
        options: ReadOptions = ReadOptions(),
        parameters: DetectorParameters = .standard,
        keepStepTimes: Bool = false,
        axisFeatures: Bool = false,
        magnitudeOnly: Bool = false,
        onSample: ((AccelerationSample) -> Void)? = nil,
        onEvent: ((DetectorEvent) -> Void)? = nil
    ) throws -> RecordingCount {
        var detector = StepDetector(parameters: parameters, axisFeatures: axisFeatures)
        var bouts: [WalkingBout] = []
        var times: [Instant] = []
        var readings: [StepReading] = []
        let handle: (DetectorEvent) -> Void = { event in
            switch event {
            case .step(let t): if keepStepTimes { times.append(t) }
            case .boutEnded(let b): bouts.append(b)
            case .boutStarted, .refused, .decision: break
            }
            onEvent?(event)
        }
        // Without a per-sample observer, runs of samples go to the detector in one call each.
        let batch: SampleBatchSink? = onSample == nil && !magnitudeOnly ? { detector.push($0, handle) } : nil
        let summary = try AnyInput.read(path: path, options: options, batch: batch) { item in
            switch item {
            case .sample(let s):
                onSample?(s)
                if magnitudeOnly {
                    detector.push(time: s.time, magnitude: s.magnitude, handle)
                } else {
                    detector.push(time: s.time, x: s.x, y: s.y, z: s.z, handle)
                }
            case .reading(let r):
                readings.append(r)
            case .record:
                break  // only a followed export gathered out of order hands out records
            }
        }
        if summary.kind == .steps {
            return RecordingCount(
                summary: summary, steps: summary.steps, bouts: [], stepTimes: [], outOfOrder: 0,
                invalid: 0, kind: .steps, readings: readings)
        }
        detector.finish(handle)
        let c = detector.counters
        return RecordingCount(
            summary: summary, steps: c.steps, bouts: bouts, stepTimes: times,
            outOfOrder: c.outOfOrder, invalid: c.invalid)
    }
}
