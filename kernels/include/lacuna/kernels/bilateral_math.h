// The bilateral filter's per-pixel arithmetic, shared by the fast CPU filter and the CUDA kernel
// (compiled with --fmad=false and -ffp-contract=off) so both sum the same float products in the
// same order and give identical pixels. The weights come from tables made once on the host.
#pragma once

#include <lacuna/core/pixel.hpp>
#include <lacuna/kernels/border.h>

namespace lacuna::bilateral_math {

/// |ΔR| + |ΔG| + |ΔB|: 0..765, the index into the range table.
LACUNA_HD int colour_distance(const Rgba8 a, const Rgba8 b) {
    const int dr = static_cast<int>(a.r) - static_cast<int>(b.r);
    const int dg = static_cast<int>(a.g) - static_cast<int>(b.g);
    const int db = static_cast<int>(a.b) - static_cast<int>(b.b);
    return (dr < 0 ? -dr : dr) + (dg < 0 ? -dg : dg) + (db < 0 ? -db : db);
}

inline constexpr int kRangeTableSize = 766;

struct Sums {
    float r = 0, g = 0, b = 0, w = 0;
};

/// Adds one neighbour with weight space × range (products and sums written out so that no
/// compiler contracts them into an FMA on one side only).
LACUNA_HD void accumulate(Sums& s, const float space, const float range, const Rgba8 q) {
    const float w = space * range;
    const float wr = w * static_cast<float>(q.r);
    const float wg = w * static_cast<float>(q.g);
    const float wb = w * static_cast<float>(q.b);
    s.r = s.r + wr;
    s.g = s.g + wg;
    s.b = s.b + wb;
    s.w = s.w + w;
}

LACUNA_HD std::uint8_t round_level(const float v) {
    const float rounded = static_cast<float>(static_cast<int>(v + 0.5f));
    return static_cast<std::uint8_t>(rounded > 255.0f ? 255.0f : rounded);
}

/// The filtered pixel: each sum over the weights, rounded; alpha from the source pixel.
LACUNA_HD Rgba8 finish(const Sums& s, const std::uint8_t alpha) {
    Rgba8 out;
    out.r = round_level(s.r / s.w);
    out.g = round_level(s.g / s.w);
    out.b = round_level(s.b / s.w);
    out.a = alpha;
    return out;
}

}  // namespace lacuna::bilateral_math
