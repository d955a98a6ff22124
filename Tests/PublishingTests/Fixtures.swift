import Foundation
@testable import Publishing
@_exported import TestSupport

let samplePost = Post(text: "11/21 10:00:00 〜 11/21 10:30:00 の期間に iPhone 5s を持って 1234 歩 歩きました。 Tweet By Background Fetch",
                      windowStart: Date(timeIntervalSince1970: 1_763_686_800), windowEnd: Date(timeIntervalSince1970: 1_763_688_600))

/// A deadline a few seconds away on the real clock: long enough for a loopback round trip on a busy machine.
func soon(_ seconds: Double = 10) -> Deadline { Deadline(in: .seconds(seconds)) }
