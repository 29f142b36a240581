// Image borders shared by the fast CPU paths and the CUDA kernels of the filters (bilateral,
// scaling, 3-D convolution): indices outside a line mirrored without repeating the edge sample,
// OpenCV's BORDER_REFLECT_101.
#pragma once

#include <lacuna/core/pixel.hpp>

namespace lacuna::border {

/// …c b | a b c d | c b…: index i of a line of n samples, for any i (a radius may exceed the
/// line); a single sample maps everything to 0.
LACUNA_HD int reflect101(int i, const int n) {
    if (n == 1) return 0;
    const int period = 2 * (n - 1);
    i %= period;
    if (i < 0) i += period;
    return i < n ? i : period - i;
}

}  // namespace lacuna::border
