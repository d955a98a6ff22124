import Foundation
import GRDB
import SensorInput

/// What a followed file's step readings put in the steps table, per source and minute (`reading_ledger`, a row per
/// hour), so that a newer export over the old one (renamed over it, rewritten in place) counts what it says rather
/// than what is new at its end: a record it adds before the last one counted (a watch synced late) is counted, one
/// counted before is not counted again, and where the overlap rule now picks another device the minute changes by
/// the difference.
///
/// While a file is read again from its start (`Mode.rereading`, over as many slices as it takes), the newer export's
/// minutes gather in `pending`, and each minute stores the larger of what was counted and what the newer export has
/// said so far (new steps are not held back until the end). When the reading reaches the end of the file, each minute
/// from the first the newer export covers stores what it says (lowered where it says less); minutes before that are
/// kept, so that a log truncated in place and written again from a later time adds to what was counted.
package enum ReadingLedger {
    /// Where a source stands (`reading_ledger_state`); no row for a source read before the ledger was kept.
    package enum Mode: String, Sendable {
        /// Every reading counted is in the ledger.
        case kept
        /// The file is being read again from its start; `pending` holds what it said so far.
        case rereading
        /// A source from before the ledger, read again from its start: counted as before (readings ending by the
        /// last one counted are left out), and the ledger filled from what the file says.
        case seeding
    }

    /// What a slice's readings do to the ledger.
    package enum Kind: Sendable, Equatable {
        /// New readings at the end of the file: counted as they are.
        case append
        /// Readings of a file read again from its start, whose first reading starts at `fromSecond` (rounded up);
        /// `final` when the slice reached the end of the file; `adds` when every reading of it came after the last
        /// one counted before (a log truncated in place and written again, read in slices): then each minute stores
        /// what was counted and what the file says, added; `restarts` when the file went back to its start while it
        /// was being read again (a newer export over it, or its records out of time order, gathered and settled from
        /// its start): what it said so far is dropped.
        case reread(fromSecond: Int64, final: Bool, adds: Bool = false, restarts: Bool = false)
        /// Readings of a source from before the ledger read again (counted by the caller); `final` as above.
        case seed(final: Bool)
    }

    /// A slice's readings for the ledger, and what they are: new readings at the end (`append`) as their steps per
    /// second, spread by the reading side (the steps table takes them as they are); readings read again or seeding
    /// the ledger as they are, summed per minute here and spread only where a minute changes.
    package struct Change: Sendable {
        package var source: String
        package var kind: Kind
        package var seconds: [Int64: Int]
        package var readings: [StepReading]

        package init(source: String, kind: Kind, seconds: [Int64: Int] = [:], readings: [StepReading] = []) {
            self.source = source
            self.kind = kind
            self.seconds = seconds
            self.readings = readings
        }

        /// Steps per minute of the readings, by the same rule (without a dictionary of their seconds).
        func minutes() -> [Int64: Int] {
            var out: [Int64: Int] = [:]
            for r in readings {
                r.stepsPerSecond { second, steps in out[StepReading.floorMinute(second: second), default: 0] += steps }
            }
            return out.filter { $0.value != 0 }
        }
    }

    /// The source's mode; nil when it was read before the ledger was kept.
    static func mode(_ db: Database, source: String) throws -> Mode? {
        try String.fetchOne(db, sql: "SELECT mode FROM reading_ledger_state WHERE source = ?", arguments: [source])
            .flatMap(Mode.init(rawValue:))
    }

    /// The first minute a reading again has covered so far.
    static func rereadFrom(_ db: Database, source: String) throws -> Int64? {
        try Int64.fetchOne(
            db, sql: "SELECT from_second FROM reading_ledger_state WHERE source = ?", arguments: [source])
    }

    /// Applies `change` and returns the steps per second that the steps table changes by.
    static func apply(_ db: Database, _ change: Change) throws -> [Int64: Int] {
        var out: [Int64: Int] = [:]
        try apply(db, change) { part in out.merge(part) { $0 + $1 } }
        return out
    }

    /// Applies `change` and hands `emit` the steps per second that the steps table changes by: a file read again a
    /// span of `spanMinutes` changed minutes at a time, in time order (no two spans share a minute), so that a whole
    /// export's changed seconds are never in memory at once.
    static func apply(_ db: Database, _ change: Change, emit: ([Int64: Int]) throws -> Void) throws {
        switch change.kind {
        case .append:
            let minutes = Self.minuteSums(change.seconds)
            // Only the hours these readings touch are read and written: the common case, each fetch of a log.
            var rows = try LedgerRows(
                db, source: change.source, hours: Set(minutes.keys.map { LedgerRows.place($0).0 }))
            for (minute, steps) in minutes { rows.add(minute, steps, pending: false) }
            try rows.save(mode: .kept)
            try emit(change.seconds)
        case .seed(let final):
            let minutes = change.minutes()
            var rows = try LedgerRows(
                db, source: change.source, hours: final ? nil : Set(minutes.keys.map { LedgerRows.place($0).0 }))
            for (minute, steps) in minutes { rows.add(minute, steps, pending: true) }
            if final { rows.settle { _, _, pending in pending } }
            try rows.save(mode: final ? .kept : .seeding)
        case .reread(let first, let final, let adds, let restarts):
            let changed = try reread(
                db, change, minutes: change.minutes(), fromSecond: first, final: final, adds: adds, restarts: restarts)
            try spread(changed, of: change.readings, emit: emit)
        }
    }

    /// A slice of a file read again from its start: each minute stores the larger of what was counted and what the
    /// file has said so far; at the end of the file, every minute from the first the file covers stores what it says
    /// (or, when it `adds`, what was counted and what it says). Returns the steps each minute changes by.
    static func reread(
        _ db: Database, _ change: Change, minutes: [Int64: Int], fromSecond first: Int64, final: Bool, adds: Bool,
        restarts: Bool = false
    ) throws -> [Int64: Int] {
        let from = restarts ? first : min(first, try Self.rereadFrom(db, source: change.source) ?? first)
        var rows = try LedgerRows(
            db, source: change.source,
            hours: final || restarts ? nil : Set(minutes.keys.map { LedgerRows.place($0).0 }))
        var deltas: [Int64: Int] = [:]
        if restarts { rows.dropPending(&deltas) }
        for (minute, steps) in minutes {
            let before = rows.stored(minute)
            rows.add(minute, steps, pending: true)
            deltas[minute, default: 0] += rows.stored(minute) - before
        }
        if final {
            rows.settle { minute, counted, pending in
                let now = max(counted, pending)
                let after = adds ? counted + pending : minute * 60 >= from ? pending : now
                if after != now { deltas[minute, default: 0] += after - now }
                return after
            }
        }
        try rows.save(mode: final ? .kept : .rereading, from: final ? nil : from)
        return deltas.filter { $0.value != 0 }
    }

    /// Changed minutes a span at most: a span's seconds (60 a minute at most) are what `spread(_:of:emit:)` holds.
    static let spanMinutes = 8_192

    /// Each minute's change in `deltas`, shared among that minute's seconds as `readings` spread them
    /// (`spread(_:over:)`), handed to `emit` a span of `spanMinutes` changed minutes at a time, in time order.
    static func spread(
        _ deltas: [Int64: Int], of readings: [StepReading], spanMinutes: Int = spanMinutes,
        emit: ([Int64: Int]) throws -> Void
    ) throws {
        guard !deltas.isEmpty else { return }
        let minutes = deltas.keys.sorted()
        let starts = stride(from: 0, to: minutes.count, by: spanMinutes).map { minutes[$0] }
        // The readings of each span: those with a second in one of its minutes (from its start to the next's).
        var members = Array(repeating: [Int](), count: starts.count)
        for (i, r) in readings.enumerated() {
            let (first, last) = r.minuteRange
            // The last span starting at or before `first` (or the first span).
            var span = Self.lastStart(atOrBefore: first, in: starts)
            while span < starts.count && starts[span] <= last {
                members[span].append(i)
                span += 1
            }
        }
        for (span, indices) in members.enumerated() {
            var part: [Int64: Int] = [:]
            for minute in minutes[(span * spanMinutes)..<min(minutes.count, (span + 1) * spanMinutes)] {
                part[minute] = deltas[minute]
            }
            let out = spread(part, over: seconds(of: indices.map { readings[$0] }, in: part))
            if !out.isEmpty { try emit(out) }
        }
    }

    /// Steps per second of `readings` in `minutes`, each spread evenly over its period: the one rule `count` and
    /// `preview` use too.
    static func seconds(of readings: [StepReading], in minutes: [Int64: Int]) -> [Int64: Int] {
        var out: [Int64: Int] = [:]
        for r in readings {
            r.stepsPerSecond { second, steps in
                if minutes[StepReading.floorMinute(second: second)] == nil { return }
                out[second, default: 0] += steps
            }
        }
        return out
    }

    /// The index of the last of `starts` (ascending) at or before `minute`, or 0 when none is.
    static func lastStart(atOrBefore minute: Int64, in starts: [Int64]) -> Int {
        var (low, high) = (0, starts.count)  // the first index after `minute` is in low...high
        while low < high {
            let mid = (low + high) / 2
            if starts[mid] <= minute { low = mid + 1 } else { high = mid }
        }
        return max(0, low - 1)
    }

    /// Steps per minute of `seconds`.
    static func minuteSums(_ seconds: [Int64: Int]) -> [Int64: Int] {
        var out: [Int64: Int] = [:]
        for (second, steps) in seconds where steps != 0 {
            out[StepReading.floorMinute(second: second), default: 0] += steps
        }
        return out
    }

    /// Each minute's change in `deltas`, shared among that minute's `seconds` as the readings spread them.
    static func spread(_ deltas: [Int64: Int], over seconds: [Int64: Int]) -> [Int64: Int] {
        guard !deltas.isEmpty else { return [:] }
        var byMinute: [Int64: [(Int64, Int)]] = [:]
        for (second, steps) in seconds where steps != 0 {
            let minute = StepReading.floorMinute(second: second)
            if deltas[minute] != nil { byMinute[minute, default: []].append((second, steps)) }
        }
        var out: [Int64: Int] = [:]
        for (minute, delta) in deltas { spread(delta, over: byMinute[minute] ?? [], minute: minute, into: &out) }
        return out
    }

    /// Adds `delta` steps to `minute`, shared among `seconds` by their steps (largest remainders first), or at the
    /// minute's start when it has none.
    static func spread(_ delta: Int, over seconds: [(Int64, Int)], minute: Int64, into out: inout [Int64: Int]) {
        guard delta != 0 else { return }
        let total = seconds.reduce(0) { $0 + max($1.1, 0) }
        guard total > 0 else {
            out[minute * 60, default: 0] += delta
            return
        }
        let magnitude = abs(delta)
        let sign = delta < 0 ? -1 : 1
        var shares = seconds.sorted { $0.0 < $1.0 }.map {
            (second: $0.0, whole: magnitude * max($0.1, 0) / total, rest: magnitude * max($0.1, 0) % total)
        }
        var left = magnitude - shares.reduce(0) { $0 + $1.whole }
        for i in shares.indices.sorted(by: { shares[$0].rest > shares[$1].rest }) where left > 0 {
            shares[i].whole += 1
            left -= 1
        }
        for share in shares where share.whole != 0 { out[share.second, default: 0] += sign * share.whole }
    }
}

