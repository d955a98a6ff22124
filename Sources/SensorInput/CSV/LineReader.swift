import WallTime

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The UTF-8 byte-order mark a spreadsheet's "CSV UTF-8" and some exports begin with: a reader skips it, and counts
/// it as read.
package enum ByteOrderMark {
    static let utf8: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// 3 when `bytes` begin with the mark, else 0.
    package static func length(_ bytes: some Collection<UInt8>) -> Int {
        bytes.starts(with: utf8) ? utf8.count : 0
    }
}

/// Reads a file line by line without creating a `String` per line: `read(2)` in 1 MiB chunks, `memchr` for line
/// ends, the partial last line of a chunk carried over. Strips a UTF-8 byte-order mark at the start and the `\r` of
/// CRLF line ends. A last line without a newline is still delivered (`complete == false`).
public struct LineReader {
    public static let defaultChunkSize = 1 << 20

    /// Calls `body` for every line with its bytes (without the line end), its 1-based line number and whether it
    /// ended with a newline. `body` returns `false` to stop early, leaving that line unconsumed. Returns the offset
    /// after the last consumed line.
    @discardableResult
    public static func forEachLine(
        path: String,
        startingAt offset: Int64 = 0,
        chunkSize: Int = defaultChunkSize,
        progress: Bool = false,
        _ body: (_ line: UnsafeBufferPointer<UInt8>, _ number: Int, _ complete: Bool) throws -> Bool
    ) throws -> Int64 {
        let (fd, size) = try openFile(path, at: offset)
        defer { close(fd) }
        return try forEachLine(size: size, startingAt: offset, chunkSize: chunkSize, progress: progress, body) {
            buffer, count in
            while true {
                let n = read(fd, buffer, count)
                if n >= 0 { return n }
                if errno != EINTR {
                    throw InputError(file: path, message: "read failed: \(String(cString: strerror(errno)))")
                }
            }
        }
    }

    /// The same over a stream of `size` bytes (for the progress line) whose bytes from `offset` on `read` delivers
    /// (up to `count` into a buffer; 0 at the end): a file, or a zip entry inflated as it goes.
    static func forEachLine(
        size: Int64, startingAt offset: Int64, chunkSize: Int, progress: Bool,
        _ body: (_ line: UnsafeBufferPointer<UInt8>, _ number: Int, _ complete: Bool) throws -> Bool,
        read: (_ buffer: UnsafeMutablePointer<UInt8>, _ count: Int) throws -> Int
    ) throws -> Int64 {
        var meter = ProgressMeter(total: size, enabled: progress)
        defer { meter.finish() }
        var storage = ByteBuffer(capacity: max(chunkSize, 4096))
        defer { storage.free() }
        var filled = 0
        var lineNumber = 0
        var consumed: Int64 = offset
        var atFileStart = offset == 0
        var stop = false
        while !stop {
            // A line longer than the buffer: grow it.
            if filled == storage.capacity { storage.reserve(2 * filled, keeping: filled) }
            let buffer = storage.base
            let n = try read(buffer + filled, storage.capacity - filled)
            let end = filled + n
            meter.advance(Int64(n))
            var start = 0
            if atFileStart && (end >= 3 || n == 0) {
                start = ByteOrderMark.length(UnsafeBufferPointer(start: buffer, count: end))
                consumed += Int64(start)  // read: the offset returned is where the next read starts
                atFileStart = false
            }
            (start, stop) = try completeLines(
                buffer, from: start, to: end, lineNumber: &lineNumber, consumed: &consumed, body)
            if stop { break }
            if n == 0 {  // end of file: a last line without newline
                if start < end {
                    var lineEnd = end
                    if buffer[lineEnd - 1] == 0x0D { lineEnd -= 1 }
                    lineNumber += 1
                    if try body(UnsafeBufferPointer(start: buffer + start, count: lineEnd - start), lineNumber, false) {
                        consumed += Int64(end - start)
                    }
                }
                break
            }
            filled = end - start
            if filled > 0 && start > 0 { memmove(buffer, buffer + start, filled) }
        }
        return consumed
    }

