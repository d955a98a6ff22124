import WallTime

/// A window as it is posted, made once when it closes: its time, its steps, its text and the key every target posts
/// it under. The outbox row (`OutboxRecord`) keeps it for each target, the fetch's report lists it, and each delivery
/// names it; Publishing's `Post` is made from it (in Agent).
public struct ClosedWindow: Codable, Sendable, Equatable {
    /// Where the window begins and ends (the outbox stores them as ns since the epoch).
    public var span: TimeWindow
    public var steps: Int
    /// Of `steps`, those that arrived after the window covering their time was posted. Known to the fetch that closed
    /// the window; the outbox row does not keep it (read back, 0).
    public var lateSteps: Int
    public var text: String
    /// `steps-<start>-<end>`, the same for every target and retry (`Post.idempotencyKey`).
    public var idempotencyKey: String
    /// The chart's alt text, when the fetch that closed the window drew its chart; kept with the chart in
    /// `outbox_image`, not in the outbox row (read back, nil).
    public var imageAlt: String?

    /// A window with its key (the closing fetch makes the key from its time; the outbox reads back the one stored).
    package init(span: TimeWindow, steps: Int, lateSteps: Int = 0, text: String, idempotencyKey: String) {
        self.span = span
        self.steps = steps
        self.lateSteps = lateSteps
        self.text = text
        self.idempotencyKey = idempotencyKey
    }
}
