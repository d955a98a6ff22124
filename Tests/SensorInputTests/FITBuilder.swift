import Foundation

/// Writes FIT files for tests: definitions (either byte order, optional developer fields), data messages, compressed
/// timestamp headers, the 14-byte header and the CRC (computed here from the FIT specification, not by the reader).
struct FITBuilder {
    struct Field {
        var number: UInt8
        var size: UInt8
        var type: UInt8
    }
    var data: [UInt8] = []
    var definitions: [UInt8: (fields: [Field], bigEndian: Bool, developerBytes: Int)] = [:]

    static let u8: UInt8 = 0x02, enumType: UInt8 = 0x00, u16: UInt8 = 0x84, u32: UInt8 = 0x86

    mutating func define(
        local: UInt8, global: UInt16, fields: [Field], bigEndian: Bool = false, developerSizes: [UInt8] = []
    ) {
        data.append(0x40 | (developerSizes.isEmpty ? 0 : 0x20) | local)
        data += [0, bigEndian ? 1 : 0]
        data += bigEndian ? [UInt8(global >> 8), UInt8(global & 0xFF)] : [UInt8(global & 0xFF), UInt8(global >> 8)]
        data.append(UInt8(fields.count))
        for f in fields { data += [f.number, f.size, f.type] }
        if !developerSizes.isEmpty {
            data.append(UInt8(developerSizes.count))
            for (k, s) in developerSizes.enumerated() { data += [UInt8(k), s, 0] }
        }
        definitions[local] = (fields, bigEndian, developerSizes.reduce(0) { $0 + Int($1) })
    }

    /// A data message of `local` with one value per defined field (developer bytes filled with 0xAB).
    mutating func message(local: UInt8, _ values: [Int64], compressedOffset: UInt8? = nil) {
        let d = definitions[local]!
        data.append(compressedOffset.map { 0x80 | (local << 5) | ($0 & 0x1F) } ?? local)
        for (f, v) in zip(d.fields, values) {
            var bytes = (0..<Int(f.size)).map { UInt8(truncatingIfNeeded: UInt64(bitPattern: v) >> (8 * UInt64($0))) }
            if d.bigEndian { bytes.reverse() }
            data += bytes
        }
        data += [UInt8](repeating: 0xAB, count: d.developerBytes)
    }

    /// The complete file: 14-byte header (with header CRC), records, file CRC.
    func file() -> [UInt8] {
        var header: [UInt8] = [14, 0x20, 0x08, 0x08]
        let n = UInt32(data.count)
        header += [UInt8(n & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n >> 16 & 0xFF), UInt8(n >> 24)]
        header += Array(".FIT".utf8)
        let hc = Self.crc(header)
        header += [UInt8(hc & 0xFF), UInt8(hc >> 8)]
        let body = header + data
        let c = Self.crc(body)
        return body + [UInt8(c & 0xFF), UInt8(c >> 8)]
    }

    static func crc(_ bytes: [UInt8]) -> UInt16 {
        let table: [UInt16] = [
            0x0000, 0xCC01, 0xD801, 0x1400, 0xF001, 0x3C00, 0x2800, 0xE401,
            0xA001, 0x6C00, 0x7800, 0xB401, 0x5000, 0x9C01, 0x8801, 0x4400,
        ]
        var crc: UInt16 = 0
        for b in bytes {
            for nibble in [UInt16(b & 0xF), UInt16(b >> 4)] {
                let tmp = table[Int(crc & 0xF)]
                crc = (crc >> 4) & 0x0FFF
                crc = crc ^ tmp ^ table[Int(nibble)]
            }
        }
        return crc
    }

    /// FIT time of a Unix time.
    static func fit(_ unix: Int64) -> Int64 { unix - 631_065_600 }

