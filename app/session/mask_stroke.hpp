// A brush stroke on one mask layer. On the device path each segment is one kernel on the device
// mask and the host mirror is untouched until the stroke ends; then the stroke's rectangle is
// read back once — it is the undo snapshot "after", and it brings the mirror up to date. On the
// host path the dabs go to the host mask directly.
#pragma once

#include "document.hpp"
#include "history.hpp"

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

}  // namespace lacuna::session
