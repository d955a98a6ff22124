import Clocks
import Foundation
import GRDB
import Publishing
import Testing
import WallTime

@testable import Agent
@testable import Store

/// A target without idempotency (like Discord, Slack, ntfy): sending twice makes two posts. Scripted publish outcomes
/// and lookups; records what it was sent.
actor ChatTarget: Publisher {
    nonisolated let name = "chat"
    nonisolated let resendUnconfirmed: Bool
    nonisolated var repeatsDuplicate: Bool { true }
    nonisolated let keyMemory: KeyMemory?
    var outcomes: [DeliveryOutcome]
    var lookups: [PostLookup]
    /// Publish calls that never answer (the fetch's deadline ends them).
    var hangs: Int
    private(set) var received: [Post] = []
    private(set) var lookedUp: [Post] = []
    /// Yields each time a publish call begins, so a test can move its clock once the request is under way.
    nonisolated let publishing: AsyncStream<Void>
    private let publishingContinuation: AsyncStream<Void>.Continuation

    init(
        outcomes: [DeliveryOutcome] = [], lookups: [PostLookup] = [], hangs: Int = 0, resendUnconfirmed: Bool = true,
        keyMemory: KeyMemory? = nil
    ) {
        self.keyMemory = keyMemory
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
        let fetcher = Fetcher(configuration: config, clock: ContinuousClock())
        var reports: [FetchReport] = []
        for i in 1...fetches {
            reports.append(
                await fetcher.fetch(now: Instant(t0.addingTimeInterval(Double(i) * 3600)), trigger: [.manual]))
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
        let clock = TestClock()
        let fetcher = Fetcher(configuration: config, clock: clock)
        async let first = fetcher.fetch(now: Instant(t0.addingTimeInterval(3600)), trigger: [.manual])
        for await _ in target.publishing { break }
        await clock.advance(by: .seconds(2))
        let reports = [await first, await fetcher.fetch(now: Instant(t0.addingTimeInterval(7200)), trigger: [.manual])]
        let store = try StateStore(path: config.statePath)
        #expect(reports[0].result == .failed)
        #expect(reports[1].deliveries.map(\.outcome) == [.alreadyDelivered])
        #expect(await target.received.count == 1)
        #expect(try store.outbox(status: .delivered).map(\.remoteID) == ["late"])
    }

    // MARK: A target that remembers its keys for a while (Matrix: a txnId for 24 h per device)

    static let memory = KeyMemory(lifetime: .seconds(23 * 3600), scope: "token-a")
    static let lost = DeliveryOutcome.retryable(reason: "HTTP 504", retryAfter: nil, unconfirmed: true)

    /// One fetch per `(hours after t0, target)`, each by a fetcher of its own over the same state: the wall clock is
    /// the fetch's `now`.
    func run(_ fetches: [(hours: Double, target: ChatTarget)]) async throws -> (
        reports: [FetchReport], store: StateStore, dir: TempDir
    ) {
        let dir = try TempDir()
        var config = try Fixture.config(dir: dir)
        var reports: [FetchReport] = []
        for (hours, target) in fetches {
            config.publishers = [target]
            reports.append(
                await Fetcher(configuration: config, clock: ContinuousClock()).fetch(
                    now: Instant(t0.addingTimeInterval(hours * 3600)), trigger: [.manual]))
        }
        return (reports, try StateStore(path: config.statePath), dir)
    }

    @Test func aFailedLookupResendsWhileTheTargetStillKnowsTheKey() async throws {
        let target = ChatTarget(
            outcomes: [Self.lost], lookups: [.failed(reason: "HTTP 500 on /messages")], keyMemory: Self.memory)
        // The first attempt at 1 h; the resend 22 h 59 min later, inside the 23 h.
        let (reports, store, dir) = try await run([(1, target), (1 + 23 - 1.0 / 60, target)])
        defer { withExtendedLifetime(dir) {} }
        #expect(reports[1].deliveries.map(\.outcome) == [.delivered], "\(reports[1].deliveries)")
        #expect(
            reports[1].deliveries.first?.note?.hasPrefix("resent without a look-up (HTTP 500 on /messages)") == true)
        let sent = await target.received.map(\.idempotencyKey)
        #expect(sent.count == 2 && Set(sent).count == 1)  // the same key: the target answers with the first post
        let delivered = try store.outbox(status: .delivered)
        #expect(delivered.map(\.unconfirmed) == [false])
        #expect(delivered.map(\.attempts) == [2])
    }

    @Test func aFailedLookupWaitsOnceTheKeyMayBeForgotten() async throws {
        let target = ChatTarget(
            outcomes: [Self.lost], lookups: [.failed(reason: "HTTP 500"), .found(remoteID: "m1")],
            keyMemory: Self.memory)
        // 23 h after the first attempt: the target may have forgotten its key, so only a look-up can tell.
        let (reports, store, dir) = try await run([(1, target), (24, target), (25, target)])
        defer { withExtendedLifetime(dir) {} }
        #expect(reports[1].deliveries.map(\.outcome) == [.retryable])
        #expect(reports[1].deliveries.first?.reason?.hasPrefix("not resent: cannot tell") == true)
        #expect(reports[2].deliveries.map(\.outcome) == [.alreadyDelivered])
        #expect(await target.received.count == 1)
        #expect(try store.outbox(status: .delivered).map(\.remoteID) == ["m1"])
    }

    @Test func anotherTokenIsNotCoveredByTheFirstOnesKey() async throws {
        let first = ChatTarget(outcomes: [Self.lost], keyMemory: Self.memory)
        let other = ChatTarget(
            lookups: [.failed(reason: "HTTP 500")],
            keyMemory: KeyMemory(lifetime: .seconds(23 * 3600), scope: "token-b"))
        let (reports, _, dir) = try await run([(1, first), (2, other)])
        defer { withExtendedLifetime(dir) {} }
        #expect(reports[1].deliveries.map(\.outcome) == [.retryable])
        #expect(await other.received.isEmpty)
    }

    @Test func aResendWithoutLookUpStaysUnconfirmedAndCountsFromTheFirstAttempt() async throws {
        // The resend at 2 h is refused (429: not acted on), but the first attempt at 1 h may still have posted: the
        // entry stays unconfirmed, and at 24 h 1 min (past 23 h after the first attempt) it waits for a look-up.
        let target = ChatTarget(
            outcomes: [Self.lost, .retryable(reason: "HTTP 429", retryAfter: 60)],
            lookups: [.failed(reason: "HTTP 500"), .failed(reason: "HTTP 500")], keyMemory: Self.memory)
        let (reports, store, dir) = try await run([(1, target), (2, target), (24 + 1.0 / 60, target)])
        defer { withExtendedLifetime(dir) {} }
        #expect(reports[1].deliveries.map(\.outcome) == [.retryable])
        #expect(reports[2].deliveries.first?.reason?.hasPrefix("not resent: cannot tell") == true)
        #expect(await target.received.count == 2)
        #expect(await target.lookedUp.count == 2)
        #expect(try store.outbox(status: .pending).map(\.unconfirmed) == [true])
    }

    @Test func aPostNotFoundStartsItsKeysTimeAgain() async throws {
        // Not found at 20 h: nothing earlier was posted, so the resend then is the first that may post, and a failed
        // look-up at 30 h is 10 h after it.
        let target = ChatTarget(
            outcomes: [Self.lost, Self.lost], lookups: [.notFound, .failed(reason: "HTTP 500")], keyMemory: Self.memory)
        let (reports, _, dir) = try await run([(1, target), (20, target), (30, target)])
        defer { withExtendedLifetime(dir) {} }
        #expect(reports[2].deliveries.map(\.outcome) == [.delivered], "\(reports[2].deliveries)")
        #expect(await target.received.count == 3)
    }

    @Test func anAttemptFromBeforeTheKeysWereTimedIsNotResentWithoutALookUp() async throws {
        // An entry left unconfirmed by an older agent has no time of its first attempt: its age is unknown.
        let target = ChatTarget(outcomes: [Self.lost], lookups: [.failed(reason: "HTTP 500")], keyMemory: Self.memory)
        let dir = try TempDir()
        var config = try Fixture.config(dir: dir)
        config.publishers = [target]
        _ = await Fetcher(configuration: config, clock: ContinuousClock()).fetch(
            now: Instant(t0.addingTimeInterval(3600)), trigger: [.manual])
        let store = try StateStore(path: config.statePath)
        try await store.writer.write { db in
            try db.execute(sql: "UPDATE outbox SET unconfirmed_since_ns = NULL, key_scope = NULL")
        }
        let report = await Fetcher(configuration: config, clock: ContinuousClock()).fetch(
            now: Instant(t0.addingTimeInterval(7200)), trigger: [.manual])
        #expect(report.deliveries.map(\.outcome) == [.retryable])
        #expect(await target.received.count == 1)
    }
}
