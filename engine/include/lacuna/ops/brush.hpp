// Painting masks: round dabs with a hardness falloff, spaced along the pointer's path. The CPU
// version is the reference; the CUDA version paints a device mask (the editor's device document)
// with identical values (the per-pixel arithmetic is shared through kernels/brush_math.h).
#pragma once

#include <lacuna/core/device_image.hpp>
#include <lacuna/core/image.hpp>
#include <lacuna/core/mask.hpp>

#include <cstdint>

namespace lacuna::ops {

struct BrushSettings {
    double radius = 20;     ///< image pixels
    double hardness = 0.8;  ///< 1: full coverage to the edge; 0: falls off from the centre
    bool erase = false;
};

/// Coverage 0..255 of a pixel `distance` from the dab's centre.
std::uint8_t dab_coverage(double distance, const BrushSettings& brush);

/// Paints one dab centred at (cx, cy) in continuous image coordinates (pixel centres at +0.5):
/// max with the coverage; the eraser lowers to 255 − coverage. Returns the pixels it may have
/// changed, clipped to the mask (empty when the dab misses it).
PixelRect paint_dab(Mask& mask, double cx, double cy, const BrushSettings& brush);

/// Dabs from (x0, y0) to (x1, y1) every quarter radius (at least every half pixel), the end
/// included, the start not (the previous segment or the press painted it).
PixelRect paint_segment(Mask& mask, double x0, double y0, double x1, double y1,
                        const BrushSettings& brush);

/// The same on a device mask, enqueued on mask.stream(): identical values, same rectangle.
/// Throws Error(CudaUnavailable) without CUDA.
PixelRect paint_dab(DeviceImage<std::uint8_t>& mask, double cx, double cy,
                    const BrushSettings& brush);
PixelRect paint_segment(DeviceImage<std::uint8_t>& mask, double x0, double y0, double x1, double y1,
                        const BrushSettings& brush);

}  // namespace lacuna::ops
