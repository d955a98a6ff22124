import Foundation
import Messages
import Publishing
import SensorInput
import StepDetection
import Store
import WallTime

extension Fetcher {
    /// Tries one outbox entry: count the attempt first (so a crash mid-request is retried with the same key),
    /// publish within the remaining budget, then record the outcome. For a target that would post a repeat twice
    /// (no idempotency key), an entry whose last attempt is unconfirmed is looked up on the target first.
    /// A resend while the target still knows the post's key (`Publisher.keyMemory`), after a failed look-up, leaves
    /// the entry unconfirmed until it is delivered: its first attempt may have posted, and a later resend needs a
    /// look-up again.
    func deliver(
        _ entry: OutboxRecord, store: StateStore, now: Instant, budget: Deadline
    ) async -> FetchReport.Delivery {
        var d = FetchReport.Delivery(target: entry.target, window: entry.window, outcome: .deferred)
        guard let publisher = publishers.first(where: { $0.name == entry.target })?.publisher else {
            d.reason = "no configured target is named '\(entry.target)'"
            return d
        }
        if !entry.isDue(at: now) {
            d.reason = "waiting to retry until \(Timestamps.format(entry.nextAttempt.date))"
            return d
        }
        guard var deadline = Self.remainingBudget(budget) else {
            d.reason = "deadline passed before delivery"
            return d
        }
        let post: Post
        do { post = try Self.post(entry, for: publisher, store: store) } catch {
            d.reason = "reading the window's chart: " + StateStore.describe(error, path: store.path)
            return d
        }
        var resend: Resend = entry.unconfirmed ? .unchecked : .afresh
        if publisher.repeatsDuplicate && entry.unconfirmed {
            resend = await settleUnconfirmed(
                entry, publisher: publisher, post: post, deadline: deadline, store: store,
                now: now, delivery: &d)
            if resend == .settled { return d }
            guard let left = Self.remainingBudget(budget) else {
                d.reason = "deadline passed before delivery (after looking the post up on \(publisher.name))"
                return d
            }
            deadline = left
        }
        // A post not yet sent when the agent stops waits for the next start; one in flight finishes (`race`).
        if Task.isCancelled {
            d.reason = Self.stopping
            return d
        }
        do {
            try store.countAttempt(
                entry, afresh: resend == .afresh, now: now,
                keyScope: publisher.keyMemory?.scope)
        } catch {
            d.reason = StateStore.describe(error, path: store.path)
            return d
        }
        let outcome = await Self.race(publisher: publisher, post: post, deadline: deadline)
        var update = outboxUpdate(outcome, attempts: entry.attempts + 1, now: now, delivery: &d)
        if resend == .sameKey && !outcome.isDelivered { update.unconfirmed = true }
        do {
            try store.recordOutcome(
                entry, status: update.status, next: update.next, remoteID: update.remote,
                error: update.error, now: now, unconfirmed: update.unconfirmed)
        } catch {
            // The post went out but could not be recorded: it stays pending and is re-sent with the same key.
            d.reason = "recording the delivery: " + StateStore.describe(error, path: store.path)
            if d.outcome.isDelivered { d.outcome = .retryable }
        }
        return d
    }

    /// The entry's outbox record after `outcome`, and what the report says of it.
    func outboxUpdate(_ outcome: DeliveryOutcome, attempts: Int, now: Instant, delivery d: inout FetchReport.Delivery)
        -> OutboxUpdate
    {
        let update: OutboxUpdate
        switch outcome {
        case .delivered(let id):
            d.outcome = .delivered
            d.remoteID = id
            update = (.delivered, now, id, nil, false)
        case .alreadyDelivered(let id):
            d.outcome = .alreadyDelivered
            d.remoteID = id
            update = (.delivered, now, id, nil, false)
        case .deliveredWithoutImage(let id, let note):
            // The text went out alone (image_required = false): delivered, and the report says what was left out.
            d.outcome = .delivered
            d.remoteID = id
            d.note = note
            update = (.delivered, now, id, nil, false)
        case .retryable(let reason, let after, let unconfirmed):
            d.outcome = .retryable
            d.reason = reason
            update = (.pending, now + retryDelay(attempts: attempts, retryAfter: after), nil, reason, unconfirmed)
        case .permanent(let reason):
            d.outcome = .permanent
            d.reason = reason
            update = (.failed, now, nil, reason, false)
        }
        return update
    }

    /// The post of an outbox entry, with the window's kept chart for a target that posts it (read only then: the
    /// other targets' deliveries never hold the PNG). A chart asked for and not drawn yet holds the post back: it is
    /// never sent without it.
    static func post(_ entry: OutboxRecord, for publisher: any Publisher, store: StateStore) throws -> Post {
        let key = entry.window.idempotencyKey
        guard publisher.image.chart else { return entry.window.post() }
        if let image = try store.outboxImage(idempotencyKey: key) { return entry.window.post(image: image) }
        if try store.chartRequested(idempotencyKey: key) { throw ChartRequestError(reason: "it is not drawn yet") }
        return entry.window.post()
    }

    /// What `recordOutcome` writes back to an outbox entry.
    typealias OutboxUpdate = (status: OutboxStatus, next: Instant, remote: String?, error: String?, unconfirmed: Bool)

