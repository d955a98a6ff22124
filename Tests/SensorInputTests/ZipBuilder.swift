import CZlib

/// Writes zip archives for the tests, byte by byte as the format (PKWARE APPNOTE 6.3) lays them out: entries stored or
/// deflated (the system zlib), a comment, and zip64 as a writer does past 4 GiB (sizes and offsets saturated at
/// 0xFFFFFFFF in the headers, the real ones in zip64 extra fields, a zip64 end record and its locator).
struct ZipBuilder {
    struct Item {
        var name: String
        var data: [UInt8]
        var deflate: Bool
        /// General-purpose flags (bit 0: encrypted) and a method other than the one `deflate` implies.
        var flags: UInt16 = 0
        var method: UInt16?
        /// Flag bit 3, as macOS Archive Utility and streaming writers set it: the local header's CRC-32 and sizes are
        /// 0, the real ones follow the data in a data descriptor (and stand in the directory).
        var descriptor = false
    }
    var items: [Item] = []
    var comment: [UInt8] = []
    var zip64 = false

    mutating func add(_ name: String, _ data: [UInt8], deflate: Bool = true) {
        items.append(Item(name: name, data: data, deflate: deflate))
    }

    static func u16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
    static func u32(_ v: Int) -> [UInt8] { u16(v & 0xFFFF) + u16(v >> 16 & 0xFFFF) }
    static func u64(_ v: Int) -> [UInt8] { u32(v & 0xFFFF_FFFF) + u32(v >> 32) }

    static func crc32(_ data: [UInt8]) -> Int {
        Int(data.withUnsafeBufferPointer { CZlib.crc32(0, $0.baseAddress, UInt32($0.count)) })
    }

    /// Raw deflate (no zlib header), as zip stores it.
    static func deflate(_ data: [UInt8]) -> [UInt8] {
        var stream = z_stream()
        precondition(
            deflateInit2_(
                &stream, 6, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION,
                Int32(MemoryLayout<z_stream>.size)) == Z_OK)
        defer { deflateEnd(&stream) }
        var out = [UInt8](repeating: 0, count: Int(deflateBound(&stream, UInt(data.count))) + 16)
        var input = data
        let written: Int = input.withUnsafeMutableBufferPointer { inBuf in
            out.withUnsafeMutableBufferPointer { outBuf in
                stream.next_in = inBuf.baseAddress
                stream.avail_in = UInt32(inBuf.count)
                stream.next_out = outBuf.baseAddress
                stream.avail_out = UInt32(outBuf.count)
                precondition(CZlib.deflate(&stream, Z_FINISH) == Z_STREAM_END)
                return outBuf.count - Int(stream.avail_out)
            }
        }
        return Array(out.prefix(written))
    }

    func bytes() -> [UInt8] {
        typealias B = ZipBuilder
        var out: [UInt8] = []
        var central: [UInt8] = []
        let saturated = B.u32(0xFFFF_FFFF)
        for item in items {
            let packed = item.deflate ? B.deflate(item.data) : item.data
            let method = Int(item.method ?? (item.deflate ? 8 : 0))
            let name = Array(item.name.utf8)
            let offset = out.count
            let flags = Int(item.flags) | (item.descriptor ? 8 : 0)
            let head = B.u16(zip64 ? 45 : 20) + B.u16(flags) + B.u16(method) + B.u16(0) + B.u16(0x21)
            let common = head + B.u32(B.crc32(item.data))
            let localSizes = item.descriptor ? B.u64(0) + B.u64(0) : B.u64(item.data.count) + B.u64(packed.count)
            let localExtra = zip64 ? B.u16(1) + B.u16(16) + localSizes : []
            let sizes = zip64 ? saturated + saturated : B.u32(packed.count) + B.u32(item.data.count)
            let local = item.descriptor ? head + B.u32(0) + B.u32(0) + B.u32(0) : common + sizes
            out +=
                [0x50, 0x4B, 3, 4] + local + B.u16(name.count) + B.u16(localExtra.count) + name + localExtra + packed
            if item.descriptor {
                let size = zip64 ? B.u64 : B.u32
                out += [0x50, 0x4B, 7, 8] + B.u32(B.crc32(item.data)) + size(packed.count) + size(item.data.count)
            }
            let centralExtra =
                zip64 ? B.u16(1) + B.u16(24) + B.u64(item.data.count) + B.u64(packed.count) + B.u64(offset) : []
            central +=
                [0x50, 0x4B, 1, 2] + B.u16(0x031E) + common + sizes + B.u16(name.count)
                + B.u16(centralExtra.count) + B.u16(0) + B.u16(0) + B.u16(0) + B.u32(0)
                + (zip64 ? saturated : B.u32(offset)) + name + centralExtra
        }
        let directoryOffset = out.count
        out += central
        if zip64 {
            let record = out.count
            out +=
                [0x50, 0x4B, 6, 6] + B.u64(44) + B.u16(45) + B.u16(45) + B.u32(0) + B.u32(0)
                + B.u64(items.count) + B.u64(items.count) + B.u64(central.count) + B.u64(directoryOffset)
            out += [0x50, 0x4B, 6, 7] + B.u32(0) + B.u64(record) + B.u32(1)
            out += [0x50, 0x4B, 5, 6] + B.u16(0) + B.u16(0) + B.u16(0xFFFF) + B.u16(0xFFFF) + saturated + saturated
        } else {
            out +=
                [0x50, 0x4B, 5, 6] + B.u16(0) + B.u16(0) + B.u16(items.count) + B.u16(items.count)
                + B.u32(central.count) + B.u32(directoryOffset)
        }
        return out + B.u16(comment.count) + comment
    }
}
