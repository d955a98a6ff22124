import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The byte ranges of `CSVChunkParser` cut from a zip entry as it is inflated: an inflated entry has no offsets to
/// `pread` at, and inflating it whole first held all of it (a day at 100 Hz is about 500 MB of CSV). Inflating is
/// sequential, so ranges are cut in order, under a lock, by whichever parsing thread asks first; a range asked for
/// ahead of the one cut next waits in `cut` for the thread it belongs to. `Parallelism.ordered` asks for at most its
/// window of ranges ahead of the one being delivered, so the entry is held that many ranges at a time.
///
/// A range holds exactly the bytes `ByteSource.read` gives the parser (from one byte before its start, through the
/// newline at or after its last byte, or to the entry's end), so the samples are those of the unzipped file.
final class InflatedRanges: @unchecked Sendable {
    private let lock = NSLock()
    private let reader: ZipEntryReader
    private let name: String
    private let begin: Int64
    private let limitEnd: Int64
    private let chunkBytes: Int64
    /// Inflated bytes not yet cut, from entry offset `bufferStart`; `filled` of them.
    private var buffer: ByteBuffer
    private var bufferStart: Int64 = 0
    private var filled = 0
    private var atEnd = false
    /// The next range to cut, and the ranges cut ahead of their parser.
    private var next = 0
    private var cut: [Int: (ByteBuffer, Int)] = [:]
    private var failure: InputError?

    /// Ranges of `chunkBytes` of the lines starting in `begin..<limitEnd` of `entry`.
    init(_ entry: ZipEntrySource, begin: Int64, limitEnd: Int64, chunkBytes: Int64) throws {
        reader = try entry.open()
        name = entry.name
        self.begin = begin
        self.limitEnd = limitEnd
        self.chunkBytes = chunkBytes
        buffer = ByteBuffer(capacity: Int(min(max(chunkBytes, 64 << 10), 4 << 20)))
    }

    deinit {
        buffer.free()
        for (piece, _) in cut.values { piece.free() }
    }

    /// Range `k`'s bytes, in a buffer the caller frees, and how many it holds (the byte after them is free for a
    /// sentinel).
    func range(_ k: Int) throws -> (ByteBuffer, Int) {
        lock.lock()
        defer { lock.unlock() }
        while next <= k, failure == nil {
            do {
                let piece = try cutNext()
                if next == k + 1 { return piece }
                cut[next - 1] = piece
            } catch let e as InputError {
                failure = e
            } catch {
                failure = InputError(file: name, message: "\(error)")
            }
        }
        if let piece = cut.removeValue(forKey: k) { return piece }
        throw failure ?? InputError(file: name, message: "range \(k) was asked for twice")
    }

    /// Reads the entry to its end, so that its size and CRC-32 are checked when the ranges stopped before it.
    func finish() throws {
        lock.lock()
        defer { lock.unlock() }
        if let failure { throw failure }
        while !atEnd {
            filled = 0
            try inflateMore()
        }
    }

    /// Cuts range `next` (lock held).
    private func cutNext() throws -> (ByteBuffer, Int) {
        let start = begin + Int64(next) * chunkBytes
        let stop = min(start + chunkBytes, limitEnd)
        let from = next == 0 ? start : start - 1
        // Skip to `from` (the head the line reader read, before range 0).
        while bufferStart + Int64(filled) < from && !atEnd {
            let drop = Int(min(Int64(filled), from - bufferStart))
            discard(drop)
            if bufferStart + Int64(filled) < from { try inflateMore() }
        }
        discard(Int(max(0, min(Int64(filled), from - bufferStart))))
        // Through the newline at or after the range's last byte, or to the entry's end.
        var searchFrom = Int(max(0, stop - 1 - bufferStart))
        var end: Int?
        while true {
            if searchFrom < filled, let nl = memchr(buffer.base + searchFrom, 0x0A, filled - searchFrom) {
                end = buffer.base.distance(to: nl.assumingMemoryBound(to: UInt8.self)) + 1
                break
            }
            if atEnd { break }
            searchFrom = max(searchFrom, filled)
            try inflateMore()
        }
        let length = end ?? filled
        let piece = ByteBuffer(capacity: length + 1)
        piece.base.update(from: buffer.base, count: length)
        next += 1
        // The next range starts one byte before this one's end; nothing before it is needed again.
        discard(Int(max(0, min(Int64(filled), stop - 1 - bufferStart))))
        return (piece, length)
    }

    /// Drops the first `count` bytes of the buffer.
    private func discard(_ count: Int) {
        guard count > 0 else { return }
        if count < filled { memmove(buffer.base, buffer.base + count, filled - count) }
        filled -= count
        bufferStart += Int64(count)
    }

    /// Inflates more of the entry after the buffer's bytes (growing it when full); sets `atEnd` at the entry's end.
    private func inflateMore() throws {
        if buffer.capacity - filled < 4096 { buffer.reserve(buffer.capacity * 2, keeping: filled) }
        let n = try reader.read(into: buffer.base + filled, count: buffer.capacity - filled)
        if n == 0 { atEnd = true }
        filled += n
    }
}
