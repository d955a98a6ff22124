/// The Garmin FIT container: 12/14-byte header (`.FIT` at offset 8), definition and data messages with local types
/// redefined as the file goes, both byte orders, developer fields (skipped), compressed-timestamp headers, a CRC-16
/// after the data, and several files chained back to back. Yields each data message's scalar fields as integers.
enum FITContainer {
    /// One data message: its global number, its valid scalar fields (field number → raw integer, invalid values
    /// left out, arrays as their first element) and its time (FIT seconds: field 253 or a compressed header).
    struct Message {
        var global: UInt16
        var fields: Fields
        var timestamp: Int64?
        /// Index of the message in the file (definitions included) and byte offset of its header.
        var index: Int
        var offset: Int
    }

    /// A message's valid fields: a short list searched in order (cheaper than a dictionary per message).
    struct Fields {
        var numbers: [UInt8] = []
        var values: [Int64] = []
        subscript(number: UInt8) -> Int64? {
            get {
                for k in numbers.indices where numbers[k] == number { return values[k] }
                return nil
            }
            set {
                if let k = numbers.firstIndex(of: number) {
                    if let newValue {
                        values[k] = newValue
                    } else {
                        numbers.remove(at: k)
                        values.remove(at: k)
                    }
                } else if let newValue {
                    numbers.append(number)
                    values.append(newValue)
                }
            }
        }
    }

    /// Where and why decoding stopped before the end of the data.
    struct Damage: Error, Equatable {
        var messageIndex: Int
        var offset: Int
        var reason: String
        var description: String { "message \(messageIndex) at byte \(offset): \(reason)" }
    }

    struct Definition {
        var global: UInt16
        var bigEndian: Bool
        /// (field number, size, base type) per field.
        var fields: [(number: UInt8, size: Int, type: UInt8)]
        var developerBytes: Int
        var size: Int { fields.reduce(developerBytes) { $0 + $1.size } }
    }

    /// Seconds between the Unix epoch and the FIT epoch (1989-12-31T00:00:00Z).
    static let epochOffset: Int64 = 631_065_600

    static func isFIT(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 12 && bytes[8] == 0x2E && bytes[9] == 0x46 && bytes[10] == 0x49 && bytes[11] == 0x54
    }

    /// Decodes every chained file in `bytes`. Messages decoded before any damage are kept; the damages (a
    /// truncation, an undefined local type, a CRC mismatch) are returned beside them.
    static func decode(_ bytes: [UInt8]) -> (messages: [Message], damages: [Damage]) {
        var messages: [Message] = []
        var damages: [Damage] = []
        var start = 0
        var index = 0
        while start < bytes.count {
            if start > 0 && bytes.count - start < 12 { break }  // padding after the last chained file
            let r = decodeFile(bytes, at: start, messageIndex: &index, into: &messages)
            if let d = r.damage { damages.append(d) }
            guard let next = r.next, next > start else { break }
            start = next
        }
        return (messages, damages)
    }

    /// One file of a chain starting at `start`; returns the start of the next file (nil: stop) and any damage.
    static func decodeFile(
        _ b: [UInt8], at start: Int, messageIndex index: inout Int,
        into messages: inout [Message]
    ) -> (next: Int?, damage: Damage?) {
        guard b.count - start >= 12 else {
            return (
                nil,
                Damage(
                    messageIndex: index, offset: start, reason: "file header cut short (\(b.count - start) of 12 bytes)"
                )
            )
        }
        let headerSize = Int(b[start])
        guard headerSize >= 12, isFIT(Array(b[start..<start + 12])) else {
            return (nil, Damage(messageIndex: index, offset: start, reason: "no FIT header (no '.FIT' signature)"))
        }
        let dataSize = Int(u32(b, start + 4, bigEndian: false))
        let dataStart = start + headerSize
        let dataEnd = dataStart + dataSize
        var damage: Damage?
        var end = dataEnd
        if dataEnd + 2 > b.count {
            end = min(dataEnd, b.count)
            damage = Damage(
                messageIndex: index, offset: b.count,
                reason:
                    "file cut short: the header promises \(dataSize) data bytes and a CRC, \(max(0, b.count - dataStart)) bytes follow the header"
            )
        }
        if let d = decodeRecords(b, from: dataStart, to: end, messageIndex: &index, into: &messages) {
            return (nil, d)
        }
        if damage != nil { return (nil, damage) }
        let stored = u16(b, dataEnd, bigEndian: false)
        let computed = crc(b, start, dataEnd)
        if stored != 0 && stored != computed {
            damage = Damage(
                messageIndex: index, offset: dataEnd,
                reason:
                    "file CRC mismatch (stored 0x\(String(stored, radix: 16)), computed 0x\(String(computed, radix: 16)))"
            )
        }
        return (dataEnd + 2, damage)
    }