    /// A monitoring file (type 32) starting at local midnight `midnightUTC` (Unix s) with UTC offset `offset` s:
    /// `points` = (seconds after midnight, activity type, cumulative cycles); the first uses a full timestamp, the
    /// rest `timestamp_16`; the running-type messages use a big-endian definition with a developer field.
    static func monitoring(midnightUTC: Int64, offset: Int64, points: [(Int64, Int64, Int64)]) -> [UInt8] {
        var b = FITBuilder()
        b.define(local: 0, global: 0, fields: [Field(number: 0, size: 1, type: enumType)])
        b.message(local: 0, [32])
        b.define(
            local: 1, global: 103,
            fields: [Field(number: 253, size: 4, type: u32), Field(number: 0, size: 4, type: u32)])
        b.message(local: 1, [fit(midnightUTC), fit(midnightUTC) + offset])
        b.define(
            local: 2, global: 55,
            fields: [
                Field(number: 253, size: 4, type: u32), Field(number: 3, size: 4, type: u32),
                Field(number: 5, size: 1, type: enumType),
            ])
        b.define(
            local: 3, global: 55,
            fields: [
                Field(number: 26, size: 2, type: u16), Field(number: 3, size: 4, type: u32),
                Field(number: 5, size: 1, type: enumType),
            ])
        b.define(
            local: 4, global: 55,
            fields: [
                Field(number: 26, size: 2, type: u16), Field(number: 3, size: 4, type: u32),
                Field(number: 5, size: 1, type: enumType),
            ], bigEndian: true, developerSizes: [2])
        for (k, p) in points.enumerated() {
            let t = fit(midnightUTC + p.0)
            if k == 0 {
                b.message(local: 2, [t, p.2, p.1])
            } else {
                b.message(local: p.1 == 1 ? 4 : 3, [t & 0xFFFF, p.2, p.1])
            }
        }
        return b.file()
    }
    /// A monitoring day laid out as NOTES.md describes a vívofit's: `device_info` stamped two days later before
    /// `monitoring_info` (arrays of activity types), `timestamp_16` records each carrying the running total of the
    /// type that changed (some naming the type only in `current_activity_type_intensity`), intensity-only records, a
    /// cycling total (strokes), and at local midnight one summary per type with a full timestamp and `active_time`,
    /// plus the day's `cycles` when `summaryTotals`. `records` = (seconds after midnight, activity type, total).
    static func monitoringDay(
        midnightUTC: Int64, offset: Int64, records: [(Int64, Int64, Int64)], summaryTotals: Bool
    ) -> [UInt8] {
        var b = FITBuilder()
        b.define(local: 0, global: 0, fields: [Field(number: 0, size: 1, type: enumType)])
        b.message(local: 0, [32])
        b.define(local: 1, global: 23, fields: [Field(number: 253, size: 4, type: u32)])
        b.message(local: 1, [fit(midnightUTC + 2 * 86_400)])
        b.define(
            local: 2, global: 103,
            fields: [
                Field(number: 253, size: 4, type: u32), Field(number: 0, size: 4, type: u32),
                Field(number: 1, size: 2, type: enumType),
            ])
        b.message(local: 2, [fit(midnightUTC), fit(midnightUTC) + offset, 6 | 1 << 8])
        let stamp16 = Field(number: 26, size: 2, type: u16)
        let cycles = Field(number: 3, size: 4, type: u32)
        let intensity = Field(number: 24, size: 1, type: 0x0D)
        b.define(local: 3, global: 55, fields: [stamp16, cycles, Field(number: 5, size: 1, type: enumType)])
        b.define(local: 4, global: 55, fields: [stamp16, cycles, intensity])
        b.define(local: 5, global: 55, fields: [stamp16, intensity])
        for (k, r) in records.enumerated() {
            let t16 = fit(midnightUTC + r.0) & 0xFFFF
            if k % 5 == 4 {
                b.message(local: 4, [t16, r.2, r.1 | 3 << 5])  // type in bits 0-4, intensity 3
            } else {
                b.message(local: 3, [t16, r.2, r.1])
            }
            b.message(local: 5, [(t16 + 30) & 0xFFFF, 8])  // sedentary, no cycles
        }
        b.message(local: 3, [fit(midnightUTC + 50_000) & 0xFFFF, 4000, 2])  // cycling: strokes, not steps
        var summary = [Field(number: 253, size: 4, type: u32), Field(number: 5, size: 1, type: enumType)]
        summary.append(Field(number: 4, size: 4, type: u32))
        if summaryTotals { summary.append(cycles) }
        b.define(local: 6, global: 55, fields: summary)
        for type: Int64 in [6, 1] {
            let total = records.filter { $0.1 == type }.map(\.2).max() ?? 0
            b.message(local: 6, [fit(midnightUTC + 86_400), type, 3_600_000, total])
        }
        return b.file()
    }
}