/// One source's ledger rows (`reading_ledger`: an hour of minutes in a row), read once and written back once.
struct LedgerRows {
    let db: Database
    let source: String
    /// Minutes of counted and pending steps by hour (hours since the epoch).
    var hours: [Int64: (counted: [Int], pending: [Int]?)] = [:]
    var changed = Set<Int64>()

    /// Reads the rows of `only` those hours, or all of the source's when nil.
    init(_ db: Database, source: String, hours only: Set<Int64>?) throws {
        self.db = db
        self.source = source
        let sql = "SELECT hour, counted, pending FROM reading_ledger WHERE source = ?"
        guard let only else {
            let rows = try Row.fetchCursor(db, sql: sql, arguments: [source])
            while let row = try rows.next() { take(row) }
            return
        }
        let one = try db.cachedStatement(sql: sql + " AND hour = ?")
        for hour in only {
            if let row = try Row.fetchOne(one, arguments: [source, hour]) { take(row) }
        }
    }

    private mutating func take(_ row: Row) {
        hours[row[0]] = (Self.minutes(row[1]), (row[2] as Data?).map(Self.minutes))
    }

    /// Steps the minute puts in the steps table: what was counted, or more where a reading again says more.
    func stored(_ minute: Int64) -> Int {
        let (hour, index) = Self.place(minute)
        guard let row = hours[hour] else { return 0 }
        return max(row.counted[index], row.pending?[index] ?? 0)
    }

