// A brush stroke on one mask layer. On the device path each segment is one kernel on the device
// mask and the host mirror is untouched until the stroke ends; then the stroke's rectangle is
// read back once — it is the undo snapshot "after", and it brings the mirror up to date. On the
// host path the dabs go to the host mask directly.
#pragma once

#include "document.hpp"
#include "history.hpp"
#include "tool.hpp"

#include <lacuna/ops/brush.hpp>

#include <optional>
#include <string>
#include <vector>

namespace lacuna::session {

class Session;

class MaskStroke {
  public:
    void begin(Session& session, MaskLayer layer, const ops::BrushSettings& brush, double x,
               double y);
    void extend(Session& session, double x, double y);
    /// Ends the stroke and records it as an undoable edit labelled `label` (nothing when it
    /// changed nothing).
    void end(Session& session, const std::string& label);
    /// The device failed mid-stroke: paint what was stroked so far on the host mask, so the
    /// stroke goes on there without losing a dab.
    void device_lost(Document& document);
    [[nodiscard]] bool active() const { return active_; }
    [[nodiscard]] MaskLayer layer() const { return layer_; }

  private:
    struct Segment {
        double x0, y0, x1, y1;
        bool dab;  ///< the press: one dab at (x1, y1)
    };
    void paint(Session& session, const Segment& segment);
    [[nodiscard]] PixelRect paint_host(Document& document, const Segment& segment) const;

    bool active_ = false;
    bool on_device_ = false;
    MaskLayer layer_ = MaskLayer::Fill;
    ops::BrushSettings brush_;
    std::vector<Segment> segments_;
    PixelRect rect_;
    double last_x_ = 0, last_y_ = 0;
    Mask host_before_;  ///< host path: the whole mask when the stroke began
};

/// The mask-painting part of a tool, in one place: the brush settings, the stroke, and the
/// brush ring of the overlay. A tool that paints a mask layer holds one and forwards its
/// pointer input, its deactivation and its device loss to it; every stroke becomes one
/// undoable edit, "Paint Mask" or "Erase Mask".
class MaskBrush {
  public:
    [[nodiscard]] const ops::BrushSettings& settings() const { return brush_; }
    void set_settings(const ops::BrushSettings& brush) { brush_ = brush; }
    void set_erase(bool erase) { brush_.erase = erase; }
    /// Starts a stroke on `layer` at the pointer; false (nothing painted) without a document.
    bool press(Session& session, MaskLayer layer, const Pointer& p);
    /// Extends the stroke under way (nothing without one).
    void move(Session& session, const Pointer& p);
    /// Ends the stroke under way as one edit ("Erase Mask" or "Paint Mask", or `label`).
    void finish(Session& session);
    void finish(Session& session, const std::string& label);
    /// The device failed: the stroke goes on on the host mask without losing a dab.
    void device_lost(Document& document) { stroke_.device_lost(document); }
    [[nodiscard]] bool stroking() const { return stroke_.active(); }
    /// Adds the brush ring (the brush's radius around the pointer) to `overlay`.
    void add_ring(Overlay& overlay) const;

  private:
    MaskStroke stroke_;
    ops::BrushSettings brush_;
};

}  // namespace lacuna::session
