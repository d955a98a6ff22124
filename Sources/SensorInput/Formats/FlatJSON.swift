import Foundation
import StepDetection

/// A parser for one flat JSON object (`{"k": "v", "n": 1.5, "b": true}`), enough for step-log lines without
/// Foundation: nested values are refused. Numbers keep their text so integers stay exact.
enum FlatJSON {
    enum Value: Equatable {
        case string(String)
        case number(String)
        case bool(Bool)
        case null

        var text: String? {
            switch self {
            case .string(let s), .number(let s): return s
            default: return nil
            }
        }
    }

    /// The object's members, nil when the text is not one flat JSON object.
    static func parseObject(_ bytes: UnsafeBufferPointer<UInt8>) -> [String: Value]? {
        var i = 0
        let n = bytes.count
        func skipSpace() { while i < n, bytes[i] == 0x20 || bytes[i] == 0x09 || bytes[i] == 0x0D || bytes[i] == 0x0A { i += 1 } }
        func string() -> String? {
            guard i < n, bytes[i] == 0x22 else { return nil }
            i += 1
            var out: [UInt8] = []
            while i < n {
                let c = bytes[i]
                if c == 0x22 { i += 1; return String(decoding: out, as: UTF8.self) }
                if c == 0x5C {
                    i += 1
                    guard i < n else { return nil }
                    switch bytes[i] {
                    case 0x6E: out.append(0x0A)
                    case 0x74: out.append(0x09)
                    case 0x72: out.append(0x0D)
                    case 0x62: out.append(0x08)
                    case 0x66: out.append(0x0C)
                    case 0x75:
                        guard i + 4 < n else { return nil }
                        var v: UInt32 = 0
                        for k in 1...4 {
                            let h = bytes[i + k]
                            let d: UInt8
                            switch h {
                            case 0x30...0x39: d = h - 0x30
                            case 0x41...0x46: d = h - 0x41 + 10
                            case 0x61...0x66: d = h - 0x61 + 10
                            default: return nil
                            }
                            v = v * 16 + UInt32(d)
                        }
                        i += 4
                        out += Array(String(Unicode.Scalar(v).map(Character.init) ?? "\u{FFFD}").utf8)
                    default: out.append(bytes[i])
                    }
                    i += 1
                    continue
                }
                out.append(c)
                i += 1
            }
            return nil
        }
        skipSpace()
        guard i < n, bytes[i] == 0x7B else { return nil }
        i += 1
        var members: [String: Value] = [:]
        skipSpace()
        if i < n, bytes[i] == 0x7D { i += 1; skipSpace(); return i == n ? members : nil }
        while true {
            skipSpace()
            guard let key = string() else { return nil }
            skipSpace()
            guard i < n, bytes[i] == 0x3A else { return nil }
            i += 1
            skipSpace()
            guard i < n else { return nil }
            let value: Value
            switch bytes[i] {
            case 0x22:
                guard let s = string() else { return nil }
                value = .string(s)
            case 0x74 where n - i >= 4 && bytes[i + 1] == 0x72 && bytes[i + 2] == 0x75 && bytes[i + 3] == 0x65:
                value = .bool(true); i += 4
            case 0x66 where n - i >= 5 && bytes[i + 1] == 0x61 && bytes[i + 2] == 0x6C && bytes[i + 3] == 0x73 && bytes[i + 4] == 0x65:
                value = .bool(false); i += 5
            case 0x6E where n - i >= 4 && bytes[i + 1] == 0x75 && bytes[i + 2] == 0x6C && bytes[i + 3] == 0x6C:
                value = .null; i += 4
            case 0x2D, 0x30...0x39:
                let s = i
                while i < n, bytes[i] == 0x2D || bytes[i] == 0x2B || bytes[i] == 0x2E || bytes[i] == 0x65 || bytes[i] == 0x45
                    || (bytes[i] >= 0x30 && bytes[i] <= 0x39) { i += 1 }
                guard NumberParsing.parseDouble(bytes.baseAddress!, s, i) != nil else { return nil }
                value = .number(String(decoding: UnsafeBufferPointer(rebasing: bytes[s..<i]), as: UTF8.self))
            default:
                return nil
            }
            members[key] = value
            skipSpace()
            guard i < n else { return nil }
            if bytes[i] == 0x2C { i += 1; continue }
            if bytes[i] == 0x7D { i += 1; skipSpace(); return i == n ? members : nil }
            return nil
        }
    }
}
