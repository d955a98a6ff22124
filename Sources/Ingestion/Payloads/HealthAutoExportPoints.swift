import Foundation
import SensorInput

/// Health Auto Export's `date`: the phone's local time with its numeric offset, `yyyy-MM-dd HH:mm:ss Z`; on a phone
/// set to 12-hour time `2024-09-21 7:57:00 am +1000` (`am`, `AM`, `a.m.`; since iOS 17 often a U+202F narrow no-break
/// space before it; U+00A0 and U+2009 are taken as spaces too). Each point carries its own offset (a travelling phone
/// mixes them), so the instant never depends on this machine's zone. Also accepted: `T` for the space, a fraction
/// of a second, `Z`, and `±hh:mm`.
enum HealthAutoExportDate {
    static let expected = "expected yyyy-MM-dd HH:mm:ss Z, 12-hour forms accepted"

    /// The instant (ns since the epoch) and the offset (s east of UTC) of `text`; nil when it is not such a date.
    static func parse(_ text: String) -> (ns: Int64, offsetSeconds: Int)? {
        var text = text
        return text.withUTF8 { parse(bytes: $0) }
    }

    static func parse(bytes b: UnsafeBufferPointer<UInt8>) -> (ns: Int64, offsetSeconds: Int)? {
        var i = 0
        func number(_ least: Int, _ most: Int) -> Int? {
            var v = 0
            var n = 0
            while n < most, i < b.count, b[i] >= 0x30, b[i] <= 0x39 {
                v = v * 10 + Int(b[i] - 0x30)
                n += 1
                i += 1
            }
            return n >= least ? v : nil
        }
        func eat(_ c: UInt8) -> Bool {
            guard i < b.count, b[i] == c else { return false }
            i += 1
            return true
        }
        func skipSpaces() {
            while i < b.count {
                if b[i] == 0x20 || b[i] == 0x09 {
                    i += 1
                } else if i + 1 < b.count, b[i] == 0xC2, b[i + 1] == 0xA0 {
                    i += 2
                } else if i + 2 < b.count, b[i] == 0xE2, b[i + 1] == 0x80, b[i + 2] == 0xAF || b[i + 2] == 0x89 {
                    i += 3
                } else {
                    return
                }
            }
        }
        guard let year = number(4, 4), eat(0x2D), let month = number(1, 2), eat(0x2D), let day = number(1, 2),
            eat(0x20) || eat(0x54), var hour = number(1, 2), eat(0x3A), let minute = number(2, 2), eat(0x3A),
            let second = number(2, 2)
        else { return nil }
        var nanos: Int64 = 0
        if eat(0x2E) {
            var scale: Int64 = 100_000_000
            guard i < b.count, b[i] >= 0x30, b[i] <= 0x39 else { return nil }
            while i < b.count, b[i] >= 0x30, b[i] <= 0x39 {
                nanos += Int64(b[i] - 0x30) * scale
                scale /= 10
                i += 1
            }
        }
        skipSpaces()
        if let pm = meridiem(b, &i) {
            guard (1...12).contains(hour) else { return nil }
            hour = hour % 12 + (pm ? 12 : 0)
            skipSpaces()
        }
        // The offset as every format reads it, up to ±18:00 (the widest Foundation's formatter takes).
        guard let offset = TimeParsing.utcOffset(b, at: &i), abs(offset) <= 18 * 3600 else { return nil }
        skipSpaces()
        guard i == b.count, second < 60,
            let ns = TimeParsing.epochNs(
                year: year, month: month, day: day, hour: hour, minute: minute, second: second, nanos: nanos,
                offsetSeconds: offset)
        else { return nil }
        return (ns, offset)
    }

