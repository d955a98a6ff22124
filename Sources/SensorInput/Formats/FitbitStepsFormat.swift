import Foundation

/// Fitbit Takeout `steps-YYYY-MM-DD.json`: an array of `{"dateTime" : "MM/dd/yy HH:mm:ss", "value" : "N"}`, one
/// per minute with data, UTC. Read line by line (pretty-printed or on one line): each `dateTime` is paired with the
/// `value` that follows it; a reading covers that minute. Fitbit keeps one value per minute, so a minute the file
/// holds twice (files joined, a re-export appended) counts once, the larger value, as Fitbit's own totals do.
struct FitbitStepsFormat: FreshLineParser {
    static let format = InputFormat(
        name: "fitbit-steps", kind: .steps,
        about: "Fitbit Takeout steps JSON: [{\"dateTime\": \"MM/dd/yy HH:mm:ss\", \"value\": \"N\"}] per minute",
        sniff: { s in
            s.head.hasPrefix("[") && s.head.contains("\"dateTime\"") && s.head.contains("\"value\"") ? 90 : 0
        },
        parser: FitbitStepsFormat.self)

    var pendingNs: Int64?
    /// The steps given so far for each minute of this read, by UTC day: 1,440 counts a day (4 bytes a minute, where a
    /// table of minutes took some 40), so a read of years of minutes (a Takeout folder) holds a few MB a year. Not
    /// saved between follow mode's reads, whose cursor already keeps them apart.
    var counted = MinuteCounts()
    /// What each minute of the file says, kept as digests when a Takeout folder is followed (`FitbitTakeoutFolder`),
    /// so that a month file that changed before the last minute delivered is told from one that only grew.
    var digests: MinuteDigests?

    enum CodingKeys: String, CodingKey { case pendingNs }

    /// The string or number after `"key"` and a colon, starting at `from`.
    static func value(after key: String, in text: Substring) -> (Substring, Substring.Index)? {
        guard let k = text.range(of: "\"\(key)\"") else { return nil }
        var i = k.upperBound
        while i < text.endIndex, text[i] == " " || text[i] == "\t" { i = text.index(after: i) }
        guard i < text.endIndex, text[i] == ":" else { return nil }
        i = text.index(after: i)
        while i < text.endIndex, text[i] == " " || text[i] == "\t" { i = text.index(after: i) }
        guard i < text.endIndex else { return nil }
        if text[i] == "\"" {
            let s = text.index(after: i)
            guard let e = text[s...].firstIndex(of: "\"") else { return nil }
            return (text[s..<e], text.index(after: e))
        }
        let e = text[i...].firstIndex { !($0.isNumber || $0 == "-" || $0 == ".") } ?? text.endIndex
        return (text[i..<e], e)
    }

    mutating func parse(
        _ line: UnsafeBufferPointer<UInt8>, number: Int, options: ReadOptions,
        _ emit: (InputItem) -> Void
    ) throws -> String? {
        var text = Substring(String(decoding: line, as: UTF8.self))
        var problem: String?
        while !text.isEmpty {
            let d = text.range(of: "\"dateTime\"")
            let v = text.range(of: "\"value\"")
            if let d, v.map({ d.lowerBound < $0.lowerBound }) ?? true {
                guard let (s, next) = Self.value(after: "dateTime", in: text[d.lowerBound...]) else {
                    problem = "\"dateTime\" without a value"
                    break
                }
                text = text[next...]
                guard let t = TimeParsing.parseFitbit(s) else {
                    problem = "dateTime '\(s.prefix(30))' is not MM/dd/yy HH:mm:ss"
                    continue
                }
                pendingNs = t
            } else if let v {
                guard let (s, next) = Self.value(after: "value", in: text[v.lowerBound...]) else {
                    problem = "\"value\" without a value"
                    break
                }
                text = text[next...]
                guard let t = pendingNs else {
                    problem = "\"value\" without a dateTime before it"
                    continue
                }
                pendingNs = nil
                guard let steps = Int(s), steps >= 0, steps < 1_000_000 else {
                    problem = "value '\(s.prefix(20))' is not a step count"
                    continue
                }
                digests?.add(minute: t, steps: steps)
                // A minute read again adds only what it has beyond its earlier value.
                let before = counted.raise(minuteStartingAt: t, to: steps)
                if let before, steps <= before { continue }
                emit(.reading(StepReading(startNs: t, endNs: t + 60_000_000_000, steps: steps - (before ?? 0))))
            } else {
                break
            }
        }
        return problem
    }
}

/// Steps per minute, one array of 1,440 a UTC day: what `FitbitStepsFormat` has given for each minute of a read.
struct MinuteCounts: Sendable {
    /// Day → count + 1 for each of its minutes (0: not read).
    private var days: [Int64: [UInt32]] = [:]

    /// Records `steps` for the minute starting at `ns` when it is more than what the minute had; returns what it had
    /// (nil: not read before). A time that is not a whole minute is kept in its minute.
    mutating func raise(minuteStartingAt ns: Int64, to steps: Int) -> Int? {
        let minute = TimeParsing.floorDiv(ns, 60_000_000_000)
        let day = TimeParsing.floorDiv(minute, 1440)
        let slot = Int(minute - day * 1440)
        let had = days[day]?[slot] ?? 0
        let before = had == 0 ? nil : Int(had) - 1
        if let before, steps <= before { return before }
        days[day, default: [UInt32](repeating: 0, count: 1440)][slot] = UInt32(clamping: steps + 1)
        return before
    }
}
