/// Calendar arithmetic and the date-time layouts the formats use, parsed from bytes without Foundation.
public enum TimeParsing {
    /// Days from 1970-01-01 to the given proleptic Gregorian date (H. Hinnant's `days_from_civil`).
    /// `a / b` rounded towards minus infinity (`b` > 0), so times before 1970 fall in the right minute or day.
    static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 { a >= 0 ? a / b : (a - b + 1) / b }

    public static func daysFromCivil(_ year: Int, _ month: Int, _ day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// Days in `month` (1-12) of the proleptic Gregorian `year`.
    public static func daysIn(_ month: Int, of year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Nanoseconds since the epoch of a UTC calendar time, nil when a field is out of range (integer nanoseconds
    /// reach from 1678 to 2261) or the day is not in its month (`2023-02-29`, `2024-04-31`).
    public static func epochNs(
        year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int,
        nanos: Int64 = 0, offsetSeconds: Int = 0
    ) -> Int64? {
        guard (1678...2261).contains(year), (1...12).contains(month), day >= 1, day <= daysIn(month, of: year),
            (0...23).contains(hour),
            (0...59).contains(minute), (0...60).contains(second), (-86_400...86_400).contains(offsetSeconds)
        else { return nil }
        let days = Int64(daysFromCivil(year, month, day))
        let seconds = days * 86_400 + Int64(hour * 3600 + minute * 60 + second - offsetSeconds)
        let (ns, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return nil }
        let (sum, overflow2) = ns.addingReportingOverflow(nanos)
        return overflow2 ? nil : sum
    }

    /// Byte cursor for the small parsers below: over an array of bytes, or over bytes in place (a CSV field in the
    /// reader's buffer, a `Substring`'s UTF-8), so that a parser need not copy what it reads.
    struct Cursor<Bytes: RandomAccessCollection> where Bytes.Element == UInt8, Bytes.Index == Int {
        let bytes: Bytes
        var i: Int
        init(_ bytes: Bytes) {
            self.bytes = bytes
            i = bytes.startIndex
        }
        var atEnd: Bool { i >= bytes.endIndex }
        var peek: UInt8? { i < bytes.endIndex ? bytes[i] : nil }
        mutating func skipSpaces() { while let c = peek, c == 0x20 || c == 0x09 { i += 1 } }
        mutating func eat(_ c: UInt8) -> Bool {
            if peek == c {
                i += 1
                return true
            }
            return false
        }
        mutating func eat(anyOf set: [UInt8]) -> UInt8? {
            if let c = peek, set.contains(c) {
                i += 1
                return c
            }
            return nil
        }
        /// Reads `min...max` decimal digits.
        mutating func int(min: Int = 1, max: Int = 9) -> Int? {
            var v = 0
            var n = 0
            while n < max, let c = peek, c >= 0x30, c <= 0x39 {
                v = v * 10 + Int(c - 0x30)
                n += 1
                i += 1
            }
            return n >= min ? v : nil
        }
        /// Reads a fraction after the separator: digits scaled to nanoseconds.
        mutating func fractionNs() -> Int64 {
            var v: Int64 = 0
            var n = 0
            while let c = peek, c >= 0x30, c <= 0x39 {
                if n < 9 {
                    v = v * 10 + Int64(c - 0x30)
                    n += 1
                }
                i += 1
            }
            while n < 9 {
                v *= 10
                n += 1
            }
            return v
        }
    }

    /// Parses `YYYY-MM-DD[T| ]hh:mm[:ss[.fff|:fff]]` with an optional zone `Z`, `±hh:mm`, `±hhmm` or ` ±hhmm`
    /// (RFC 3339, Apple Health, omconvert, GENEActiv; the offset up to ±23:59). Without a zone the time is taken as UTC
    /// (`hadZone` false).
    public static func parseDateTime(_ text: Substring) -> (ns: Int64, hadZone: Bool)? {
        var text = text
        return text.withUTF8 { parseDateTime(bytes: $0) }
    }

    /// `field` without the spaces, tabs and double quotes around it (as `trimmingPrefixSpaces`), in place.
    static func trimmed(_ field: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        func isPadding(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x22 }
        var s = 0
        var e = field.count
        while s < e && isPadding(field[s]) { s += 1 }
        while e > s && isPadding(field[e - 1]) { e -= 1 }
        return UnsafeBufferPointer(rebasing: field[s..<e])
    }

    /// `parseDateTime(_:)` on UTF-8 bytes in place (a CSV field in the reader's buffer: no `String` per row).
    static func parseDateTime(bytes: UnsafeBufferPointer<UInt8>) -> (ns: Int64, hadZone: Bool)? {
        var c = Cursor(bytes)
        c.skipSpaces()
        guard let y = c.int(min: 4, max: 4), c.eat(0x2D), let mo = c.int(min: 1, max: 2), c.eat(0x2D),
            let d = c.int(min: 1, max: 2)
        else { return nil }
        var h = 0
        var mi = 0
        var s = 0
        var nanos: Int64 = 0
        if c.eat(anyOf: [0x54, 0x74, 0x20]) != nil {
            guard let hh = c.int(min: 1, max: 2), c.eat(0x3A), let mm = c.int(min: 2, max: 2) else { return nil }
            h = hh
            mi = mm
            if c.eat(0x3A) {
                guard let ss = c.int(min: 2, max: 2) else { return nil }
                s = ss
                if c.eat(anyOf: [0x2E, 0x2C, 0x3A]) != nil { nanos = c.fractionNs() }
            }
        }
        c.skipSpaces()
        // A sign that starts no offset stays, and the text is then not a time.
        let offset = utcOffset(bytes, at: &c.i)
        c.skipSpaces()
        guard c.atEnd,
            let ns = epochNs(
                year: y, month: mo, day: d, hour: h, minute: mi, second: s, nanos: nanos,
                offsetSeconds: offset ?? 0)
        else { return nil }
        return (ns, offset != nil)
    }

    /// The UTC offset at `i` in `bytes`, in seconds east of UTC, and `i` moved past it: `Z` or `z`, `±hh:mm`,
    /// `±hhmm` or `±hh` (RFC 3339's time-numoffset: hours 00-23, minutes 00-59, so `+24:00` and `+05:99` are not
    /// offsets). Nil, `i` unmoved, when there is none there. The one reading of an offset after a time, for every
    /// format and payload that has one.
    public static func utcOffset(_ bytes: UnsafeBufferPointer<UInt8>, at i: inout Int) -> Int? {
        var c = Cursor(bytes)
        c.i = i
        if c.eat(0x5A) || c.eat(0x7A) {
            i = c.i
            return 0
        }
        guard let sign = c.eat(anyOf: [0x2B, 0x2D]), let oh = c.int(min: 2, max: 2), oh <= 23 else { return nil }
        _ = c.eat(0x3A)
        let om = c.int(min: 2, max: 2) ?? 0
        guard om <= 59 else { return nil }
        i = c.i
        return (oh * 3600 + om * 60) * (sign == 0x2D ? -1 : 1)
    }

    /// Parses MATLAB's default datetime text, `dd-MMM-yyyy HH:mm:ss[.SSS]` (English month abbreviations, any case),
    /// as UTC.
    public static func parseMonthNameDateTime(_ text: Substring) -> Int64? {
        var text = text
        return text.withUTF8 { parseMonthNameDateTime(bytes: $0) }
    }

    /// The English month abbreviations, lowercase, three bytes each.
    static let monthNames: StaticString = "janfebmaraprmayjunjulaugsepoctnovdec"

    /// `parseMonthNameDateTime(_:)` on UTF-8 bytes in place.
    static func parseMonthNameDateTime(bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        var c = Cursor(bytes)
        c.skipSpaces()
        guard let d = c.int(min: 1, max: 2), c.eat(0x2D), c.i + 3 <= bytes.count else { return nil }
        // ASCII letters lowered by setting bit 5 (which turns no other byte into a lowercase letter).
        let name = (bytes[c.i] | 0x20, bytes[c.i + 1] | 0x20, bytes[c.i + 2] | 0x20)
        let names = monthNames.utf8Start
        guard let month = (0..<12).first(where: { m in (names[3 * m], names[3 * m + 1], names[3 * m + 2]) == name })
        else { return nil }
        c.i += 3
        guard c.eat(0x2D), let y = c.int(min: 4, max: 4), c.eat(0x20), let h = c.int(min: 1, max: 2), c.eat(0x3A),
            let mi = c.int(min: 2, max: 2), c.eat(0x3A), let s = c.int(min: 2, max: 2)
        else { return nil }
        var nanos: Int64 = 0
        if c.eat(anyOf: [0x2E, 0x2C]) != nil { nanos = c.fractionNs() }
        c.skipSpaces()
        guard c.atEnd else { return nil }
        return epochNs(year: y, month: month + 1, day: d, hour: h, minute: mi, second: s, nanos: nanos)
    }

    /// Parses an ISO 8601 / RFC 3339 time for `--start`; a time without a zone is UTC.
    public static func parseISO8601(_ text: String) -> Int64? { parseDateTime(Substring(text))?.ns }

    /// Parses Fitbit's `MM/dd/yy HH:mm:ss` (two-digit year: 70–99 → 19xx, else 20xx), UTC.
    public static func parseFitbit(_ text: Substring) -> Int64? {
        var c = Cursor(Array(text.utf8))
        guard let mo = c.int(min: 1, max: 2), c.eat(0x2F), let d = c.int(min: 1, max: 2), c.eat(0x2F),
            let yy = c.int(min: 2, max: 4), c.eat(0x20), let h = c.int(min: 1, max: 2), c.eat(0x3A),
            let mi = c.int(min: 2, max: 2), c.eat(0x3A), let s = c.int(min: 2, max: 2), c.atEnd
        else { return nil }
        let year = yy >= 100 ? yy : (yy >= 70 ? 1900 + yy : 2000 + yy)
        return epochNs(year: year, month: mo, day: d, hour: h, minute: mi, second: s)
    }

    /// Parses a date whose three numbers are separated by `/`, `-` or `.`, in the order a `date format` such as
    /// `M/d/yyyy` or `dd/MM/yyyy` gives (ActiGraph). Returns days since the epoch.
    public static func parseDate(_ text: Substring, format: Substring) -> Int? {
        let parts = text.split(whereSeparator: { $0 == "/" || $0 == "-" || $0 == "." }).map {
            Int($0.trimmingPrefixSpaces())
        }
        guard parts.count == 3, let a = parts[0], let b = parts[1], let c = parts[2] else { return nil }
        let order = format.lowercased().split(whereSeparator: { $0 == "/" || $0 == "-" || $0 == "." }).map {
            $0.first ?? "?"
        }
        var y = c
        var m = a
        var d = b
        if order.count == 3 {
            for (value, key) in zip([a, b, c], order) {
                switch key {
                case "y": y = value
                case "m": m = value
                case "d": d = value
                default: break
                }
            }
        }
        if m > 12 && d <= 12 { swap(&m, &d) }
        if (0..<100).contains(y) { y += 2000 }
        guard (1678...2261).contains(y), (1...12).contains(m), (1...31).contains(d) else { return nil }
        return daysFromCivil(y, m, d)
    }

    /// Parses `hh:mm:ss` into seconds.
    public static func parseClock(_ text: Substring) -> Int? {
        var c = Cursor(Array(text.utf8))
        c.skipSpaces()
        guard let h = c.int(min: 1, max: 2), c.eat(0x3A), let m = c.int(min: 2, max: 2), c.eat(0x3A),
            let s = c.int(min: 2, max: 2), h < 24, m < 60, s < 61
        else { return nil }
        return h * 3600 + m * 60 + s
    }
}

extension Substring {
    func trimmingPrefixSpaces() -> Substring {
        var s = self
        while let f = s.first, f == " " || f == "\t" || f == "\"" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" || l == "\"" { s.removeLast() }
        return s
    }
}
