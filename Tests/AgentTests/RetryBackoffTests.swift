import Foundation
import Publishing
import Testing

@testable import Agent

/// The outbox's retry delays come from the one documented `Backoff`: 30 s doubling per failed attempt, capped at 1 h
/// (the cap holds with the largest jitter; the old copy could reach 72 min), and a server's wish honoured.
@Suite struct RetryBackoffTests {
    func fetcher(random: Double) throws -> Fetcher {
        let dir = try TempDir()
        var fetcher = Fetcher(configuration: try Fixture.config(dir: dir), clock: ContinuousClock())
        fetcher.random = { random }
        return fetcher
    }

    @Test func delaysDoubleFromThirtySecondsAndNeverPassAnHour() throws {
        let low = try fetcher(random: 0)
        let high = try fetcher(random: 0.999_999)
        #expect(low.retryDelay(attempts: 1, retryAfter: nil) == .seconds(15))
        #expect(low.retryDelay(attempts: 2, retryAfter: nil) == .seconds(30))
        for attempts in 1...40 {
            let d = high.retryDelay(attempts: attempts, retryAfter: nil)
            #expect(d <= .seconds(3_600), "attempt \(attempts): \(d)")
            #expect(
                d == .nanoseconds(Int64(Backoff.delay(attempt: attempts, retryAfter: nil, random: { 0.999_999 }) * 1e9))
            )
        }
    }

    @Test func aServersRetryAfterIsHonouredEvenAboveTheCap() throws {
        let f = try fetcher(random: 0)
        #expect(f.retryDelay(attempts: 3, retryAfter: 900) == .seconds(900))
        #expect(f.retryDelay(attempts: 3, retryAfter: 7200) == .seconds(7_200))
    }
}
