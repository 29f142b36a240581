// Internal: where a stroke's dabs fall, shared by the CPU brush and the CUDA brush's host side so
// both paint the same dabs and report the same rectangles.
#pragma once

#include <lacuna/ops/brush.hpp>

namespace lacuna::ops::detail {

/// False for inputs that paint nothing: non-finite coordinates, or a radius that is negative or
/// not finite.
bool paints_anything(double x0, double y0, double x1, double y1, const BrushSettings& brush);

/// Pixels a dab centred at (cx, cy) can reach, clipped to width × height; PixelRect{} when none.
PixelRect dab_rect(int width, int height, double cx, double cy, const BrushSettings& brush);

/// Dabs of a segment: every quarter radius (at least every half pixel), at least one.
int segment_steps(double x0, double y0, double x1, double y1, const BrushSettings& brush);

/// The union of the segment's dab rectangles (dabs 1..steps, see brush_math::dab_centre).
PixelRect segment_rect(int width, int height, double x0, double y0, double x1, double y1, int steps,
                       const BrushSettings& brush);

}  // namespace lacuna::ops::detail
