import Foundation

/// GENEActiv CSV (the PC software's export): about 100 header lines of `key,value` (`Device Type,GENEActiv`,
/// `Measurement Frequency,85.7 Hz`, ...), then `YYYY-MM-DD hh:mm:ss:fff,x,y,z,lux,button,°C` in g, with a colon
/// before the milliseconds. The header is passed over up to the first such row, keeping its `Time Zone` (`GMT +01:00`):
/// the rows are the device's local wall time, read as Axivity's, and moved to UTC by that offset; when the header
/// states none, on the clock of `ReadOptions.timeZone` (`--time-zone`, `text.time_zone`, else the machine's zone).
struct GENEActivFormat: LineParser {
    static let format = InputFormat(
        name: "geneactiv", kind: .acceleration,
        about: "GENEActiv CSV: key,value header lines (Time Zone used), then YYYY-MM-DD hh:mm:ss:fff,x,y,z,... in g",
        sniff: { s in
            let first = s.first.lowercased()
            guard first.hasPrefix("device identity") || first.hasPrefix("device type") else { return 0 }
            return s.head.lowercased().contains("geneactiv") ? 95 : 0
        },
        parser: GENEActivFormat.self)

    var rows: AxivityFormat
    var inData = false
    /// The header's `Time Zone`, east of UTC (nil: none stated, the times are read in `ReadOptions.timeZone`).
    var offsetNs: Int64?

    init(path: String, options: ReadOptions) throws { rows = try AxivityFormat(path: path, options: options) }

    mutating func parse(
        _ line: UnsafeBufferPointer<UInt8>, number: Int, options: ReadOptions,
        _ emit: (InputItem) -> Void
    ) throws -> String? {
        if !inData {
            let f = Fields.split(line, ",")
            guard f.count >= 4, TimeParsing.parseDateTime(f[0]) != nil,
                f[1...3].allSatisfy({ Sniff.isNumber($0) })
            else {  // a header line
                if f.count >= 2, String(f[0]).trimmingCharacters(in: .whitespaces).lowercased() == "time zone" {
                    guard let offset = Self.offsetNs(String(f[1])) else {
                        return
                            "Time Zone '\(String(f[1]))' is not GMT +hh:mm: the times are read in the time zone given (--time-zone, text.time_zone, else the system's)"
                    }
                    offsetNs = offset
                }
                return nil
            }
            inData = true
        }
        // The stated offset wins over the zone; `--start` places the recording itself (Axivity's rows do both).
        rows.clock.fixedOffsetNs = offsetNs
        return try rows.parse(line, number: number, options: options, emit)
    }

    /// `GMT +01:00`, `GMT-08:00`, `GMT +0530`, `UTC`, `GMT` as nanoseconds east of UTC; nil for anything else.
    static func offsetNs(_ text: String) -> Int64? {
        var t = Substring(text.trimmingCharacters(in: .whitespaces).uppercased())
        guard t.hasPrefix("GMT") || t.hasPrefix("UTC") else { return nil }
        t = t.dropFirst(3).drop { $0 == " " }
        if t.isEmpty { return 0 }
        guard let sign = t.first, sign == "+" || sign == "-" else { return nil }
        let digits = t.dropFirst().filter { $0 != ":" }
        guard (3...4).contains(digits.count), digits.allSatisfy(\.isASCII), let hhmm = Int(digits) else { return nil }
        let (hours, minutes) = (hhmm / 100, hhmm % 100)
        guard hours <= 14, minutes < 60 else { return nil }
        return Int64((hours * 60 + minutes) * 60) * 1_000_000_000 * (sign == "-" ? -1 : 1)
    }

    func describe(_ summary: inout ReadSummary) { rows.describe(&summary) }
}
