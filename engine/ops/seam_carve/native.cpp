// Seam carving for measurement images: the seams come from a 16-bit decision image (normalised
// over the data's own range, so an 8-bit image and its ×257 16-bit copy decide alike, and every
// bit of a 16-bit image counts), and are applied to the stored samples, which are moved (or, when
// enlarging, averaged) in their own type. The 8-bit proxy of the same normalisation is what the
// editor shows during a retarget preview.
#include "carve_state.hpp"

#include <lacuna/ops/seam_carve.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <tuple>
#include <utility>

namespace lacuna::ops {
namespace {

// round((v − lo) · top / (hi − lo)) without rounding errors for integer samples.
std::int64_t level_of_integer(const std::int64_t v, const std::int64_t lo, const std::int64_t hi,
                              const std::int64_t top) {
    if (hi <= lo) return 0;
    // At most 2^32 · 65535 · 2: fits 64 bits for every integer sample type the document holds.
    const std::int64_t num = (std::clamp(v, lo, hi) - lo) * top * 2 + (hi - lo);
    return num / (2 * (hi - lo));
}

std::int64_t level_of_float(const double v, const double lo, const double hi,
                            const std::int64_t top) {
    if (!std::isfinite(v) || !(hi > lo)) return 0;
    return std::llround(std::clamp((v - lo) / (hi - lo), 0.0, 1.0) * static_cast<double>(top));
}

// The finite range of the colour channels (lo > hi: none).
template <class S>
std::pair<double, double> finite_range(const NativeImage& samples) {
    const int channels = samples.channels();
    const int colours = std::min(channels, 3);
    double lo = INFINITY, hi = -INFINITY;
    for (int y = 0; y < samples.height(); ++y) {
        const S* row = samples.samples<S>(y);
        for (int x = 0; x < samples.width(); ++x)
            for (int c = 0; c < colours; ++c) {
                const double v = static_cast<double>(row[x * channels + c]);
                if (!std::isfinite(v)) continue;
                lo = std::min(lo, v);
                hi = std::max(hi, v);
            }
    }
    if (!(lo <= hi)) lo = hi = 0;
    return {lo, hi};
}

// One pass for the range, one for the levels, with the sample type known. Pixel: Rgba8 (levels
// 0..255) or Rgba16 (0..65535); grey is copied to R, G, B; alpha opaque.
template <class S, class Pixel>
Image<Pixel> levels_of(const NativeImage& samples, const double lo, const double hi) {
    using Channel = decltype(Pixel{}.r);
    constexpr std::int64_t top = std::numeric_limits<Channel>::max();
    Image<Pixel> image(samples.width(), samples.height());
    const int channels = samples.channels();
    const int colours = std::min(channels, 3);
    const auto ilo = static_cast<std::int64_t>(lo), ihi = static_cast<std::int64_t>(hi);
    for (int y = 0; y < samples.height(); ++y) {
        const S* in = samples.samples<S>(y);
        Pixel* out = image.row(y);
        for (int x = 0; x < samples.width(); ++x) {
            Channel level[3];
            for (int c = 0; c < 3; ++c) {
                const S v = in[x * channels + std::min(c, colours - 1)];
                if constexpr (std::is_floating_point_v<S>)
                    level[c] = static_cast<Channel>(level_of_float(v, lo, hi, top));
                else
                    level[c] = static_cast<Channel>(level_of_integer(v, ilo, ihi, top));
            }
            out[x] = {level[0], level[1], level[2], static_cast<Channel>(top)};
        }
    }
    return image;
}

}  // namespace

namespace {

// Either proxy: the range (the samples' own unless given), then the levels at Proxy's depth.
template <class Proxy, class Pixel>
Proxy make_proxy(const NativeImage& samples, const std::optional<std::pair<double, double>> range) {
    return visit_sample_type(samples.sample_type(), [&](auto s) {
        using S = decltype(s);
        Proxy proxy;
        std::tie(proxy.raw_lo, proxy.raw_hi) = range ? *range : finite_range<S>(samples);
        proxy.image = levels_of<S, Pixel>(samples, proxy.raw_lo, proxy.raw_hi);
        return proxy;
    });
}

}  // namespace

CarvingProxy carving_proxy(const NativeImage& samples) {
    return make_proxy<CarvingProxy, Rgba8>(samples, std::nullopt);
}

CarvingProxy carving_proxy(const NativeImage& samples, const double raw_lo, const double raw_hi) {
    return make_proxy<CarvingProxy, Rgba8>(samples, std::pair{raw_lo, raw_hi});
}

DeepCarvingProxy deep_carving_proxy(const NativeImage& samples) {
    return make_proxy<DeepCarvingProxy, Rgba16>(samples, std::nullopt);
}

DeepCarvingProxy deep_carving_proxy(const NativeImage& samples, const double raw_lo,
                                    const double raw_hi) {
    return make_proxy<DeepCarvingProxy, Rgba16>(samples, std::pair{raw_lo, raw_hi});
}

NativeImage remove_seams(const NativeImage& samples, const SeamOrder& order, const int count) {
    detail::check_order(samples.width(), samples.height(), order.width, order.height, order.seams,
                        count);
    const bool vertical = order.direction == SeamDirection::Vertical;
    NativeImage out(samples.width() - (vertical ? count : 0),
                    samples.height() - (vertical ? 0 : count), samples.format());
    const std::size_t bpp = samples.format().bytes_per_pixel();
    if (vertical) {
        for (int y = 0; y < samples.height(); ++y) {
            const std::int32_t* o = order.order.row(y);
            std::byte* dst = out.row(y);
            for (int x = 0; x < samples.width(); ++x)
                if (o[x] >= count) {
                    std::memcpy(dst, samples.row(y) + bpp * x, bpp);
                    dst += bpp;
                }
        }
    } else {
        for (int x = 0; x < samples.width(); ++x) {
            int yy = 0;
            for (int y = 0; y < samples.height(); ++y)
                if (order.order.at(x, y) >= count)
                    std::memcpy(out.row(yy++) + bpp * x, samples.row(y) + bpp * x, bpp);
        }
    }
    return out;
}

namespace {

template <class S>
S average(const S a, const S b) {
    if constexpr (std::is_floating_point_v<S>) {
        return static_cast<S>((static_cast<double>(a) + b) / 2);
    } else {
        // Half up, as the 8-bit insert_seams rounds; floor keeps negatives consistent.
        return static_cast<S>(std::floor((static_cast<double>(a) + b + 1) / 2));
    }
}

template <class S>
void average_pixel(const std::byte* a, const std::byte* b, std::byte* out, const int channels) {
    for (int c = 0; c < channels; ++c) {
        S pa, pb;
        std::memcpy(&pa, a + c * sizeof(S), sizeof(S));
        std::memcpy(&pb, b + c * sizeof(S), sizeof(S));
        const S v = average(pa, pb);
        std::memcpy(out + c * sizeof(S), &v, sizeof(S));
    }
}

}  // namespace

NativeImage insert_seams(const NativeImage& samples, const SeamOrder& order, const int count) {
    detail::check_order(samples.width(), samples.height(), order.width, order.height, order.seams,
                        count);
    const bool vertical = order.direction == SeamDirection::Vertical;
    NativeImage out(samples.width() + (vertical ? count : 0),
                    samples.height() + (vertical ? 0 : count), samples.format());
    const std::size_t bpp = samples.format().bytes_per_pixel();
    const int channels = samples.channels();
    const auto blend = [&](const std::byte* a, const std::byte* b, std::byte* dst) {
        visit_sample_type(samples.sample_type(),
                          [&](auto s) { average_pixel<decltype(s)>(a, b, dst, channels); });
    };
    if (vertical) {
        for (int y = 0; y < samples.height(); ++y) {
            const std::int32_t* o = order.order.row(y);
            const std::byte* in = samples.row(y);
            std::byte* dst = out.row(y);
            for (int x = 0; x < samples.width(); ++x) {
                std::memcpy(dst, in + bpp * x, bpp);
                dst += bpp;
                if (o[x] < count) {
                    const int next = x + 1 < samples.width() ? x + 1 : x;
                    blend(in + bpp * x, in + bpp * next, dst);
                    dst += bpp;
                }
            }
        }
    } else {
        for (int x = 0; x < samples.width(); ++x) {
            int yy = 0;
            for (int y = 0; y < samples.height(); ++y) {
                const std::byte* p = samples.row(y) + bpp * x;
                std::memcpy(out.row(yy++) + bpp * x, p, bpp);
                if (order.order.at(x, y) < count) {
                    const int next = y + 1 < samples.height() ? y + 1 : y;
                    blend(p, samples.row(next) + bpp * x, out.row(yy++) + bpp * x);
                }
            }
        }
    }
    return out;
}

}  // namespace lacuna::ops
