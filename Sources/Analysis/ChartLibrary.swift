import CRsvg
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// librsvg, and through it cairo and GLib, opened with dlopen when the first chart is drawn. Linked at build time they
/// were loaded by every command at start, chart or not: 37 → 77 shared libraries, every command's peak RSS 8.4 MB
/// higher and an idle agent's 2.7 MB (bench/chart_render_result.txt). The functions are the few the chart uses.
struct ChartLibrary: Sendable {
    let newFromData: rsvg_handle_new_from_data_fn
    let renderDocument: rsvg_handle_render_document_fn
    let surfaceCreate: cairo_image_surface_create_fn
    let surfaceStatus: cairo_surface_status_fn
    let surfaceData: cairo_image_surface_get_data_fn
    let surfaceStride: cairo_image_surface_get_stride_fn
    let surfaceFlush: cairo_surface_flush_fn
    let surfaceDestroy: cairo_surface_destroy_fn
    let create: cairo_create_fn
    let destroy: cairo_destroy_fn
    let objectUnref: g_object_unref_fn
    let errorFree: g_error_free_fn

    /// The library's soname in Debian's librsvg2-2 (which `librsvg2-dev` and `librsvg2-bin` bring).
    static let soname = "librsvg-2.so.2"

    /// Opened once per process, at the first use.
    static let shared: Result<ChartLibrary, RasterizeError> = {
        do throws(RasterizeError) { return .success(try open()) } catch { return .failure(error) }
    }()

    static func open() throws(RasterizeError) -> ChartLibrary {
        guard let handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL) else {
            let why = dlerror().map { String(cString: $0) } ?? "not found"
            throw RasterizeError(reason: "\(why) (Debian: apt install librsvg2-2 fonts-dejavu-core)")
        }
        // dlsym on librsvg's handle also finds the cairo and GLib functions of the libraries it depends on.
        func symbol<T>(_ name: String, as type: T.Type) throws(RasterizeError) -> T {
            guard let address = dlsym(handle, name) else {
                throw RasterizeError(reason: "\(soname) has no \(name)")
            }
            return unsafeBitCast(address, to: type)
        }
        return ChartLibrary(
            newFromData: try symbol("rsvg_handle_new_from_data", as: rsvg_handle_new_from_data_fn.self),
            renderDocument: try symbol("rsvg_handle_render_document", as: rsvg_handle_render_document_fn.self),
            surfaceCreate: try symbol("cairo_image_surface_create", as: cairo_image_surface_create_fn.self),
            surfaceStatus: try symbol("cairo_surface_status", as: cairo_surface_status_fn.self),
            surfaceData: try symbol("cairo_image_surface_get_data", as: cairo_image_surface_get_data_fn.self),
            surfaceStride: try symbol("cairo_image_surface_get_stride", as: cairo_image_surface_get_stride_fn.self),
            surfaceFlush: try symbol("cairo_surface_flush", as: cairo_surface_flush_fn.self),
            surfaceDestroy: try symbol("cairo_surface_destroy", as: cairo_surface_destroy_fn.self),
            create: try symbol("cairo_create", as: cairo_create_fn.self),
            destroy: try symbol("cairo_destroy", as: cairo_destroy_fn.self),
            objectUnref: try symbol("g_object_unref", as: g_object_unref_fn.self),
            errorFree: try symbol("g_error_free", as: g_error_free_fn.self))
    }
}
