import Agent
import Clocks
import Foundation
import Publishing
import Testing

/// A target without idempotency (like Discord, Slack, ntfy): sending twice makes two posts. Scripted publish outcomes
/// and lookups; records what it was sent.
actor ChatTarget: Publisher {
    nonisolated let name = "chat"
    nonisolated let resendUnconfirmed: Bool
    nonisolated var repeatsDuplicate: Bool { true }
    var outcomes: [DeliveryOutcome]
    var lookups: [PostLookup]
    /// Publish calls that never answer (the fetch's deadline ends them).
    var hangs: Int
    private(set) var received: [Post] = []
    private(set) var lookedUp: [Post] = []
    /// Yields each time a publish call begins, so a test can move its clock once the request is under way.
    nonisolated let publishing: AsyncStream<Void>
    private let publishingContinuation: AsyncStream<Void>.Continuation

    init(outcomes: [DeliveryOutcome] = [], lookups: [PostLookup] = [], hangs: Int = 0, resendUnconfirmed: Bool = true) {
        self.outcomes = outcomes
        self.lookups = lookups
        self.hangs = hangs
        self.resendUnconfirmed = resendUnconfirmed
        (publishing, publishingContinuation) = AsyncStream.makeStream()
    }

    func publish(_ post: Post, deadline: Deadline) async -> DeliveryOutcome {
        received.append(post)
        publishingContinuation.yield()
        if hangs > 0 {
            hangs -= 1
            try? await Task.sleep(for: .seconds(30))
        }
        return outcomes.isEmpty ? .delivered(remoteID: "c\(received.count)") : outcomes.removeFirst()
    }

    func lookUp(_ post: Post, deadline: Deadline) async -> PostLookup {
        lookedUp.append(post)
        return lookups.isEmpty ? .unsupported : lookups.removeFirst()
    }
}

@Suite(.timeLimit(.minutes(1))) struct UnconfirmedDeliveryTests {
    let t0 = Fixture.date("2026-11-21T10:00:00+09:00")

    func run(_ target: ChatTarget, fetches: Int, schedule: String = "") async throws -> (
        reports: [FetchReport], store: StateStore, dir: TempDir
    ) {
        let dir = try TempDir()
        var config = try Fixture.config(dir: dir, schedule: schedule)
        config.publishers = [target]
        let fetcher = Fetcher(configuration: config)
        var reports: [FetchReport] = []
        for i in 1...fetches {
            reports.append(await fetcher.fetch(now: t0.addingTimeInterval(Double(i) * 3600), trigger: [.manual]))
        }
        // the folder lives as long as the caller holds it
        return (reports, try StateStore(path: config.statePath), dir)
    }

    @Test func anAttemptWhoseAnswerWasLostIsFoundAndNotSentAgain() async throws {
        let target = ChatTarget(
            outcomes: [.retryable(reason: "HTTP 504", retryAfter: nil, unconfirmed: true)],
            lookups: [.found(remoteID: "c1")])
        let (reports, store, dir) = try await run(target, fetches: 2)
        defer { withExtendedLifetime(dir) {} }
        #expect(reports[0].result == .failed)
        #expect(reports[1].deliveries.map(\.outcome) == [.alreadyDelivered], "\(reports[1].deliveries)")
        #expect(await target.received.count == 1)
        #expect(await target.lookedUp.map(\.idempotencyKey) == [reports[0].windows[0].idempotencyKey])
        let delivered = try store.outbox(status: .delivered)
        #expect(delivered.map(\.remoteID) == ["c1"])
        #expect(delivered.map(\.unconfirmed) == [false])
    }

    @Test func notFoundIsSentAgain() async throws {
        let target = ChatTarget(
            outcomes: [.retryable(reason: "HTTP 502", retryAfter: nil, unconfirmed: true)], lookups: [.notFound])
        let (reports, store, dir) = try await run(target, fetches: 2)
        defer { withExtendedLifetime(dir) {} }
        #expect(reports[1].deliveries.map(\.outcome) == [.delivered])
        #expect(await target.received.count == 2)
        #expect(try store.outbox(status: .delivered).map(\.attempts) == [2])
    }

    @Test func aRefusedAttemptIsResentWithoutLookingUp() async throws {
        // 429: the server says it did not act; nothing to look up, even for a target that cannot look up.
        let target = ChatTarget(outcomes: [.retryable(reason: "HTTP 429", retryAfter: 60)], resendUnconfirmed: false)
        let (reports, _, dir) = try await run(target, fetches: 2)
        defer { withExtendedLifetime(dir) {} }
        #expect(reports[1].deliveries.map(\.outcome) == [.delivered])
        #expect(await target.lookedUp.isEmpty)
        #expect(await target.received.count == 2)
    }

    @Test func atMostOnceGivesUpAnUnconfirmedPostItCannotCheck() async throws {
        let target = ChatTarget(
            outcomes: [.retryable(reason: "HTTP 500", retryAfter: nil, unconfirmed: true)], resendUnconfirmed: false)
        let (reports, store, dir) = try await run(target, fetches: 3)
        defer { withExtendedLifetime(dir) {} }
        #expect(reports[1].deliveries.map(\.outcome) == [.permanent])
        #expect(reports[1].deliveries.first?.reason?.contains("resend_unconfirmed = false") == true)
        #expect(await target.received.count == 1)
        #expect(try store.outbox(status: .failed).count == 1)
        #expect(reports[2].deliveries.isEmpty)  // never tried again
    }

    @Test func aFailedLookupKeepsThePostWaitingUntilItCanTell() async throws {
        let target = ChatTarget(
            outcomes: [.retryable(reason: "HTTP 503", retryAfter: nil, unconfirmed: true)],
            lookups: [.failed(reason: "HTTP 502"), .found(remoteID: "c1")])
        let (reports, _, dir) = try await run(target, fetches: 3)
        defer { withExtendedLifetime(dir) {} }
        #expect(reports[1].deliveries.map(\.outcome) == [.retryable])
        #expect(reports[1].deliveries.first?.reason?.hasPrefix("not resent: cannot tell") == true)
        #expect(reports[2].deliveries.map(\.outcome) == [.alreadyDelivered])
        #expect(await target.received.count == 1)
    }

    @Test func aFetchThatRanOutOfTimeMidRequestLooksUpFirst() async throws {
        // The attempt is counted (unconfirmed) before the request; the deadline ends it without an answer. The budget
        // runs on a test clock, moved past the deadline once the request hangs: no real waiting.
        let target = ChatTarget(lookups: [.found(remoteID: "late")], hangs: 1)
        let dir = try TempDir()
        var config = try Fixture.config(dir: dir, schedule: "deadline = \"1s\"")
        config.publishers = [target]
        var fetcher = Fetcher(configuration: config)
        let clock = TestClock()
        fetcher.clock = clock
        async let first = fetcher.fetch(now: t0.addingTimeInterval(3600), trigger: [.manual])
        for await _ in target.publishing { break }
        await clock.advance(by: .seconds(2))
        let reports = [await first, await fetcher.fetch(now: t0.addingTimeInterval(7200), trigger: [.manual])]
        let store = try StateStore(path: config.statePath)
        #expect(reports[0].result == .failed)
        #expect(reports[1].deliveries.map(\.outcome) == [.alreadyDelivered])
        #expect(await target.received.count == 1)
        #expect(try store.outbox(status: .delivered).map(\.remoteID) == ["late"])
    }
}
