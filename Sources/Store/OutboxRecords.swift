import Foundation
import GRDB
import WallTime

/// The outbox (`outbox`), one row per window and target: the window as it closed, and where its delivery to the
/// target stands. Added when the window closes, in the transaction that closes it (pending, or failed when the target
/// would refuse its text); an existing row for the same target and key is kept as it is. Read back by the fetch that
/// delivers it, `outbox` and `status`; `status --json` writes it with its times as dates (`encode(to:)`).
public struct OutboxRecord: Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "outbox"
    public enum Columns {
        static let id = Column("id")
        static let windowStartNs = Column("window_start_ns")
        static let windowEndNs = Column("window_end_ns")
        static let steps = Column("steps")
        static let text = Column("text")
        static let target = Column("target")
        static let idempotencyKey = Column("idempotency_key")
        static let status = Column("status")
        static let attempts = Column("attempts")
        static let nextAttemptNs = Column("next_attempt_ns")
        static let remoteID = Column("remote_id")
        static let lastError = Column("last_error")
        static let createdNs = Column("created_ns")
        static let deliveredNs = Column("delivered_ns")
        static let unconfirmed = Column("unconfirmed")
        static let unconfirmedSinceNs = Column("unconfirmed_since_ns")
        static let keyScope = Column("key_scope")
        static let lastAttemptNs = Column("last_attempt_ns")
    }

    /// Nil until the row is inserted.
    public var id: Int64?
    public var window: ClosedWindow
    public var target: String
    public var status: OutboxStatus
    public var attempts: Int
    /// Not tried before this time.
    public var nextAttempt: Instant
    public var remoteID: String?
    public var lastError: String?
    /// The last attempt may have been posted although no success was seen (its answer was lost, or the fetch died).
    public var unconfirmed: Bool
    /// While `unconfirmed`: when the first of the attempts that may have posted was made, and the target's key scope
    /// then (`Publisher.keyMemory`); nil for an attempt counted before migration `v19-outbox-key-memory`, which no
    /// resend without a look-up can follow.
    package var unconfirmedSince: Instant?
    package var keyScope: String?
    var created: Instant
    var delivered: Instant?
    /// When the post was last tried (the fetch's clock); nil before its first attempt, or for an attempt counted
    /// before migration `v22-outbox-last-attempt`.
    var lastAttempt: Instant?

    /// A closing window's post for `target`, due now; `failed` with its reason for a text the target would refuse.
    package init(window: ClosedWindow, target: String, now: Instant, refusal: String? = nil) {
        self.window = window
        self.target = target
        status = refusal == nil ? .pending : .failed
        lastError = refusal
        attempts = 0
        nextAttempt = now
        unconfirmed = false
        created = now
    }

    /// Whether the post may be tried at `now`: its wait is over, or the wall clock went back since the wait was set
    /// (`now` before the post was last tried, or queued if it never was). A wait set on a clock that was ahead
    /// (corrected by NTP since) would otherwise hold the post back by as much as the clock was ahead; a wait set once
    /// the clock was set back is honoured, though the clock is still before the time the post was queued.
    package func isDue(at now: Instant) -> Bool {
        nextAttempt <= now || now < (lastAttempt ?? created)
    }

    public init(row r: Row) throws {
        id = r[Columns.id]
        let (start, end): (Instant, Instant) = (r[Columns.windowStartNs], r[Columns.windowEndNs])
        window = ClosedWindow(
            span: TimeWindow(start: start, end: end), steps: r[Columns.steps], text: r[Columns.text],
            idempotencyKey: r[Columns.idempotencyKey])
        target = r[Columns.target]
        status = r[Columns.status]
        attempts = r[Columns.attempts]
        nextAttempt = r[Columns.nextAttemptNs]
        remoteID = r[Columns.remoteID]
        lastError = r[Columns.lastError]
        unconfirmed = r[Columns.unconfirmed] ?? false
        unconfirmedSince = r[Columns.unconfirmedSinceNs]
        keyScope = r[Columns.keyScope]
        created = r[Columns.createdNs]
        delivered = r[Columns.deliveredNs]
        lastAttempt = r[Columns.lastAttemptNs]
    }

    public func encode(to container: inout PersistenceContainer) {
        container[Columns.id] = id
        container[Columns.windowStartNs] = window.span.start
        container[Columns.windowEndNs] = window.span.end
        container[Columns.steps] = window.steps
        container[Columns.text] = window.text
        container[Columns.target] = target
        container[Columns.idempotencyKey] = window.idempotencyKey
        container[Columns.status] = status
        container[Columns.attempts] = attempts
        container[Columns.nextAttemptNs] = nextAttempt
        container[Columns.remoteID] = remoteID
        container[Columns.lastError] = lastError
        container[Columns.createdNs] = created
        container[Columns.deliveredNs] = delivered
        container[Columns.unconfirmed] = unconfirmed
        container[Columns.unconfirmedSinceNs] = unconfirmedSince
        container[Columns.keyScope] = keyScope
        container[Columns.lastAttemptNs] = lastAttempt
    }

    /// Adds the post unless the target already has one with its key.
    func add(_ db: Database) throws {
        try insert(db, onConflict: .ignore)
    }
}