    /// Hands `body` every line that ends with a newline in `buffer[start..<end]`, counting lines and consumed bytes;
    /// returns where the bytes not yet delivered begin, and whether `body` asked to stop.
    @inline(__always)
    static func completeLines(
        _ buffer: UnsafeMutablePointer<UInt8>, from start: Int, to end: Int, lineNumber: inout Int,
        consumed: inout Int64,
        _ body: (_ line: UnsafeBufferPointer<UInt8>, _ number: Int, _ complete: Bool) throws -> Bool
    ) rethrows -> (next: Int, stop: Bool) {
        var start = start
        while start < end {
            guard let nl = memchr(buffer + start, 0x0A, end - start) else { break }
            let nlIndex = buffer.distance(to: nl.assumingMemoryBound(to: UInt8.self))
            var lineEnd = nlIndex
            if lineEnd > start && buffer[lineEnd - 1] == 0x0D { lineEnd -= 1 }
            lineNumber += 1
            guard try body(UnsafeBufferPointer(start: buffer + start, count: lineEnd - start), lineNumber, true) else {
                return (start, true)
            }
            consumed += Int64(nlIndex + 1 - start)
            start = nlIndex + 1
        }
        return (start, false)
    }

    /// Opens a regular file for reading at `offset`; returns the descriptor and the file's size.
    static func openFile(_ path: String, at offset: Int64) throws -> (Int32, Int64) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw InputError.unreadable(path, errno: errno) }
        var st = stat()
        if fstat(fd, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR {
            close(fd)
            throw InputError(file: path, message: "is a directory, not a file")
        }
        if offset > 0 && lseek(fd, off_t(offset), SEEK_SET) < 0 {
            close(fd)
            throw InputError(file: path, message: "cannot seek to byte \(offset)")
        }
        return (fd, Int64(st.st_size))
    }

    static func openErrorMessage(_ code: Int32) -> String {
        switch code {
        case ENOENT: return "no such file"
        case EACCES: return "permission denied"
        default: return String(cString: strerror(code))
        }
    }
}

/// A progress line (bytes, rate, ETA) on standard error, for inputs over `threshold` bytes, only when standard
/// error is a terminal; redrawn at most every half second.
struct ProgressMeter {
    static let threshold: Int64 = 50_000_000
    let total: Int64
    let active: Bool
    var done: Int64 = 0
    /// Time since the meter started, on the system clock: a progress line needs no injected one (it draws only on a
    /// terminal).
    let stopwatch = WallClock.system.stopwatch()
    var lastDraw = 0.0

    init(total: Int64, enabled: Bool, isTerminal: Bool = isatty(2) == 1) {
        self.total = total
        active = enabled && isTerminal && total > Self.threshold
    }

    /// Seconds since the meter started.
    func elapsed() -> Double {
        stopwatch.elapsed().timeInterval
    }

    /// The line shown after `done` of `total` bytes in `elapsed` seconds.
    static func line(done: Int64, total: Int64, elapsed: Double) -> String {
        let mb = Double(done) / 1e6
        let rate = elapsed > 0 ? mb / elapsed : 0
        let eta = rate > 0 ? Double(total - done) / 1e6 / rate : 0
        return "reading: \(Int(mb)) / \(Int(Double(total) / 1e6)) MB, \(Int(rate)) MB/s, ETA \(Int(eta.rounded())) s"
    }

    mutating func advance(_ bytes: Int64) {
        guard active else { return }
        done += bytes
        let t = elapsed()
        if t - lastDraw < 0.5 { return }
        lastDraw = t
        let text = "\r" + Self.line(done: done, total: total, elapsed: t) + "\u{1B}[K"
        _ = text.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
    }

    func finish() {
        guard active else { return }
        _ = "\r\u{1B}[K".utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
    }
}

