// One shape for every tool: its state (the tool object), its overlay (what the canvas draws over
// the image), its input (pointer events in image coordinates), its parameters (declared once in
// the engine, read by the panel that binds to it), the document and device events it follows,
// its background work, and the frame it shows instead of the document. The session holds a list
// of tools and calls them all the same way; widgets only translate events and bind controls; the
// logic lives here, without Qt.
#pragma once

#include <lacuna/core/device_image.hpp>
#include <lacuna/core/image.hpp>
#include <lacuna/ops/brush.hpp>
#include <lacuna/ops/params.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace lacuna::session {

/// Pan has no tool object (the canvas pans). Filter is never the active tool: its preview shows
/// while the Filters panel is open, whatever tool is active. The order is stored by recovery
/// files: new kinds go at the end.
enum class ToolKind { Pan, RemoveObject, Retarget, LineHistogram, Filter, Regions };

/// How the document changed under the tools (after it was opened).
enum class DocumentChange {
    Edit,         ///< an edit, undo or redo
    VideoFrame,   ///< another frame of the clip replaced the pixels (masks kept)
    Page,         ///< another page of a measurement stack is shown
    Calibration,  ///< the measured values changed, the samples did not
};

/// A frame a tool shows instead of the document (a filter or retarget preview, the picture
/// before a fill). On the device path `device` is set; on the host path `host`. A measurement
/// document's preview is made of its 8-bit proxy pixels.
struct PreviewFrame {
    const DeviceImage<Rgba8>* device = nullptr;
    const ImageRgba8* host = nullptr;
    int width = 0;
    int height = 0;
    /// Changes whenever the frame's pixels do (the presenter uploads only then).
    std::uint64_t serial = 0;
};

/// A pointer event, in continuous image coordinates ((0, 0) is the top-left pixel's corner).
struct Pointer {
    double x = 0;
    double y = 0;
    bool shift = false;
    /// Image pixels per screen pixel, for hit tolerances given in screen pixels.
    double image_per_screen = 1.0;
};

/// A point of a scribble, in continuous image coordinates.
struct ScribblePoint {
    double x = 0;
    double y = 0;
};

/// What the canvas draws over the image for the active tool, in image coordinates.
struct Overlay {
    std::optional<int> mask_layer;  ///< the mask tinted (MaskLayer as int); none: no tint
    bool brush_ring = false;        ///< a ring of brush_radius around the pointer
    double brush_radius = 0;
    bool line = false;  ///< the line (pixel-centre coordinates) with its band and marker
    double line_from_x = 0, line_from_y = 0, line_to_x = 0, line_to_y = 0;
    int line_band = 1;
    std::optional<double> line_marker;  ///< fraction of the line
    std::optional<PixelRect> box;       ///< a rectangle being dragged (box selection), pixels
    /// The strokes of a scribble selection being drawn (image coordinates), as a polyline, and
    /// their radius in image pixels; empty when none is drawn.
    std::vector<ScribblePoint> scribble;
    double scribble_radius = 0;
    /// Detections drawn over the image (the Retarget tool's faces: an ellipse in each box;
    /// its straight lines: segments x0, y0, x1, y1 in continuous image coordinates).
    std::vector<PixelRect> ellipses;
    std::vector<std::array<float, 4>> segments;
    /// The Regions tool's list: each region's outline in continuous image coordinates.
    struct Region {
        std::vector<ScribblePoint> path;  ///< a line's or polyline's vertices, or a rectangle's
                                          ///< four corners (closed)
        bool closed = false;              ///< a rectangle
        double band = 1;                  ///< a line's or polyline's band, image pixels
        std::array<std::uint8_t, 3> rgb{255, 255, 0};
        bool selected = false;
        std::string name;
    };
    std::vector<Region> regions;
};

class Tool {
  public:
    virtual ~Tool() = default;
    [[nodiscard]] virtual ToolKind kind() const = 0;
    /// The parameters the tool's panel shows (name, default, range, help).
    [[nodiscard]] virtual std::span<const ops::ParamSpec> params() const { return {}; }
    /// Becoming the active tool and leaving it; leaving never drops work (a running fill keeps
    /// running, a stroke is finished).
    virtual void activate() {}
    virtual void deactivate() {}
    /// Pointer input with the left button; true when the tool used it (otherwise the canvas
    /// pans).
    virtual bool press(const Pointer&) { return false; }
    virtual void move(const Pointer&) {}
    virtual void release(const Pointer&) {}
    /// A double click (after its first click's press and release); true when the tool used it
    /// (otherwise the canvas treats it as another press).
    virtual bool double_click(const Pointer&) { return false; }
    /// The pointer moved without a button (hover feedback).
    virtual void hover(const Pointer&) {}
    [[nodiscard]] virtual Overlay overlay() const { return {}; }

    // ---- document and device events (every tool gets them, active or not) ----
    /// A new document was opened (a file, a video, a measurement): start over on it.
    virtual void document_opened() {}
    /// The document is about to be replaced or closed: stop work that writes into it.
    virtual void document_closing() {}
    /// The document changed in place.
    virtual void document_changed(DocumentChange) {}
    /// The session left the device (the document is intact on the host). `gpu_still_usable`:
    /// the GPU works but cannot present (no interop), so it may still compute.
    virtual void device_lost(bool /*gpu_still_usable*/) {}
    /// The document's device copy and its stream are about to be destroyed (the session leaves
    /// the device; device_lost follows): stop and wait for background work that enqueues on them.
    virtual void device_copy_ending() {}

    // ---- background work ----
    /// Advances the tool's work and collects finished jobs; true while any is still running.
    /// Called often on the session's thread.
    virtual bool poll() { return false; }
    /// The tool writes the document now (a running fill): undo, redo and saving its host
    /// mirror must wait.
    [[nodiscard]] virtual bool holds_document() const { return false; }

    // ---- presentation ----
    /// The frame shown instead of the document, given the active tool; nullopt: the document
    /// is shown. The session asks its tools in order and shows the first frame offered.
    [[nodiscard]] virtual std::optional<PreviewFrame> preview(ToolKind /*active*/) const {
        return std::nullopt;
    }
    /// A measurement document is shown through its 8-bit proxy rather than its samples (a
    /// running fill paints the proxy until its samples land).
    [[nodiscard]] virtual bool shows_proxy() const { return false; }
    /// The next interaction will likely present new device pixels, so the renderer should map
    /// its interop textures ahead.
    [[nodiscard]] virtual bool wants_map_ahead(ToolKind /*active*/) const { return false; }
};

}  // namespace lacuna::session
