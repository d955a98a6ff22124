/// Text from files, servers or configurations made safe to show in a terminal or a log: control characters and
/// invalid UTF-8 are shown escaped (`\x1b`, `\u{9b}`, `\xff`), so a CSV holding `ESC]0;…BEL` or `ESC[2J` cannot
/// retitle or clear the terminal through an error message. Printable text, Japanese included, is left as it is.
enum TerminalText {
    /// `text` with C0 controls (but tab), DEL and C1 controls escaped; a backslash is left alone.
    static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            if needsEscape(scalar) { out += escape(scalar) } else { out.unicodeScalars.append(scalar) }
        }
        return out
    }

    /// `bytes` decoded as UTF-8, with each byte of an invalid sequence shown as `\xNN` and controls escaped as in
    /// `escaped(_:)`.
    static func escaped(bytes: some Collection<UInt8>) -> String {
        let b = Array(bytes)
        var out = ""
        var i = 0
        while i < b.count {
            if let (scalar, length) = decodeScalar(b, at: i) {
                if needsEscape(scalar) { out += escape(scalar) } else { out.unicodeScalars.append(scalar) }
                i += length
            } else {
                out += "\\x" + hex(UInt32(b[i]), width: 2)
                i += 1
            }
        }
        return out
    }

    /// The well-formed UTF-8 scalar starting at `i` and its length in bytes, or nil.
    static func decodeScalar(_ b: [UInt8], at i: Int) -> (Unicode.Scalar, Int)? {
        let lead = b[i]
        if lead < 0x80 { return (Unicode.Scalar(lead), 1) }
        let length: Int
        let initial: UInt32
        let minimum: UInt32
        switch lead {
        case 0xC2...0xDF: (length, initial, minimum) = (2, UInt32(lead & 0x1F), 0x80)
        case 0xE0...0xEF: (length, initial, minimum) = (3, UInt32(lead & 0x0F), 0x800)
        case 0xF0...0xF4: (length, initial, minimum) = (4, UInt32(lead & 0x07), 0x10000)
        default: return nil
        }
        guard i + length <= b.count else { return nil }
        var value = initial
        for k in 1..<length {
            let c = b[i + k]
            guard c & 0xC0 == 0x80 else { return nil }
            value = value << 6 | UInt32(c & 0x3F)
        }
        // overlong, surrogate, > U+10FFFF
        guard value >= minimum, let scalar = Unicode.Scalar(value) else { return nil }
        return (scalar, length)
    }

    static func needsEscape(_ s: Unicode.Scalar) -> Bool {
        (s.value < 0x20 && s != "\t") || (s.value >= 0x7F && s.value < 0xA0)
    }

    static func escape(_ s: Unicode.Scalar) -> String {
        s.value < 0x80 ? "\\x" + hex(s.value, width: 2) : "\\u{" + hex(s.value, width: 1) + "}"
    }

    static func hex(_ value: UInt32, width: Int) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
