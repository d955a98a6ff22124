import CRsvg
import Foundation

/// Why an SVG could not be made into a PNG; `reason` is librsvg's or cairo's own message.
public struct RasterizeError: Error, CustomStringConvertible {
    public var reason: String
    public var description: String { "cannot draw the chart: \(reason)" }
}

/// SVG text into PNG bytes through librsvg and cairo (the system libraries, `librsvg2-dev`), so the charts the project
/// already draws as SVGs are posted as the same pictures, with text shaped by Pango from the system's fonts
/// (`fonts-dejavu-core`) rather than by a hand-written rasteriser.
enum SVGRasterizer {
    /// `svg` drawn to fill `width` × `height` pixels (its viewBox scaled to them), as an 8-bit RGBA PNG.
    static func png(svg: String, width: Int, height: Int) throws(RasterizeError) -> Data {
        var gError: UnsafeMutablePointer<GError>?
        let bytes = Array(svg.utf8)
        guard
            let handle = bytes.withUnsafeBufferPointer({
                rsvg_handle_new_from_data($0.baseAddress, gsize($0.count), &gError)
            })
        else { throw RasterizeError(reason: takeMessage(gError)) }
        defer { g_object_unref(UnsafeMutableRawPointer(handle)) }

        guard let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(width), Int32(height)) else {
            throw RasterizeError(reason: "no image surface of \(width)×\(height)")
        }
        defer { cairo_surface_destroy(surface) }
        let context = cairo_create(surface)
        defer { cairo_destroy(context) }
        var viewport = RsvgRectangle(x: 0, y: 0, width: Double(width), height: Double(height))
        guard rsvg_handle_render_document(handle, context, &viewport, &gError) != 0 else {
            throw RasterizeError(reason: takeMessage(gError))
        }
        cairo_surface_flush(surface)

        let sink = PNGSink()
        let status = cairo_surface_write_to_png_stream(
            surface,
            { closure, data, length in
                guard let closure, let data else { return CAIRO_STATUS_WRITE_ERROR }
                Unmanaged<PNGSink>.fromOpaque(closure).takeUnretainedValue().bytes.append(data, count: Int(length))
                return CAIRO_STATUS_SUCCESS
            }, Unmanaged.passUnretained(sink).toOpaque())
        guard status == CAIRO_STATUS_SUCCESS else {
            throw RasterizeError(reason: String(cString: cairo_status_to_string(status)))
        }
        return sink.bytes
    }

    /// Where cairo's PNG writer puts its chunks (a class: the C callback gets a pointer to it).
    private final class PNGSink {
        var bytes = Data()
    }

    /// The message of a GLib error, which is freed.
    private static func takeMessage(_ error: UnsafeMutablePointer<GError>?) -> String {
        guard let error else { return "librsvg failed without saying why" }
        defer { g_error_free(error) }
        return error.pointee.message.map { String(cString: $0) } ?? "librsvg failed without saying why"
    }
}
