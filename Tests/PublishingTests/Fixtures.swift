import Clocks
import Foundation
@_exported import HTTPTestSupport
@_exported import TestSupport
import WallTime

@testable import Publishing

let samplePost = Post(
    text: "11/21 10:00:00 〜 11/21 10:30:00 の期間に iPhone 5s を持って 1234 歩 歩きました。 Tweet By Background Fetch",
    window: TimeWindow(start: Instant(secondsSinceEpoch: 1_763_686_800), end: Instant(secondsSinceEpoch: 1_763_688_600))
)

/// A deadline on a test clock nobody moves: it never passes, so a test that is not about deadlines does not race
/// the machine's load (the suites run in parallel on a shared machine). Tests about deadlines move their own clock.
func soon(_ seconds: Double = 10) -> Deadline { Deadline(in: .seconds(seconds), clock: TestClock<Duration>()) }

/// A real PNG of 1×1 pixel (RGBA, 8 bits): what a target uploads is checked byte for byte against it.
let samplePNG = Data(
    base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")!

/// The chart of `samplePost`: the PNG and an alt text in the template's language (non-ASCII, so every encoding on
/// the way is exercised).
let sampleImage = PostImage(
    png: samplePNG, alt: "10 分ごとの歩数の棒グラフ、10:00 〜 10:30: 1,234 歩、最多は 10:10 〜 10:20 の 610 歩。",
    width: 1200, height: 675)

/// `samplePost` with its chart.
let sampleImagePost: Post = {
    var post = samplePost
    post.image = sampleImage
    return post
}()

/// A clock whose time moves only when someone sleeps a short while on it (a poll's pause, up to 2 s): the sleep
/// returns at once, the time having advanced by it. A longer sleep (a deadline's race) waits until it is cancelled
/// or the time has reached it. Polls run at full speed and still use up the deadline in their own time.
final class SteppingClock: Clock, @unchecked Sendable {
    typealias Duration = Swift.Duration
    struct Instant: InstantProtocol {
        var offset: Swift.Duration
        func advanced(by duration: Swift.Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Swift.Duration { other.offset - offset }
        static func < (a: Instant, b: Instant) -> Bool { a.offset < b.offset }
    }
    private let lock = NSLock()
    private var current = Instant(offset: .zero)
    var now: Instant { lock.withLock { current } }
    var minimumResolution: Swift.Duration { .nanoseconds(1) }

    func sleep(until deadline: Instant, tolerance: Swift.Duration?) async throws {
        let short: Bool = lock.withLock {
            let wait = current.duration(to: deadline)
            guard wait <= .seconds(2) else { return false }
            if wait > .zero { current = deadline }
            return true
        }
        if short { return }
        while now < deadline { try await Task.sleep(for: .milliseconds(20)) }
    }
}
