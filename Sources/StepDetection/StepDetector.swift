/// Tunable constants of the detector. One set serves every placement and sampling rate.
public struct DetectorParameters: Sendable, Equatable, Codable {
    /// Cut-off of the low-pass filter on the acceleration magnitude, in Hz.
    public var lowPassHz: Double = 3.0
    /// Time constant of the gravity (baseline) estimate, in seconds.
    public var baselineSeconds: Double = 1.0
    /// Smallest peak-to-trough swing that can be a step, in m/s².
    public var minSwing: Double = 0.8
    /// Shortest and longest plausible time between steps, in seconds.
    public var minStepInterval: Double = 0.25
    public var maxStepInterval: Double = 1.6
    /// Candidate steps in a row, at a regular rhythm, needed to confirm a walking bout.
    public var confirmSteps: Int = 4
    /// Largest ratio between consecutive step intervals that still counts as regular.
    public var rhythmTolerance: Double = 1.6
    /// A gap in the data longer than this (seconds) resets the filters and ends the bout.
    public var maxSampleGap: Double = 1.0

    public init() {}

    /// The parameters `steptweet` uses.
    public static let standard = DetectorParameters()
}

/// Streaming step detector: push samples in time order, receive step events and walking bouts.
///
/// Fixed memory, no allocation per sample, filters defined in seconds (so any rate from 12.5 to 500 Hz with jittered
/// timestamps works), integer nanosecond time. The whole state is `Codable` so a caller can save it between runs and
/// resume mid-stream.
public struct StepDetector: Sendable, Codable {
    public let parameters: DetectorParameters
    public private(set) var counters = DetectorCounters()

    private var lastTimeNs: Int64 = .min
    private var filtered = 0.0
    private var baseline = 0.0
    private var primed = false
    // Peak tracking on the filtered, baseline-removed signal.
    private var rising = false
    private var previous = 0.0
    private var trough = 0.0
    private var lastCandidateNs: Int64 = .min
    // Walking gate: candidates waiting for confirmation, and the current bout.
    private var pending: [Int64] = []
    private var inBout = false
    private var bout = WalkingBout(startNs: 0, endNs: 0, steps: 0)
    private var lastInterval = 0.0

    public init(parameters: DetectorParameters = .standard) {
        self.parameters = parameters
        pending.reserveCapacity(max(parameters.confirmSteps, 1))
    }

    /// Pushes one sample with three axes in m/s².
    @inlinable
    public mutating func push(timeNs: Int64, x: Double, y: Double, z: Double, _ emit: (DetectorEvent) -> Void) {
        push(timeNs: timeNs, magnitude: (x * x + y * y + z * z).squareRoot(), emit)
    }

    /// Pushes one sample given as the magnitude of acceleration in m/s².
    public mutating func push(timeNs: Int64, magnitude: Double, _ emit: (DetectorEvent) -> Void) {
        guard magnitude.isFinite, magnitude >= 0, magnitude < 50 * standardGravity else {
            counters.invalid += 1
            return
        }
        if lastTimeNs != .min && timeNs <= lastTimeNs {
            counters.outOfOrder += 1
            return
        }
        counters.accepted += 1
        let dt = lastTimeNs == .min ? 0 : Double(timeNs - lastTimeNs) * 1e-9
        lastTimeNs = timeNs
        if !primed || dt > parameters.maxSampleGap {
            endBout(emit)
            pending.removeAll(keepingCapacity: true)
            filtered = magnitude
            baseline = magnitude
            previous = 0
            trough = 0
            rising = false
            primed = true
            return
        }
        let lpTau = 1.0 / (2 * Double.pi * parameters.lowPassHz)
        filtered += (magnitude - filtered) * (dt / (lpTau + dt))
        baseline += (magnitude - baseline) * (dt / (parameters.baselineSeconds + dt))
        let value = filtered - baseline
        if value > previous {
            if !rising { trough = previous }
            rising = true
        } else if value < previous && rising {
            rising = false
            if previous - trough >= parameters.minSwing {
                candidate(at: timeNs, emit)
            }
        }
        previous = value
        if inBout, Double(timeNs - bout.endNs) * 1e-9 > boutTimeout {
            endBout(emit)
        }
    }

    /// Steps before this time (ns) are final: no later sample can make the detector report another step earlier than
    /// it (candidates still waiting for a bout's confirmation are at or after it). Nil before the first sample.
    /// A fetch closes its window no later than this, so steps credited retroactively are never lost.
    public var settledNs: Int64? {
        if lastTimeNs == .min { return nil }
        if let first = pending.first { return min(first, lastTimeNs) }
        return lastTimeNs
    }

    /// Ends the stream: closes an open walking bout. Candidates never confirmed are discarded.
    public mutating func finish(_ emit: (DetectorEvent) -> Void) {
        endBout(emit)
        pending.removeAll(keepingCapacity: true)
    }

    private var boutTimeout: Double {
        max(parameters.maxStepInterval, lastInterval * 2.5)
    }

    private mutating func candidate(at timeNs: Int64, _ emit: (DetectorEvent) -> Void) {
        if lastCandidateNs != .min, Double(timeNs - lastCandidateNs) * 1e-9 < parameters.minStepInterval { return }
        let interval = lastCandidateNs == .min ? .infinity : Double(timeNs - lastCandidateNs) * 1e-9
        lastCandidateNs = timeNs
        if inBout {
            if interval <= boutTimeout {
                lastInterval = interval
                bout.endNs = timeNs
                bout.steps += 1
                counters.steps += 1
                emit(.step(timeNs: timeNs))
                return
            }
            endBout(emit)
        }
        let regular = interval <= parameters.maxStepInterval
            && (lastInterval == 0 || pending.count < 2
                || max(interval / lastInterval, lastInterval / interval) <= parameters.rhythmTolerance)
        if !regular { pending.removeAll(keepingCapacity: true) }
        if !pending.isEmpty { lastInterval = interval }
        pending.append(timeNs)
        if pending.count >= parameters.confirmSteps {
            inBout = true
            counters.bouts += 1
            bout = WalkingBout(startNs: pending[0], endNs: timeNs, steps: pending.count)
            emit(.boutStarted(timeNs: pending[0]))
            for t in pending { emit(.step(timeNs: t)) }
            counters.steps += pending.count
            pending.removeAll(keepingCapacity: true)
        }
    }

    private mutating func endBout(_ emit: (DetectorEvent) -> Void) {
        guard inBout else { return }
        inBout = false
        lastInterval = 0
        emit(.boutEnded(bout))
    }
}
