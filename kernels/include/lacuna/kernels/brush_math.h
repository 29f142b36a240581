// Brush dabs: the per-pixel arithmetic of the CPU brush and the CUDA brush kernel, written once so
// both paint bit-identical masks. Kernels are built with --fmad=false and lacuna_core with
// -ffp-contract=off, so every product and sum below rounds on its own, the same on both sides;
// sqrt is correctly rounded and round() exact in both maths libraries.
//
// Shared with CUDA (C++17).
#pragma once

#include <lacuna/core/pixel.hpp>

#include <cmath>
#include <cstdint>

namespace lacuna::brush_math {

/// Clamps to [0, 1]; NaN becomes 0 so a bad hardness cannot reach an undefined conversion.
LACUNA_HD double clamp01(const double v) {
    return v > 0.0 ? (v < 1.0 ? v : 1.0) : 0.0;
}

/// Distance from the centre of pixel (x, y), at (x + 0.5, y + 0.5), to (cx, cy).
LACUNA_HD double pixel_distance(const int x, const int y, const double cx, const double cy) {
    const double dx = (static_cast<double>(x) + 0.5) - cx;
    const double dy = (static_cast<double>(y) + 0.5) - cy;
    // Named products: one rounding each, never an FMA, whatever the compiler would contract.
    const double dx2 = dx * dx;
    const double dy2 = dy * dy;
    return sqrt(dx2 + dy2);
}

/// Coverage 0..255 at `distance` from a dab's centre: 255 inside radius × hardness, then a linear
/// falloff to 0 at the radius, rounded half away from zero (as std::lround).
LACUNA_HD std::uint8_t coverage(const double distance, const double radius, const double hardness) {
    if (distance > radius) return 0;
    const double hard_part = radius * clamp01(hardness);
    if (distance <= hard_part) return 255;
    const double soft = radius - hard_part;
    // As std::max(soft, 1e-9): a hardness of 1 leaves no falloff to divide by.
    const double t = (radius - distance) / (soft < 1e-9 ? 1e-9 : soft);
    return static_cast<std::uint8_t>(round(255.0 * clamp01(t)));
}

/// Centre of dab `i` of `steps` on the segment from a0 to a1 (one coordinate; i = steps is the
/// end, up to rounding).
LACUNA_HD double dab_centre(const double a0, const double a1, const int i, const int steps) {
    const double t = static_cast<double>(i) / static_cast<double>(steps);
    const double along = (a1 - a0) * t;
    return a0 + along;
}

}  // namespace lacuna::brush_math