extension OutboxRecord: Encodable {
    /// The keys `status --json` has always written for an outbox entry (snake_cased by the command).
    enum JSONKeys: String, CodingKey {
        case id, windowStart, windowEnd, steps, text, target, idempotencyKey, status, attempts, nextAttempt, remoteID
        case lastError, unconfirmed
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: JSONKeys.self)
        try c.encodeIfPresent(id, forKey: .id)
        try c.encode(window.span.start.date, forKey: .windowStart)
        try c.encode(window.span.end.date, forKey: .windowEnd)
        try c.encode(window.steps, forKey: .steps)
        try c.encode(window.text, forKey: .text)
        try c.encode(target, forKey: .target)
        try c.encode(window.idempotencyKey, forKey: .idempotencyKey)
        try c.encode(status, forKey: .status)
        try c.encode(attempts, forKey: .attempts)
        try c.encode(nextAttempt.date, forKey: .nextAttempt)
        try c.encodeIfPresent(remoteID, forKey: .remoteID)
        try c.encodeIfPresent(lastError, forKey: .lastError)
        try c.encode(unconfirmed, forKey: .unconfirmed)
    }
}

extension StateStore {
    /// Outbox entries with the given status (all when nil), oldest first.
    public func outbox(status: OutboxStatus? = nil) throws -> [OutboxRecord] {
        try writer.read { db in
            let all = OutboxRecord.order(OutboxRecord.Columns.id)
            return try (status.map { all.filter(OutboxRecord.Columns.status == $0) } ?? all).fetchAll(db)
        }
    }

    /// What `outbox retry` or `outbox drop` did to one entry.
    public enum OutboxChange: Sendable, Equatable {
        case changed(OutboxRecord)
        case notFound(Int64)
        /// Already delivered (or dropped): nothing to do.
        case final(OutboxRecord)
    }

    /// Re-queues failed (or waiting) entries: the next fetch tries them first, whatever its time. Each keeps its
    /// idempotency key, so a post that did reach its target is not doubled.
    public func retryOutbox(ids: [Int64]) throws -> [OutboxChange] {
        try changeOutbox(
            ids: ids, OutboxRecord.Columns.status.set(to: OutboxStatus.pending),
            OutboxRecord.Columns.nextAttemptNs.set(to: 0))
    }

    /// Gives entries up: they are never sent; `reason` is recorded as their last error.
    public func dropOutbox(ids: [Int64], reason: String) throws -> [OutboxChange] {
        try changeOutbox(
            ids: ids, OutboxRecord.Columns.status.set(to: OutboxStatus.dropped),
            OutboxRecord.Columns.lastError.set(to: "dropped: " + reason))
    }

