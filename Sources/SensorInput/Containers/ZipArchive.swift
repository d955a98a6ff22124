#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A zip archive read through its central directory, without holding the archive: the end record (and, for archives
/// over 4 GiB or 65,535 entries, the zip64 end record its locator points to) gives the directory, the directory gives
/// each entry's name, method, sizes, CRC-32 and local header (sizes and offsets saturated at 0xFFFFFFFF are read from
/// the entry's zip64 extra field). An entry is opened as a byte stream (`ZipEntryReader`: stored or deflated, its
/// CRC-32 checked at its end). Errors name the archive and say what is wrong.
final class ZipArchive: Sendable {
    struct Entry: Sendable, Equatable {
        var name: String
        var flags: UInt16
        var method: UInt16
        var crc32: UInt32
        var compressedSize: Int64
        var size: Int64
        var localHeaderOffset: Int64

        var isDirectory: Bool { name.hasSuffix("/") }
        /// The name after the last `/`.
        var baseName: Substring { name.split(separator: "/", omittingEmptySubsequences: false).last ?? "" }
    }

    /// The archive's file name, for errors.
    let name: String
    let source: ByteSource
    let size: Int64
    let entries: [Entry]
    private let descriptor: Int32

    /// Whether `head` (the first bytes of an input) starts like a zip: a local header, or the end record of an empty
    /// archive.
    static func isZip(_ head: [UInt8]) -> Bool {
        head.count >= 4 && head[0] == 0x50 && head[1] == 0x4B && (head[2] == 3 || head[2] == 5)
    }

    /// Opens the zip file at `path` (read with `pread`, never whole).
    convenience init(path: String) throws {
        let (fd, size) = try LineReader.openFile(path, at: 0)
        do {
            try self.init(name: path, source: .file(fd), size: size, descriptor: fd)
        } catch {
            close(fd)
            throw error
        }
    }

    /// A zip held in memory (pushed data, fuzzing); `name` stands for the file in errors.
    convenience init(bytes: [UInt8], name: String) throws {
        try self.init(name: name, source: .memory(bytes), size: Int64(bytes.count), descriptor: -1)
    }

    private init(name: String, source: ByteSource, size: Int64, descriptor: Int32) throws {
        self.name = name
        self.source = source
        self.size = size
        self.descriptor = descriptor
        entries = try Self.readDirectory(source, size: size, name: name)
    }

    deinit { if descriptor >= 0 { close(descriptor) } }

    /// The error `message` about this archive (`file: message`).
    func error(_ message: String) -> InputError { InputError(file: name, message: message) }

    /// The error `message` about `entry` (`file: entry NAME: message`).
    func error(_ entry: Entry, _ message: String) -> InputError { error("entry \(entry.name): \(message)") }

    /// `count` bytes at `offset`, or an error saying the archive is cut short there.
    func bytes(at offset: Int64, count: Int, what: String) throws -> [UInt8] {
        guard offset >= 0, count >= 0, offset <= size - Int64(count) else {
            throw error("\(what) at byte \(offset) lies past the end (\(size) bytes): the zip is cut short (truncated)")
        }
        var out = [UInt8](repeating: 0, count: count)
        let n = try out.withUnsafeMutableBufferPointer { try read(into: $0.baseAddress!, at: offset, count: count) }
        guard n == count else { throw error("\(what) at byte \(offset) cannot be read: the zip is cut short") }
        return out
    }

    /// Reads up to `count` bytes at `offset` into `buffer` (fewer only at the end of the archive).
    func read(into buffer: UnsafeMutablePointer<UInt8>, at offset: Int64, count: Int) throws -> Int {
        do { return try source.read(into: buffer, at: offset, count: count) } catch let e as InputError {
            throw error(e.message)
        }
    }

    static func u16(_ b: [UInt8], _ i: Int) -> UInt16 { UInt16(b[i]) | UInt16(b[i + 1]) << 8 }
    static func u32(_ b: [UInt8], _ i: Int) -> UInt32 { UInt32(u16(b, i)) | UInt32(u16(b, i + 2)) << 16 }
    static func u64(_ b: [UInt8], _ i: Int) -> UInt64 { UInt64(u32(b, i)) | UInt64(u32(b, i + 4)) << 32 }

    /// Where the directory lies and how many entries it lists.
    struct Directory {
        var offset: Int64
        var size: Int64
        var count: Int64
        /// Where the directory must end: the (zip64) end record.
        var end: Int64
    }

    static func readDirectory(_ source: ByteSource, size: Int64, name: String) throws -> [Entry] {
        let probe = try ZipArchive(probing: source, size: size, name: name)
        let directory = try probe.locateDirectory()
        // A directory entry takes at least 46 bytes: a count beyond that is damage, not a reason to allocate.
        guard directory.count <= directory.size / 46, directory.size <= 1 << 30 else {
            throw probe.error(
                "the central directory (\(directory.count) entries in \(directory.size) bytes) is damaged")
        }
        let bytes = try probe.bytes(at: directory.offset, count: Int(directory.size), what: "the central directory")
        return try probe.parseDirectory(bytes, count: Int(directory.count), base: directory.offset)
    }

    /// An archive without entries yet, to read its end records with.
    private init(probing source: ByteSource, size: Int64, name: String) throws {
        self.name = name
        self.source = source
        self.size = size
        descriptor = -1
        entries = []
    }
}

