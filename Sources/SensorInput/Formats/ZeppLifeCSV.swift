import Foundation

/// Zepp Life / Mi Fit (Huami) data export CSVs, columns found by header name, dates and times on the band's local
/// clock, read in `ReadOptions.timeZone` (`--time-zone`), else the machine's zone:
/// - `ACTIVITY_MINUTE/ACTIVITY_MINUTE_<id>.csv`: `date,time,steps`, one row per minute (`HH:mm`, or `HH:mm:ss`); a
///   reading covers that minute; rows of 0 steps are left out. A minute repeated by a fall-back hour is the later
///   instant when its row comes after the earlier pass's; a minute a spring-forward skips is read with the offset
///   before the change.
/// - `ACTIVITY/ACTIVITY_<id>.csv`: `date,steps,distance,runDistance,calories`, one reading per local day (23 or 25
///   hours on a DST change).
struct ZeppLifeCSV: LineParser {
    static let minutes = InputFormat(
        name: "zepp-life", kind: .steps,
        about: "Zepp Life / Mi Fit export ACTIVITY_MINUTE_<id>.csv: date,time,steps per minute, local time",
        sniff: { s in
            let h = header(s.first)
            return h.first == "date" && h.contains("time") && h.contains("steps") && h.count <= 4 ? 90 : 0
        },
        parser: ZeppLifeCSV.self)

    static let daily = InputFormat(
        name: "zepp-life-daily", kind: .steps,
        about: "Zepp Life / Mi Fit export ACTIVITY_<id>.csv: date,steps,distance,runDistance,calories per local day",
        sniff: { s in
            let h = header(s.first)
            return h.first == "date" && ["steps", "distance", "rundistance", "calories"].allSatisfy(h.contains)
                ? 90 : 0
        },
        parser: ZeppLifeCSV.self)

    var path: String
    /// Positions of `date`, `time` (nil: the daily file) and `steps`, and the header's width, once read.
    var date = 0
    var time: Int?
    var steps = 0
    var width = 0
    var headerRead = false
    /// Start (Unix s) of the last minute row read, to place a repeated local hour.
    var lastStart: Int64?

    init(path: String, options: ReadOptions) throws { self.path = path }

    static func header(_ line: String) -> [String] { Fields.headerNames(Substring(line)) }

    /// Not saved between reads (follow mode): made again in the zone of the read.
    var local: LocalTime?

    enum CodingKeys: String, CodingKey {
        case path, date, time, steps, width, headerRead, lastStart
    }

    mutating func parse(
        _ line: UnsafeBufferPointer<UInt8>, number: Int, options: ReadOptions,
        _ emit: (InputItem) -> Void
    ) throws -> String? {
        var row = FieldRow(line, UInt8(ascii: ","))
        guard headerRead else {
            try readHeader(row.text, number: number)
            return nil
        }
        row.dropTrailingEmpty(width: width)
        guard row.count == width else { return "expected \(width) fields (as the header), found \(row.count)" }
        let count: Int
        switch row.stepCount(steps, column: "steps") {
        case .success(let n): count = n
        case .failure(let p): return p.message
        }
        // Made once per read: the zone's table is looked up at the first row, not at each.
        let local = self.local ?? LocalTime(zone: options.timeZone ?? TimeZone.current)
        self.local = local
        guard let t = time else {
            guard let midnight = row.dateTime(date), !midnight.hadZone, midnight.ns % 86_400_000_000_000 == 0 else {
                return "date '\(row[date].prefix(20))' is not YYYY-MM-DD"
            }
            emit(.reading(local.day(midnight.ns / 1_000_000_000, steps: count)))
            return nil
        }
        guard let clock = row.dateTime(date, then: t), !clock.hadZone else {
            return "date and time '\(row[date].prefix(20)) \(row[t].prefix(10))' are not YYYY-MM-DD HH:mm"
        }
        let start = local.instant(TimeParsing.floorDiv(clock.ns, 1_000_000_000), after: lastStart)
        lastStart = start
        if count > 0 {
            emit(
                .reading(StepReading(startNs: start * 1_000_000_000, endNs: (start + 60) * 1_000_000_000, steps: count))
            )
        }
        return nil
    }

    mutating func readHeader(_ line: String, number: Int) throws {
        let names = Self.header(line)
        guard let d = names.firstIndex(of: "date"), let s = names.firstIndex(of: "steps") else {
            throw InputError(
                file: path, line: number, message: "no date and steps columns in the header (\(names.count) columns)")
        }
        date = d
        steps = s
        time = names.firstIndex(of: "time")
        width = names.count
        headerRead = true
    }
}
