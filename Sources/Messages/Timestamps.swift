import Foundation
import WallTime

/// Parsing and printing of ISO 8601 / RFC 3339 times: the one time parser of every option (`--start`, `--now`) and
/// configuration key (`source.start`). One meaning everywhere: a time with an offset (`+09:00`, `Z`) is that instant;
/// a time without one is read in the time zone the caller passes (the configured `text.time_zone`, `--time-zone`, or
/// the system's), never silently in UTC.
public enum Timestamps {
    /// Parses `2026-11-21T10:00:00+09:00`, `2026-11-21T01:00:00Z`, with optional fractional seconds, or a local
    /// `2026-11-21T10:00:00` / `2026-11-21 10:00:00` / `2026-11-21 10:00` / `2026-11-21`, which is read in `zone`.
    public static func parse(_ text: String, zone: TimeZone) -> Date? {
        if let instant = parse(text) { return instant }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let local = DateFormatter()
        local.locale = Locale(identifier: "en_US_POSIX")
        local.timeZone = zone
        for format in [
            "yyyy-MM-dd'T'HH:mm:ss.SSS", "yyyy-MM-dd'T'HH:mm:ss", "yyyy-MM-dd HH:mm:ss.SSS", "yyyy-MM-dd HH:mm:ss",
            "yyyy-MM-dd'T'HH:mm", "yyyy-MM-dd HH:mm", "yyyy-MM-dd",
        ] {
            local.dateFormat = format
            if let d = local.date(from: trimmed) { return d }
        }
        return nil
    }

    /// Parses a time that carries its offset (`2026-11-21T10:00:00+09:00`, `…Z`, optional fractional seconds, or no
    /// seconds at all: `2026-11-21T10:00+09:00`, as ISO 8601 allows); nil for a time without one, which needs a zone
    /// (`parse(_:zone:)`).
    public static func parse(_ text: String) -> Date? {
        let trimmed = withSeconds(text.trimmingCharacters(in: .whitespaces))
        for options: ISO8601DateFormatter.Options in [
            [.withInternetDateTime, .withFractionalSeconds], [.withInternetDateTime],
        ] {
            let f = ISO8601DateFormatter()
            f.formatOptions = options
            if let d = f.date(from: trimmed) { return d }
        }
        return nil
    }

    /// `2026-11-21T10:00Z` as `2026-11-21T10:00:00Z` (and so with an offset): RFC 3339, which the formatter reads,
    /// requires the seconds that ISO 8601 lets a time leave out. Any other text is returned as it is.
    static func withSeconds(_ text: String) -> String {
        let bytes = Array(text.utf8)
        // `YYYY-MM-DDThh:mm` is 16 bytes; the zone follows at once.
        guard bytes.count > 16, bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: " "),
            bytes[13] == UInt8(ascii: ":"),
            [UInt8(ascii: "Z"), UInt8(ascii: "+"), UInt8(ascii: "-")].contains(bytes[16])
        else { return text }
        return String(decoding: bytes[..<16], as: UTF8.self) + ":00" + String(decoding: bytes[16...], as: UTF8.self)
    }

    /// RFC 3339 in `zone` with its offset, e.g. `2026-11-21T10:00:00+09:00`.
    public static func format(_ date: Date, zone: TimeZone = TimeZone(identifier: "UTC")!) -> String {
        let f = ISO8601DateFormatter()
        f.timeZone = zone
        f.formatOptions = [.withInternetDateTime]
        return f.string(from: date)
    }

    /// Nanoseconds since the Unix epoch (`Instant(date)`, for code that keeps plain integers).
    public static func nanoseconds(_ date: Date) -> Int64 { Instant(date).nanosecondsSinceEpoch }

    /// The date of a time given in nanoseconds since the Unix epoch (`Instant.date`).
    public static func date(nanoseconds: Int64) -> Date { Instant(nanosecondsSinceEpoch: nanoseconds).date }
}
