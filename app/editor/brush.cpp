#include "brush.hpp"

#include <cmath>

namespace lacuna::editor {

std::uint8_t dab_coverage(const double distance, const BrushSettings& brush) {
    if (distance > brush.radius) return 0;
    const double hard_part = brush.radius * std::clamp(brush.hardness, 0.0, 1.0);
    if (distance <= hard_part) return 255;
    const double t = (brush.radius - distance) / std::max(brush.radius - hard_part, 1e-9);
    return static_cast<std::uint8_t>(std::lround(255.0 * std::clamp(t, 0.0, 1.0)));
}

PixelRect paint_dab(Mask& mask, const double cx, const double cy, const BrushSettings& brush) {
    const int r = static_cast<int>(std::ceil(brush.radius));
    const PixelRect rect{std::max(0, static_cast<int>(std::floor(cx)) - r),
                         std::max(0, static_cast<int>(std::floor(cy)) - r),
                         std::min(mask.width() - 1, static_cast<int>(std::floor(cx)) + r),
                         std::min(mask.height() - 1, static_cast<int>(std::floor(cy)) + r)};
    for (int y = rect.y0; y <= rect.y1; ++y)
        for (int x = rect.x0; x <= rect.x1; ++x) {
            // Pixel centres are at +0.5.
            const std::uint8_t c = dab_coverage(std::hypot(x + 0.5 - cx, y + 0.5 - cy), brush);
            if (c == 0) continue;
            std::uint8_t& m = mask.at(x, y);
            m = brush.erase ? std::min<std::uint8_t>(m, static_cast<std::uint8_t>(255 - c))
                            : std::max(m, c);
        }
    return rect;
}

PixelRect paint_segment(Mask& mask, const double x0, const double y0, const double x1,
                        const double y1, const BrushSettings& brush) {
    const double length = std::hypot(x1 - x0, y1 - y0);
    const double spacing = std::max(brush.radius / 4.0, 0.5);
    const int steps = std::max(1, static_cast<int>(std::ceil(length / spacing)));
    PixelRect touched;
    for (int i = 1; i <= steps; ++i) {
        const double t = static_cast<double>(i) / steps;
        touched.unite(paint_dab(mask, x0 + (x1 - x0) * t, y0 + (y1 - y0) * t, brush));
    }
    return touched;
}

}  // namespace lacuna::editor
