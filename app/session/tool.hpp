// One shape for every tool: its state (the tool object), its overlay (what the canvas draws over
// the image), its input (pointer events in image coordinates) and its parameters (declared once
// in the engine, read by the panel that binds to it). Widgets only translate events and bind
// controls; the logic lives here, without Qt.
#pragma once

#include <lacuna/ops/brush.hpp>
#include <lacuna/ops/params.hpp>

#include <array>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace lacuna::session {

enum class ToolKind { Pan, RemoveObject, Retarget, LineHistogram };

/// A pointer event, in continuous image coordinates ((0, 0) is the top-left pixel's corner).
struct Pointer {
    double x = 0;
    double y = 0;
    bool shift = false;
    /// Image pixels per screen pixel, for hit tolerances given in screen pixels.
    double image_per_screen = 1.0;
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
    /// Detections drawn over the image (the Retarget tool's faces: an ellipse in each box;
    /// its straight lines: segments x0, y0, x1, y1 in continuous image coordinates).
    std::vector<PixelRect> ellipses;
    std::vector<std::array<float, 4>> segments;
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
    /// The pointer moved without a button (hover feedback).
    virtual void hover(const Pointer&) {}
    [[nodiscard]] virtual Overlay overlay() const { return {}; }
};

}  // namespace lacuna::session
