// Zoom and pan: how image pixels map to framebuffer pixels. Pure arithmetic, shared by the
// renderer, the editor's mouse handling and tests.
#pragma once

#include <algorithm>
#include <cmath>

namespace lacuna::render {

struct PointF {
    double x = 0;
    double y = 0;
};

/// screen = origin + image * zoom (top-left origin on both sides, y down).
struct ViewTransform {
    double zoom = 1.0;    ///< framebuffer pixels per image pixel
    double origin_x = 0;  ///< framebuffer position of the image's top-left corner
    double origin_y = 0;

    [[nodiscard]] PointF to_screen(const PointF image) const {
        return {origin_x + image.x * zoom, origin_y + image.y * zoom};
    }
    [[nodiscard]] PointF to_image(const PointF screen) const {
        return {(screen.x - origin_x) / zoom, (screen.y - origin_y) / zoom};
    }
    /// Zooms by `factor` keeping the image point under `anchor` (screen) fixed, as a wheel should.
    void zoom_about(const PointF anchor, const double factor, const double min_zoom = 1.0 / 64,
                    const double max_zoom = 64.0) {
        const PointF fixed = to_image(anchor);
        zoom = std::clamp(zoom * factor, min_zoom, max_zoom);
        origin_x = anchor.x - fixed.x * zoom;
        origin_y = anchor.y - fixed.y * zoom;
    }
};

/// The whole image centred in the viewport, never enlarged beyond 1:1.
inline ViewTransform fit_view(const int image_w, const int image_h, const int view_w,
                              const int view_h) {
    ViewTransform t;
    if (image_w <= 0 || image_h <= 0 || view_w <= 0 || view_h <= 0) return t;
    t.zoom = std::min({1.0, double(view_w) / image_w, double(view_h) / image_h});
    t.origin_x = std::round((view_w - image_w * t.zoom) / 2);
    t.origin_y = std::round((view_h - image_h * t.zoom) / 2);
    return t;
}

/// 1:1, centred.
inline ViewTransform actual_size_view(const int image_w, const int image_h, const int view_w,
                                      const int view_h) {
    ViewTransform t;
    t.origin_x = std::round((view_w - image_w) / 2.0);
    t.origin_y = std::round((view_h - image_h) / 2.0);
    return t;
}

}  // namespace lacuna::render
