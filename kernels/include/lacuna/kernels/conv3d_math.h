// Shared by the fast CPU 3-D convolution and its CUDA kernels.
#pragma once

#include <lacuna/core/pixel.hpp>

namespace lacuna::conv3d_math {

/// …c b | a b c d | c b…: mirrored without repeating the edge sample, as often as needed.
LACUNA_HD int mirror(int i, const int n) {
    if (n == 1) return 0;
    const int period = 2 * (n - 1);
    i %= period;
    if (i < 0) i += period;
    return i < n ? i : period - i;
}

}  // namespace lacuna::conv3d_math
