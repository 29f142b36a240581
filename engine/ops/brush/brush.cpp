// The CPU brush: the reference the CUDA brush is tested against (same per-pixel arithmetic through
// kernels/brush_math.h, same dabs and rectangles through dabs.hpp).
#include "dabs.hpp"

#include <lacuna/kernels/brush_math.h>
#include <lacuna/ops/brush.hpp>

#include <algorithm>
#include <climits>
#include <cmath>

namespace lacuna::ops {
namespace detail {

bool paints_anything(const double x0, const double y0, const double x1, const double y1,
                     const BrushSettings& brush) {
    return std::isfinite(x0) && std::isfinite(y0) && std::isfinite(x1) && std::isfinite(y1) &&
           std::isfinite(brush.radius) && brush.radius >= 0.0;
}

PixelRect dab_rect(const int width, const int height, const double cx, const double cy,
                   const BrushSettings& brush) {
    if (!paints_anything(cx, cy, cx, cy, brush)) return {};
    // In doubles and clamped before converting: a centre far off the mask must not overflow int.
    const double r = std::ceil(brush.radius);
    const double fx = std::floor(cx);
    const double fy = std::floor(cy);
    const double x0 = std::max(0.0, fx - r);
    const double y0 = std::max(0.0, fy - r);
    const double x1 = std::min(width - 1.0, fx + r);
    const double y1 = std::min(height - 1.0, fy + r);
    if (x1 < x0 || y1 < y0) return {};
    return {static_cast<int>(x0), static_cast<int>(y0), static_cast<int>(x1), static_cast<int>(y1)};
}

int segment_steps(const double x0, const double y0, const double x1, const double y1,
                  const BrushSettings& brush) {
    const double length = std::hypot(x1 - x0, y1 - y0);
    const double spacing = std::max(brush.radius / 4.0, 0.5);
    // Capped only so that an absurd segment cannot overflow the count.
    const double steps = std::min(std::ceil(length / spacing), static_cast<double>(INT_MAX / 2));
    return std::max(1, static_cast<int>(steps));
}

PixelRect segment_rect(const int width, const int height, const double x0, const double y0,
                       const double x1, const double y1, const int steps,
                       const BrushSettings& brush) {
    PixelRect touched;
    for (int i = 1; i <= steps; ++i) {
        touched.unite(dab_rect(width, height, brush_math::dab_centre(x0, x1, i, steps),
                               brush_math::dab_centre(y0, y1, i, steps), brush));
    }
    return touched;
}

}  // namespace detail

std::uint8_t dab_coverage(const double distance, const BrushSettings& brush) {
    return brush_math::coverage(distance, brush.radius, brush.hardness);
}

PixelRect paint_dab(Mask& mask, const double cx, const double cy, const BrushSettings& brush) {
    const PixelRect rect = detail::dab_rect(mask.width(), mask.height(), cx, cy, brush);
    for (int y = rect.y0; y <= rect.y1; ++y) {
        std::uint8_t* row = mask.row(y);
        for (int x = rect.x0; x <= rect.x1; ++x) {
            const std::uint8_t c = brush_math::coverage(brush_math::pixel_distance(x, y, cx, cy),
                                                        brush.radius, brush.hardness);
            if (c == 0) continue;
            row[x] = brush.erase
                         ? std::min<std::uint8_t>(row[x], static_cast<std::uint8_t>(255 - c))
                         : std::max(row[x], c);
        }
    }
    return rect;
}

PixelRect paint_segment(Mask& mask, const double x0, const double y0, const double x1,
                        const double y1, const BrushSettings& brush) {
    if (!detail::paints_anything(x0, y0, x1, y1, brush)) return {};
    const int steps = detail::segment_steps(x0, y0, x1, y1, brush);
    PixelRect touched;
    for (int i = 1; i <= steps; ++i) {
        touched.unite(paint_dab(mask, brush_math::dab_centre(x0, x1, i, steps),
                                brush_math::dab_centre(y0, y1, i, steps), brush));
    }
    return touched;
}

}  // namespace lacuna::ops
