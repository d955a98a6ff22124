#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a file line by line without creating a `String` per line: `read(2)` in 1 MiB chunks, `memchr` for line
/// ends, the partial last line of a chunk carried over. Strips a UTF-8 byte-order mark at the start and the `\r` of
/// CRLF line ends. A last line without a newline is still delivered (`complete == false`).
public struct LineReader {
    public static let defaultChunkSize = 1 << 20

    /// Calls `body` for every line with its bytes (without the line end), its 1-based line number and whether it
    /// ended with a newline. `body` returns `false` to stop early, leaving that line unconsumed. Returns the offset after the last consumed line.
    @discardableResult
    public static func forEachLine(
        path: String,
        startingAt offset: Int64 = 0,
        chunkSize: Int = defaultChunkSize,
        _ body: (_ line: UnsafeBufferPointer<UInt8>, _ number: Int, _ complete: Bool) throws -> Bool
    ) throws -> Int64 {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw InputError(file: path, message: openErrorMessage(errno)) }
        defer { close(fd) }
        var st = stat()
        if fstat(fd, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR {
            throw InputError(file: path, message: "is a directory, not a file")
        }
        if offset > 0 && lseek(fd, off_t(offset), SEEK_SET) < 0 {
            throw InputError(file: path, message: "cannot seek to byte \(offset)")
        }
        var capacity = max(chunkSize, 4096)
        var buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        defer { buffer.deallocate() }
        var filled = 0
        var lineNumber = 0
        var consumed: Int64 = offset
        var atFileStart = offset == 0
        var stop = false
        while !stop {
            if filled == capacity {  // one line longer than the buffer: grow
                let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity * 2)
                bigger.update(from: buffer, count: filled)
                buffer.deallocate()
                buffer = bigger
                capacity *= 2
            }
            let n = read(fd, buffer + filled, capacity - filled)
            if n < 0 {
                if errno == EINTR { continue }
                throw InputError(file: path, line: lineNumber + 1, message: "read failed: \(String(cString: strerror(errno)))")
            }
            let end = filled + n
            var start = 0
            if atFileStart && end >= 3 {
                if buffer[0] == 0xEF && buffer[1] == 0xBB && buffer[2] == 0xBF { start = 3 }
                atFileStart = false
            } else if atFileStart && n == 0 {
                atFileStart = false
            }
            while start < end {
                guard let nl = memchr(buffer + start, 0x0A, end - start) else { break }
                let nlIndex = buffer.distance(to: nl.assumingMemoryBound(to: UInt8.self))
                var lineEnd = nlIndex
                if lineEnd > start && buffer[lineEnd - 1] == 0x0D { lineEnd -= 1 }
                lineNumber += 1
                let keepGoing = try body(UnsafeBufferPointer(start: buffer + start, count: lineEnd - start), lineNumber, true)
                if !keepGoing { stop = true; break }
                consumed += Int64(nlIndex + 1 - start)
                start = nlIndex + 1
            }
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

    static func openErrorMessage(_ code: Int32) -> String {
        switch code {
        case ENOENT: return "no such file"
        case EACCES: return "permission denied"
        default: return String(cString: strerror(code))
        }
    }
}
