import CZlib
import Foundation

/// An 8-bit RGB PNG written row by row through zlib's deflate, so a picture drawn in strips is encoded without ever
/// holding all its pixels. Every row uses PNG's "Up" filter: a chart is mostly flat colour, which it turns into zeros
/// that deflate packs tightly, and one filter for every row costs a fraction of libpng's per-row choice among five
/// (cairo's PNG writer spends most of a chart's drawing time there).
final class PNGStreamEncoder {
    let width: Int
    let height: Int
    /// At a fixed address: zlib's state points back at its stream and refuses one that moved.
    private let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
    /// The previous row's RGB bytes (zeros before the first), which "Up" subtracts.
    private var previous: [UInt8]
    private var row: [UInt8]
    private var compressed = Data()
    private var chunk = [UInt8](repeating: 0, count: 64 << 10)
    private var rowsAdded = 0

    init(width: Int, height: Int) throws(RasterizeError) {
        self.width = width
        self.height = height
        previous = [UInt8](repeating: 0, count: width * 3)
        row = [UInt8](repeating: 0, count: 1 + width * 3)
        stream.initialize(to: z_stream())
        guard deflateInit_(stream, 6, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            stream.deallocate()
            throw RasterizeError(reason: "zlib would not start")
        }
    }

    deinit {
        deflateEnd(stream)
        stream.deallocate()
    }

    /// Adds the next row from cairo's RGB24 pixels: one native-endian 32-bit word per pixel, `0x00RRGGBB`.
    func addRow(_ pixels: UnsafePointer<UInt32>) throws(RasterizeError) {
        let width = width
        row.withUnsafeMutableBufferPointer { row in
            previous.withUnsafeMutableBufferPointer { previous in
                row[0] = 2  // Up
                for x in 0..<width {
                    let p = pixels[x]
                    let (r, g, b) = (
                        UInt8(truncatingIfNeeded: p >> 16), UInt8(truncatingIfNeeded: p >> 8),
                        UInt8(truncatingIfNeeded: p)
                    )
                    let i = 3 * x
                    (row[1 + i], row[2 + i], row[3 + i]) = (
                        r &- previous[i], g &- previous[i + 1], b &- previous[i + 2]
                    )
                    (previous[i], previous[i + 1], previous[i + 2]) = (r, g, b)
                }
            }
        }
        rowsAdded += 1
        try deflateRow(flush: rowsAdded == height ? Z_FINISH : Z_NO_FLUSH)
    }

    private func deflateRow(flush: Int32) throws(RasterizeError) {
        var status = Z_OK
        let stream = stream
        row.withUnsafeMutableBufferPointer { input in
            stream.pointee.next_in = input.baseAddress
            stream.pointee.avail_in = UInt32(input.count)
            repeat {
                let produced = chunk.withUnsafeMutableBufferPointer { output in
                    stream.pointee.next_out = output.baseAddress
                    stream.pointee.avail_out = UInt32(output.count)
                    status = deflate(stream, flush)
                    return output.count - Int(stream.pointee.avail_out)
                }
                compressed.append(contentsOf: chunk[0..<produced])
            } while status == Z_OK
                && (stream.pointee.avail_in > 0 || stream.pointee.avail_out == 0 || flush == Z_FINISH)
        }
        guard status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR else {
            throw RasterizeError(reason: "zlib deflate failed (\(status))")
        }
    }

    /// The whole file: signature, IHDR, one IDAT with every row, IEND. Every row must have been added.
    func finish() throws(RasterizeError) -> Data {
        guard rowsAdded == height else {
            throw RasterizeError(reason: "\(rowsAdded) of \(height) rows were drawn")
        }
        var file = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        var header = Data()
        header.appendBigEndian(UInt32(width))
        header.appendBigEndian(UInt32(height))
        header.append(contentsOf: [8, 2, 0, 0, 0])  // 8 bits, RGB, deflate, no filter choice, no interlace
        Self.appendChunk("IHDR", header, to: &file)
        Self.appendChunk("IDAT", compressed, to: &file)
        Self.appendChunk("IEND", Data(), to: &file)
        return file
    }

    /// Length, type, data and the CRC-32 (zlib's) of type and data.
    private static func appendChunk(_ type: String, _ data: Data, to file: inout Data) {
        file.appendBigEndian(UInt32(data.count))
        let typed = Data(type.utf8) + data
        file.append(typed)
        let crc = typed.withUnsafeBytes { crc32(0, $0.bindMemory(to: UInt8.self).baseAddress, UInt32($0.count)) }
        file.appendBigEndian(UInt32(crc))
    }
}

extension Data {
    fileprivate mutating func appendBigEndian(_ value: UInt32) {
        append(contentsOf: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) })
    }
}