extension LineReader {
    /// The same as `forEachLine(path:)` over bytes in memory (BOM, CRLF and an unterminated last line handled alike).
    @discardableResult
    public static func forEachLine(
        bytes: UnsafeBufferPointer<UInt8>,
        startingAt offset: Int64 = 0,
        _ body: (_ line: UnsafeBufferPointer<UInt8>, _ number: Int, _ complete: Bool) throws -> Bool
    ) rethrows -> Int64 {
        guard let base = bytes.baseAddress, offset < bytes.count else { return max(0, min(offset, Int64(bytes.count))) }
        var start = Int(max(0, offset))
        let end = bytes.count
        if start == 0 { start = ByteOrderMark.length(bytes) }
        var consumed = Int64(start)
        var lineNumber = 0
        while start < end {
            if let nl = memchr(base + start, 0x0A, end - start) {
                let nlIndex = base.distance(to: nl.assumingMemoryBound(to: UInt8.self))
                var lineEnd = nlIndex
                if lineEnd > start && base[lineEnd - 1] == 0x0D { lineEnd -= 1 }
                lineNumber += 1
                if try !body(UnsafeBufferPointer(start: base + start, count: lineEnd - start), lineNumber, true) {
                    break
                }
                consumed = Int64(nlIndex + 1)
                start = nlIndex + 1
            } else {
                var lineEnd = end
                if base[lineEnd - 1] == 0x0D { lineEnd -= 1 }
                lineNumber += 1
                if try body(UnsafeBufferPointer(start: base + start, count: lineEnd - start), lineNumber, false) {
                    consumed = Int64(end)
                }
                break
            }
        }
        return consumed
    }
}

/// Where lines come from: a file (read in chunks) or bytes in memory (fuzzing, pushed data).
/// Counts the bytes of the lines a reader consumes against `ReadOptions.byteLimit`: the next line is refused (left
/// for the next read) once the limit is reached, so a read ends on a line boundary.
struct ByteBudget {
    var left: Int64?
    /// A line was refused: the read stopped at the limit with more to read.
    var refused = false

    init(_ limit: Int64?) { left = limit }

    /// Whether a line of `count` bytes may still be consumed; counts it when so.
    @inline(__always) mutating func admit(_ count: Int) -> Bool {
        guard let l = left else { return true }
        if l <= 0 {
            refused = true
            return false
        }
        left = l - Int64(count + 1)
        return true
    }
}

public enum LineSource: Sendable {
    case file
    case memory([UInt8])
    /// An entry of a zip, inflated as it is read (`path` is then only its name).
    case zipEntry(ZipEntrySource)

    func forEachLine(
        path: String, startingAt offset: Int64 = 0, chunkSize: Int = LineReader.defaultChunkSize,
        progress: Bool = false,
        _ body: (_ line: UnsafeBufferPointer<UInt8>, _ number: Int, _ complete: Bool) throws -> Bool
    ) throws -> Int64 {
        switch self {
        case .file:
            return try LineReader.forEachLine(
                path: path, startingAt: offset, chunkSize: chunkSize, progress: progress, body)
        case .memory(let bytes):
            return try bytes.withUnsafeBufferPointer { try LineReader.forEachLine(bytes: $0, startingAt: offset, body) }
        case .zipEntry(let member):
            // An inflated entry has no offsets to go on from: it is read whole (follow mode refuses zips).
            guard offset == 0 else { throw InputError(file: path, message: "a zip entry is read from its start") }
            return try LineReader.forEachLine(
                size: member.entry.size, startingAt: 0, chunkSize: chunkSize, progress: progress, body,
                read: try member.open().read)
        }
    }

    /// The first `count` bytes of the input (fewer when it is shorter), for recognising binary content.
    func head(path: String, count: Int = 4096) throws -> [UInt8] {
        switch self {
        case .file: return BinarySniff.head(of: path, count: count)
        case .memory(let bytes): return Array(bytes.prefix(count))
        case .zipEntry(let member): return try member.open().readAll(limit: count)
        }
    }

