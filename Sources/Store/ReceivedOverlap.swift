import Foundation
import GRDB

/// Readings an app sends again over intervals that moved (`Payload.replacesOverlaps`): Health Connect's day so far
/// starts at the new local midnight after a time-zone change, Health Auto Export's aggregated buckets start on the new
/// local hours after a half-hour zone change. A reading that such a payload stores or changes replaces the part of the
/// same device's earlier readings of its kind (the key up to its last space: `steps `, `step_count `) that it covers,
/// those readings' steps taken as spread evenly over their spans: what is left of one keeps its uncovered share of
/// the steps, and its span shrinks to the part left when the newer covers one end. Readings of the same payload are
/// spared (one snapshot of the app's intervals); a reading the app sent after the newer one (`sent_ns`) is not cut but
/// cuts it, whichever arrived first. A reading cut keeps the send time of the one that cut it, so a retry of its
/// older send cannot bring its covered part back.
enum ReceivedOverlap {
    /// A stored reading that a newer one overlaps.
    struct Stored {
        var key: String
        var startNs: Int64
        var endNs: Int64
        var microsteps: Int64
        var sentNs: Int64?
    }

    /// Cuts from `device`'s earlier readings of `key`'s kind the part `[startNs, endNs)` covers, sparing the keys in
    /// `spared`. A reading the app sent after this one (`sent_ns`: a retry of an older send that arrives late) is not
    /// cut; it cuts this one instead, as it would have had it arrived second. `longest` caches each device's longest
    /// reading (the look-back of the search), filled on first use.
    static func replaceCovered(
        _ db: Database, device: String, key: String, startNs: Int64, endNs: Int64, microsteps: Int64, sentNs: Int64?,
        spared: Set<String>, longest: inout [String: Int64]
    ) throws {
        guard endNs > startNs, let space = key.lastIndex(of: " ") else { return }
        let kind = String(key[...space])
        let lookBack = try longest[device] ?? longestSpan(db, device: device)
        longest[device] = lookBack
        let found = try overlapping(
            db, device: device, kind: kind, startNs: startNs, endNs: endNs, lookBack: lookBack
        ).filter { $0.key != key && !spared.contains($0.key) }
        let sentAfter = { (stored: Stored) in sentNs.flatMap { s in stored.sentNs.map { $0 > s } } ?? false }
        var mine = Stored(key: key, startNs: startNs, endNs: endNs, microsteps: microsteps, sentNs: sentNs)
        // Each cut checks the spans as they are now (a cut one may no longer overlap), the readings sent after this
        // one in the order they were sent, as they would have cut it had it arrived first.
        let overlap = { (a: Stored, b: Stored) in a.startNs < b.endNs && b.startNs < a.endNs }
        let sentLater = found.filter(sentAfter).sorted { ($0.sentNs ?? .min, $0.key) < ($1.sentNs ?? .min, $1.key) }
        for newer in sentLater where mine.microsteps > 0 && overlap(newer, mine) {
            (mine.startNs, mine.endNs, mine.microsteps) = remainder(
                of: mine, coveredFrom: newer.startNs, to: newer.endNs)
            mine.sentNs = max(mine.sentNs ?? .min, newer.sentNs ?? .min)
        }
        if mine.sentNs != sentNs { try update(db, device: device, mine) }
        guard mine.microsteps > 0 else { return }
        for stored in found where !sentAfter(stored) && overlap(stored, mine) {
            var cut = stored
            (cut.startNs, cut.endNs, cut.microsteps) = remainder(of: stored, coveredFrom: mine.startNs, to: mine.endNs)
            cut.sentNs = mine.sentNs ?? stored.sentNs
            try update(db, device: device, cut)
        }
    }

    /// Stores what is left of a reading, marked for the next fetch; it keeps the send time of the reading that cut
    /// it, so that a retry of its own older send cannot bring the covered part back.
    static func update(_ db: Database, device: String, _ r: Stored) throws {
        try db.cachedStatement(
            sql: """
                UPDATE received_reading SET start_ns = ?, end_ns = ?, microsteps = ?, changed = 1, sent_ns = ?
                WHERE device = ? AND key = ?
                """
        ).execute(arguments: [r.startNs, r.endNs, r.microsteps, r.sentNs, device, r.key])
    }

    /// The device's readings of `kind` with steps that overlap `[startNs, endNs)`.
    static func overlapping(
        _ db: Database, device: String, kind: String, startNs: Int64, endNs: Int64, lookBack: Int64
    ) throws -> [Stored] {
        let (from, overflow) = startNs.subtractingReportingOverflow(lookBack)
        let rows = try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT key, start_ns, end_ns, microsteps, sent_ns FROM received_reading
                    WHERE device = ? AND start_ns >= ? AND start_ns < ? AND end_ns > ? AND microsteps > 0
                        AND substr(key, 1, length(?)) = ?
                    """),
            arguments: [device, overflow ? Int64.min : from, endNs, startNs, kind, kind])
        return rows.map { Stored(key: $0[0], startNs: $0[1], endNs: $0[2], microsteps: $0[3], sentNs: $0[4]) }
    }

    /// What is left of `stored` once `[from, to)` is taken off: its span (shrunk when one end is covered) and its
    /// steps in proportion to the time not covered (nothing when all is).
    static func remainder(of stored: Stored, coveredFrom from: Int64, to: Int64) -> (Int64, Int64, Int64) {
        let span = stored.endNs - stored.startNs
        let covered = min(stored.endNs, to) - max(stored.startNs, from)
        if from <= stored.startNs, to >= stored.endNs { return (stored.startNs, stored.endNs, 0) }
        let left = (Double(stored.microsteps) * Double(span - covered) / Double(span)).rounded()
        let start = from <= stored.startNs ? to : stored.startNs
        let end = to >= stored.endNs ? from : stored.endNs
        return (start, end, Int64(left))
    }

    /// The longest span among the device's readings: how far before a reading's start an overlapping one may start.
    static func longestSpan(_ db: Database, device: String) throws -> Int64 {
        try Int64.fetchOne(
            db, sql: "SELECT COALESCE(MAX(end_ns - start_ns), 0) FROM received_reading WHERE device = ?",
            arguments: [device]) ?? 0
    }
}
