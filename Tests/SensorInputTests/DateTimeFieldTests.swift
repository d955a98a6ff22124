import Foundation
import TestSupport
import Testing

@testable import SensorInput

/// Generic CSV date-time times (`GenericCSVReader.dateTimeMilliseconds`) parsed from the row's bytes in place give what
/// the base commit's parse through a `String` per row gave (its code kept below, verbatim), on every form the format
/// tests cover, fractional seconds, the `T` separator, each zone suffix, quotes and spaces, MATLAB's month names in
/// any case, and on mutations of them.
@Suite struct DateTimeFieldTests {
    /// The new path, on `text`'s bytes (followed by a newline, as in the reader's buffer).
    static func inPlace(_ text: String) -> Double? { inPlace(Array(text.utf8)) }

    static func inPlace(_ bytes: [UInt8]) -> Double? {
        (bytes + [0x0A]).withUnsafeBufferPointer {
            GenericCSVReader.dateTimeMilliseconds($0.baseAddress!, 0, bytes.count)
        }
    }

    /// The old path, on the same bytes.
    static func throughString(_ text: String) -> Double? { throughString(Array(text.utf8)) }

    static func throughString(_ bytes: [UInt8]) -> Double? {
        (bytes + [0x0A]).withUnsafeBufferPointer { BaseDateTime.dateTimeMilliseconds($0.baseAddress!, 0, bytes.count) }
    }

    static let forms = [
        // FormatNotesTests' MATLAB Mobile layouts, and the ISO ones the generic CSV reads.
        "01-Jan-2024 10:00:03.990", "1-Jan-2024 10:00:00.000", "2024-01-01 10:00:03.990", "2024-05-01 10:00:00.123",
        "2024-05-01T10:00:00.123", "2024-05-01t10:00:00.123", "2024-05-01T10:00:00", "2024-05-01 10:00",
        "2024-05-01", "2024-5-1 9:05:07", "2024-05-01T10:00:00.123456789", "2024-05-01T10:00:00.1234567891234",
        "2024-05-01T10:00:00,5", "2024-05-01 10:00:00:250", "2024-05-01T10:00:00Z", "2024-05-01T10:00:00z",
        "2024-05-01T10:00:00.5Z", "2024-05-01T10:00:00+09:00", "2024-05-01T10:00:00-05:30", "2024-05-01 10:00:00 +0900",
        "2024-05-01 10:00:00.250-0800", "2024-05-01T10:00:00+09", "\"2024-05-01 10:00:00.123\"",
        "  2024-05-01 10:00:00.123\t", "\" 01-May-2024 10:00:00.5 \"", "1969-12-31T23:59:59.999Z",
        "2261-12-31T23:59:59",
        "1678-01-01T00:00:00", "2024-02-29T12:00:00", "2024-05-01T23:59:60",
        "15-JAN-2024 10:00:00", "15-feb-2024 10:00:00", "15-Mar-2024 10:00:00", "15-aPr-2024 10:00:00",
        "15-May-2024 10:00:00", "15-Jun-2024 10:00:00", "15-Jul-2024 10:00:00", "15-Aug-2024 10:00:00",
        "15-Sep-2024 10:00:00", "15-Oct-2024 10:00:00", "15-Nov-2024 10:00:00", "15-DEC-2024 23:59:59,999",
        // Refused: out of range, malformed, not a month, too short or long, not ASCII.
        "2024-13-01 10:00:00", "2024-05-01 24:00:00", "2024-05-01 10:60:00", "1677-12-31T23:59:59",
        "2262-01-01T00:00:00",
        "15-Jam-2024 10:00:00", "15-J@n-2024 10:00:00", "15-Ja\u{e9}-2024 10:00:00", "15-\u{212A}an-2024 10:00:00",
        "2024-05-01", "2024-05-0", "2024-05-01T10:00:00+0", "2024-05-01T10:00:00 Z x", "2024-05-01T10:00:00.123\u{301}",
        "\u{301}2024-05-01T10:00:00", "2024-05-01T10:00:00\"\u{301}", String(repeating: " ", count: 50) + "2024-05-01",
        "2024-05-01T10:00:00.000000000000000000000000000000000000000000000000000",
    ]

    @Test func everyFormGivesWhatTheStringParseGave() {
        for text in Self.forms {
            #expect(Self.inPlace(text) == Self.throughString(text), "\(text)")
        }
        #expect(Self.inPlace("2024-05-01 10:00:00.123") == 1_714_557_600_123)
        #expect(Self.inPlace("01-May-2024 10:00:00.123") == 1_714_557_600_123)
        #expect(Self.inPlace("2024-05-01T19:00:00.123+09:00") == 1_714_557_600_123)
        #expect(Self.forms.filter { Self.inPlace($0) != nil }.count > 40)
    }

