import Agent
import Foundation
import HTTPTestSupport
import Publishing
import Testing
import WallTime

@testable import Store

/// A server's `Retry-After` is honoured up to a day (`Backoff.longestWish`): a wait of centuries, as a broken proxy
/// or a hostile server may answer, crashed every fetch (its nanoseconds do not fit an Int64) and left the post pending
/// for the next fetch to crash on again.
@Suite(.timeLimit(.minutes(1))) struct RetryAfterBoundTests {
    let t0 = Fixture.date("2026-11-21T10:00:00+09:00")

    @Test(arguments: ["99999999999", "Fri, 31 Dec 9999 23:59:59 GMT", "1e300"])
    func aRetryAfterOfCenturiesWaitsADay(_ retryAfter: String) async throws {
        let dir = try TempDir()
        let endpoint = try RecordingEndpoint(script: [.tooManyRequests(retryAfter: retryAfter)])
        let url = try await endpoint.start()
        var config = try Fixture.config(dir: dir)
        config.publishers = [WebhookPublisher(name: "loopback", url: url, bodyTemplate: try WebhookBodyTemplate())]
        let fetcher = Fetcher(configuration: config, clock: ContinuousClock())
        let now = Instant(t0.addingTimeInterval(600))

        let report = await fetcher.fetch(now: now, trigger: [.manual])
        #expect(report.result == .failed)
        #expect(report.line.contains("loopback: HTTP 429"), "\(report.line)")
        let pending = try StateStore(path: config.statePath).outbox(status: .pending)
        #expect(pending.count == 1)
        let wait = (pending.first?.nextAttempt.nanosecondsSinceEpoch ?? 0) - now.nanosecondsSinceEpoch
        // A day, plus at most 5 s of jitter.
        #expect(wait >= 86_400 * 1_000_000_000 && wait <= 86_405 * 1_000_000_000, "\(wait) ns")

        // Within the day nothing is sent; after it, the post goes out.
        let early = await fetcher.fetch(now: Instant(t0.addingTimeInterval(600 + 86_000)), trigger: [.manual])
        #expect(early.deliveries.map(\.outcome) == [.deferred])
        let late = await fetcher.fetch(now: Instant(t0.addingTimeInterval(600 + 86_410)), trigger: [.manual])
        #expect(late.deliveries.map(\.outcome) == [.delivered], "\(late.line)")
        #expect(await endpoint.posts.count == 1)
        await endpoint.stop()
    }
}
