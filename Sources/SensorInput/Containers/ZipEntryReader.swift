import CZlib

/// One zip entry as a byte stream: its data read from the archive 256 KiB at a time and, when deflated, inflated with
/// the system zlib into the caller's buffer, so neither the archive nor the entry is ever held. At the end of the
/// entry its size and CRC-32 are checked against the directory's: a damaged zip is an error, not a short count.
final class ZipEntryReader {
    let archive: ZipArchive
    let entry: ZipArchive.Entry
    /// The archive offset of the next compressed byte, and how many are left.
    private var position: Int64
    private var remaining: Int64
    /// Uncompressed bytes delivered so far, and their CRC-32.
    private(set) var produced: Int64 = 0
    private var crc: UInt = 0
    private var input = ByteBuffer(capacity: 256 << 10)
    private var stream: UnsafeMutablePointer<z_stream>?
    private var ended = false

    /// Opens `entry` of `archive`: checks its local header, that it is not encrypted and that its method is stored or
    /// deflate.
    init(_ archive: ZipArchive, _ entry: ZipArchive.Entry) throws {
        self.archive = archive
        self.entry = entry
        position = 0
        remaining = entry.compressedSize
        defer { if stream == nil { input.free() } }
        guard entry.flags & 1 == 0 else {
            throw archive.error(entry, "is encrypted (password-protected zips are not read): unzip it first")
        }
        guard entry.method == 0 || entry.method == 8 else {
            throw archive.error(
                entry,
                "compression method \(entry.method) (\(Self.methodName(entry.method))) is not supported: "
                    + "only stored and deflate")
        }
        // Deflate cannot expand more than ~1032:1; stored data is its own size.
        let deflateLimit = entry.compressedSize > Int64.max / 2048 ? Int64.max : entry.compressedSize * 1032 + 1024
        guard entry.size <= (entry.method == 0 ? entry.compressedSize : deflateLimit), entry.compressedSize >= 0 else {
            throw archive.error(
                entry, "the directory says \(entry.size) bytes from \(entry.compressedSize) compressed: it is damaged")
        }
        let header = try archive.bytes(at: entry.localHeaderOffset, count: 30, what: "entry \(entry.name)'s header")
        guard ZipArchive.u32(header, 0) == 0x0403_4B50 else {
            throw archive.error(entry, "no local header at byte \(entry.localHeaderOffset): the zip is damaged")
        }
        position = entry.localHeaderOffset + 30 + Int64(ZipArchive.u16(header, 26)) + Int64(ZipArchive.u16(header, 28))
        guard position <= archive.size - entry.compressedSize else {
            throw archive.error(
                entry,
                "its data (\(entry.compressedSize) bytes from byte \(position)) runs past the end of the "
                    + "archive (\(archive.size) bytes): the zip is cut short (truncated)")
        }
        let z = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        z.initialize(to: z_stream())
        guard inflateInit2_(z, -15, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            z.deallocate()
            throw archive.error(entry, "zlib would not start")
        }
        stream = z
    }

    deinit {
        if let stream {
            inflateEnd(stream)
            stream.deallocate()
            input.free()
        }
    }

    static func methodName(_ method: UInt16) -> String {
        switch method {
        case 1...6: return "a 1990s PKZIP method"
        case 9: return "Deflate64"
        case 12: return "bzip2"
        case 14: return "LZMA"
        case 93: return "Zstandard"
        case 95: return "xz"
        case 98: return "PPMd"
        case 99: return "AES-encrypted"
        default: return "unknown"
        }
    }

    /// Reads up to `count` (> 0) bytes of the entry into `buffer`; 0 at its end, once its size and CRC-32 are
    /// checked. Throws when the archive is cut short, the deflate data is damaged, or the checks fail.
    func read(into buffer: UnsafeMutablePointer<UInt8>, count: Int) throws -> Int {
        guard !ended else { return 0 }
        let n = entry.method == 0 ? try readStored(into: buffer, count: count) : try inflate(into: buffer, count: count)
        if n == 0 {
            try finish()
            return 0
        }
        produced += Int64(n)
        guard produced <= entry.size else {
            throw archive.error(entry, "holds more than the \(entry.size) bytes the directory says: it is damaged")
        }
        crc = CZlib.crc32(crc, buffer, UInt32(n))
        return n
    }

