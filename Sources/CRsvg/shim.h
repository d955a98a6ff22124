// The ABI of librsvg, cairo and GLib that a window's chart uses, as their own headers declare it (librsvg >= 2.46,
// cairo 1.x, GLib 2.x). Nothing here is linked: `ChartLibrary` opens librsvg (and through it cairo and GLib) with
// dlopen when the first chart is drawn, so a command or an agent that draws none does not load 40 more libraries.
#include <stddef.h>
#include <stdint.h>

typedef struct _RsvgHandle RsvgHandle;
typedef struct _cairo cairo_t;
typedef struct _cairo_surface cairo_surface_t;
typedef struct {
    double x;
    double y;
    double width;
    double height;
} RsvgRectangle;
typedef struct {
    uint32_t domain;
    int code;
    char *message;
} GError;

// cairo_format_t CAIRO_FORMAT_RGB24 and cairo_status_t CAIRO_STATUS_SUCCESS.
enum { CHART_CAIRO_FORMAT_RGB24 = 1, CHART_CAIRO_STATUS_SUCCESS = 0 };

typedef RsvgHandle *(*rsvg_handle_new_from_data_fn)(const uint8_t *data, size_t data_len, GError **error);
typedef int (*rsvg_handle_render_document_fn)(
    RsvgHandle *handle, cairo_t *cr, const RsvgRectangle *viewport, GError **error);
typedef cairo_surface_t *(*cairo_image_surface_create_fn)(int format, int width, int height);
typedef int (*cairo_surface_status_fn)(cairo_surface_t *surface);
typedef unsigned char *(*cairo_image_surface_get_data_fn)(cairo_surface_t *surface);
typedef int (*cairo_image_surface_get_stride_fn)(cairo_surface_t *surface);
typedef void (*cairo_surface_flush_fn)(cairo_surface_t *surface);
typedef void (*cairo_surface_destroy_fn)(cairo_surface_t *surface);
typedef cairo_t *(*cairo_create_fn)(cairo_surface_t *target);
typedef void (*cairo_destroy_fn)(cairo_t *cr);
typedef void (*g_object_unref_fn)(void *object);
typedef void (*g_error_free_fn)(GError *error);