    /// The size of the input in bytes (a zip entry's uncompressed size).
    func size(path: String) -> Int {
        switch self {
        case .file: return BinarySniff.size(of: path)
        case .memory(let bytes): return bytes.count
        case .zipEntry(let member): return Int(member.entry.size)
        }
    }
}

/// Bytes at offsets of an input: a file read with `pread(2)` (several threads may read at once), or bytes in memory.
enum ByteSource: @unchecked Sendable {
    case file(Int32)
    case memory([UInt8])

    /// Reads `count` bytes at `offset` into `buffer`, then more until a newline lies at or after index `index` (or
    /// the input ends); returns how many bytes the buffer holds. The first read also fills the room the buffer has
    /// beyond `count` (a range parser allocates a few KiB to spare), which almost always holds the end of the last
    /// line: one `pread` per range instead of two. `ifALineStarts`: read on only when a line starts in the range (a
    /// newline before `index`); a range inside one long line (a logger's file padded with NULs) holds none of its
    /// lines, and reading the rest of that line for each such range made the file quadratic.
    func read(
        _ buffer: inout ByteBuffer, at offset: Int64, count wanted: Int, throughLineEndAtOrAfter index: Int,
        ifALineStarts: Bool = false
    ) throws -> Int {
        buffer.reserve(wanted, keeping: 0)
        let first = buffer.capacity  // at least `wanted`
        var count = try read(into: buffer.base, at: offset, count: first)
        guard count == first else { return count }  // the input ended
        if ifALineStarts && memchr(buffer.base, 0x0A, min(count, max(0, index))) == nil { return count }
        var searchFrom = max(0, index)
        let step = min(64 * 1024, max(256, wanted))  // a small range (tests put one on every byte) reads small steps
        while true {
            if searchFrom < count, memchr(buffer.base + searchFrom, 0x0A, count - searchFrom) != nil { return count }
            searchFrom = count
            // The room left in the buffer, else a step more (the buffer grows, to at least double).
            let more = buffer.capacity - count >= 256 ? buffer.capacity - count : step
            buffer.reserve(count + more, keeping: count)
            let n = try read(into: buffer.base + count, at: offset + Int64(count), count: more)
            count += n
            if n < more { return count }
        }
    }

    /// Reads up to `count` bytes at `offset` into `buffer`; fewer only at the end of the input.
    func read(into buffer: UnsafeMutablePointer<UInt8>, at offset: Int64, count: Int) throws -> Int {
        switch self {
        case .memory(let bytes):
            guard offset < bytes.count else { return 0 }
            let n = min(count, bytes.count - Int(offset))
            bytes.withUnsafeBufferPointer { buffer.update(from: $0.baseAddress! + Int(offset), count: n) }
            return n
        case .file(let fd):
            var done = 0
            while done < count {
                let n = pread(fd, buffer + done, count - done, off_t(offset) + off_t(done))
                if n < 0 {
                    if errno == EINTR { continue }
                    throw InputError(file: "", message: "read failed: \(String(cString: strerror(errno)))")
                }
                if n == 0 { break }
                done += n
            }
            return done
        }
    }
}

/// A heap byte buffer with one byte to spare past its capacity (room for a sentinel), grown keeping its bytes: the
/// buffer of `LineReader` and of the CSV range parser.
struct ByteBuffer {
    private(set) var base: UnsafeMutablePointer<UInt8>
    private(set) var capacity: Int

    init(capacity: Int) {
        self.capacity = max(capacity, 64)
        base = .allocate(capacity: self.capacity + 1)
    }

    func free() { base.deallocate() }

    /// Makes room for `total` bytes (doubling), keeping the first `keeping`.
    mutating func reserve(_ total: Int, keeping: Int) {
        guard total > capacity else { return }
        let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: max(total, capacity * 2) + 1)
        bigger.update(from: base, count: keeping)
        base.deallocate()
        base = bigger
        capacity = max(total, capacity * 2)
    }
}
