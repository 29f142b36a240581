// Internal: the scaler's method as the kernels' integer.
#pragma once

#include <lacuna/kernels/scale_math.h>
#include <lacuna/ops/scale.hpp>

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

}  // namespace lacuna::ops::detail
