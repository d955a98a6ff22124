import WallTime

extension TimeWindow {
    /// `[fromNs, toNs)` in ns since the epoch: the tests write their times as integers.
    public init(fromNs: Int64, toNs: Int64) {
        self.init(start: Instant(nanosecondsSinceEpoch: fromNs), end: Instant(nanosecondsSinceEpoch: toNs))
    }

    /// Every instant from the epoch on: all that a state holds.
    public static let sinceEpoch = TimeWindow(start: .epoch, end: .distantFuture)
}
