import GRDB
import SensorInput

/// The step records of a followed export whose records are out of time order, gathered over as many fetches as
/// reading its file takes (`SourceCursor.Gathering`), each slice's in the transaction that saves its position, and
/// read back in start order (`reading_spill`'s key: SQLite's B-tree is the external sort), a part at a time, to be
/// settled; a part settled is removed in the transaction that counts it. Records are numbered in the order read, so
/// that copies of one record stay apart. A source is keyed by a number (`reading_spill_source`), not its path.
package enum ReadingSpill {
    /// What a slice does to a source's gathered records.
    package struct Change: Sendable {
        /// Drop every record gathered for the source first: gathering began again (the file was found out of order
        /// again, or replaced), or it is over.
        package var dropFirst = false
        /// Records gathered by this slice, numbered from `firstNumber`.
        package var records: [SourcedReading] = []
        package var firstNumber = 0
        /// The records that start before this were settled by this slice: removed.
        package var settledBefore: Int64?

        package init(
            dropFirst: Bool = false, records: [SourcedReading] = [], firstNumber: Int = 0, settledBefore: Int64? = nil
        ) {
            self.dropFirst = dropFirst
            self.records = records
            self.firstNumber = firstNumber
            self.settledBefore = settledBefore
        }
    }

    static func apply(_ db: Database, source: String, _ change: Change) throws {
        if change.dropFirst {
            try db.execute(
                sql: """
                    DELETE FROM reading_spill WHERE source_id = (SELECT id FROM reading_spill_source WHERE source = ?);
                    DELETE FROM reading_spill_source WHERE source = ?
                    """, arguments: [source, source])
        }
        if let before = change.settledBefore, let id = try id(db, source: source, create: false) {
            try db.execute(
                sql: "DELETE FROM reading_spill WHERE source_id = ? AND start_ns < ?", arguments: [id, before])
        }
        guard !change.records.isEmpty, let id = try id(db, source: source, create: true) else { return }
        let insert = try db.cachedStatement(
            sql:
                "INSERT INTO reading_spill (source_id, start_ns, number, end_ns, origin, steps) VALUES (?, ?, ?, ?, ?, ?)"
        )
        for (i, r) in change.records.enumerated() {
            try insert.execute(arguments: [
                id, r.reading.start, change.firstNumber + i, r.reading.end, r.source, r.reading.steps,
            ])
        }
    }

    /// The first `limit` records gathered for `source`, in start order.
    static func first(_ db: Database, source: String, limit: Int) throws -> [SourcedReading] {
        guard let id = try id(db, source: source, create: false) else { return [] }
        let rows = try Row.fetchCursor(
            db,
            sql: """
                SELECT start_ns, end_ns, origin, steps FROM reading_spill WHERE source_id = ?
                ORDER BY start_ns, number LIMIT ?
                """, arguments: [id, limit])
        var out: [SourcedReading] = []
        out.reserveCapacity(min(limit, 1 << 16))
        while let row = try rows.next() {
            out.append(SourcedReading(source: row[2], reading: StepReading(start: row[0], end: row[1], steps: row[3])))
        }
        return out
    }

    /// Drops the records gathered for every source but `sources` (a `[source]` path changed while its export was
    /// gathered): no read will settle them. Returns how many.
    static func dropAll(_ db: Database, except sources: [String]) throws -> Int {
        let others = try String.fetchAll(db, sql: "SELECT source FROM reading_spill_source").filter {
            !sources.contains($0)
        }
        var dropped = 0
        for source in others {
            let id = try id(db, source: source, create: false)
            dropped +=
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM reading_spill WHERE source_id = ?", arguments: [id])
                ?? 0
            try apply(db, source: source, Change(dropFirst: true))
        }
        return dropped
    }

    /// The number `source`'s records are kept under; created when `create`, else nil when it has none.
    static func id(_ db: Database, source: String, create: Bool) throws -> Int64? {
        let sql = "SELECT id FROM reading_spill_source WHERE source = ?"
        if let id = try Int64.fetchOne(db, sql: sql, arguments: [source]) { return id }
        guard create else { return nil }
        try db.execute(sql: "INSERT INTO reading_spill_source (source) VALUES (?)", arguments: [source])
        return db.lastInsertedRowID
    }
}
