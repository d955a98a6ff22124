import Foundation

/// Samsung Health "Download personal data" CSVs (one per data type, `<type>.<yyyyMMddHHmmss>.csv`): line 1 is a
/// metadata line `<type>,<version>,<n>`, line 2 the header; columns are found by name, a `com.samsung.health.<type>.`
/// prefix dropped; a row may end with a trailing comma (one more, empty, field than the header).
/// - `com.samsung.shealth.tracker.pedometer_step_count`: intervals of about a minute, `start_time` and `end_time` as
///   `YYYY-MM-DD HH:MM:SS.sss` in UTC (`time_offset` only names the local zone), `count`, `deviceuuid`. Phone and
///   watch rows overlap: combined as Apple Health's records are (`SourcedReading.combine`, `ReadOptions.overlap`;
///   the device is `deviceuuid`), held and delivered in time order at the end of the read.
/// - `com.samsung.shealth.step_daily_trend`: a row per local day per source; only `source_type` −2 (all sources
///   merged: what the app shows) is read, never a sum over sources. `day_time` is the local day's 00:00 as UTC epoch
///   ms; the reading spans that day in `ReadOptions.timeZone` (else the machine's zone). A day given twice: the row
///   with the latest `update_time` counts.
struct SamsungHealthCSV: LineParser, HoldsSourcedRecords {
    static let stepsType = "com.samsung.shealth.tracker.pedometer_step_count"
    static let dailyType = "com.samsung.shealth.step_daily_trend"

    static let steps = InputFormat(
        name: "samsung-health", kind: .steps,
        about: "Samsung Health \(stepsType).*.csv: step counts per ~1 min interval (phone and watch counted once)",
        sniff: { s in
            if s.first.hasPrefix(stepsType + ",") { return 100 }
            let h = header(s)
            return s.head.contains("com.samsung.health.step_count.") && h.contains("start_time") && h.contains("count")
                ? 95 : 0
        },
        parser: SamsungHealthCSV.self)

    static let daily = InputFormat(
        name: "samsung-health-daily", kind: .steps,
        about: "Samsung Health \(dailyType).*.csv: steps per local day, source_type -2 (all sources merged) only",
        sniff: { s in
            if s.first.hasPrefix(dailyType + ",") { return 100 }
            let h = header(s)
            return h.contains("day_time") && h.contains("source_type") && h.contains("count") ? 90 : 0
        },
        parser: SamsungHealthCSV.self)

    /// Where the columns stand, once the header was read; `width` is the header's number of fields.
    struct Columns: Codable {
        var count: Int
        var start: Int?
        var end: Int?
        var device: Int?
        var day: Int?
        var source: Int?
        var updated: Int?
        var width: Int
    }

    /// The `source_type` −2 row of one day.
    struct Day: Codable {
        var updated: String
        var steps: Int
    }

    var path: String
    var columns: Columns?
    /// Interval rows by device, combined at the end of the read.
    var held: [SourcedReading] = []
    var latestStart: Int64?
    var deliveredThrough: Int64?
    /// The local date of `day_time` (days since 1970-01-01) → that day's row, delivered at the end of the read.
    var days: [Int64: Day] = [:]
    /// Daily rows of single sources (not read), to say so when the file has no merged rows.
    var singleSourceRows = 0

    init(path: String, options: ReadOptions) throws { self.path = path }

    /// The column names of a header line (`Fields.headerNames`), each the part after the last `.`.
    static func names(_ line: Substring) -> [String] {
        Fields.headerNames(line).map { name in name.split(separator: ".").last.map(String.init) ?? "" }
    }

    /// The header of a sniffed file: line 2 below a metadata line, else line 1.
    static func header(_ s: Sniff) -> [String] {
        let line = isMetadata(Substring(s.first)) && s.lines.count > 1 ? s.lines[1] : s.first
        return names(Substring(line))
    }

    /// Whether `line` is the metadata line above the header: `<type>,<version>,<n>` (a header's prefix has no `s`).
    static func isMetadata(_ line: Substring) -> Bool {
        line.hasPrefix("com.samsung.shealth.") && line.split(separator: ",").count <= 3
    }

