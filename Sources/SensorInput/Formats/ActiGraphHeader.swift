import Foundation

/// The 10-line header ActiLife writes before both its RAW and its epoch CSV exports.
struct ActiGraphHeader: Codable, Sendable {
    var dateFormat = "M/d/yyyy"
    var rateHz: Double?
    var startClock: Int?
    var startDay: Int?
    var epochSeconds: Int?
    var mode: Int?
    var lines = 0

    var isComplete: Bool { lines >= 10 }

    static func sniff(_ s: Sniff) -> (isActiGraph: Bool, raw: Bool) {
        let first = s.first.lowercased()
        guard first.hasPrefix("------------ data"), first.contains("actigraph") else { return (false, false) }
        return (true, first.range(of: #" at \d+ hz"#, options: .regularExpression) != nil)
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
            startDay = TimeParsing.parseDate(
                line.dropFirst("start date".count).trimmingPrefixSpaces(),
                format: Substring(dateFormat))
        } else if lower.hasPrefix("epoch period") {
            if let close = line.firstIndex(of: ")") {
                epochSeconds = TimeParsing.parseClock(line[line.index(after: close)...])
            }
        } else if let r = lower.range(of: "mode = ") {
            mode = Int(lower[r.upperBound...].prefix { $0.isNumber })
        }
    }

    /// Start of the recording (ns since the epoch; the device's local time, read as UTC).
    var startNs: Int64? {
        guard let day = startDay, let clock = startClock else { return nil }
        return (Int64(day) * 86_400 + Int64(clock)) * 1_000_000_000
    }
}
