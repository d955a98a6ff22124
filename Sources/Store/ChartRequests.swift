import Foundation
import GRDB
import WallTime

/// A window's chart asked for by the transaction that closes the window (`outbox_chart_request`), once per
/// idempotency key: what the chart draws (`inputs`, encoded by the agent), not the picture. Drawing takes tens of
/// milliseconds, so it happens after the commit and no write (a phone's push) waits for it. The request is replaced by
/// the kept chart (`OutboxImageRecord`) in one transaction, or dropped when the chart cannot be drawn; while it is
/// there, no post of its window goes to a target that posts the chart, and the next fetch draws it (a fetch that
/// died after the commit leaves it behind).
package struct ChartRequestRecord: Codable, Sendable, FetchableRecord, PersistableRecord {
    package static let databaseTableName = "outbox_chart_request"
    package enum CodingKeys: String, CodingKey {
        case key = "idempotency_key"
        case inputs
        case created = "created_ns"
    }
    package enum Columns {
        static let key = Column(CodingKeys.key)
        static let created = Column(CodingKeys.created)
    }
    /// The window's idempotency key.
    package var key: String
    /// What the chart draws, as the agent encoded it.
    package var inputs: Data
    var created: Instant

    package init(key: String, inputs: Data, created: Instant) {
        self.key = key
        self.inputs = inputs
        self.created = created
    }

    /// Keeps the first request for a key, as `OutboxImageRecord` keeps the first chart.
    func add(_ db: Database) throws {
        try insert(db, onConflict: .ignore)
    }
}

extension StateStore {
    /// The charts asked for and not drawn yet, oldest first.
    package func chartRequests() throws -> [ChartRequestRecord] {
        try writer.read { db in try ChartRequestRecord.order(ChartRequestRecord.Columns.created).fetchAll(db) }
    }

    /// Whether the window of `idempotencyKey` has a chart asked for and not drawn yet.
    package func chartRequested(idempotencyKey: String) throws -> Bool {
        try writer.read { db in try ChartRequestRecord.exists(db, key: idempotencyKey) }
    }

    /// Settles the request for `key` in one short transaction: keeps `chart` (the first kept for its key stays), or
    /// with none (it could not be drawn), leaves the window's posts to go out as text.
    package func keepRequestedChart(key: String, chart: OutboxImageRecord?) throws {
        try writer.write { db in
            try chart?.add(db)
            _ = try ChartRequestRecord.deleteOne(db, key: key)
        }
    }
}
