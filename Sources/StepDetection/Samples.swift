import WallTimeCore

/// Standard gravity in m/s², the unit conversion factor for data recorded in g.
public let standardGravity = 9.80665

/// The one limit of a plausible acceleration magnitude: 50 g (50 × 9.80665 m/s²). Beyond it a value is a glitch or a
/// unit error. A literal behind an inlinable accessor, so the per-sample paths pay no lazy-global check.
@inlinable public var maximumPlausibleAcceleration: Double { 490.3325 }

/// One acceleration sample: its time (an `Instant`, integer nanoseconds: exact over centuries, no drift from growing
/// floats) and acceleration in m/s² including gravity.
public struct AccelerationSample: Sendable, Equatable {
    public var time: Instant
    public var x: Double
    public var y: Double
    public var z: Double

    @inlinable
    public init(time: Instant, x: Double, y: Double, z: Double) {
        self.time = time
        self.x = x
        self.y = y
        self.z = z
    }

    /// The time in nanoseconds, as the detector's per-sample state holds it.
    var timeNs: Int64 { time.nanosecondsSinceEpoch }

    /// Euclidean norm of the acceleration vector, in m/s².
    @inlinable public var magnitude: Double { (x * x + y * y + z * z).squareRoot() }
}

/// Steps taken over a period, `[start, end]`: a walking bout the detector found, or a reading a pedometer reported (a
/// delta from a step log, a health export or a hardware counter; `SensorInput.StepReading`). One type, so that a bout
/// and a reading store, chart and decode alike.
public struct StepSpan: Sendable, Equatable, Codable {
    /// The first step (a bout) or the start of the period (a reading).
    public var start: Instant
    /// The last step (a bout) or the end of the period (a reading); equal to `start` for a point reading.
    public var end: Instant
    /// Steps credited to the bout, or reported for the period.
    public var steps: Int

    public init(start: Instant, end: Instant, steps: Int) {
        self.start = start
        self.end = end
        self.steps = steps
    }

    /// Saved states and readings hold the times under their old names, as bare nanoseconds (`Instant` encodes so).
    enum CodingKeys: String, CodingKey {
        case start = "startNs"
        case end = "endNs"
        case steps
    }
}

/// A contiguous run of regular stepping found by the detector: its first and last counted step and its steps.
public typealias WalkingBout = StepSpan

/// A bout as the detector's state holds it while steps come: its first and last step in nanoseconds. The public
/// `WalkingBout` is made from it only where a bout is reported; saved, it keeps `WalkingBout`'s keys and bare integers,
/// so states saved with either decode as the other.
struct BoutNs: Sendable, Equatable, Codable {
    var startNs: Int64
    var endNs: Int64
    var steps: Int

    /// No bout yet (a bout at the epoch with no steps, as saved before).
    static let none = BoutNs(startNs: 0, endNs: 0, steps: 0)

    /// The bout as the detector reports it.
    var walkingBout: WalkingBout {
        WalkingBout(
            start: Instant(nanosecondsSinceEpoch: startNs), end: Instant(nanosecondsSinceEpoch: endNs), steps: steps)
    }
}

/// What the detector reports while samples stream through it.
public enum DetectorEvent: Sendable, Equatable {
    /// One counted step at this time. Steps of a bout's confirmation run are reported, in time order,
    /// when the bout is confirmed, so their times may lie a few seconds before the sample that confirmed them.
    case step(at: Instant)
    /// A walking bout was confirmed; its first step is at this time.
    case boutStarted(at: Instant)
    /// A walking bout ended (no regular step followed in time, a gap in the data, or the end of the stream).
    case boutEnded(WalkingBout)
    /// A step the rhythm found, refused because no window of motion around it was recognised as walking.
    case refused(at: Instant)
    /// The walking recognizer scored a window of motion (about one per second), from these features.
    case decision(WalkingDecision, WindowFeatures)
}

/// Counts of samples the detector accepted or refused.
public struct DetectorCounters: Sendable, Equatable, Codable {
    /// Samples processed.
    public var accepted: Int = 0
    /// Samples dropped because their time was not after the previous sample's.
    public var outOfOrder: Int = 0
    /// Samples dropped because a value was NaN, infinite or physically absurd, or because they were all zero (a
    /// logger's missing value) with no valid sample before them to repeat or past the hold (ZeroHold.swift).
    public var invalid: Int = 0
    /// Steps counted so far.
    public var steps: Int = 0
    /// Walking bouts confirmed so far.
    public var bouts: Int = 0
    /// Steps the rhythm found but the walking recognizer refused.
    public var refused: Int = 0

    public init() {}

    /// Decodes saved counters; `refused` is missing from states saved before the walking recognizer.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        accepted = try c.decode(Int.self, forKey: .accepted)
        outOfOrder = try c.decode(Int.self, forKey: .outOfOrder)
        invalid = try c.decode(Int.self, forKey: .invalid)
        steps = try c.decode(Int.self, forKey: .steps)
        bouts = try c.decode(Int.self, forKey: .bouts)
        refused = try c.decodeIfPresent(Int.self, forKey: .refused) ?? 0
    }
}
