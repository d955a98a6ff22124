import Foundation
import GRDB
import SensorInput

/// One device per minute where several counted the same time (an iPhone and a Watch, two phones): a walk is never
/// added twice. Each device's steps are kept per second (`device_steps`); in every minute the steps that count are
/// those of the first device in `source.prefer` that has steps in it, otherwise of the device with the most steps in
/// it (ties: the first name). A change to a device's steps re-decides only the minutes it touches, and the steps
/// table changes by the difference, so a device that arrives late replaces the one counted before it rather than
/// adding to it (reported as late steps, or as lowered when it counts less than what was posted).
///
/// What competes is a device as it is named (a Health Auto Export source, a Health Connect app, a Sensor Logger
/// `deviceId`), and the same device's detected steps from its acceleration as `NAME (accelerometer)`, so that a
/// phone that pushes both its pedometer and its accelerometer is counted once.
struct DeviceOverlap: Sendable {
    /// Names in order of preference (`source.prefer`); a device matches a name it contains, ignoring case.
    var prefer: [String] = []

    /// The key a device's detected steps compete under, beside its own readings.
    static func detected(_ device: String) -> String { device + " (accelerometer)" }

    /// Applies each device's per-second step changes, re-decides the minutes they touch, and returns how the steps
    /// that count changed, per second.
    func resolve(_ db: Database, _ changes: [String: [Int64: Int]]) throws -> [Int64: Int] {
        var minutes = Set<Int64>()
        for (_, seconds) in changes { for second in seconds.keys { minutes.insert(Self.minute(second)) } }
        guard !minutes.isEmpty else { return [:] }
        let select = try db.cachedStatement(
            sql: "SELECT device, second, count FROM device_steps WHERE second >= ? AND second < ?")
        let upsert = try db.cachedStatement(
            sql: """
                INSERT INTO device_steps (second, device, count) VALUES (?, ?, ?)
                ON CONFLICT (second, device) DO UPDATE SET count = excluded.count
                """)
        let delete = try db.cachedStatement(sql: "DELETE FROM device_steps WHERE second = ? AND device = ?")
        let chosenBefore = try db.cachedStatement(sql: "SELECT device FROM minute_choice WHERE minute = ?")
        let choose = try db.cachedStatement(
            sql:
                "INSERT INTO minute_choice (minute, device) VALUES (?, ?) ON CONFLICT (minute) DO UPDATE SET device = excluded.device"
        )
        let forget = try db.cachedStatement(sql: "DELETE FROM minute_choice WHERE minute = ?")
        // Each device's changes grouped by minute, so that a minute is read and decided once.
        var byMinute: [Int64: [(device: String, second: Int64, steps: Int)]] = [:]
        for (device, seconds) in changes {
            for (second, steps) in seconds where steps != 0 {
                byMinute[Self.minute(second), default: []].append((device, second, steps))
            }
        }
        var out: [Int64: Int] = [:]
        for (minute, minuteChanges) in byMinute {
            var counts: [String: [Int64: Int]] = [:]
            let rows = try Row.fetchCursor(select, arguments: [minute * 60, minute * 60 + 60])
            while let row = try rows.next() { counts[row[0], default: [:]][row[1]] = row[2] }
            let before = try String.fetchOne(chosenBefore, arguments: [minute])
            let countedBefore = before.flatMap { counts[$0] } ?? [:]
            for change in minuteChanges {
                let now = (counts[change.device]?[change.second] ?? 0) + change.steps
                counts[change.device, default: [:]][change.second] = now
                if now == 0 {
                    try delete.execute(arguments: [change.second, change.device])
                } else {
                    try upsert.execute(arguments: [change.second, change.device, now])
                }
            }
            let after = choice(counts)
            if after != before {
                if let after {
                    try choose.execute(arguments: [minute, after])
                } else {
                    try forget.execute(arguments: [minute])
                }
            }
            let countedAfter = after.flatMap { counts[$0] } ?? [:]
            for second in Set(countedBefore.keys).union(countedAfter.keys) {
                let delta = (countedAfter[second] ?? 0) - (countedBefore[second] ?? 0)
                if delta != 0 { out[second, default: 0] += delta }
            }
        }
        return out
    }

    /// The device whose steps count in a minute: the first preferred one with steps in it, else the one with the most.
    func choice(_ counts: [String: [Int64: Int]]) -> String? {
        let totals = counts.compactMap { device, seconds -> (String, Int)? in
            let total = seconds.values.reduce(0, +)
            return total > 0 ? (device, total) : nil
        }
        for name in prefer {
            if let match = totals.filter({ $0.0.range(of: name, options: .caseInsensitive) != nil })
                .min(by: { $0.0 < $1.0 })
            {
                return match.0
            }
        }
        return totals.max { a, b in a.1 != b.1 ? a.1 < b.1 : a.0 > b.0 }?.0
    }

    /// The minute holding `second`, rounding down before 1970 too.
    static func minute(_ second: Int64) -> Int64 { second >= 0 ? second / 60 : -((-second + 59) / 60) }

    /// `device_steps` and `minute_choice`, filled from what the received readings counted before this migration, so
    /// that a resend of an earlier reading changes the minute it is in by its difference. Past minutes keep the steps
    /// they counted (posted windows are not re-decided).
    static func migrate(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE device_steps (
                    second INTEGER NOT NULL, device TEXT NOT NULL, count INTEGER NOT NULL,
                    PRIMARY KEY (second, device)) WITHOUT ROWID;
                CREATE TABLE minute_choice (minute INTEGER PRIMARY KEY, device TEXT NOT NULL) WITHOUT ROWID;
                """)
        var changes: [String: [Int64: Int]] = [:]
        let rows = try ReceivedReadingRecord.filter(ReceivedReadingRecord.Columns.countedStartNs != nil).fetchCursor(db)
        while let row = try rows.next() {
            row.counted?.stepsPerSecond { changes[row.device, default: [:]][$0, default: 0] += $1 }
        }
        _ = try DeviceOverlap().resolve(db, changes)
    }
}
