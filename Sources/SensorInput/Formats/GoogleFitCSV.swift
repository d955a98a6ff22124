import Foundation

/// Google Fit Takeout `Daily activity metrics` CSVs, columns found by header name (the set and order vary by export):
/// the daily summary (`Date`, `Step count`: one reading per local day, in `ReadOptions.timeZone` or the machine's) and the per-day
/// 15-minute files (`Start time`, `End time`, `Step count`, times like `21:45:00.000-05:00` whose date comes from the
/// file name `YYYY-MM-DD.csv`; an end before the start is on the next day). Empty cells mean no data.
struct GoogleFitCSV: LineParser {
    static let dailySummary = InputFormat(
        name: "google-fit-daily", kind: .steps,
        about: "Google Fit Takeout Daily activity metrics.csv: Date and Step count per local day",
        sniff: { s in
            let h = header(s.first)
            return h.contains("Date") && h.contains("Step count") ? 95 : 0
        },
        parser: GoogleFitCSV.self)

    static let intraday = InputFormat(
        name: "google-fit-intraday", kind: .steps,
        about: "Google Fit Takeout Daily activity metrics/YYYY-MM-DD.csv: 15-minute rows, date from the file name",
        sniff: { s in
            let h = header(s.first)
            return h.contains("Start time") && h.contains("End time") && h.contains("Step count") ? 95 : 0
        },
        parser: GoogleFitCSV.self)

    /// Column positions, once the header was read.
    var date: Int?
    var start: Int?
    var end: Int?
    var steps: Int?
    /// The file's date (days since 1970-01-01) for 15-minute files.
    var fileDay: Int64?
    var lastStart: Int64?
    var headerRead = false

    init(path: String, options: ReadOptions) throws {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        fileDay = Self.date(fromFileName: name)
    }

    static func header(_ line: String) -> [String] {
        line.split(separator: ",", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: CharacterSet(charactersIn: " \"\u{FEFF}"))
        }
    }

    /// Days since 1970-01-01 of a `YYYY-MM-DD.csv` (or `…YYYY-MM-DD.csv`) file name.
    static func date(fromFileName name: String) -> Int64? {
        guard name.hasSuffix(".csv"), name.count >= 14 else { return nil }
        let stem = name.dropLast(4).suffix(10)
        guard let t = TimeParsing.parseDateTime(Substring(stem + "T00:00:00Z")), t.hadZone else { return nil }
        return t.ns / 86_400_000_000_000
    }

    mutating func parse(
        _ line: UnsafeBufferPointer<UInt8>, number: Int, options: ReadOptions,
        _ emit: (InputItem) -> Void
    ) throws -> String? {
        let fields = Self.header(String(decoding: line, as: UTF8.self))
        guard headerRead else {
            headerRead = true
            date = fields.firstIndex(of: "Date")
            start = fields.firstIndex(of: "Start time")
            end = fields.firstIndex(of: "End time")
            steps = fields.firstIndex(of: "Step count")
            guard steps != nil, date != nil || (start != nil && end != nil) else {
                throw InputError(
                    file: "", line: number,
                    message: "no 'Step count' with 'Date' or 'Start time'/'End time' in the header")
            }
            return nil
        }
        guard let stepsColumn = steps, stepsColumn < fields.count else {
            return "\(fields.count) fields, the header has more"
        }
        let cell = fields[stepsColumn]
        if cell.isEmpty { return nil }  // no data
        guard let value = Double(cell), value >= 0, value < 10_000_000 else {
            return "Step count '\(cell.prefix(20))' is not a number"
        }
        let count = Int(value.rounded())
        if let d = date, d < fields.count {
            guard let t = TimeParsing.parseDateTime(Substring(fields[d] + "T00:00:00Z")) else {
                return "Date '\(fields[d].prefix(20))' is not YYYY-MM-DD"
            }
            let day = t.ns / 1_000_000_000
            let local = LocalTime(zone: options.timeZone ?? TimeZone.current)
            emit(.reading(local.day(day, steps: count)))
            return nil
        }
        guard let fileDay else { return "the date of a 15-minute file comes from its name (YYYY-MM-DD.csv)" }
        guard let s = start, let e = end, s < fields.count, e < fields.count,
            let from = Self.time(fields[s], day: fileDay), var to = Self.time(fields[e], day: fileDay)
        else {
            return "Start time/End time is not like 21:45:00.000-05:00"
        }
        if to <= from { to += 86_400_000_000_000 }  // the last row ends at midnight of the next day
        if from == lastStart { return nil }  // a duplicated row (seen for the first interval in real exports)
        lastStart = from
        emit(.reading(StepReading(startNs: from, endNs: to, steps: count)))
        return nil
    }

    /// `hh:mm:ss.fff±hh:mm` on `day` → ns since the epoch.
    static func time(_ text: String, day: Int64) -> Int64? {
        let d = Date(timeIntervalSince1970: Double(day) * 86_400)
        let c = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: d)
        guard let y = c.year, let m = c.month, let dd = c.day else { return nil }
        let iso = String(format: "%04d-%02d-%02dT", y, m, dd) + text
        guard let t = TimeParsing.parseDateTime(Substring(iso)), t.hadZone else { return nil }
        return t.ns
    }
}
