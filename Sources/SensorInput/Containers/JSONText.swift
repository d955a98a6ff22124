import Foundation

/// How a JSON value and a text are named in an error message, and exact decimals of JSON number text: shared by the
/// file formats and Ingestion's payload parsers.
extension JSONTree {
    /// Names and describes a value briefly for an error message: `a string ("2024-13-01 7:57:00 am")`.
    package var shortDescription: String {
        switch self {
        case .object: return "an object"
        case .array(let a): return "an array of \(a.count)"
        case .string(let s): return "a string (\(quotedForMessage(s)))"
        case .number(let n): return "the number \(n.count > 40 ? n.prefix(40) + "…" : n)"
        case .bool(let b): return b ? "true" : "false"
        case .null: return "null"
        }
    }
}

/// `s` in double quotes, control characters escaped, cut to 60 characters, for error messages.
package func quotedForMessage(_ s: String) -> String {
    var out = ""
    for (n, c) in s.unicodeScalars.enumerated() {
        if n == 60 {
            out += "…"
            break
        }
        switch c {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        default: out += c.value < 0x20 || c.value == 0x7F ? "\\u{\(String(c.value, radix: 16))}" : String(c)
        }
    }
    return "\"" + out + "\""
}

/// Exact fixed-point reading of JSON number text, for counts that may be fractional.
package enum DecimalText {
    /// `text` × 10^6 rounded half up, from the decimal digits (never through a Double); nil when it is negative,
    /// not a number, or beyond Int64.
    package static func microunits(_ text: String) -> Int64? {
        var digits: [UInt8] = []
        var fractionDigits = 0
        var exponent = 0
        var seenPoint = false
        var u = Array(text.utf8)[...]
        if u.first == 0x2D {  // "-": only -0 is allowed
            u = u.dropFirst()
            guard u.allSatisfy({ $0 == 0x30 || $0 == 0x2E || $0 == 0x65 || $0 == 0x45 }) else { return nil }
        }
        while let c = u.first, c != 0x65, c != 0x45 {
            u = u.dropFirst()
            if c == 0x2E {
                guard !seenPoint else { return nil }
                seenPoint = true
            } else if c >= 0x30, c <= 0x39 {
                if !(digits.isEmpty && c == 0x30) { digits.append(c - 0x30) }
                if seenPoint { fractionDigits += 1 }
            } else {
                return nil
            }
        }
        if !u.isEmpty {
            guard let e = Int(String(decoding: u.dropFirst(), as: UTF8.self)), abs(e) < 1000 else { return nil }
            exponent = e
        }
        return scaled(digits, by: exponent - fractionDigits + 6)
    }

    /// The integer `digits` × 10^power, rounded half up when `power` is negative; nil past Int64.
    private static func scaled(_ digits: [UInt8], by power: Int) -> Int64? {
        let kept = power >= 0 ? digits.count : digits.count + power
        guard kept <= 19 else { return nil }  // 20 digits or more pass Int64.max
        var value: Int64 = 0
        for d in digits.prefix(max(0, kept)) {
            let (m, o1) = value.multipliedReportingOverflow(by: 10)
            let (s, o2) = m.addingReportingOverflow(Int64(d))
            guard !o1, !o2 else { return nil }
            value = s
        }
        if power > 0 {
            for _ in 0..<power {
                let (m, o) = value.multipliedReportingOverflow(by: 10)
                guard !o else { return nil }
                value = m
            }
        } else if kept >= 0, kept < digits.count, digits[kept] >= 5 {
            value += 1
        }
        return value
    }
}