    /// Each form with bytes replaced, inserted and removed at random (digits, separators, zone letters, quotes, a
    /// byte of UTF-8 text): accepted or refused alike, the same value when accepted.
    @Test func mutatedFormsGiveWhatTheStringParseGave() {
        var random = SeededRandom(seed: 7)
        let alphabet = Array("0123456789-:.,+ TtZz\"\tJanMAY".utf8) + [0xC3, 0xA9, 0xFF]
        var accepted = 0
        for _ in 0..<40 {
            for form in Self.forms {
                var bytes = Array(form.utf8)
                for _ in 0..<(1 + Int(random.next() % 3)) {
                    let at = bytes.isEmpty ? 0 : Int(random.next() % UInt64(bytes.count))
                    let byte = alphabet[Int(random.next() % UInt64(alphabet.count))]
                    switch random.next() % 3 {
                    case 0 where !bytes.isEmpty: bytes[at] = byte
                    case 1: bytes.insert(byte, at: at)
                    default: if !bytes.isEmpty { bytes.remove(at: at) }
                    }
                }
                let text = String(decoding: bytes, as: UTF8.self)
                let new = Self.inPlace(bytes)
                let old = Self.throughString(bytes)
                #expect(new == old, "\(text) \(bytes)")
                if new != nil { accepted += 1 }
            }
        }
        #expect(accepted > 100)
    }
}

/// The base commit's (195352f) parse of a date-time field, through a `String` per row: the reference.
enum BaseDateTime {
    static func dateTimeMilliseconds(_ p: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> Double? {
        guard end - start >= 10, end - start <= 64 else { return nil }
        let text = Substring(
            String(decoding: UnsafeBufferPointer(start: p + start, count: end - start), as: UTF8.self))
        let trimmed = trimmingPrefixSpaces(text)
        guard let ns = parseDateTime(trimmed)?.ns ?? parseMonthNameDateTime(trimmed) else {
            return nil
        }
        return Double(ns) / 1e6
    }

    /// Byte cursor for the small parsers below.
    struct Cursor {
        let bytes: [UInt8]
        var i = 0
        init(_ bytes: [UInt8]) { self.bytes = bytes }
        init(_ text: Substring) { self.bytes = Array(text.utf8) }
        var atEnd: Bool { i >= bytes.count }
        var peek: UInt8? { i < bytes.count ? bytes[i] : nil }
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
    /// (RFC 3339, Apple Health, omconvert, GENEActiv). Without a zone the time is taken as UTC (`hadZone` false).
    static func parseDateTime(_ text: Substring) -> (ns: Int64, hadZone: Bool)? {
        var c = Cursor(text)
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
        var offset = 0
        var hadZone = false
        c.skipSpaces()
        if c.eat(0x5A) || c.eat(0x7A) {
            hadZone = true
        } else if let sign = c.eat(anyOf: [0x2B, 0x2D]) {
            guard let oh = c.int(min: 2, max: 2) else { return nil }
            _ = c.eat(0x3A)
            let om = c.int(min: 2, max: 2) ?? 0
            offset = (oh * 3600 + om * 60) * (sign == 0x2D ? -1 : 1)
            hadZone = true
        }
        c.skipSpaces()
        guard c.atEnd,
            let ns = TimeParsing.epochNs(
                year: y, month: mo, day: d, hour: h, minute: mi, second: s, nanos: nanos,
                offsetSeconds: offset)
        else { return nil }
        return (ns, hadZone)
    }

    /// Parses MATLAB's default datetime text, `dd-MMM-yyyy HH:mm:ss[.SSS]` (English month abbreviations), as UTC.
    static func parseMonthNameDateTime(_ text: Substring) -> Int64? {
        let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
        var c = Cursor(text)
        c.skipSpaces()
        guard let d = c.int(min: 1, max: 2), c.eat(0x2D), c.i + 3 <= c.bytes.count else { return nil }
        let name = String(decoding: c.bytes[c.i..<c.i + 3], as: UTF8.self).lowercased()
        guard let month = months.firstIndex(of: name) else { return nil }
        c.i += 3
        guard c.eat(0x2D), let y = c.int(min: 4, max: 4), c.eat(0x20), let h = c.int(min: 1, max: 2), c.eat(0x3A),
            let mi = c.int(min: 2, max: 2), c.eat(0x3A), let s = c.int(min: 2, max: 2)
        else { return nil }
        var nanos: Int64 = 0
        if c.eat(anyOf: [0x2E, 0x2C]) != nil { nanos = c.fractionNs() }
        c.skipSpaces()
        guard c.atEnd else { return nil }
        return TimeParsing.epochNs(year: y, month: month + 1, day: d, hour: h, minute: mi, second: s, nanos: nanos)
    }

    static func trimmingPrefixSpaces(_ text: Substring) -> Substring {
        var s = text
        while let f = s.first, f == " " || f == "\t" || f == "\"" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" || l == "\"" { s.removeLast() }
        return s
    }
}
