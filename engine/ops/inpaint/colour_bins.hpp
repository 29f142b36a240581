#pragma once
// The 5-bit-a-channel colour bins that "foreign content" is counted in: the bench's measure
// (foreign_content), the per-region choice (choice.cpp) and the colour source prior
// (source_prior.cpp) must quantise alike, or the choice and the prior would judge by another
// measure than the one they are scored with.
#include <lacuna/core/image.hpp>

namespace lacuna::ops::detail {

/// Number of bins: 32 levels for each of r, g, b.
inline constexpr int kColourBins = 1 << 15;

/// The bin of `p`: r, g and b reduced to their top 5 bits, r in the high bits.
[[nodiscard]] inline int colour_bin(const Rgba8 p) {
    return ((p.r >> 3) << 10) | ((p.g >> 3) << 5) | (p.b >> 3);
}

}  // namespace lacuna::ops::detail