    private func readStored(into buffer: UnsafeMutablePointer<UInt8>, count: Int) throws -> Int {
        let wanted = Int(min(Int64(count), remaining))
        guard wanted > 0 else { return 0 }
        let n = try archive.read(into: buffer, at: position, count: wanted)
        guard n == wanted else { throw cutShort() }
        position += Int64(n)
        remaining -= Int64(n)
        return n
    }

    private func inflate(into buffer: UnsafeMutablePointer<UInt8>, count: Int) throws -> Int {
        guard let z = stream else { return 0 }
        while true {
            if z.pointee.avail_in == 0 && remaining > 0 {
                let wanted = Int(min(Int64(input.capacity), remaining))
                let n = try archive.read(into: input.base, at: position, count: wanted)
                guard n == wanted else { throw cutShort() }
                position += Int64(n)
                remaining -= Int64(n)
                z.pointee.next_in = input.base
                z.pointee.avail_in = UInt32(n)
            }
            z.pointee.next_out = buffer
            z.pointee.avail_out = UInt32(min(count, Int(UInt32.max)))
            let rc = CZlib.inflate(z, Z_NO_FLUSH)
            let n = min(count, Int(UInt32.max)) - Int(z.pointee.avail_out)
            switch rc {
            case Z_STREAM_END:
                ended = n == 0
                if n == 0 { return 0 }
                return n
            case Z_OK, Z_BUF_ERROR:
                if n > 0 { return n }
                if z.pointee.avail_in == 0 && remaining == 0 {
                    throw archive.error(
                        entry,
                        "its deflate data ends early, after \(produced) of \(entry.size) bytes: the entry is "
                            + "cut short (truncated)")
                }
            default:
                let why = z.pointee.msg.map { String(cString: $0) } ?? "zlib \(rc)"
                throw archive.error(
                    entry, "its deflate data is damaged after \(produced) bytes (\(why)): the zip is corrupt")
            }
        }
    }

    /// Checks the entry's size and CRC-32 once all of it was read.
    private func finish() throws {
        ended = true
        guard produced == entry.size else {
            throw archive.error(
                entry, "holds \(produced) bytes where the directory says \(entry.size): the entry is damaged")
        }
        guard UInt32(truncatingIfNeeded: crc) == entry.crc32 else {
            throw archive.error(
                entry,
                "CRC-32 mismatch (the data gives \(Self.hex(UInt32(truncatingIfNeeded: crc))), the directory "
                    + "says \(Self.hex(entry.crc32))): the entry is damaged")
        }
    }

    private func cutShort() -> InputError {
        archive.error(
            entry, "its data runs past the end of the archive (\(archive.size) bytes): the zip is cut short (truncated)"
        )
    }

    static func hex(_ v: UInt32) -> String {
        let digits = String(v, radix: 16)
        return "0x" + String(repeating: "0", count: 8 - digits.count) + digits
    }

    /// The entry's bytes up to `limit` (every byte, for what is read whole: an SQLite database, a FIT file, a JSON
    /// document; the first few, for recognising its content), checked like a stream when read to the end.
    func readAll(limit: Int = .max) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(min(entry.size, Int64(min(limit, 1 << 26)))))
        var filled = 0
        while filled < limit {
            if filled == out.count { out += [UInt8](repeating: 0, count: min(max(out.count, 1 << 16), limit - filled)) }
            let n = try out.withUnsafeMutableBufferPointer {
                try read(into: $0.baseAddress! + filled, count: $0.count - filled)
            }
            if n == 0 { break }
            filled += n
        }
        out.removeLast(out.count - filled)
        return out
    }
}
