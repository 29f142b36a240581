// Scaling a measurement (16-bit, signed 16-bit, float or 8-bit samples; 1, 3 or 4 channels) with
// the photo scaler's kernels, as ImageJ's Adjust ▸ Size does: the stored samples are resampled in
// float (the reference in double), and integer results are rounded to the nearest sample and
// clamped to the stored type (cubic kernels overshoot). An 8-bit image and its ×257 copy scale to
// values within half an 8-bit level × 257 of each other.
#include "scale_detail.hpp"

#include <lacuna/core/error.hpp>
#include <lacuna/core/parallel.hpp>
#include <lacuna/kernels/scale_math.h>
#include <lacuna/ops/scale.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

namespace lacuna::ops {
namespace {

/// A computed value in the stored type: integers rounded half away from zero and clamped.
template <class S, class V>
S to_sample(const V v) {
    if constexpr (std::is_floating_point_v<S>) {
        return static_cast<S>(v);
    } else {
        const V lo = std::numeric_limits<S>::lowest(), hi = std::numeric_limits<S>::max();
        return static_cast<S>(std::lround(std::min(hi, std::max(lo, v))));
    }
}

void refuse_spline_on_non_finite(const NativeImage& src, const ScaleMethod method) {
    if (method != ScaleMethod::BSpline || src.sample_type() != SampleType::F32) return;
    const int n = src.width() * src.channels();
    for (int y = 0; y < src.height(); ++y) {
        const float* row = src.samples<float>(y);
        if (std::any_of(row, row + n, [](const float v) { return !std::isfinite(v); }))
            throw Error(ErrorCode::InvalidArgument,
                        "the image holds non-finite samples (NaN or infinity), and the B-spline "
                        "prefilter would spread each over its whole row and column; bilinear or "
                        "bicubic scaling keeps them local");
    }
}

template <class S>
NativeImage reference_typed(const NativeImage& src, const int width, const int height,
                            const ScaleMethod method) {
    const int sw = src.width(), sh = src.height(), nc = src.channels();
    std::vector<std::vector<double>> planes(nc, std::vector<double>(std::size_t(sw) * sh));
    for (int y = 0; y < sh; ++y)
        for (int x = 0; x < sw; ++x)
            for (int c = 0; c < nc; ++c)
                planes[c][std::size_t(y) * sw + x] = double(src.samples<S>(y)[x * nc + c]);
    const std::vector<std::vector<double>> values =
        detail::scale_reference_planes(std::move(planes), sw, sh, width, height, method);
    NativeImage out(width, height, src.format());
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x)
            for (int c = 0; c < nc; ++c)
                out.samples<S>(y)[x * nc + c] = to_sample<S>(values[c][std::size_t(y) * width + x]);
    return out;
}

/// The fast path: interleaved float values, the prefilter and taps of scale_math (as the photo
/// fast path), rows over all cores.
template <class S>
NativeImage fast_typed(const NativeImage& src, const int width, const int height,
                       const ScaleMethod method) {
    const int sw = src.width(), sh = src.height(), nc = src.channels();
    const int m = detail::kernel_method(method);
    std::vector<float> values(std::size_t(sw) * sh * nc);
    parallel_chunks(sh, [&](const int y0, const int y1, int) {
        for (int y = y0; y < y1; ++y) {
            const S* row = src.samples<S>(y);
            std::transform(row, row + std::size_t(sw) * nc,
                           values.begin() + std::ptrdiff_t(y) * sw * nc,
                           [](const S v) { return static_cast<float>(v); });
        }
    });
    if (method == ScaleMethod::BSpline) detail::bspline_prefilter(values, sw, sh, nc);
    std::vector<scale_math::Taps> columns(width);
    for (int x = 0; x < width; ++x) columns[x] = scale_math::axis_taps(x, sw, width, m);
    NativeImage out(width, height, src.format());
    parallel_chunks(height, [&](const int y0, const int y1, int) {
        for (int y = y0; y < y1; ++y) {
            const scale_math::Taps ty = scale_math::axis_taps(y, sh, height, m);
            S* out_row = out.samples<S>(y);
            for (int x = 0; x < width; ++x) {
                const scale_math::Taps& tx = columns[x];
                float acc[4] = {0, 0, 0, 0};
                for (int j = 0; j < ty.count; ++j) {
                    if (ty.w[j] == 0.0f) continue;  // not read: a NaN there stays out
                    const float* row =
                        values.data() +
                        std::size_t(scale_math::tap_index(ty.first + j, sh, m)) * sw * nc;
                    float line[4] = {0, 0, 0, 0};
                    for (int i = 0; i < tx.count; ++i) {
                        if (tx.w[i] == 0.0f) continue;
                        const float* v = row + scale_math::tap_index(tx.first + i, sw, m) * nc;
                        for (int c = 0; c < nc; ++c) line[c] += tx.w[i] * v[c];
                    }
                    for (int c = 0; c < nc; ++c) acc[c] += ty.w[j] * line[c];
                }
                for (int c = 0; c < nc; ++c) out_row[x * nc + c] = to_sample<S>(acc[c]);
            }
        }
    });
    return out;
}

}  // namespace

NativeImage scale_native(const NativeImage& src, const int width, const int height,
                         const ScaleMethod method, const ScaleImplementation implementation) {
    check_scale(src.width(), src.height(), width, height);
    if (implementation == ScaleImplementation::Cuda)
        throw Error(ErrorCode::InvalidArgument,
                    "measurement images scale on the CPU; there is no CUDA path for them");
    refuse_spline_on_non_finite(src, method);
    return visit_sample_type(src.sample_type(), [&](auto tag) {
        using S = decltype(tag);
        return implementation == ScaleImplementation::Reference
                   ? reference_typed<S>(src, width, height, method)
                   : fast_typed<S>(src, width, height, method);
    });
}

}  // namespace lacuna::ops