extension ZipArchive {
    /// Finds the end of central directory record (22 bytes and a comment of up to 65,535 bytes, at the end) and, when
    /// its locator precedes it, the zip64 end record.
    func locateDirectory() throws -> Directory {
        let tailCount = Int(min(size, 22 + 65_535))
        let tail = try bytes(at: size - Int64(tailCount), count: tailCount, what: "the end of the zip")
        var found: Int?
        var i = tailCount - 22
        while i >= 0 {
            if tail[i] == 0x50 && tail[i + 1] == 0x4B && tail[i + 2] == 5 && tail[i + 3] == 6 {
                // The record whose comment runs exactly to the end; else the last one (bytes appended after it).
                if i + 22 + Int(Self.u16(tail, i + 20)) == tailCount {
                    found = i
                    break
                }
                if found == nil { found = i }
            }
            i -= 1
        }
        guard let at = found else {
            throw error(
                "no end of central directory record: the zip is cut short (truncated) or not a zip (\(size) bytes)")
        }
        let endOffset = size - Int64(tailCount) + Int64(at)
        var directory = Directory(
            offset: Int64(Self.u32(tail, at + 16)), size: Int64(Self.u32(tail, at + 12)),
            count: Int64(Self.u16(tail, at + 10)), end: endOffset)
        if endOffset >= 20, try bytes(at: endOffset - 20, count: 4, what: "the zip64 locator") == [0x50, 0x4B, 6, 7] {
            try readZip64End(locator: endOffset - 20, into: &directory)
        } else if directory.offset == 0xFFFF_FFFF || directory.size == 0xFFFF_FFFF {
            throw error("the end record says zip64, but there is no zip64 end record locator before it")
        }
        guard directory.offset >= 0, directory.size >= 0, directory.offset <= directory.end - directory.size else {
            throw error(
                "the central directory (\(directory.size) bytes at byte \(directory.offset)) lies outside the "
                    + "archive: it is cut short (truncated) or damaged")
        }
        return directory
    }

    /// Reads the zip64 end record the locator at `locator` points to.
    func readZip64End(locator: Int64, into directory: inout Directory) throws {
        let loc = try bytes(at: locator, count: 20, what: "the zip64 locator")
        let recordOffset = Int64(truncatingIfNeeded: Self.u64(loc, 8))
        guard recordOffset >= 0, recordOffset <= locator - 56 else {
            throw error("the zip64 end record at byte \(recordOffset) lies outside the archive (truncated or damaged)")
        }
        let record = try bytes(at: recordOffset, count: 56, what: "the zip64 end record")
        guard Self.u32(record, 0) == 0x0606_4B50 else {
            throw error("no zip64 end record at byte \(recordOffset), where its locator points: the zip is damaged")
        }
        directory.count = Int64(truncatingIfNeeded: Self.u64(record, 32))
        directory.size = Int64(truncatingIfNeeded: Self.u64(record, 40))
        directory.offset = Int64(truncatingIfNeeded: Self.u64(record, 48))
        directory.end = recordOffset
        guard directory.count >= 0 else { throw error("the zip64 end record is damaged") }
    }

    /// The entries of the directory `b` (which starts at byte `base` of the archive).
    func parseDirectory(_ b: [UInt8], count: Int, base: Int64) throws -> [Entry] {
        var out: [Entry] = []
        out.reserveCapacity(count)
        var p = 0
        for k in 0..<count {
            guard p + 46 <= b.count, Self.u32(b, p) == 0x0201_4B50 else {
                throw error("central directory entry \(k + 1) of \(count) at byte \(base + Int64(p)) is damaged")
            }
            let nameLength = Int(Self.u16(b, p + 28))
            let extraLength = Int(Self.u16(b, p + 30))
            let next = p + 46 + nameLength + extraLength + Int(Self.u16(b, p + 32))
            guard next <= b.count else {
                throw error("central directory entry \(k + 1) of \(count) at byte \(base + Int64(p)) is cut short")
            }
            var entry = Entry(
                name: String(decoding: b[(p + 46)..<(p + 46 + nameLength)], as: UTF8.self),
                flags: Self.u16(b, p + 8), method: Self.u16(b, p + 10), crc32: Self.u32(b, p + 16),
                compressedSize: Int64(Self.u32(b, p + 20)), size: Int64(Self.u32(b, p + 24)),
                localHeaderOffset: Int64(Self.u32(b, p + 42)))
            try applyZip64(b, extra: (p + 46 + nameLength)..<(p + 46 + nameLength + extraLength), to: &entry)
            out.append(entry)
            p = next
        }
        return out
    }

    /// Reads the zip64 extra field (id 1) in `b[extra]`: a 64-bit value for each of size, compressed size and local
    /// header offset that the directory saturated (0xFFFFFFFF), in that order.
    func applyZip64(_ b: [UInt8], extra: Range<Int>, to entry: inout Entry) throws {
        let saturated: [WritableKeyPath<Entry, Int64>] = [\.size, \.compressedSize, \.localHeaderOffset].filter {
            entry[keyPath: $0] == 0xFFFF_FFFF
        }
        guard !saturated.isEmpty else { return }
        var q = extra.lowerBound
        while q + 4 <= extra.upperBound {
            let id = Self.u16(b, q)
            let length = Int(Self.u16(b, q + 2))
            guard q + 4 + length <= extra.upperBound else { break }
            if id == 1 {
                guard length >= 8 * saturated.count else { break }
                for (k, field) in saturated.enumerated() {
                    let value = Int64(truncatingIfNeeded: Self.u64(b, q + 4 + 8 * k))
                    guard value >= 0 else { throw error(entry, "its zip64 extra field holds a negative size") }
                    entry[keyPath: field] = value
                }
                return
            }
            q += 4 + length
        }
        throw error(entry, "sizes or offset saturated (0xFFFFFFFF) without a zip64 extra field giving them")
    }
}
