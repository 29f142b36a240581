// The CUDA brush, host side: the same dabs and rectangles as the CPU brush, one kernel per
// segment enqueued on the mask's stream. Nothing is copied between host and device and nothing
// waits: the next dab or the display simply queue behind it.
#include "dabs.hpp"

#include "cuda_check.hpp"

#include <lacuna/kernels/brush_kernels.h>
#include <lacuna/ops/brush.hpp>

namespace lacuna::ops {
namespace {

PixelRect paint_device(DeviceImage<std::uint8_t>& mask, const double x0, const double y0,
                       const double x1, const double y1, const int steps,
                       const BrushSettings& brush) {
    const PixelRect rect =
        detail::segment_rect(mask.width(), mask.height(), x0, y0, x1, y1, steps, brush);
    if (rect.empty()) return rect;
    kernels::BrushSegmentArgs a;
    a.mask = mask.device_view();
    a.rect_x0 = rect.x0;
    a.rect_y0 = rect.y0;
    a.rect_width = rect.width();
    a.rect_height = rect.height();
    a.x0 = x0;
    a.y0 = y0;
    a.x1 = x1;
    a.y1 = y1;
    a.steps = steps;
    a.radius = brush.radius;
    a.hardness = brush.hardness;
    a.erase = brush.erase;
    lacuna::detail::cuda_check_launch(kernels::launch_brush_segment(a, mask.stream()),
                                      "brush kernel");
    return rect;
}

}  // namespace

PixelRect paint_dab(DeviceImage<std::uint8_t>& mask, const double cx, const double cy,
                    const BrushSettings& brush) {
    // A segment of one dab at its end: the centre comes out as exactly (cx, cy).
    return paint_device(mask, cx, cy, cx, cy, 1, brush);
}

PixelRect paint_segment(DeviceImage<std::uint8_t>& mask, const double x0, const double y0,
                        const double x1, const double y1, const BrushSettings& brush) {
    if (!detail::paints_anything(x0, y0, x1, y1, brush)) return {};
    return paint_device(mask, x0, y0, x1, y1, detail::segment_steps(x0, y0, x1, y1, brush), brush);
}

}  // namespace lacuna::ops