    mutating func add(_ minute: Int64, _ steps: Int, pending: Bool) {
        let (hour, index) = Self.place(minute)
        var row = hours[hour] ?? (Array(repeating: 0, count: 60), nil)
        if pending {
            row.pending = row.pending ?? Array(repeating: 0, count: 60)
            row.pending?[index] += steps
        } else {
            row.counted[index] += steps
        }
        hours[hour] = row
        changed.insert(hour)
    }

    /// What a reading again said so far is dropped: each minute stores what was counted again (its change in
    /// `deltas`).
    mutating func dropPending(_ deltas: inout [Int64: Int]) {
        for (hour, row) in hours {
            guard let pending = row.pending else { continue }
            for i in 0..<60 where pending[i] > row.counted[i] {
                deltas[hour * 60 + Int64(i), default: 0] += row.counted[i] - pending[i]
            }
            hours[hour] = (row.counted, nil)
            changed.insert(hour)
        }
    }

    /// Every minute's counted steps become `after(minute, counted, pending)`; nothing is pending after.
    mutating func settle(_ after: (Int64, Int, Int) -> Int) {
        for (hour, row) in hours {
            let pending = row.pending ?? Array(repeating: 0, count: 60)
            let counted = (0..<60).map { after(hour * 60 + Int64($0), row.counted[$0], pending[$0]) }
            hours[hour] = (counted, nil)
            changed.insert(hour)
        }
    }

