import Foundation

/// A Gadgetbridge database (`Gadgetbridge`, `Gadgetbridge.db`, or the zip backup's `database/Gadgetbridge`), read
/// through SQLite, read-only and immutable (no lock: the app's export job is never blocked). Every table with
/// TIMESTAMP and STEPS columns is read, found by name (schemas change between app versions); STEPS -1 = not
/// measured; GARMIN_ and CMF_ACTIVITY_SAMPLE hold running daily totals, turned into differences that reset at local
/// midnight; millisecond timestamps are told from their size. Several devices over the same minutes: one device per
/// minute, the one with the most steps that local day (or the first of `ReadOptions.overlap`'s preferred names,
/// matched by containment in a device's name or alias ignoring case, or its id; `.sumAll` keeps all). Preferred names
/// that match none of several devices with steps are a note naming the devices, not a silent choice.
///
/// Follow mode: the export is replaced now and then; the state keeps the last timestamp read per (table, device),
/// the last running total of cumulative tables, and which minutes of the last days were counted, so a minute is
/// never counted twice, from the same device or another.
enum GadgetbridgeFormat: WholeReader {
    static let format = InputFormat(
        name: "gadgetbridge", kind: .steps,
        about: "Gadgetbridge database export or zip backup: per-minute STEPS of every activity-sample table",
        sniff: { s in
            s.magic(Array("SQLite format 3".utf8) + [0]) ? 1000 : 0  // a zip backup: by its entry's content
        },
        whole: GadgetbridgeFormat.self)

    struct State: Codable {
        /// The last TIMESTAMP read of each table and device (in the table's own unit).
        var lastTimestamp: [TableDevice: Int64] = [:]
        /// The last row of each cumulative table and device.
        var lastTotal: [TableDevice: DayTotal] = [:]
        /// UTC day → bitset of the 1,440 minutes already counted (the last `keptDays` days).
        var counted: [Int64: [UInt64]] = [:]
    }

    /// One device's rows in one table, whose reading position is kept. Saved as the key "TABLE/device id", as
    /// earlier versions wrote it, so a saved state reads the same.
    struct TableDevice: Hashable, Codable, CodingKeyRepresentable {
        var table: String
        var device: Int64

        init(table: String, device: Int64) {
            self.table = table
            self.device = device
        }

        struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        var codingKey: any CodingKey { Key(stringValue: "\(table)/\(device)") }

        init?<T: CodingKey>(codingKey: T) { self.init(text: codingKey.stringValue) }

        init?(text: String) {
            guard let slash = text.lastIndex(of: "/"), let device = Int64(text[text.index(after: slash)...]) else {
                return nil
            }
            self.init(table: String(text[..<slash]), device: device)
        }