    /// The wait until the next attempt after `attempts` failed ones: the one documented `Backoff` (30 s doubling,
    /// 1 h cap, equal jitter from `random`), or the server's wish when it gave one.
    func retryDelay(attempts: Int, retryAfter: TimeInterval?) -> Duration {
        .nanoseconds(Int64(Backoff.delay(attempt: attempts, retryAfter: retryAfter, random: random) * 1e9))
    }

    /// What looking up an unconfirmed entry decided.
    enum Resend: Equatable {
        /// Recorded: found, given up, or kept waiting.
        case settled
        /// Send: no earlier attempt was posted (or none may have been).
        case afresh
        /// Send: the look-up failed, but the target still knows the post's key from the first unconfirmed attempt,
        /// so a resend cannot double it.
        case sameKey
        /// Send without knowing (`resend_unconfirmed`, a target that cannot look up).
        case unchecked
    }

    /// For a target that would post a repeat twice, whose last attempt went unanswered: looks the post up first.
    /// Settles the entry when found, when it is given up, or when the look-up failed and a resend could double it.
    func settleUnconfirmed(
        _ entry: OutboxRecord, publisher: any Publisher, post: Post, deadline: Deadline,
        store: StateStore, now: Instant, delivery d: inout FetchReport.Delivery
    ) async -> Resend {
        let settled: OutboxUpdate
        switch await Self.lookUp(publisher: publisher, post: post, deadline: deadline) {
        case .found(let id):
            d.outcome = .alreadyDelivered
            d.remoteID = id
            d.reason = "found on \(publisher.name): an earlier attempt went through although its answer was lost"
            settled = (.delivered, now, id, nil, false)
        case .notFound:
            return .afresh
        case .failed(let reason):
            if let memory = publisher.keyMemory, let since = entry.unconfirmedSince,
                memory.covers(firstAttempt: since.date, scope: entry.keyScope, now: now.date)
            {
                d.note =
                    "resent without a look-up (\(reason)): \(publisher.name) still knows the post's key from its first attempt at \(Timestamps.format(since.date))"
                return .sameKey
            }
            d.outcome = .retryable
            d.reason = "not resent: cannot tell whether an earlier attempt was posted (\(reason))"
            settled = (.pending, now + retryDelay(attempts: entry.attempts, retryAfter: nil), nil, d.reason, true)
        case .unsupported:
            if publisher.resendUnconfirmed { return .unchecked }
            d.outcome = .permanent
            d.reason =
                "an earlier attempt may have been posted (its answer was lost); not sent again to avoid a duplicate (resend_unconfirmed = false)"
            settled = (.failed, now, nil, d.reason, true)
        }
        do {
            try store.recordOutcome(
                entry, status: settled.status, next: settled.next, remoteID: settled.remote,
                error: settled.error, now: now, unconfirmed: settled.unconfirmed)
        } catch {
            d.outcome = .retryable
            d.reason = "recording the lookup: " + StateStore.describe(error, path: store.path)
        }
        return .settled
    }

    /// The fetch's budget, or nil when less than 50 ms of it remain.
    static func remainingBudget(_ budget: Deadline) -> Deadline? {
        budget.remaining > .milliseconds(50) ? budget : nil
    }

    /// Looks a post up, but returns no later than the deadline (+ a little).
    static func lookUp(publisher: any Publisher, post: Post, deadline: Deadline) async -> PostLookup {
        let timedOut = "no answer from \(publisher.name) before the deadline"
        let lookup = await deadline.race(grace: .milliseconds(200), orElse: .failed(reason: timedOut)) {
            await publisher.lookUp(post, deadline: deadline)
        }
        guard lookup == .failed(reason: timedOut), let stopped = stopped(publisher, deadline) else { return lookup }
        return .failed(reason: stopped)
    }

    /// Publishes, but returns no later than the deadline (+ a little): a hung target cannot hold the fetch. The
    /// agent stopping (the fetch cancelled) does not cut a post already sent: it runs to its answer or the deadline,
    /// so the outbox records what the target did. Cut, the post would be resent on the next start, and a target
    /// without idempotency keys (a webhook) would show it twice.
    static func race(publisher: any Publisher, post: Post, deadline: Deadline) async -> DeliveryOutcome {
        let timedOut = "no answer from \(publisher.name) before the deadline"
        return await deadline.race(
            grace: .milliseconds(200), orElse: .retryable(reason: timedOut, retryAfter: nil, unconfirmed: true),
            callerCancelled: .letsWorkFinish
        ) {
            await publisher.publish(post, deadline: deadline)
        }
    }

    /// Why an entry is not sent: the agent is stopping (the fetch was cancelled) before its post went out.
    static let stopping = "not sent: the agent is stopping"

    /// Why a look-up (read only: the agent stopping cuts it) ended without an answer when it was the fetch being
    /// cancelled, not its deadline: nil when the deadline had passed or the fetch goes on.
    static func stopped(_ publisher: any Publisher, _ deadline: Deadline) -> String? {
        guard Task.isCancelled, !deadline.hasPassed else { return nil }
        return "stopped before \(publisher.name) answered (the agent is stopping)"
    }
}
