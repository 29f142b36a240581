#include "mask_stroke.hpp"

#include "session.hpp"

namespace lacuna::session {

void MaskStroke::begin(Session& session, const MaskLayer layer, const ops::BrushSettings& brush,
                       const double x, const double y) {
    Document& document = session.document();
    active_ = true;
    layer_ = layer;
    brush_ = brush;
    segments_.clear();
    rect_ = {};
    on_device_ = document.on_device();
    if (!on_device_) host_before_ = clone(document.mask(layer).view());
    last_x_ = x;
    last_y_ = y;
    paint(session, {x, y, x, y, true});
}

void MaskStroke::extend(Session& session, const double x, const double y) {
    if (!active_) return;
    const Segment segment{last_x_, last_y_, x, y, false};
    last_x_ = x;
    last_y_ = y;
    paint(session, segment);
}

PixelRect MaskStroke::paint_host(Document& document, const Segment& s) const {
    Mask& mask = document.host_mask(layer_);
    const PixelRect rect = s.dab ? ops::paint_dab(mask, s.x1, s.y1, brush_)
                                 : ops::paint_segment(mask, s.x0, s.y0, s.x1, s.y1, brush_);
    document.host_mask_changed(layer_);
    return rect;
}

void MaskStroke::paint(Session& session, const Segment& segment) {
    segments_.push_back(segment);
    Document& document = session.document();
    if (on_device_) {
        PixelRect rect;
        const bool ok = session.guarded([&] {
            DeviceImage<std::uint8_t>& mask = document.device_mask(layer_);
            rect = segment.dab ? ops::paint_dab(mask, segment.x1, segment.y1, brush_)
                               : ops::paint_segment(mask, segment.x0, segment.y0, segment.x1,
                                                    segment.y1, brush_);
            document.device_mask_changed(layer_);
        });
        // On failure device_lost() has replayed every segment, this one included, on the host.
        if (ok) rect_.unite(rect);
    } else {
        rect_.unite(paint_host(document, segment));
    }
    session.frame_changed();
}

void MaskStroke::device_lost(Document& document) {
    if (!active_ || !on_device_) return;
    on_device_ = false;
    host_before_ = clone(document.mask(layer_).view());
    rect_ = {};
    for (const Segment& s : segments_) rect_.unite(paint_host(document, s));
}

void MaskStroke::end(Session& session, const std::string& label) {
    if (!active_) return;
    Document& document = session.document();
    Edit edit;
    edit.label = label;
    edit.layer = layer_;
    if (on_device_ && !rect_.empty()) {
        // The mirror still holds the mask as it was: that is "before"; reading the rectangle
        // back gives "after" and updates the mirror. If the device fails here, device_lost()
        // replays the stroke on the host and the host branch below takes over.
        edit.before.mask = copy_region(document.mask(layer_), rect_);
        session.guarded([&] { document.pull_mask(layer_, rect_); });
    }
    if (!on_device_ && !rect_.empty()) edit.before.mask = copy_region(host_before_, rect_);
    active_ = false;
    segments_.clear();
    host_before_ = Mask();
    if (rect_.empty()) return;
    edit.rect = rect_;
    edit.after.mask = copy_region(document.mask(layer_), rect_);
    session.push(std::move(edit));
}

bool MaskBrush::press(Session& session, const MaskLayer layer, const Pointer& p) {
    if (session.document().empty()) return false;
    stroke_.begin(session, layer, brush_, p.x, p.y);
    return true;
}

void MaskBrush::move(Session& session, const Pointer& p) {
    stroke_.extend(session, p.x, p.y);
}

void MaskBrush::finish(Session& session) {
    finish(session, brush_.erase ? "Erase Mask" : "Paint Mask");
}

void MaskBrush::finish(Session& session, const std::string& label) {
    stroke_.end(session, label);
}

void MaskBrush::add_ring(Overlay& overlay) const {
    overlay.brush_ring = true;
    overlay.brush_radius = brush_.radius;
}

}  // namespace lacuna::session