    mutating func parse(
        _ line: UnsafeBufferPointer<UInt8>, number: Int, options: ReadOptions,
        _ emit: (InputItem) -> Void
    ) throws -> String? {
        var row = FieldRow(line, UInt8(ascii: ","))
        guard let c = columns else {
            try readHeader(row.text, number: number)
            return nil
        }
        row.dropTrailingEmpty(width: c.width)
        guard row.count == c.width else { return "expected \(c.width) fields (as the header), found \(row.count)" }
        let steps: Int
        switch row.stepCount(c.count, column: "count") {
        case .success(let n): steps = n
        case .failure(let p): return p.message
        }
        if let day = c.day, let source = c.source {
            return daily(row, day: day, source: source, updated: c.updated, steps: steps)
        }
        return try interval(row, c, steps: steps, options: options, emit)
    }

    /// Reads the header (after a metadata line): throws when it lacks the columns of both files.
    mutating func readHeader(_ line: String, number: Int) throws {
        if Self.isMetadata(Substring(line)) { return }
        let names = Self.names(Substring(line))
        let find = { (name: String) in names.firstIndex(of: name) }
        guard let count = find("count"),
            (find("start_time") != nil && find("end_time") != nil)
                || (find("day_time") != nil && find("source_type") != nil)
        else {
            throw InputError(
                file: path, line: number,
                message: "no count with start_time/end_time or day_time/source_type in the header "
                    + "(a Samsung Health pedometer_step_count or step_daily_trend file has them)")
        }
        columns = Columns(
            count: count, start: find("start_time"), end: find("end_time"), device: find("deviceuuid"),
            day: find("day_time"), source: find("source_type"), updated: find("update_time"), width: names.count)
    }

    /// A `pedometer_step_count` row: held with its device until the end of the read.
    mutating func interval(
        _ row: FieldRow, _ c: Columns, steps: Int, options: ReadOptions, _ emit: (InputItem) -> Void
    ) throws -> String? {
        guard let s = c.start, let e = c.end else { return "no start_time/end_time" }
        guard let from = row.dateTime(s)?.ns else {
            return "start_time '\(row[s].prefix(30))' is not YYYY-MM-DD HH:MM:SS.sss"
        }
        guard let to = row.dateTime(e)?.ns else {
            return "end_time '\(row[e].prefix(30))' is not YYYY-MM-DD HH:MM:SS.sss"
        }
        guard to >= from else { return "end_time \(row[e].prefix(30)) is before start_time \(row[s].prefix(30))" }
        if steps == 0 { return nil }
        let device = c.device.map { String(row[$0]) } ?? ""
        try hold(
            .init(source: device, reading: StepReading(startNs: from, endNs: to, steps: steps)), options: options, emit)
        return nil
    }

    /// A `step_daily_trend` row: kept when it is the merged one (`source_type` −2), the latest of its day.
    mutating func daily(_ row: FieldRow, day: Int, source: Int, updated: Int?, steps: Int) -> String? {
        guard let type = row.int(source) else { return "source_type '\(row[source].prefix(20))' is not a number" }
        guard let ms = row.int(day), (-9_000_000_000_000..<9_000_000_000_000).contains(ms) else {
            return "day_time '\(row[day].prefix(20))' is not epoch milliseconds"
        }
        guard type == -2 else {
            singleSourceRows += 1
            return nil
        }
        // The local day's 00:00 as UTC: rounded to the nearest UTC midnight should a version store the instant.
        let key = TimeParsing.floorDiv(ms + 43_200_000, 86_400_000)
        let stamp = updated.map { String(row[$0]) } ?? ""
        if let kept = days[key], (kept.updated, kept.steps) > (stamp, steps) { return nil }
        days[key] = Day(updated: stamp, steps: steps)
        return nil
    }

    /// A slice ends: runs that rows in the next slices can still join stay held (`HoldsSourcedRecords`); daily rows wait for
    /// the end of the read.
    mutating func pause(options: ReadOptions, _ emit: (InputItem) -> Void) {
        deliverSettled(policy: options.overlap, emit)
    }

    mutating func finish(options: ReadOptions, _ emit: (InputItem) -> Void) {
        deliverHeld(policy: options.overlap, emit)
        let local = LocalTime(zone: options.timeZone ?? TimeZone.current)
        for (day, row) in days.sorted(by: { $0.key < $1.key }) {
            emit(.reading(local.day(day * 86_400, steps: row.steps)))
        }
        days.removeAll()
    }

    func describe(_ summary: inout ReadSummary) {
        guard singleSourceRows > 0, summary.readings == 0 else { return }
        // Told as one skipped line: the rows are fine, the file lacks the ones that are read.
        summary.skippedLines += 1
        summary.issues.append(
            InputError(
                file: path,
                message: "\(singleSourceRows) daily rows of single sources and none of source_type -2 (all sources "
                    + "merged): single sources are not added up, they hold the same steps"))
    }
}
