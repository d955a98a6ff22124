import CZlib

/// The minimum of zip needed for a Gadgetbridge backup: the central directory (found through the end record), and
/// one entry's bytes, stored or deflated (inflated with the system zlib). No zip64, no encryption.
enum ZipArchive {
    struct Entry {
        var name: String
        var method: UInt16
        var compressedSize: Int
        var size: Int
        var localHeaderOffset: Int
    }

    static func isZip(_ b: [UInt8]) -> Bool { b.count >= 4 && b[0] == 0x50 && b[1] == 0x4B && (b[2] == 3 || b[2] == 5) }

    static func u16(_ b: [UInt8], _ i: Int) -> Int { Int(b[i]) | Int(b[i + 1]) << 8 }
    static func u32(_ b: [UInt8], _ i: Int) -> Int { u16(b, i) | u16(b, i + 2) << 16 }

    /// The entries listed in the central directory. Throws a message saying what is wrong.
    static func entries(_ b: [UInt8]) throws -> [Entry] {
        // End of central directory: 22 bytes + a comment of up to 65535 bytes, at the end.
        var end = -1
        var i = b.count - 22
        while i >= max(0, b.count - 22 - 65_535) {
            if b[i] == 0x50 && b[i + 1] == 0x4B && b[i + 2] == 5 && b[i + 3] == 6 {
                end = i
                break
            }
            i -= 1
        }
        guard end >= 0 else { throw ZipError("no zip end record (the archive is cut short or not a zip)") }
        let count = u16(b, end + 10)
        let directorySize = u32(b, end + 12)
        let directoryStart = u32(b, end + 16)
        guard directoryStart != 0xFFFF_FFFF, count != 0xFFFF else { throw ZipError("zip64 archives are not supported") }
        guard directoryStart + directorySize <= end else {
            throw ZipError("central directory at byte \(directoryStart) lies outside the archive")
        }
        var out: [Entry] = []
        var p = directoryStart
        for k in 0..<count {
            guard p + 46 <= end, u32(b, p) == 0x0201_4B50 else {
                throw ZipError("central directory entry \(k) at byte \(p) is damaged")
            }
            let nameLength = u16(b, p + 28)
            let extra = u16(b, p + 30)
            let comment = u16(b, p + 32)
            guard p + 46 + nameLength <= end else {
                throw ZipError("central directory entry \(k) at byte \(p) is cut short")
            }
            out.append(
                Entry(
                    name: String(decoding: b[(p + 46)..<(p + 46 + nameLength)], as: UTF8.self),
                    method: UInt16(u16(b, p + 10)), compressedSize: u32(b, p + 20), size: u32(b, p + 24),
                    localHeaderOffset: u32(b, p + 42)))
            p += 46 + nameLength + extra + comment
        }
        return out
    }

    /// The uncompressed bytes of `entry`.
    static func contents(of entry: Entry, in b: [UInt8]) throws -> [UInt8] {
        let h = entry.localHeaderOffset
        guard h + 30 <= b.count, u32(b, h) == 0x0403_4B50 else {
            throw ZipError("entry \(entry.name): local header at byte \(h) is damaged")
        }
        let start = h + 30 + u16(b, h + 26) + u16(b, h + 28)
        guard start + entry.compressedSize <= b.count else {
            throw ZipError("entry \(entry.name) is cut short at byte \(b.count)")
        }
        let data = Array(b[start..<(start + entry.compressedSize)])
        switch entry.method {
        case 0: return data
        case 8: return try inflate(data, expected: entry.size, name: entry.name)
        default:
            throw ZipError(
                "entry \(entry.name): compression method \(entry.method) is not supported (only stored and deflate)")
        }
    }

    /// Raw deflate → bytes (at most `expected`, the size the directory states).
    static func inflate(_ input: [UInt8], expected: Int, name: String) throws -> [UInt8] {
        var output = [UInt8](repeating: 0, count: max(expected, 1))
        var stream = z_stream()
        guard inflateInit2_(&stream, -15, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw ZipError("entry \(name): zlib would not start")
        }
        defer { inflateEnd(&stream) }
        var input = input
        let rc: Int32 = input.withUnsafeMutableBufferPointer { inBuf in
            output.withUnsafeMutableBufferPointer { outBuf in
                stream.next_in = inBuf.baseAddress
                stream.avail_in = UInt32(inBuf.count)
                stream.next_out = outBuf.baseAddress
                stream.avail_out = UInt32(outBuf.count)
                return CZlib.inflate(&stream, Z_FINISH)
            }
        }
        guard rc == Z_STREAM_END, Int(stream.total_out) == expected else {
            throw ZipError(
                "entry \(name): deflate data is damaged (zlib \(rc), \(stream.total_out) of \(expected) bytes)")
        }
        return output.count == expected ? output : []
    }

    struct ZipError: Error {
        var message: String
        init(_ message: String) { self.message = message }
    }
}
