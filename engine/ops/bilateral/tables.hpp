// Internal: the float weight tables of the fast CPU and CUDA bilateral filters, made once per call
// on the host so both use the very same weights.
#pragma once

#include <lacuna/kernels/bilateral_math.h>
#include <lacuna/ops/bilateral.hpp>

#include <cstddef>
#include <vector>

namespace lacuna::ops::detail {

struct BilateralTables {
    int radius = 1;
    /// exp(-d² / 2σs²) for d² = dx² + dy² = 0..radius² (taps beyond the circle never read it).
    std::vector<float> space;
    /// exp(-D² / 2σr²) for D = 0..765.
    std::vector<float> range;
};

BilateralTables make_bilateral_tables(const BilateralParams& params);

/// One offset of the spatial kernel in a padded image, with its spatial weight (the fast filter
/// on 8-bit images and the filter on a measurement's stored samples both walk a list of these).
struct BilateralTap {
    std::ptrdiff_t offset;  ///< in pixels of the padded rows
    float space;
};

}  // namespace lacuna::ops::detail
