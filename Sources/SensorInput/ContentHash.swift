import CZlib

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A followed file's bytes before its cursor's offset, as their CRC-32 and Adler-32 (zlib's, each going on from where
/// it stopped, so a read adds only the bytes it consumed): a file replaced by a copy of the same bytes (an export
/// downloaded again and renamed over the one read) is known by its size and these without reading its records.
struct ContentHash: Codable, Sendable, Equatable {
    var crc: UInt32 = 0
    var adler: UInt32 = 1

    /// This hash gone on over the bytes `[from, to)` of the file open as `fd`; nil when they cannot all be read.
    func extended(fd: Int32, from: Int64, to: Int64) -> ContentHash? {
        var out = self
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var at = from
        while at < to {
            let want = Int(min(Int64(buffer.count), to - at))
            let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, want, off_t(at)) }
            guard n > 0 else { return nil }
            buffer.withUnsafeBufferPointer { b in
                out.crc = UInt32(truncatingIfNeeded: CZlib.crc32(UInt(out.crc), b.baseAddress, UInt32(n)))
                out.adler = UInt32(truncatingIfNeeded: CZlib.adler32(UInt(out.adler), b.baseAddress, UInt32(n)))
            }
            at += Int64(n)
        }
        return out
    }
}
