import CRsvg
import Foundation

/// Why an SVG could not be made into a PNG; `reason` is librsvg's, cairo's or zlib's own message.
public struct RasterizeError: Error, CustomStringConvertible {
    public var reason: String
    public var description: String { "cannot draw the chart: \(reason)" }
}

/// SVG text into PNG bytes through librsvg and cairo (the system libraries, `librsvg2-dev`), so the charts the project
/// already draws as SVGs are posted as the same pictures, with text shaped by Pango from the system's fonts
/// (`fonts-dejavu-core`) rather than by a hand-written rasteriser.
enum SVGRasterizer {
    /// Rows drawn at a time: the picture is drawn in horizontal strips into one small surface and each strip's rows
    /// are encoded before the next is drawn, so a 2400×1350 chart needs 2.6 MB of pixels rather than 13 MB.
    static let stripRows = 270

    /// `svg` drawn to fill `width` × `height` pixels (its viewBox scaled to them), as an 8-bit RGB PNG (opaque: the
    /// charts paint their background).
    static func png(svg: String, width: Int, height: Int) throws(RasterizeError) -> Data {
        let lib = try ChartLibrary.shared.get()
        var gError: UnsafeMutablePointer<GError>?
        let bytes = Array(svg.utf8)
        guard
            let handle = bytes.withUnsafeBufferPointer({ lib.newFromData($0.baseAddress, $0.count, &gError) })
        else { throw RasterizeError(reason: takeMessage(gError, lib)) }
        defer { lib.objectUnref(UnsafeMutableRawPointer(handle)) }

        let rows = min(stripRows, height)
        guard let surface = lib.surfaceCreate(Int32(CHART_CAIRO_FORMAT_RGB24), Int32(width), Int32(rows)),
            lib.surfaceStatus(surface) == Int32(CHART_CAIRO_STATUS_SUCCESS),
            let pixels = lib.surfaceData(surface)
        else { throw RasterizeError(reason: "no image surface of \(width)×\(rows)") }
        defer { lib.surfaceDestroy(surface) }
        let stride = Int(lib.surfaceStride(surface))
        let encoder = try PNGStreamEncoder(width: width, height: height)
        for top in Swift.stride(from: 0, to: height, by: rows) {
            // The whole document, moved up by `top`: cairo keeps what falls on the strip.
            var viewport = RsvgRectangle(x: 0, y: Double(-top), width: Double(width), height: Double(height))
            let context = lib.create(surface)
            let drawn = lib.renderDocument(handle, context, &viewport, &gError)
            lib.destroy(context)
            guard drawn != 0 else { throw RasterizeError(reason: takeMessage(gError, lib)) }
            lib.surfaceFlush(surface)
            for y in 0..<min(rows, height - top) {
                try encoder.addRow(UnsafeRawPointer(pixels + y * stride).assumingMemoryBound(to: UInt32.self))
            }
        }
        return try encoder.finish()
    }

    /// The message of a GLib error, which is freed.
    private static func takeMessage(_ error: UnsafeMutablePointer<GError>?, _ lib: ChartLibrary) -> String {
        guard let error else { return "librsvg failed without saying why" }
        defer { lib.errorFree(error) }
        return error.pointee.message.map { String(cString: $0) } ?? "librsvg failed without saying why"
    }
}
