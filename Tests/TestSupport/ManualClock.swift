import Clocks
import Foundation
import WallTime

/// Wall time that a test moves: swift-clocks' `TestClock`, read as dates from a start date. Time moves only when the
/// test advances it, so no test waits for real.
public struct ManualClock: Sendable {
    public let test = TestClock<Duration>()
    public let wall: WallClock

    public init(_ start: Date) { wall = WallClock(test, startingAt: start) }

    public func now() -> Date { wall.now() }

    /// Moves time on and lets every sleeper that is due run.
    public func advance(by seconds: TimeInterval) async { await test.advance(by: .seconds(seconds)) }
}
