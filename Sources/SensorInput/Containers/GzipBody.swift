import CZlib
import Foundation

/// A gzip-compressed body (`Content-Encoding: gzip`), inflated with the system zlib up to a size limit, so that a
/// small compressed request cannot grow into an unbounded one.
public enum GzipBody {
    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// Inflated, it is larger than the limit.
        case tooLarge(limit: Int)
        /// Not gzip data, or damaged.
        case damaged(String)

        public var description: String {
            switch self {
            case .tooLarge(let limit): return "the body inflates to more than \(limit) bytes"
            case .damaged(let why): return "the body is not valid gzip data (\(why))"
            }
        }
    }

    /// The inflated bytes of `data` (one gzip member, or several concatenated), at most `limit` of them.
    public static func inflate(_ data: Data, limit: Int) throws -> Data {
        var stream = z_stream()
        // 16 + 15: a gzip header and trailer around a deflate stream with a 32 KB window.
        guard inflateInit2_(&stream, 16 + 15, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw Failure.damaged("zlib would not start")
        }
        defer { inflateEnd(&stream) }
        guard !data.isEmpty else { throw Failure.damaged("it is empty") }
        var output = Data()
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        var input = [UInt8](data)
        var consumed = 0
        while true {
            let rc: Int32 = input.withUnsafeMutableBufferPointer { inBuf in
                chunk.withUnsafeMutableBufferPointer { outBuf in
                    stream.next_in = inBuf.baseAddress! + consumed
                    stream.avail_in = UInt32(inBuf.count - consumed)
                    stream.next_out = outBuf.baseAddress
                    stream.avail_out = UInt32(outBuf.count)
                    let rc = CZlib.inflate(&stream, Z_NO_FLUSH)
                    consumed = inBuf.count - Int(stream.avail_in)
                    return rc
                }
            }
            let produced = chunk.count - Int(stream.avail_out)
            guard output.count + produced <= limit else { throw Failure.tooLarge(limit: limit) }
            output.append(contentsOf: chunk[0..<produced])
            switch rc {
            case Z_STREAM_END:
                if consumed >= input.count { return output }
                // Another member follows.
                guard inflateReset(&stream) == Z_OK else { throw Failure.damaged("zlib would not reset") }
            case Z_OK, Z_BUF_ERROR:
                // No progress: the input ended before the gzip trailer.
                if produced == 0 && consumed >= input.count { break }
                continue
            default:
                throw Failure.damaged("zlib \(rc)")
            }
            if rc != Z_STREAM_END { break }
        }
        throw Failure.damaged("it ends before the gzip trailer")
    }
}
