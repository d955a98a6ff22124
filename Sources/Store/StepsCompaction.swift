import GRDB
import SensorInput
import WallTime

/// Keeps the `steps` table from growing a row per second forever. A phone that pushes minute totals all day (Health
/// Auto Export) stores up to 60 rows a minute, about half a gigabyte a year. Steps are needed to the second only
/// where a window can still begin or end, and for what a closing window looks back on (the window before a week's
/// window, its busiest hour): so the seconds more than `keptSeconds` behind the last posted window are merged into
/// one row per minute, and steps that arrive more than `keptSeconds` old are stored at their minute from the start
/// (`placed`). Hours, days and minute-aligned windows over them count exactly as before; a since-last window
/// reaching that far back can place a minute's steps up to 59 s early.
enum StepsCompaction {
    /// How far behind the last posted window steps stay per second: five weeks, beyond the window before any
    /// window (`schedule.window` "7d" looks back 14 days).
    static let keptSeconds: Int64 = 35 * 86_400
    /// The most history one call merges, so that a long backlog is merged over several fetches within their budgets.
    static let mostSecondsPerCall: Int64 = 86_400

    /// Merges, into one row per UTC minute, the per-second rows of at most `mostSecondsPerCall` seconds after the
    /// part already merged and more than `keptSeconds` behind `postedUntil`, and drops rows that hold no steps
    /// there. Returns the seconds merged `[from, to)`, nil when there was nothing to do. Totals are unchanged.
    @discardableResult
    static func merge(_ db: Database, postedUntil: Instant) throws -> Range<Int64>? {
        let cutoff = minuteStart(postedUntil.secondsSinceEpoch - keptSeconds)
        let done = try StepsCompactionRecord.fetchOne(db, key: 1)?.untilSecond
        guard let start = try done ?? Int64.fetchOne(db, sql: "SELECT MIN(second) FROM steps").map(minuteStart)
        else { return nil }
        let end = min(cutoff, start + mostSecondsPerCall)
        guard end > start else { return nil }
        try db.execute(
            sql: """
                INSERT INTO steps (second, count)
                SELECT second - ((second % 60) + 60) % 60 AS minute, SUM(count) FROM steps
                WHERE second >= ? AND second < ? AND second % 60 != 0 GROUP BY minute
                ON CONFLICT (second) DO UPDATE SET count = count + excluded.count
                """, arguments: [start, end])
        try db.execute(
            sql: "DELETE FROM steps WHERE second >= ? AND second < ? AND (second % 60 != 0 OR count = 0)",
            arguments: [start, end])
        try StepsCompactionRecord(untilSecond: end).upsert(db)
        return start..<end
    }

    /// Where `buckets` are stored: each second as it is, except seconds long past, which go to the start of their
    /// minute as merging would leave them. Long past is more than `keptSeconds` before `nowNs` (a phone that sends a
    /// year of history at once then stores a row a minute, not a row a second) or within what is merged already (late
    /// data there). The one window that can begin inside such a minute, a state's first since-last window, begins at
    /// the first stored second or earlier (`Fetcher.closeWindows`).
    static func placed(_ db: Database, _ buckets: [Int64: Int], nowNs: Int64) throws -> [Int64: Int] {
        let merged = try StepsCompactionRecord.fetchOne(db, key: 1)?.untilSecond ?? .min
        let cutoff = max(minuteStart(Instant(nanosecondsSinceEpoch: nowNs).secondsSinceEpoch - keptSeconds), merged)
        guard buckets.keys.contains(where: { $0 < cutoff }) else { return buckets }
        var placed: [Int64: Int] = [:]
        placed.reserveCapacity(buckets.count)
        for (second, steps) in buckets { placed[second < cutoff ? minuteStart(second) : second, default: 0] += steps }
        return placed
    }

    /// The start of the UTC minute holding `second`.
    static func minuteStart(_ second: Int64) -> Int64 { StepReading.floorMinute(second: second) * 60 }
}

/// `steps_compaction`'s one row: the second up to which `steps` holds minute rows only.
struct StepsCompactionRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "steps_compaction"
    enum CodingKeys: String, CodingKey {
        case id
        case untilSecond = "until_second"
    }
    enum Columns {
        static let untilSecond = Column(CodingKeys.untilSecond)
    }
    var id: Int64 = 1
    var untilSecond: Int64
}
