import CZlib
import Foundation

/// An SVG drawn into pixels by `rsvg-convert` (Debian package `librsvg2-bin`, which `make test` installs), so that a
/// test can look at a picture where a person would: is the band visible, is a tick inside the frame.
public struct RasterImage: Sendable {
    public struct Pixel: Equatable, Sendable, CustomStringConvertible {
        public var r, g, b, a: UInt8
        public var description: String { "rgba(\(r), \(g), \(b), \(a))" }
    }

    public let width: Int
    public let height: Int
    /// Four bytes a pixel, row after row.
    let rgba: [UInt8]

    public func pixel(x: Int, y: Int) -> Pixel {
        let i = (y * width + x) * 4
        return Pixel(r: rgba[i], g: rgba[i + 1], b: rgba[i + 2], a: rgba[i + 3])
    }

    /// Raised when a picture cannot be made or read; its description is the one line a failing test shows.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The SVG file at `path` as pixels at its own size (through a PNG beside it, removed afterwards); rsvg-convert
    /// is waited for on a thread of its own (`offThePool`).
    public static func rasterize(svg path: String) async throws -> RasterImage {
        let search = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        guard let tool = search.map({ "\($0)/rsvg-convert" }).first(where: FileManager.default.isExecutableFile)
        else {
            throw Failure(
                description: "needs rsvg-convert to look at the plot: apt-get install librsvg2-bin (`make test` does)")
        }
        let png = path + ".png"
        defer { try? FileManager.default.removeItem(atPath: png) }
        let status = try await offThePool {
            let process = ChildProcess()
            process.executableURL = URL(fileURLWithPath: tool)
            process.arguments = ["--format", "png", "--output", png, path]
            try process.run()
            process.waitUntilExit()
            return process.terminationStatus
        }
        guard status == 0 else { throw Failure(description: "rsvg-convert \(path) exited \(status)") }
        return try decodePNG([UInt8](try Data(contentsOf: URL(fileURLWithPath: png))))
    }

    /// An 8-bit RGB or RGBA PNG without interlacing, as rsvg-convert and cairo write them.
    public static func decodePNG(_ bytes: [UInt8]) throws -> RasterImage {
        func be32(_ i: Int) -> Int { bytes[i..<i + 4].reduce(0) { $0 << 8 | Int($1) } }
        guard bytes.count > 33, bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) else {
            throw Failure(description: "not a PNG")
        }
        let (width, height, depth, color, interlace) = (be32(16), be32(20), bytes[24], bytes[25], bytes[28])
        guard depth == 8, color == 6 || color == 2, interlace == 0 else {
            throw Failure(description: "PNG of bit depth \(depth), colour type \(color), interlace \(interlace)")
        }
        var compressed: [UInt8] = []
        var at = 8
        while at + 8 <= bytes.count {
            let length = be32(at)
            if bytes[at + 4..<at + 8].elementsEqual("IDAT".utf8) { compressed += bytes[at + 8..<at + 8 + length] }
            at += 12 + length
        }
        let channels = color == 6 ? 4 : 3
        let stride = width * channels
        var raw = [UInt8](repeating: 0, count: height * (stride + 1))
        var size = uLongf(raw.count)
        guard uncompress(&raw, &size, compressed, uLong(compressed.count)) == Z_OK, Int(size) == raw.count else {
            throw Failure(description: "PNG data does not inflate to \(width)×\(height)")
        }
        let rows = unfilter(raw, rows: height, stride: stride, channels: channels)
        var rgba = [UInt8](repeating: 255, count: width * height * 4)
        for p in 0..<width * height {
            for c in 0..<channels { rgba[p * 4 + c] = rows[p * channels + c] }
        }
        return RasterImage(width: width, height: height, rgba: rgba)
    }

    /// Undoes PNG's per-row filters (none, sub, up, average, Paeth); the result has no filter bytes.
    static func unfilter(_ raw: [UInt8], rows: Int, stride: Int, channels: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: rows * stride)
        for row in 0..<rows {
            let filter = raw[row * (stride + 1)]
            for i in 0..<stride {
                let x = raw[row * (stride + 1) + 1 + i]
                let a = i >= channels ? Int(out[row * stride + i - channels]) : 0
                let b = row > 0 ? Int(out[(row - 1) * stride + i]) : 0
                let c = i >= channels && row > 0 ? Int(out[(row - 1) * stride + i - channels]) : 0
                let predicted: Int
                switch filter {
                case 1: predicted = a
                case 2: predicted = b
                case 3: predicted = (a + b) / 2
                case 4:
                    let p = a + b - c
                    let (pa, pb, pc) = (abs(p - a), abs(p - b), abs(p - c))
                    predicted = pa <= pb && pa <= pc ? a : pb <= pc ? b : c
                default: predicted = 0
                }
                out[row * stride + i] = UInt8(truncatingIfNeeded: Int(x) + predicted)
            }
        }
        return out
    }
}