    /// `am`/`pm` in any case, with or without dots: true for pm, nil when there is none.
    private static func meridiem(_ b: UnsafeBufferPointer<UInt8>, _ i: inout Int) -> Bool? {
        guard i < b.count else { return nil }
        let first = b[i] | 0x20
        guard first == 0x61 || first == 0x70 else { return nil }
        var j = i + 1
        if j < b.count, b[j] == 0x2E { j += 1 }
        guard j < b.count, b[j] | 0x20 == 0x6D else { return nil }
        j += 1
        if j < b.count, b[j] == 0x2E { j += 1 }
        i = j
        return first == 0x70
    }
}

/// Health Auto Export's `source`: one app or device, or with aggregation a pipe-joined list of them
/// (`"Taro's iPhone|Taro’s Apple Watch"`) whose order is not stable and whose apostrophes vary.
enum HealthAutoExportSource {
    /// The device a source names: its parts with curly apostrophes made straight and spaces trimmed, each once, in
    /// sorted order, so `A|B` and `B’|A` are one device; nil when the source names nothing.
    static func device(_ source: String) -> String? {
        let parts = Set(
            source.split(separator: "|").map { part in
                String(
                    String.UnicodeScalarView(
                        part.unicodeScalars.map { s in
                            s == "\u{2019}" || s == "\u{2018}" || s == "\u{02BC}" || s == "\u{FF07}" ? "'" : s
                        })
                ).trimmingCharacters(in: .whitespacesAndNewlines)
            }.filter { !$0.isEmpty })
        return parts.isEmpty ? nil : parts.sorted().joined(separator: "|")
    }
}

/// How long each point of a `step_count` metric lasts. The app stamps a point at the start of its interval and does
/// not say the interval (a setting of the automation: minutes by default, hours or days when aggregated), so it is
/// inferred from the points themselves, over the whole metric (aggregation is one setting for the automation, and the
/// pipe-joined source sets change from one bucket to the next):
/// - two or more distinct starts: the longest of day, hour, minute to which every start is aligned in its own local
///   time and which is no longer than the closest two starts (a day: 23 h, for the day clocks change);
/// - a single start: at local midnight a day (what a daily aggregation sends for today; a walk in the minute after
///   midnight is rarer); on the hour, an hour when its count is more than a minute can hold (300 steps, beyond any
///   human cadence), else a minute;
/// - anything else (starts off the minute, raw samples): a minute.
/// A day is taken as 24 h: on the two days a year the clocks change, its steps spread over an hour too many or few.
enum HealthAutoExportInterval {
    static let candidates: [Int64] = [86_400, 3_600, 60]
    static let mostStepsPerMinute: Int64 = 300

    /// The inferred interval in seconds for points starting at `starts` (ns) in local offsets `offsets` (s), holding
    /// at most `largestMicrosteps`.
    static func seconds(starts: [Int64], offsets: [Int], largestMicrosteps: Int64) -> Int64 {
        var aligned: Int64 = 86_400  // the coarsest interval every start is aligned to; 0: none
        for (start, offset) in zip(starts, offsets) where aligned > 0 {
            guard start % 1_000_000_000 == 0 else {
                aligned = 0
                break
            }
            let local = start / 1_000_000_000 + Int64(offset)
            while aligned > 0, local % aligned != 0 { aligned = aligned == 86_400 ? 3_600 : aligned == 3_600 ? 60 : 0 }
        }
        guard aligned > 0 else { return 60 }
        let distinct = Set(starts).sorted()
        if distinct.count == 1 {
            if aligned == 86_400 { return aligned }
            return aligned == 3_600 && largestMicrosteps > mostStepsPerMinute * 1_000_000 ? 3_600 : 60
        }
        // Starts may lie centuries apart (more ns than an Int64 holds): such a gap counts as "long enough".
        var closest = Int64.max
        for (later, earlier) in zip(distinct.dropFirst(), distinct) {
            let (gap, overflow) = later.subtractingReportingOverflow(earlier)
            if !overflow { closest = min(closest, gap) }
        }
        for c in candidates where c <= aligned {
            let needed = c == 86_400 ? 82_800 : c
            if closest >= needed * 1_000_000_000 { return c }
        }
        return 60
    }
}
