/// Hand-written number parsing from bytes, for the hot path of CSV readers (no `String` per field).
public enum NumberParsing {
    /// Parses a decimal floating-point number (`-12.5`, `3e-2`, `.5`, `nan`, `inf`) filling the whole of
    /// `bytes[start..<end]` after trimming spaces and one pair of double quotes. Returns nil when it is not a number.
    /// With `decimalComma` a `,` is the decimal separator too (`;`-separated exports of comma-decimal locales).
    @inlinable
    public static func parseDouble(_ p: UnsafePointer<UInt8>, _ start: Int, _ end: Int, decimalComma: Bool = false)
        -> Double?
    {
        var i = start
        var e = end
        while i < e && (p[i] == 0x20 || p[i] == 0x09) { i += 1 }
        while e > i && (p[e - 1] == 0x20 || p[e - 1] == 0x09) { e -= 1 }
        if e - i >= 2 && p[i] == 0x22 && p[e - 1] == 0x22 {
            i += 1
            e -= 1
        }
        guard i < e else { return nil }
        let negative = p[i] == 0x2D
        if negative || p[i] == 0x2B { i += 1 }
        guard i < e else { return nil }
        // Digits are accumulated without per-digit bookkeeping; more than 19 of them (the most a UInt64 holds
        // exactly) go to the slow path below.
        var mantissa: UInt64 = 0
        var exponent = 0
        let intStart = i
        while i < e {
            let d = p[i] &- 0x30
            if d > 9 { break }
            mantissa = mantissa &* 10 &+ UInt64(d)
            i += 1
        }
        var digitCount = i - intStart
        if i < e && (p[i] == 0x2E || (decimalComma && p[i] == 0x2C)) {
            i += 1
            let fractionStart = i
            while i < e {
                let d = p[i] &- 0x30
                if d > 9 { break }
                mantissa = mantissa &* 10 &+ UInt64(d)
                i += 1
            }
            exponent = fractionStart - i
            digitCount += i - fractionStart
        }
        let sawDigit = digitCount > 0
        if !sawDigit { return parseSpecial(p, i, e, negative) }
        if i < e && (p[i] == 0x65 || p[i] == 0x45) {
            guard let x = exponentPart(p, &i, e) else { return nil }
            exponent += x
        }
        guard i == e else { return nil }
        let value: Double
        if digitCount > 19 {
            guard let unsigned = slowParse(p, start, end, decimalComma: decimalComma) else { return nil }
            value = unsigned
        } else {
            value =
                decimalValue(mantissa, exponent) ?? slowParse(p, start, end, decimalComma: decimalComma)
                ?? Double(mantissa) * pow10(exponent)
        }
        return negative ? -value : value
    }

    /// The exponent after an `e` or `E` at `p[i]`, up to `e`, with `i` moved past it; nil when malformed. Exponents
    /// beyond 100,000 are cut there (the value is 0 or infinite anyway).
    @inlinable @inline(__always)
    static func exponentPart(_ p: UnsafePointer<UInt8>, _ i: inout Int, _ e: Int) -> Int? {
        i += 1
        var negative = false
        if i < e && (p[i] == 0x2D || p[i] == 0x2B) {
            negative = p[i] == 0x2D
            i += 1
        }
        guard i < e else { return nil }
        var x = 0
        while i < e {
            let d = p[i] &- 0x30
            if d > 9 { return nil }
            if x < 100_000 { x = x * 10 + Int(d) }
            i += 1
        }
        return negative ? -x : x
    }

    /// `mantissa × 10^exponent` (at most 19 digits) when one correctly rounded operation gives it, else nil.
    @inlinable @inline(__always)
    static func decimalValue(_ mantissa: UInt64, _ exponent: Int) -> Double? {
        if mantissa < (1 << 53) && exponent >= -22 && exponent <= 22 {
            // Clinger's fast path: both exact, one correctly rounded operation.
            var value = Double(mantissa)
            if exponent < 0 {
                value /= exactPowerOfTen(-exponent)
            } else if exponent > 0 {
                value *= exactPowerOfTen(exponent)
            }
            return value
        }
        if exponent == 0 { return Double(mantissa) }  // a big integer (epoch ns): the conversion is correctly rounded
        return nil
    }

    /// 10^e for 0 ≤ e ≤ 22, all exact in a Double (a switch, no global table to initialise on the hot path).
    @inlinable @inline(__always)
    static func exactPowerOfTen(_ e: Int) -> Double {
        switch e {
        case 0: return 1
        case 1: return 1e1
        case 2: return 1e2
        case 3: return 1e3
        case 4: return 1e4
        case 5: return 1e5
        case 6: return 1e6
        case 7: return 1e7
        case 8: return 1e8
        case 9: return 1e9
        case 10: return 1e10
        case 11: return 1e11
        case 12: return 1e12
        case 13: return 1e13
        case 14: return 1e14
        case 15: return 1e15
        case 16: return 1e16
        case 17: return 1e17
        case 18: return 1e18
        case 19: return 1e19
        case 20: return 1e20
        case 21: return 1e21
        default: return 1e22
        }
    }

    @usableFromInline static func parseSpecial(_ p: UnsafePointer<UInt8>, _ i: Int, _ e: Int, _ negative: Bool)
        -> Double?
    {
        let word = String(decoding: UnsafeBufferPointer(start: p + i, count: e - i), as: UTF8.self).lowercased()
        switch word {
        case "nan": return .nan
        case "inf", "infinity": return negative ? -.infinity : .infinity
        default: return nil
        }
    }

    @usableFromInline static func slowParse(
        _ p: UnsafePointer<UInt8>, _ start: Int, _ end: Int,
        decimalComma: Bool = false
    ) -> Double? {
        var s = String(decoding: UnsafeBufferPointer(start: p + start, count: end - start), as: UTF8.self)
        if decimalComma { s = String(s.map { $0 == "," ? "." : $0 }) }
        s = s.trimmingCharacters(in: " \t\"")
        if s.hasPrefix("-") { s.removeFirst() } else if s.hasPrefix("+") { s.removeFirst() }
        return Double(s)
    }

    @usableFromInline static func pow10(_ e: Int) -> Double {
        var r = 1.0
        var b = 10.0
        var n = abs(e)
        while n > 0 {
            if n & 1 == 1 { r *= b }
            b *= b
            n >>= 1
        }
        return e < 0 ? 1 / r : r
    }

    /// Parses a base-10 integer filling `bytes[start..<end]` (spaces trimmed). Returns nil otherwise.
    @inlinable
    public static func parseInt(_ p: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> Int64? {
        var i = start
        var e = end
        while i < e && p[i] == 0x20 { i += 1 }
        while e > i && p[e - 1] == 0x20 { e -= 1 }
        guard i < e else { return nil }
        var negative = false
        if p[i] == 0x2D {
            negative = true
            i += 1
        }
        guard i < e else { return nil }
        var v: Int64 = 0
        while i < e {
            let d = p[i] &- 0x30
            if d > 9 { return nil }
            let (m, o1) = v.multipliedReportingOverflow(by: 10)
            let (a, o2) = m.addingReportingOverflow(Int64(d))
            if o1 || o2 { return nil }
            v = a
            i += 1
        }
        return negative ? -v : v
    }
}
