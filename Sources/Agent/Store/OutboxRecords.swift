import Foundation
import GRDB
import Messages
import Publishing

extension StateStore {
    /// One outbox entry (`outbox`): a window's post for one target, and where its delivery stands. Times are stored as
    /// nanoseconds since the epoch and read as dates.
    public struct OutboxEntry: Sendable, Codable, Equatable, FetchableRecord, TableRecord {
        public static let databaseTableName = "outbox"
        public enum Columns {
            static let id = Column("id")
            static let status = Column("status")
            static let attempts = Column("attempts")
            static let nextAttemptNs = Column("next_attempt_ns")
            static let remoteID = Column("remote_id")
            static let lastError = Column("last_error")
            static let deliveredNs = Column("delivered_ns")
            static let unconfirmed = Column("unconfirmed")
        }

        public var id: Int64
        public var windowStart: Date
        public var windowEnd: Date
        public var steps: Int
        public var text: String
        public var target: String
        public var idempotencyKey: String
        public var status: OutboxStatus
        public var attempts: Int
        public var nextAttempt: Date
        public var remoteID: String?
        public var lastError: String?
        /// The last attempt may have been posted although no success was seen (its answer was lost, or the fetch died).
        public var unconfirmed = false

        public init(row r: Row) throws {
            id = r["id"]
            windowStart = StateStore.date(r["window_start_ns"])
            windowEnd = StateStore.date(r["window_end_ns"])
            steps = r["steps"]
            text = r["text"]
            target = r["target"]
            idempotencyKey = r["idempotency_key"]
            status = r["status"]
            attempts = r["attempts"]
            nextAttempt = StateStore.date(r["next_attempt_ns"])
            remoteID = r["remote_id"]
            lastError = r["last_error"]
            unconfirmed = (r["unconfirmed"] as Int? ?? 0) != 0
        }
    }

    /// Outbox entries with the given status (all when nil), oldest first.
    public func outbox(status: OutboxStatus? = nil) throws -> [OutboxEntry] {
        try writer.read { db in
            let all = OutboxEntry.order(OutboxEntry.Columns.id)
            return try (status.map { all.filter(OutboxEntry.Columns.status == $0) } ?? all).fetchAll(db)
        }
    }

    /// What `outbox retry` or `outbox drop` did to one entry.
    public enum OutboxChange: Sendable, Equatable {
        case changed(OutboxEntry)
        case notFound(Int64)
        /// Already delivered (or dropped): nothing to do.
        case final(OutboxEntry)
    }

    /// Re-queues failed (or waiting) entries: the next fetch tries them first, whatever its time. Each keeps its
    /// idempotency key, so a post that did reach its target is not doubled.
    public func retryOutbox(ids: [Int64]) throws -> [OutboxChange] {
        try changeOutbox(
            ids: ids, OutboxEntry.Columns.status.set(to: OutboxStatus.pending),
            OutboxEntry.Columns.nextAttemptNs.set(to: 0))
    }

    /// Gives entries up: they are never sent; `reason` is recorded as their last error.
    public func dropOutbox(ids: [Int64], reason: String) throws -> [OutboxChange] {
        try changeOutbox(
            ids: ids, OutboxEntry.Columns.status.set(to: OutboxStatus.dropped),
            OutboxEntry.Columns.lastError.set(to: "dropped: " + reason))
    }

    private func changeOutbox(ids: [Int64], _ assignments: ColumnAssignment...) throws -> [OutboxChange] {
        try writer.write { db in
            try ids.map { id in
                guard let entry = try OutboxEntry.fetchOne(db, key: id) else { return .notFound(id) }
                guard entry.status == .pending || entry.status == .failed else { return .final(entry) }
                try OutboxEntry.filter(key: id).updateAll(db, assignments)
                return .changed(try OutboxEntry.fetchOne(db, key: id) ?? entry)
            }
        }
    }

    /// Counts an attempt before it is made: a crash during the request leaves it unconfirmed, and the next fetch
    /// looks the post up before sending it again.
    func countAttempt(_ id: Int64) throws {
        try writer.write { db in
            _ = try OutboxEntry.filter(key: id).updateAll(
                db, OutboxEntry.Columns.attempts.set(to: OutboxEntry.Columns.attempts + 1),
                OutboxEntry.Columns.unconfirmed.set(to: true))
        }
    }

    func recordOutcome(
        _ id: Int64, status: OutboxStatus, nextNs: Int64, remoteID: String?, error: String?, nowNs: Int64,
        unconfirmed: Bool = false
    ) throws {
        typealias C = OutboxEntry.Columns
        var assignments = [
            C.status.set(to: status), C.nextAttemptNs.set(to: nextNs), C.lastError.set(to: error),
            C.unconfirmed.set(to: unconfirmed),
        ]
        if let remoteID { assignments.append(C.remoteID.set(to: remoteID)) }
        if status == .delivered { assignments.append(C.deliveredNs.set(to: nowNs)) }
        try writer.write { db in _ = try OutboxEntry.filter(key: id).updateAll(db, assignments) }
    }
}

/// A window's chart (`outbox_image`), kept once per idempotency key beside the window's outbox entries: every target
/// with `image = "chart"` and every retry posts these very bytes and this alt text. In its own table, so listing and
/// delivering the outbox reads no image unless a target wants it.
struct OutboxImageRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "outbox_image"
    enum CodingKeys: String, CodingKey {
        case key = "idempotency_key"
        case png, alt, width, height
        case createdNs = "created_ns"
    }
    var key: String
    var png: Data
    var alt: String
    var width: Int
    var height: Int
    var createdNs: Int64

    init(key: String, image: PostImage, createdNs: Int64) {
        self.key = key
        png = image.png
        alt = image.alt
        width = image.width
        height = image.height
        self.createdNs = createdNs
    }

    var image: PostImage { PostImage(png: png, alt: alt, width: width, height: height) }

    static func migrate(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE outbox_image (
                    idempotency_key TEXT PRIMARY KEY, png BLOB NOT NULL, alt TEXT NOT NULL, width INTEGER NOT NULL,
                    height INTEGER NOT NULL, created_ns INTEGER NOT NULL)
                """)
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
    public func outboxImage(idempotencyKey: String) throws -> PostImage? {
        try writer.read { db in try OutboxImageRecord.fetchOne(db, key: idempotencyKey)?.image }
    }
}