        init(from decoder: any Decoder) throws {
            let text = try decoder.singleValueContainer().decode(String.self)
            guard let key = TableDevice(text: text) else {
                throw DecodingError.dataCorrupted(
                    .init(codingPath: decoder.codingPath, debugDescription: "not TABLE/device: \(text)"))
            }
            self = key
        }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.singleValueContainer()
            try c.encode(codingKey.stringValue)
        }
    }

    /// A cumulative table's last row: its local day and running total, saved as `[day, total]` as before.
    struct DayTotal: Codable, Equatable {
        var day: Int64
        var total: Int64

        init(day: Int64, total: Int64) {
            self.day = day
            self.total = total
        }

        init(from decoder: any Decoder) throws {
            var c = try decoder.unkeyedContainer()
            self.init(day: try c.decode(Int64.self), total: try c.decode(Int64.self))
        }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.unkeyedContainer()
            try c.encode(day)
            try c.encode(total)
        }
    }
    static let keptDays: Int64 = 8

    /// One row with steps: start (Unix s), length (s), device id, steps in that period, and the table it came from
    /// (its position in the database's table list).
    struct Row {
        var time: Int64
        var seconds: Int64
        var device: Int64
        var steps: Int64
        var table = 0
    }

    static let cumulativeTables: Set<String> = ["GARMIN_ACTIVITY_SAMPLE", "CMF_ACTIVITY_SAMPLE"]

    static func read(_ input: WholeInput, state data: Data?, report: inout WholeReport) throws -> Data? {
        var state = report.savedState(State.self, from: data) ?? State()
        let db = try open(input, with: report.options)
        let zone = report.options.timeZone ?? TimeZone.current
        let tables: [String]
        do { tables = try db.tableNames() } catch let e as InputError {
            throw InputError(file: e.file, message: e.message + " (not a readable SQLite database)")
        }
        var rows: [Row] = []
        var found = 0
        for (index, table) in tables.enumerated() {
            let columns = try db.columnNames(of: table)
            let steps = columns.contains("STEPS") ? "STEPS" : columns.contains("STEP_COUNT") ? "STEP_COUNT" : nil
            guard let steps, columns.contains("TIMESTAMP"), table.hasSuffix("_SAMPLE"),
                !table.contains("SUMMARY")
            else { continue }  // daily/workout summaries overlap the minutes
            found += 1
            let before = rows.count
            try readTable(
                db, table: table, columns: columns, stepsColumn: steps, zone: zone, state: &state, into: &rows)
            for k in before..<rows.count { rows[k].table = index }
        }
        if found == 0 {
            try report.problem(
                InputError(
                    file: input.path,
                    message: "no activity-sample table with a STEPS column (is this a Gadgetbridge database?)"))
        }
        let names = try deviceNames(db)
        let devices = Set(rows.lazy.filter { $0.steps > 0 }.map(\.device)).sorted()
        // A preference that names none of the devices (a list meant for phones, a typo) counts the usual choice,
        // said in a note rather than refused: the file's steps are valid whatever the list says.
        if let unmatched = report.options.overlap.unmatched(among: devices.map { (names[$0] ?? [], "\($0)") }) {
            report.summary.notes.append(unmatched + "; counting the device with the most steps each day")
        }
        // Minutes before the days the state remembers cannot be checked: not counted again (a device that appears
        // later with old history loses those days rather than counting minutes twice).
        let since = state.counted.keys.min().map { $0 * 86_400 } ?? Int64.min
        let fresh = since == Int64.min ? rows : rows.filter { $0.time >= since }
        for r in choose(fresh, names: names, policy: report.options.overlap, zone: zone, counted: &state.counted) {
            report.emit(r)
        }
        if let newest = state.counted.keys.max() { state.counted = state.counted.filter { $0.key > newest - keptDays } }
        return try JSONEncoder().encode(state)
    }

    /// The database of a file, a zip backup (its `database/Gadgetbridge` entry inflated into memory: SQLite reads
    /// pages at offsets), or bytes in memory, opened by the command's or agent's `ReadOptions.exportDatabases`.
    static func open(_ input: WholeInput, with options: ReadOptions) throws -> any ExportDatabase {
        guard let databases = options.exportDatabases else {
            throw InputError(
                file: input.entry?.name ?? input.path,
                message:
                    "a Gadgetbridge database needs an SQLite reader, and none was given (ReadOptions.exportDatabases)")
        }
        if let entry = input.entry { return try databases.open(bytes: try entry.open().readAll(), name: entry.name) }
        let source: LineSource = input.memory.map { .memory($0) } ?? .file
        if let export = try Export.zip(path: input.path, source: source),
            let entry = export.zipEntry(try export.recording(format: format.name))
        {
            return try databases.open(bytes: try entry.open().readAll(), name: entry.name)
        }
        if let memory = input.memory { return try databases.open(bytes: memory, name: input.path) }
        return try databases.open(path: input.path)
    }

    /// Rows of `table` newer than the state's cursor per device, as deltas (cumulative tables differenced).
    static func readTable(
        _ db: any ExportDatabase, table: String, columns: [String], stepsColumn: String, zone: TimeZone,
        state: inout State, into rows: inout [Row]
    ) throws {
        let hasDevice = columns.contains("DEVICE_ID")
        let end = ["OTHER_TIMESTAMP", "DURATION"].first { columns.contains($0) }
        let maxTime = try db.largest("TIMESTAMP", in: table) ?? 0
        let divisor: Int64 = maxTime > 100_000_000_000 ? 1000 : 1  // ms (TimeSample tables) or s
        let devices = hasDevice ? try db.distinctValues(of: "DEVICE_ID", in: table).map { $0 ?? 0 } : [0]
        let cumulative = cumulativeTables.contains(table)
        let offsets = LocalTime(zone: zone)
        for device in devices {
            let key = TableDevice(table: table, device: device)
            let after = state.lastTimestamp[key] ?? Int64.min
            var total = state.lastTotal[key]
            let scan = TableScan(
                table: table, columns: ["TIMESTAMP", stepsColumn, end],
                conditions: [.greater("TIMESTAMP", than: after)] + (hasDevice ? [.equal("DEVICE_ID", to: device)] : []),
                orderedBy: "TIMESTAMP")
            var last = after
            try db.scan(scan) { r in
                guard let stamp = r.integer(0) else { return }
                last = max(last, stamp)
                guard let value = r.integer(1), value >= 0 else { return }  // -1: not measured (Garmin gap filler too)
                let time = stamp / divisor
                guard (0...4_102_444_800).contains(time) else { return }  // 1970-2100: a time, not damage
                var steps = value
                if cumulative {
                    let day = offsets.localDay(time)
                    // Else a new day, or the counter was reset.
                    if let t = total, t.day == day, value >= t.total { steps = value - t.total }
                    total = DayTotal(day: day, total: value)
                }
                var seconds: Int64 = 60
                if let e = r.integer(2) {
                    // An end at or before the start lasts 0 s (subtracting a damaged, hugely negative end overflowed).
                    seconds = !columns.contains("OTHER_TIMESTAMP") ? e : e / divisor > time ? e / divisor - time : 0
                }
                rows.append(Row(time: time, seconds: max(0, min(seconds, 86_400)), device: device, steps: steps))
            }
            if last != Int64.min { state.lastTimestamp[key] = last }
            if let total { state.lastTotal[key] = total }
        }
    }

    /// Device id → names it may be chosen by (NAME, ALIAS).
    static func deviceNames(_ db: any ExportDatabase) throws -> [Int64: [String]] {
        guard try db.tableNames().contains("DEVICE") else { return [:] }
        let alias = try db.columnNames(of: "DEVICE").contains("ALIAS") ? "ALIAS" : nil
        var out: [Int64: [String]] = [:]
        try db.scan(TableScan(table: "DEVICE", columns: ["_id", "NAME", alias])) { r in
            if let id = r.integer(0) { out[id] = [r.text(1), r.text(2)].compactMap { $0 }.filter { !$0.isEmpty } }
        }
        return out
    }

    /// One device per minute (see the type's comment), and one table per device and minute: a device whose samples
    /// moved to another table (an app update changed its sample table) can hold the same minute in both, which are
    /// the same steps — the table with more steps that minute is kept. Minutes already `counted` are left out, and
    /// the ones chosen are marked. Returns the readings in time order.
    static func choose(
        _ input: [Row], names: [Int64: [String]], policy: OverlapPolicy, zone: TimeZone,
        counted: inout [Int64: [UInt64]]
    ) -> [StepReading] {
        let rows = input.sorted { ($0.time, $0.device) < ($1.time, $1.device) }
        let offsets = LocalTime(zone: zone)
        var dayTotals: [Int64: [Int64: Int64]] = [:]
        let several = Set(rows.lazy.map(\.device)).count > 1
        if several {
            for r in rows { dayTotals[offsets.localDay(r.time), default: [:]][r.device, default: 0] += r.steps }
        }
        var rank: [Int64: Int] = [:]  // device → position in the preferred list
        for (id, n) in names { rank[id] = policy.rank(of: n, id: "\(id)") }
        var out: [StepReading] = []
        out.reserveCapacity(rows.count)
        var i = 0
        while i < rows.count {
            let minute = TimeParsing.floorDiv(rows[i].time, 60)
            var j = i + 1
            while j < rows.count, TimeParsing.floorDiv(rows[j].time, 60) == minute { j += 1 }
            let day = TimeParsing.floorDiv(minute, 1440)
            let bit = Int(minute - day * 1440)
            var words = counted[day] ?? [UInt64](repeating: 0, count: 23)
            if words[bit / 64] & (1 << UInt64(bit % 64)) == 0 {
                var keep = rows[i].device
                if several, policy != .sumAll, j - i > 1 {
                    let totals = dayTotals[offsets.localDay(rows[i].time)] ?? [:]
                    keep =
                        rows[i..<j].map(\.device).min { a, b in
                            (rank[a] ?? Int.max, -(totals[a] ?? 0), a) < (rank[b] ?? Int.max, -(totals[b] ?? 0), b)
                        } ?? keep
                }
                var table: [Int64: Int] = [:]  // device → the table kept this minute
                if j - i > 1 {
                    var sums: [Int64: [Int: Int64]] = [:]
                    for r in rows[i..<j] { sums[r.device, default: [:]][r.table, default: 0] += r.steps }
                    for (d, t) in sums where t.count > 1 {
                        table[d] = t.max { ($0.value, $1.key) < ($1.value, $0.key) }?.key
                    }
                }
                for r in rows[i..<j]
                where (policy == .sumAll || r.device == keep) && r.steps > 0
                    && table[r.device].map({ $0 == r.table }) ?? true
                {
                    out.append(
                        StepReading(
                            startNs: r.time * 1_000_000_000, endNs: (r.time + r.seconds) * 1_000_000_000,
                            steps: Int(min(r.steps, 1_000_000))))
                }
                words[bit / 64] |= 1 << UInt64(bit % 64)
                counted[day] = words
            }
            i = j
        }
        return out
    }
}
