// Internal: the scaler's method as the kernels' integer.
#pragma once

#include <lacuna/kernels/scale_math.h>
#include <lacuna/ops/scale.hpp>

#include <vector>

namespace lacuna::ops::detail {

inline int kernel_method(const ScaleMethod method) {
    switch (method) {
        case ScaleMethod::Nearest:
            return scale_math::kNearest;
        case ScaleMethod::Bilinear:
            return scale_math::kBilinear;
        case ScaleMethod::Bicubic:
            return scale_math::kBicubic;
        case ScaleMethod::BSpline:
            return scale_math::kBSpline;
    }
    return scale_math::kBSpline;
}

/// The reference's arithmetic on planes of doubles (one per channel, sw × sh): the B-spline
/// coefficients when asked, then each output value as the weighted sum of its taps, in double,
/// not rounded. Shared by the photo reference and the measurement one.
std::vector<std::vector<double>> scale_reference_planes(std::vector<std::vector<double>> planes,
                                                        int sw, int sh, int width, int height,
                                                        ScaleMethod method);

/// The fast paths' B-spline prefilter, in place on interleaved float samples (sw × sh, nc
/// channels): scale_math's causal and anticausal chunks along rows, then columns, over all
/// cores — the CUDA kernels' arithmetic and order. Shared by photos (nc = 4) and measurements.
void bspline_prefilter(std::vector<float>& values, int sw, int sh, int nc);

}  // namespace lacuna::ops::detail
