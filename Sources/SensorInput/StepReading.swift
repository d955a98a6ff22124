/// Steps a pedometer reported for a period (a delta), from a step log, a health export or a hardware counter.
public struct StepReading: Sendable, Equatable, Codable {
    /// Start and end of the period the steps were taken in (ns since the Unix epoch); equal for a point reading.
    public var startNs: Int64
    public var endNs: Int64
    public var steps: Int

    public init(startNs: Int64, endNs: Int64, steps: Int) {
        self.startNs = startNs
        self.endNs = endNs
        self.steps = steps
    }
}
