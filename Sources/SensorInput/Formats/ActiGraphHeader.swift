import Foundation

/// Both ActiLife exports, RAW and epoch: the header and the optional column row are read here, once; a format says
/// what its column row's names mean and reads a data row.
protocol ActiGraphLineParser: FreshLineParser {
    var header: ActiGraphHeader { get set }
    /// Whether a row after the header was seen (saved with the parser's state).
    var sawData: Bool { get set }
    /// Takes the column row's names; returns why the file cannot be read with them, nil when it can.
    mutating func columns(_ names: [String]) -> String?
    /// Reads a data row's fields, as `LineParser.parse` reads a line.
    mutating func row(_ f: [Substring], options: ReadOptions, _ emit: (InputItem) -> Void) -> String?
}

extension ActiGraphLineParser {
    mutating func parse(
        _ line: UnsafeBufferPointer<UInt8>, number: Int, options: ReadOptions,
        _ emit: (InputItem) -> Void
    ) throws -> String? {
        var seen = sawData  // a copy: `header` and `sawData` are both the parser's
        let taken = header.take(line, sawData: &seen)
        sawData = seen
        switch taken {
        case .header: return nil
        case .columns(let names): return columns(names)
        case .data(let fields): return row(fields, options: options, emit)
        }
    }
}

/// The 10-line header ActiLife writes before both its RAW and its epoch CSV exports.
struct ActiGraphHeader: Codable, Sendable {
    var dateFormat = "M/d/yyyy"
    var rateHz: Double?
    var startClock: Int?
    var startDay: Int?
    var epochSeconds: Int?
    var mode: Int?
    var lines = 0
    /// The Start Date as written, read again when a later date in the header contradicts the declared format.
    var startDateText: String?

    var isComplete: Bool { lines >= 10 }

    /// 100 for an ActiLife export of this kind (`raw`: its first line says `at NN Hz`), else 0.
    static func sniff(_ s: Sniff, raw: Bool) -> Int {
        let first = s.first.lowercased()
        guard first.hasPrefix("------------ data"), first.contains("actigraph") else { return 0 }
        return (first.range(of: #" at \d+ hz"#, options: .regularExpression) != nil) == raw ? 100 : 0
    }

    /// A line of an ActiLife export, as the preamble both kinds share sees it.
    enum Line {
        /// One of the 10 header lines, taken into the header.
        case header
        /// The optional column row: its names, trimmed and lowercased.
        case columns([String])
        /// A data row's fields.
        case data([Substring])
    }

    /// Takes `line` into the header while it is incomplete; after it, the first row is the column row when none of
    /// its fields is a number (a data row may lead with a date and time in any layout), and every row is data from
    /// then on. `sawData` is the parser's own (saved with its state): whether a row after the header was seen.
    mutating func take(_ line: UnsafeBufferPointer<UInt8>, sawData: inout Bool) -> Line {
        if !isComplete {
            take(String(decoding: line, as: UTF8.self))
            return .header
        }
        let f = Fields.split(line, ",")
        defer { sawData = true }
        if !sawData && !f.isEmpty && !f.contains(where: { Sniff.isNumber($0) }) {
            return .columns(f.map { $0.trimmingPrefixSpaces().lowercased() })
        }
        return .data(f)
    }

    /// How many fields before the numbers of a data row are its time (`Timestamp`, or `Date` and `Time`): ActiLife
    /// writes them with or without a column row naming them.
    static func timeFields(_ f: [Substring]) -> Int {
        var n = 0
        while n < min(2, f.count - 1), !f[n].trimmingPrefixSpaces().isEmpty, !Sniff.isNumber(f[n]) { n += 1 }
        return n
    }

    /// Takes one of the 10 header lines.
    mutating func take(_ raw: String) {
        lines += 1
        var line = Substring(raw)
        while line.last == "," || line.last == " " { line.removeLast() }
        let lower = line.lowercased()
        if lines == 1 {
            if let r = lower.range(of: "date format ") {
                dateFormat = String(lower[r.upperBound...].prefix { $0 != " " })
            }
            if let r = lower.range(of: #" at \d+ hz"#, options: .regularExpression) {
                rateHz = Double(lower[r].dropFirst(4).dropLast(3).trimmingPrefixSpaces())
            }
        } else if lower.hasPrefix("start time") {
            startClock = TimeParsing.parseClock(line.dropFirst("start time".count))
        } else if lower.hasPrefix("start date") {
            let text = line.dropFirst("start date".count).trimmingPrefixSpaces()
            startDateText = String(text)
            startDay = TimeParsing.parseDate(text, format: Substring(dateFormat))
        } else if lower.hasPrefix("download date"), let start = startDateText,
            Self.monthOutOfRange(line.dropFirst("download date".count), format: dateFormat)
        {
            // The dates contradict the declared format (a real export says dd/MM/yyyy over 09-19-2017): the
            // month and day of the Start Date are the other way round too.
            let swapped = String(dateFormat.lowercased().map { $0 == "d" ? "m" : $0 == "m" ? "d" : $0 })
            startDay = TimeParsing.parseDate(Substring(start), format: Substring(swapped))
        } else if lower.hasPrefix("epoch period") {
            if let close = line.firstIndex(of: ")") {
                epochSeconds = TimeParsing.parseClock(line[line.index(after: close)...])
            }
        } else if let r = lower.range(of: "mode = ") {
            mode = Int(lower[r.upperBound...].prefix { $0.isNumber })
        }
    }

    /// Whether `date`, read in the order `format` declares, has a month over 12 and a day that could be the month.
    static func monthOutOfRange(_ date: Substring, format: String) -> Bool {
        let parts = date.split(whereSeparator: { $0 == "/" || $0 == "-" || $0 == "." }).map {
            Int($0.trimmingPrefixSpaces())
        }
        let order = format.lowercased().split(whereSeparator: { $0 == "/" || $0 == "-" || $0 == "." }).map(\.first)
        guard parts.count == 3, order.count == 3, let m = order.firstIndex(of: "m"), let d = order.firstIndex(of: "d"),
            let month = parts[m], let day = parts[d]
        else { return false }
        return month > 12 && day <= 12
    }

    /// Start of the recording on the device's local clock (ns since 1970-01-01 00:00 on that clock).
    var startNs: Int64? {
        guard let day = startDay, let clock = startClock else { return nil }
        return (Int64(day) * 86_400 + Int64(clock)) * 1_000_000_000
    }

    /// Where the first row's time is: `--start` when given, else the header's start on `clock` (in
    /// `ReadOptions.timeZone`, `--time-zone`, else the machine's zone), else 0.
    func start(_ options: ReadOptions, clock: inout LocalClock) -> Int64 {
        options.start?.nanosecondsSinceEpoch ?? startNs.map { clock.instantNs(localNs: $0, options: options) } ?? 0
    }
}
