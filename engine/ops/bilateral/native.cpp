// The bilateral filter on a measurement's stored samples (definition in bilateral.hpp): a gold
// reference in double and a fast CPU path with float weight tables, as for photos. The range
// distance is a real number in the guide's calibrated unit here, not a level 0..765, so the fast
// path tabulates exp(-t²/2) over t = D/σr instead of over D.
#include "../reference_border.hpp"
#include "tables.hpp"

#include <lacuna/core/error.hpp>
#include <lacuna/core/parallel.hpp>
#include <lacuna/kernels/border.h>
#include <lacuna/ops/bilateral.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <sstream>
#include <type_traits>
#include <vector>

namespace lacuna::ops {
namespace {

/// Colour channels: the one of a grey image, R, G, B of colour (alpha is kept, never a value).
int colour_channels(const NativeImage& image) {
    return image.channels() == 1 ? 1 : 3;
}

/// A computed value in the stored type: integers rounded half away from zero and clamped.
template <class S>
S to_sample(const double v) {
    if constexpr (std::is_floating_point_v<S>) {
        return static_cast<S>(v);
    } else {
        const double lo = std::numeric_limits<S>::lowest(), hi = std::numeric_limits<S>::max();
        return static_cast<S>(std::lround(std::min(hi, std::max(lo, v))));
    }
}

// ---- the reference ----

NativeImage reference(const NativeImage& src, const NativeImage& g, const double slope,
                      const BilateralParams& params) {
    const int w = src.width(), h = src.height();
    const int cc = colour_channels(src), gc = colour_channels(g);
    const int radius = bilateral_radius(params);
    const double ss = params.sigma_space, sr = params.sigma_range;
    NativeImage out = src;  // alpha (and any non-finite sample) as it is
    for (int y = 0; y < h; ++y) {
        for (int x = 0; x < w; ++x) {
            double sum[3] = {0, 0, 0}, weights[3] = {0, 0, 0};
            for (int dy = -radius; dy <= radius; ++dy) {
                for (int dx = -radius; dx <= radius; ++dx) {
                    if (dx * dx + dy * dy > radius * radius) continue;
                    const int qx = detail::reference_reflect101(x + dx, w);
                    const int qy = detail::reference_reflect101(y + dy, h);
                    double d = 0;
                    for (int c = 0; c < gc; ++c)
                        d += std::abs(g.sample(qx, qy, c) - g.sample(x, y, c));
                    d *= std::abs(slope);
                    double weight = 1;  // the centre: distance 0 by definition
                    if (dx != 0 || dy != 0)
                        weight = std::isfinite(d) ? std::exp(-(dx * dx + dy * dy) / (2 * ss * ss)) *
                                                        std::exp(-(d * d) / (2 * sr * sr))
                                                  : 0.0;
                    for (int c = 0; c < cc; ++c) {
                        const double v = src.sample(qx, qy, c);
                        if (!std::isfinite(v)) continue;
                        sum[c] += weight * v;
                        weights[c] += weight;
                    }
                }
            }
            for (int c = 0; c < cc; ++c) {
                const double centre = src.sample(x, y, c);
                if (!std::isfinite(centre)) continue;
                out.set_sample(x, y, c, sum[c] / weights[c]);  // integers rounded, clamped
            }
        }
    }
    return out;
}

// ---- the fast path ----

/// exp(-t²/2) at t = i / kSteps for i = 0 .. kSteps · kReach, read with linear interpolation;
/// t at or beyond kReach weighs 0 (exp(-32) ≈ 1e-14 beside the centre's 1).
constexpr int kSteps = 1024;
constexpr int kReach = 8;

std::vector<float> range_table() {
    std::vector<float> t(static_cast<std::size_t>(kSteps) * kReach + 2);
    for (std::size_t i = 0; i < t.size(); ++i) {
        const double u = static_cast<double>(i) / kSteps;
        t[i] = i < static_cast<std::size_t>(kSteps) * kReach ? float(std::exp(-0.5 * u * u)) : 0.f;
    }
    return t;
}

/// The view's samples as float, `channels` of each pixel (from the first), mirrored by `r`.
template <class S>
std::vector<float> padded_values(const NativeImage& image, const int channels, const int r) {
    const int pw = image.width() + 2 * r, ph = image.height() + 2 * r, nc = image.channels();
    std::vector<float> out(static_cast<std::size_t>(pw) * ph * channels);
    parallel_chunks(ph, [&](const int y0, const int y1, int) {
        for (int y = y0; y < y1; ++y) {
            const S* row = image.samples<S>(border::reflect101(y - r, image.height()));
            float* dst = out.data() + static_cast<std::size_t>(y) * pw * channels;
            for (int x = 0; x < pw; ++x) {
                const S* p =
                    row +
                    static_cast<std::ptrdiff_t>(border::reflect101(x - r, image.width())) * nc;
                for (int c = 0; c < channels; ++c) dst[x * channels + c] = static_cast<float>(p[c]);
            }
        }
    });
    return out;
}

template <class S>
NativeImage fast_typed(const NativeImage& src, const NativeImage& g, const double slope,
                       const BilateralParams& params) {
    const int w = src.width(), h = src.height(), nc = src.channels();
    const int cc = colour_channels(src), gc = colour_channels(g);
    const int r = bilateral_radius(params);
    const int pw = w + 2 * r;
    const std::vector<float> values = padded_values<S>(src, cc, r);
    const std::vector<float> guide_values = visit_sample_type(
        g.sample_type(), [&](auto tag) { return padded_values<decltype(tag)>(g, gc, r); });
    const std::vector<float> table = range_table();
    // D · to_t is the distance in σr units, times the table's steps.
    const float to_t = static_cast<float>(std::abs(slope) / params.sigma_range * kSteps);
    const float t_end = static_cast<float>(kSteps) * kReach;

    std::vector<detail::BilateralTap>
        taps;  // the centre is not a tap: it starts every sum with weight 1
    const double space_coeff = -0.5 / (params.sigma_space * params.sigma_space);
    for (int dy = -r; dy <= r; ++dy)
        for (int dx = -r; dx <= r; ++dx)
            if (dx * dx + dy * dy <= r * r && (dx != 0 || dy != 0))
                taps.push_back({static_cast<std::ptrdiff_t>(dy) * pw + dx,
                                static_cast<float>(std::exp((dx * dx + dy * dy) * space_coeff))});

    NativeImage out = src;  // alpha kept
    parallel_chunks(h, [&](const int y0, const int y1, int) {
        for (int y = y0; y < y1; ++y) {
            S* dst = out.samples<S>(y);
            for (int x = 0; x < w; ++x) {
                const std::ptrdiff_t centre = static_cast<std::ptrdiff_t>(y + r) * pw + r + x;
                const float* vc = values.data() + centre * cc;
                const float* gcen = guide_values.data() + centre * gc;
                // Sums of differences from the centre: values far from 0 (300 K, 30000
                // counts) lose no precision to the float sums.
                float sum[3] = {0, 0, 0}, weights[3] = {1, 1, 1};
                for (const detail::BilateralTap& tap : taps) {
                    const std::ptrdiff_t q = centre + tap.offset;
                    const float* gq = guide_values.data() + q * gc;
                    float d = 0;
                    for (int c = 0; c < gc; ++c) d += std::abs(gq[c] - gcen[c]);
                    const float t = d * to_t;
                    if (!(t < t_end)) continue;  // far, or not finite (NaN compares false)
                    const int i = static_cast<int>(t);
                    const float f = t - static_cast<float>(i);
                    const float range = table[i] + f * (table[i + 1] - table[i]);
                    const float weight = tap.space * range;
                    const float* vq = values.data() + q * cc;
                    for (int c = 0; c < cc; ++c) {
                        if constexpr (std::is_floating_point_v<S>) {
                            if (!std::isfinite(vq[c])) continue;
                        }
                        sum[c] += weight * (vq[c] - vc[c]);
                        weights[c] += weight;
                    }
                }
                for (int c = 0; c < cc; ++c) {
                    if constexpr (std::is_floating_point_v<S>) {
                        if (!std::isfinite(vc[c])) continue;  // kept as stored
                    }
                    dst[x * nc + c] = to_sample<S>(static_cast<double>(vc[c]) +
                                                   static_cast<double>(sum[c] / weights[c]));
                }
            }
        }
    });
    return out;
}

}  // namespace

void check_bilateral_native(const BilateralParams& params, const NativeImage& src,
                            const NativeGuide& guide) {
    if (!(std::isfinite(params.sigma_range) && params.sigma_range > 0)) {
        std::ostringstream text;
        text << "the range sigma must be greater than 0 (in the data's unit), not "
             << params.sigma_range;
        throw Error(ErrorCode::InvalidArgument, text.str());
    }
    // The photo check for the rest: σr is given a value it accepts.
    BilateralParams rest = params;
    rest.sigma_range = 1;
    if (guide.image != nullptr)
        check_bilateral(rest, src.width(), src.height(), guide.image->width(),
                        guide.image->height());
    else
        check_bilateral(rest, src.width(), src.height());
}

NativeImage bilateral_native(const NativeImage& src, const Calibration& calibration,
                             const NativeGuide& guide, const BilateralParams& params,
                             const BilateralImplementation implementation) {
    check_bilateral_native(params, src, guide);
    if (implementation == BilateralImplementation::Cuda)
        throw Error(ErrorCode::InvalidArgument,
                    "measurement images are filtered on the CPU; there is no CUDA path for their "
                    "stored samples");
    const NativeImage& g = guide.image != nullptr ? *guide.image : src;
    const double slope = guide.image != nullptr ? guide.calibration.slope : calibration.slope;
    if (implementation == BilateralImplementation::Reference)
        return reference(src, g, slope, params);
    return visit_sample_type(src.sample_type(), [&](auto tag) {
        return fast_typed<decltype(tag)>(src, g, slope, params);
    });
}

}  // namespace lacuna::ops
