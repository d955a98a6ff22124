import Foundation
import GRDB
import SensorInput

/// One device per minute where several counted the same time (an iPhone and a Watch, two phones): a walk is never
/// added twice. Each device's steps are kept per second (`device_minute`: a row per device and minute); in every minute the steps that count are
/// those of the first device in `source.prefer` that has steps in it, otherwise of the device with the most steps in
/// it (ties: the first name). A change to a device's steps re-decides only the minutes it touches, and the steps
/// table changes by the difference, so a device that arrives late replaces the one counted before it rather than
/// adding to it (reported as late steps, or as lowered when it counts less than what was posted).
///
/// What competes is a device as it is named (a Health Auto Export source, a Health Connect app, a Sensor Logger
/// `deviceId`), and the same device's detected steps from its acceleration as `NAME (accelerometer)`, so that a
/// phone that pushes both its pedometer and its accelerometer is counted once.
package struct DeviceOverlap: Sendable {
    /// Names in order of preference (`source.prefer`); a device matches a name it contains, ignoring case.
    var prefer: [String] = []

    /// The key a device's detected steps compete under, beside its own readings.
    package static func detected(_ device: String) -> String { device + " (accelerometer)" }

    /// Applies each device's per-second step changes, re-decides the minutes they touch, and returns how the steps
    /// that count changed, per second.
    func resolve(_ db: Database, _ changes: [String: [Int64: Int]]) throws -> [Int64: Int] {
        let (devices, byMinute, seconds) = Self.byMinute(changes)
        guard !byMinute.isEmpty else { return [:] }
        let select = try db.cachedStatement(sql: "SELECT device, seconds FROM device_minute WHERE minute = ?")
        let upsert = try db.cachedStatement(
            sql: """
                INSERT INTO device_minute (minute, device, seconds) VALUES (?, ?, ?)
                ON CONFLICT (minute, device) DO UPDATE SET seconds = excluded.seconds
                """)
        let delete = try db.cachedStatement(sql: "DELETE FROM device_minute WHERE minute = ? AND device = ?")
        let chosenBefore = try db.cachedStatement(sql: "SELECT device FROM minute_choice WHERE minute = ?")
        let choose = try db.cachedStatement(
            sql: """
                INSERT INTO minute_choice (minute, device) VALUES (?, ?)
                ON CONFLICT (minute) DO UPDATE SET device = excluded.device
                """)
        let forget = try db.cachedStatement(sql: "DELETE FROM minute_choice WHERE minute = ?")
        var out: [Int64: Int] = [:]
        out.reserveCapacity(seconds)
        for (minute, minuteChanges) in byMinute {
            var counts: [String: MinuteSteps] = [:]
            let rows = try Row.fetchCursor(select, arguments: [minute])
            while let row = try rows.next() { counts[row[0]] = MinuteSteps(blob: row[1]) }
            let before = try String.fetchOne(chosenBefore, arguments: [minute])
            let countedBefore = before.flatMap { counts[$0] } ?? MinuteSteps()
            var touched = Set<Int>()
            for change in minuteChanges {
                counts[devices[change.device], default: MinuteSteps()].add(
                    change.steps, at: Int(change.second - minute * 60))
                touched.insert(change.device)
            }
            for device in touched.map({ devices[$0] }) {
                if let steps = counts[device], !steps.isEmpty {
                    try upsert.execute(arguments: [minute, device, steps.blob])
                } else {
                    counts[device] = nil
                    try delete.execute(arguments: [minute, device])
                }
            }
            let after = choice(counts.mapValues(\.total))
            if after != before {
                if let after {
                    try choose.execute(arguments: [minute, after])
                } else {
                    try forget.execute(arguments: [minute])
                }
            }
            let countedAfter = after.flatMap { counts[$0] } ?? MinuteSteps()
            for i in 0..<60 where countedAfter.steps[i] != countedBefore.steps[i] {
                out[minute * 60 + Int64(i), default: 0] += countedAfter.steps[i] - countedBefore.steps[i]
            }
        }
        return out
    }

    /// One device's steps in each second of a minute, stored as one row rather than a row per second (a minute point
    /// of Health Auto Export spreads over most of its seconds): a byte per second up to the last second with steps when
    /// every second holds 0-255 steps (always, for steps a person takes), else 60 little-endian Int32 (240 bytes, as
    /// every row was written before; both read back by their length).
    struct MinuteSteps {
        var steps = [Int](repeating: 0, count: 60)

        init() {}

        init(blob: Data) {
            blob.withUnsafeBytes { raw in
                if raw.count == 240 {
                    for i in 0..<60 {
                        steps[i] = Int(Int32(littleEndian: raw.loadUnaligned(fromByteOffset: i * 4, as: Int32.self)))
                    }
                } else {
                    for i in 0..<min(60, raw.count) { steps[i] = Int(raw[i]) }
                }
            }
        }

        var blob: Data {
            guard steps.allSatisfy({ (0...255).contains($0) }) else {
                var data = Data(capacity: 240)
                for value in steps {
                    withUnsafeBytes(of: Int32(clamping: value).littleEndian) { data.append(contentsOf: $0) }
                }
                return data
            }
            let used = (steps.lastIndex { $0 != 0 } ?? -1) + 1
            return Data(steps[..<used].map { UInt8($0) })
        }

        mutating func add(_ count: Int, at second: Int) { steps[second] += count }
        var total: Int { steps.reduce(0, +) }
        var isEmpty: Bool { steps.allSatisfy { $0 == 0 } }
    }

    /// Each device's changes grouped by minute, so that a minute is read, decided and written once; a device by its
    /// index in `devices` (a backlog has a change for most seconds of a year). `seconds`: how many changes in all.
    static func byMinute(_ changes: [String: [Int64: Int]]) -> (
        devices: [String], byMinute: [Int64: [(device: Int, second: Int64, steps: Int)]], seconds: Int
    ) {
        let devices = Array(changes.keys)
        var byMinute: [Int64: [(device: Int, second: Int64, steps: Int)]] = [:]
        let seconds = changes.values.reduce(0) { $0 + $1.count }
        byMinute.reserveCapacity(seconds / 30)
        for (index, device) in devices.enumerated() {
            for (second, steps) in changes[device] ?? [:] where steps != 0 {
                byMinute[StepReading.floorMinute(second: second), default: []].append((index, second, steps))
            }
        }
        return (devices, byMinute, seconds)
    }

    /// The device whose steps count in a minute: the first preferred one with steps in it, else the one with the most.
    func choice(_ totalsByDevice: [String: Int]) -> String? {
        let totals = totalsByDevice.filter { $0.value > 0 }.map { ($0.key, $0.value) }
        for name in prefer {
            if let match = totals.filter({ $0.0.range(of: name, options: .caseInsensitive) != nil })
                .min(by: { $0.0 < $1.0 })
            {
                return match.0
            }
        }
        return totals.max { a, b in a.1 != b.1 ? a.1 < b.1 : a.0 > b.0 }?.0
    }
}

/// One device's steps in one minute (`device_minute`), each second's in `seconds` (`DeviceOverlap.MinuteSteps`). Hot:
/// read and written through prepared statements, a minute at a time (`DeviceOverlap.resolve`).
struct DeviceMinuteRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "device_minute"
    enum Columns {
        static let minute = Column(CodingKeys.minute)
        static let device = Column(CodingKeys.device)
        static let seconds = Column(CodingKeys.seconds)
    }
    /// Minutes since the epoch.
    var minute: Int64
    var device: String
    var seconds: Data
}

/// The device whose steps count in a minute where several have steps (`minute_choice`).
struct MinuteChoiceRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "minute_choice"
    enum Columns {
        static let minute = Column(CodingKeys.minute)
        static let device = Column(CodingKeys.device)
    }
    var minute: Int64
    var device: String
}