    private func changeOutbox(ids: [Int64], _ assignments: ColumnAssignment...) throws -> [OutboxChange] {
        try writer.write { db in
            try ids.map { id in
                guard let entry = try OutboxRecord.fetchOne(db, key: id) else { return .notFound(id) }
                guard entry.status == .pending || entry.status == .failed else { return .final(entry) }
                try OutboxRecord.filter(key: id).updateAll(db, assignments)
                return .changed(try OutboxRecord.fetchOne(db, key: id) ?? entry)
            }
        }
    }

    /// Counts an attempt before it is made: a crash during the request leaves it unconfirmed, and the next fetch
    /// looks the post up before sending it again. The first attempt that may post (`afresh`: no earlier one may have)
    /// records when it was made and under which `keyScope`, for a later resend to tell whether the target still knows
    /// the post's key; a resend keeps what the first attempt recorded.
    package func countAttempt(_ entry: OutboxRecord, afresh: Bool, now: Instant, keyScope: String?) throws {
        typealias C = OutboxRecord.Columns
        var assignments = [
            C.attempts.set(to: C.attempts + 1), C.unconfirmed.set(to: true), C.lastAttemptNs.set(to: now),
        ]
        if afresh { assignments += [C.unconfirmedSinceNs.set(to: now), C.keyScope.set(to: keyScope)] }
        try writer.write { db in _ = try OutboxRecord.filter(key: entry.id).updateAll(db, assignments) }
    }

    package func recordOutcome(
        _ entry: OutboxRecord, status: OutboxStatus, next: Instant, remoteID: String?, error: String?, now: Instant,
        unconfirmed: Bool = false
    ) throws {
        typealias C = OutboxRecord.Columns
        var assignments = [
            C.status.set(to: status), C.nextAttemptNs.set(to: next), C.lastError.set(to: error),
            C.unconfirmed.set(to: unconfirmed),
        ]
        if let remoteID { assignments.append(C.remoteID.set(to: remoteID)) }
        if status == .delivered { assignments.append(C.deliveredNs.set(to: now)) }
        try writer.write { db in _ = try OutboxRecord.filter(key: entry.id).updateAll(db, assignments) }
    }
}

/// A window's chart (`outbox_image`), kept once per idempotency key beside the window's outbox entries: every target
/// with `image = "chart"` and every retry posts these very bytes and this alt text. In its own table, so listing and
/// delivering the outbox reads no image unless a target wants it.
package struct OutboxImageRecord: Codable, Sendable, FetchableRecord, PersistableRecord {
    package static let databaseTableName = "outbox_image"
    enum CodingKeys: String, CodingKey {
        case key = "idempotency_key"
        case png, alt, width, height
        case created = "created_ns"
    }
    package enum Columns {
        static let key = Column(CodingKeys.key)
        static let created = Column(CodingKeys.created)
    }
    /// The window's idempotency key.
    package var key: String
    package var png: Data
    package var alt: String
    package var width: Int
    package var height: Int
    var created: Instant

    package init(key: String, png: Data, alt: String, width: Int, height: Int, created: Instant) {
        self.key = key
        self.png = png
        self.alt = alt
        self.width = width
        self.height = height
        self.created = created
    }

    /// Keeps the first chart drawn for a key: a window closed again (a dry run's copy, a replay) does not replace what
    /// a retry must resend.
    func add(_ db: Database) throws {
        try insert(db, onConflict: .ignore)
    }
}

extension StateStore {
    /// The chart kept for the window of `idempotencyKey`; nil when none was drawn (no target wanted one then, or it
    /// could not be drawn).
    package func outboxChart(idempotencyKey: String) throws -> OutboxImageRecord? {
        try writer.read { db in try OutboxImageRecord.fetchOne(db, key: idempotencyKey) }
    }
}
