import Clocks
import Foundation
@_exported import HTTPTestSupport
@_exported import TestSupport

@testable import Publishing

let samplePost = Post(
    text: "11/21 10:00:00 〜 11/21 10:30:00 の期間に iPhone 5s を持って 1234 歩 歩きました。 Tweet By Background Fetch",
    windowStart: Date(timeIntervalSince1970: 1_763_686_800), windowEnd: Date(timeIntervalSince1970: 1_763_688_600))

/// A deadline on a test clock nobody moves: it never passes, so a test that is not about deadlines does not race
/// the machine's load (the suites run in parallel on a shared machine). Tests about deadlines move their own clock.
func soon(_ seconds: Double = 10) -> Deadline { Deadline(in: .seconds(seconds), clock: TestClock<Duration>()) }
