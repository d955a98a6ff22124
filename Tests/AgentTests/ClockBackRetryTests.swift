import Agent
import Foundation
import Publishing
import Testing
import WallTime

/// A wall clock that was ahead (a board without a real-time clock, a wrong manual setting) and is set back by NTP
/// between fetches: a post queued or tried on the clock that was ahead is tried at the next fetch, not held back until
/// the corrected clock reaches the wait set on the wrong one (a day ahead: a day without the post).
@Suite(.timeLimit(.minutes(1))) struct ClockBackRetryTests {
    let t0 = Fixture.date("2026-11-21T10:00:00+09:00")
    /// Kept for the test's whole life: a folder released once the configuration is made is removed at once, and the
    /// state the fetches write makes it again where nothing removes it.
    let dir: TempDir

    init() throws { dir = try TempDir() }

    func fetcher(_ target: ScriptedPublisher) throws -> Fetcher {
        var config = try Fixture.config(dir: dir)
        config.publishers = [target]
        return Fetcher(configuration: config, clock: ContinuousClock())
    }

    /// Queued and first tried while the clock was a day ahead.
    @Test func aPostQueuedOnAClockAheadIsTriedWhenTheClockIsSetBack() async throws {
        let target = ScriptedPublisher(outcomes: [.retryable(reason: "HTTP 503", retryAfter: nil)])
        let fetcher = try fetcher(target)
        let ahead = await fetcher.fetch(now: Instant(t0.addingTimeInterval(86_400 + 600)), trigger: [.manual])
        #expect(ahead.result == .failed, "\(ahead.line)")
        let back = await fetcher.fetch(now: Instant(t0.addingTimeInterval(900)), trigger: [.manual])
        #expect(back.deliveries.map(\.outcome) == [.delivered], "\(back.line)")
        #expect(await target.received.count == 2)
    }

    /// Queued on the right clock, then tried once while the clock was a day ahead (its wait set from there).
    @Test func aPostTriedOnAClockAheadIsTriedAgainWhenTheClockIsSetBack() async throws {
        let target = ScriptedPublisher(outcomes: [
            .retryable(reason: "HTTP 503", retryAfter: nil), .retryable(reason: "HTTP 503", retryAfter: nil),
        ])
        let fetcher = try fetcher(target)
        _ = await fetcher.fetch(now: Instant(t0.addingTimeInterval(600)), trigger: [.manual])
        let ahead = await fetcher.fetch(now: Instant(t0.addingTimeInterval(86_400 + 900)), trigger: [.manual])
        #expect(ahead.deliveries.map(\.outcome) == [.retryable], "\(ahead.line)")
        let back = await fetcher.fetch(now: Instant(t0.addingTimeInterval(1800)), trigger: [.manual])
        #expect(back.deliveries.first?.outcome == .delivered, "\(back.line)")
        #expect(await target.received.count == 3)
    }

    /// Once tried on the clock set back, the post's new wait is honoured: the clock still being before the time it
    /// was queued (on the clock that was ahead) is no reason to try it at every fetch (a target asking for an hour,
    /// HTTP 429, would be asked again each minute until the clock reaches that time, a day later).
    @Test func aWaitSetAfterTheClockWasSetBackIsHonoured() async throws {
        let target = ScriptedPublisher(outcomes: [
            .retryable(reason: "HTTP 503", retryAfter: nil), .retryable(reason: "HTTP 429", retryAfter: 3600),
        ])
        let fetcher = try fetcher(target)
        _ = await fetcher.fetch(now: Instant(t0.addingTimeInterval(86_400 + 600)), trigger: [.manual])
        let back = await fetcher.fetch(now: Instant(t0.addingTimeInterval(900)), trigger: [.manual])
        #expect(back.deliveries.map(\.outcome) == [.retryable], "\(back.line)")
        let soon = await fetcher.fetch(now: Instant(t0.addingTimeInterval(1200)), trigger: [.manual])
        #expect(soon.deliveries.map(\.outcome) == [.deferred], "\(soon.line)")
        #expect(await target.received.count == 2)
    }

    /// A wait set on a clock that was not set back is still honoured.
    @Test func aWaitOnTheSameClockIsStillHonoured() async throws {
        let target = ScriptedPublisher(outcomes: [.retryable(reason: "HTTP 429", retryAfter: 3600)])
        let fetcher = try fetcher(target)
        _ = await fetcher.fetch(now: Instant(t0.addingTimeInterval(600)), trigger: [.manual])
        let early = await fetcher.fetch(now: Instant(t0.addingTimeInterval(1800)), trigger: [.manual])
        #expect(early.deliveries.map(\.outcome) == [.deferred], "\(early.line)")
        #expect(await target.received.count == 1)
    }
}
