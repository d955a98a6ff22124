// librsvg (SVG -> cairo) and cairo's PNG writer, for drawing a window's chart as a PNG (Debian: librsvg2-dev, which
// brings libcairo2-dev). The include paths come from pkg-config's cairo, which also names GLib's.
#include <cairo.h>
#include <glib-object.h>

// librsvg's own header, <librsvg/rsvg.h>, needs GIO's and gdk-pixbuf's include paths, and their pkg-config flags carry
// -pthread, which SwiftPM refuses with a warning on every build. The two functions the chart uses are declared here
// as rsvg.h declares them (librsvg >= 2.46; Debian 12 has 2.54); the handle stays opaque.
typedef struct _RsvgHandle RsvgHandle;
typedef struct {
    double x;
    double y;
    double width;
    double height;
} RsvgRectangle;
RsvgHandle *rsvg_handle_new_from_data(const guint8 *data, gsize data_len, GError **error);
gboolean rsvg_handle_render_document(RsvgHandle *handle, cairo_t *cr, const RsvgRectangle *viewport, GError **error);