    /// Decodes the records in `b[from..<to]`; returns the damage that stopped it, nil when it reached `to`.
    static func decodeRecords(
        _ b: [UInt8], from: Int, to: Int, messageIndex index: inout Int,
        into messages: inout [Message]
    ) -> Damage? {
        var definitions = [Definition?](repeating: nil, count: 16)
        var lastTimestamp: Int64?
        var i = from
        while i < to {
            let header = b[i]
            let at = i
            i += 1
            if header & 0x40 != 0 && header & 0x80 == 0 {
                guard let (definition, next) = definition(b, header: header, at: i, to: to) else {
                    return Damage(messageIndex: index, offset: at, reason: "definition cut short")
                }
                definitions[Int(header & 0x0F)] = definition
                i = next
                index += 1
                continue
            }
            let local = header & 0x80 != 0 ? Int((header >> 5) & 0x03) : Int(header & 0x0F)
            guard let definition = definitions[local] else {
                return Damage(
                    messageIndex: index, offset: at,
                    reason: "data message of local type \(local), which no definition announced")
            }
            guard i + definition.size <= to else {
                return Damage(
                    messageIndex: index, offset: at,
                    reason: "message cut short (\(definition.size) bytes needed, \(to - i) left)")
            }
            var message = Message(global: definition.global, fields: Fields(), timestamp: nil, index: index, offset: at)
            message.fields.numbers.reserveCapacity(definition.fields.count)
            message.fields.values.reserveCapacity(definition.fields.count)
            if header & 0x80 != 0, let last = lastTimestamp {
                let offset = Int64(header & 0x1F)
                var t = (last & ~0x1F) + offset
                if offset < (last & 0x1F) { t += 0x20 }
                message.timestamp = t
            }
            for f in definition.fields {
                if let v = value(b, i, size: f.size, type: f.type, bigEndian: definition.bigEndian) {
                    message.fields.numbers.append(f.number)
                    message.fields.values.append(v)
                }
                i += f.size
            }
            i += definition.developerBytes
            if let t = message.fields[253] {
                // A date_time is a u32; anything else is damage, not a time (no overflow later).
                message.timestamp = (0...0xFFFF_FFFF).contains(t) ? t : nil
            }
            if let t = message.timestamp { lastTimestamp = t }
            messages.append(message)
            index += 1
        }
        return nil
    }

    /// The definition message whose content starts at `i` (after its header byte) and the offset after it; nil when
    /// it does not fit before `to`.
    static func definition(_ b: [UInt8], header: UInt8, at start: Int, to: Int) -> (Definition, Int)? {
        var i = start
        guard i + 5 <= to else { return nil }
        let bigEndian = b[i + 1] == 1
        let global = u16(b, i + 2, bigEndian: bigEndian)
        let count = Int(b[i + 4])
        i += 5
        guard i + 3 * count <= to else { return nil }
        var fields: [(number: UInt8, size: Int, type: UInt8)] = []
        fields.reserveCapacity(count)
        for k in 0..<count { fields.append((b[i + 3 * k], Int(b[i + 3 * k + 1]), b[i + 3 * k + 2])) }
        i += 3 * count
        var developerBytes = 0
        if header & 0x20 != 0 {
            guard i < to else { return nil }
            let n = Int(b[i])
            i += 1
            guard i + 3 * n <= to else { return nil }
            for k in 0..<n { developerBytes += Int(b[i + 3 * k + 1]) }
            i += 3 * n
        }
        return (Definition(global: global, bigEndian: bigEndian, fields: fields, developerBytes: developerBytes), i)
    }

