// Internal: the float weight tables of the fast CPU and CUDA bilateral filters, made once per call
// on the host so both use the very same weights.
#pragma once

#include <lacuna/kernels/bilateral_math.h>
#include <lacuna/ops/bilateral.hpp>

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

}  // namespace lacuna::ops::detail
