import WallTimeCore

/// One window's decision: the window `[start, end)` was walking with this probability.
public struct WalkingDecision: Sendable, Equatable, Codable {
    public var start: Instant
    public var end: Instant
    public var probability: Double

    /// Saved detector states hold the times under their old names, as bare nanoseconds (`Instant` encodes so).
    enum CodingKeys: String, CodingKey {
        case start = "startNs"
        case end = "endNs"
        case probability
    }
}

/// A scored window as the walking gate remembers it: its span in nanoseconds and its walking probability. The public
/// `WalkingDecision` is made from it where the window is reported; saved, it keeps `WalkingDecision`'s keys.
struct WindowDecision: Sendable, Equatable, Codable {
    var startNs: Int64
    var endNs: Int64
    var probability: Double
    /// The probability a run may become walking on (`enter`), where the repeat gate lowered it (RepeatGate.swift);
    /// nil: `probability`. States saved before it have none.
    var enterProbability: Double? = nil
    /// The probability a walking run stays on after the same gates (or a physical path's evidence for `stay`), where
    /// they lowered it (`DetectorParameters.gatedStay`); nil: `probability`. States saved before it have none.
    var stayProbability: Double? = nil

    /// Whether the window contains the time `timeNs`.
    func contains(_ timeNs: Int64) -> Bool { startNs <= timeNs && timeNs < endNs }

    /// The decision as the detector reports it.
    var walkingDecision: WalkingDecision {
        WalkingDecision(
            start: Instant(nanosecondsSinceEpoch: startNs), end: Instant(nanosecondsSinceEpoch: endNs),
            probability: probability)
    }
}