    /// The integer value of one field (the first element of an array), nil when invalid or not an integer type.
    static func value(_ b: [UInt8], _ at: Int, size: Int, type: UInt8, bigEndian: Bool) -> Int64? {
        let base = type & 0x1F
        let width: Int
        switch base {
        case 0x00, 0x01, 0x02, 0x0A, 0x0D: width = 1
        case 0x03, 0x04, 0x0B: width = 2
        case 0x05, 0x06, 0x0C: width = 4
        case 0x0E, 0x0F, 0x10: width = 8
        default: return nil  // string, float
        }
        guard size >= width else { return nil }
        var raw: UInt64 = 0
        for k in 0..<width {
            let byte = UInt64(b[at + (bigEndian ? k : width - 1 - k)])
            raw = raw << 8 | byte
        }
        switch base {
        case 0x00, 0x02, 0x0D: return raw == 0xFF ? nil : Int64(raw)
        case 0x01: return raw == 0x7F ? nil : Int64(Int8(truncatingIfNeeded: raw))
        case 0x0A, 0x0B, 0x0C, 0x10: return raw == 0 || raw > UInt64(Int64.max) ? nil : Int64(raw)
        case 0x03: return raw == 0x7FFF ? nil : Int64(Int16(truncatingIfNeeded: raw))
        case 0x04: return raw == 0xFFFF ? nil : Int64(raw)
        case 0x05: return raw == 0x7FFF_FFFF ? nil : Int64(Int32(truncatingIfNeeded: raw))
        case 0x06: return raw == 0xFFFF_FFFF ? nil : Int64(raw)
        case 0x0E: return raw == 0x7FFF_FFFF_FFFF_FFFF ? nil : Int64(bitPattern: raw)
        default: return raw >= 0x7FFF_FFFF_FFFF_FFFF ? nil : Int64(raw)
        }
    }

    static func u16(_ b: [UInt8], _ at: Int, bigEndian: Bool) -> UInt16 {
        bigEndian ? UInt16(b[at]) << 8 | UInt16(b[at + 1]) : UInt16(b[at + 1]) << 8 | UInt16(b[at])
    }

    static func u32(_ b: [UInt8], _ at: Int, bigEndian: Bool) -> UInt32 {
        var v: UInt32 = 0
        for k in 0..<4 { v = v << 8 | UInt32(b[at + (bigEndian ? k : 3 - k)]) }
        return v
    }

    static let crcTable: [UInt16] = [
        0x0000, 0xCC01, 0xD801, 0x1400, 0xF001, 0x3C00, 0x2800, 0xE401,
        0xA001, 0x6C00, 0x7800, 0xB401, 0x5000, 0x9C01, 0x8801, 0x4400,
    ]

    /// FIT's CRC-16 of `b[from..<to]`.
    static func crc(_ b: [UInt8], _ from: Int, _ to: Int) -> UInt16 {
        var crc: UInt16 = 0
        for k in from..<to {
            let byte = UInt16(b[k])
            var tmp = crcTable[Int(crc & 0xF)]
            crc = (crc >> 4) & 0x0FFF
            crc = crc ^ tmp ^ crcTable[Int(byte & 0xF)]
            tmp = crcTable[Int(crc & 0xF)]
            crc = (crc >> 4) & 0x0FFF
            crc = crc ^ tmp ^ crcTable[Int((byte >> 4) & 0xF)]
        }
        return crc
    }
}