    func save(mode: ReadingLedger.Mode, from: Int64? = nil) throws {
        let upsert = try db.cachedStatement(
            sql: """
                INSERT INTO reading_ledger (source, hour, counted, pending) VALUES (?, ?, ?, ?)
                ON CONFLICT (source, hour) DO UPDATE SET counted = excluded.counted, pending = excluded.pending
                """)
        let delete = try db.cachedStatement(sql: "DELETE FROM reading_ledger WHERE source = ? AND hour = ?")
        for hour in changed {
            guard let row = hours[hour] else { continue }
            if row.counted.allSatisfy({ $0 == 0 }) && row.pending == nil {
                try delete.execute(arguments: [source, hour])
            } else {
                try upsert.execute(arguments: [source, hour, Self.blob(row.counted), row.pending.map(Self.blob)])
            }
        }
        try db.execute(
            sql: """
                INSERT INTO reading_ledger_state (source, mode, from_second) VALUES (?, ?, ?)
                ON CONFLICT (source) DO UPDATE SET mode = excluded.mode, from_second = excluded.from_second
                """, arguments: [source, mode.rawValue, from])
    }

    /// The hour of a minute and its index in it.
    static func place(_ minute: Int64) -> (Int64, Int) {
        let hour = minute >= 0 ? minute / 60 : (minute - 59) / 60
        return (hour, Int(minute - hour * 60))
    }

    /// 60 minutes as little-endian Int32, up to the last that is not 0.
    static func blob(_ minutes: [Int]) -> Data {
        let used = (minutes.lastIndex { $0 != 0 } ?? -1) + 1
        var data = Data(capacity: used * 4)
        for value in minutes[..<used] {
            withUnsafeBytes(of: Int32(clamping: value).littleEndian) { data.append(contentsOf: $0) }
        }
        return data
    }

    static func minutes(_ blob: Data) -> [Int] {
        var out = Array(repeating: 0, count: 60)
        blob.withUnsafeBytes { raw in
            for i in 0..<min(60, raw.count / 4) {
                out[i] = Int(Int32(littleEndian: raw.loadUnaligned(fromByteOffset: i * 4, as: Int32.self)))
            }
        }
        return out
    }
}

extension StepReading {
    /// The first and the last minute `stepsPerSecond` gives steps in (the minute of its start when it has no length).
    fileprivate var minuteRange: (Int64, Int64) {
        let start = start.nanosecondsSinceEpoch
        let last = max(end.nanosecondsSinceEpoch - 1, start)
        return (
            StepReading.floorMinute(second: StepReading.floorSecond(start)),
            StepReading.floorMinute(second: StepReading.floorSecond(last))
        )
    }
}
