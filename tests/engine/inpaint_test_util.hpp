// Helpers shared by the CPU and CUDA inpainting tests: masks, crops and exact comparison of two
// fills (every decision in order, and every pixel).
#pragma once

#include <lacuna/core/mask.hpp>
#include <lacuna/core/native_image.hpp>
#include <lacuna/ops/inpaint.hpp>
#include <lacuna/ops/seam_carve.hpp>

#include <QString>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <random>
#include <utility>
#include <vector>

namespace lacuna::test {

/// `base(x, y)` (r, g, b as ints) with independent uniform noise of ±`amplitude` levels on each
/// channel, clamped: every patch distinct. Drawn in row order, r then g then b.
template <class Base>
ImageRgba8 noisy_image(const int w, const int h, const unsigned seed, const int amplitude,
                       const Base base) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> noise(-amplitude, amplitude);
    const auto c = [&](const int v) {
        return static_cast<std::uint8_t>(std::clamp(v + noise(rng), 0, 255));
    };
    ImageRgba8 image(w, h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const std::array<int, 3> b = base(x, y);
            image.at(x, y) = Rgba8{c(b[0]), c(b[1]), c(b[2]), 255};
        }
    return image;
}

/// Fine grain without lines: a smooth colour ramp with independent noise of ±30 levels a pixel,
/// so every patch is distinct and no straight edge reaches a hole (the PatchMatch fill takes its
/// gradient channels there: gradient_weight_for).
inline ImageRgba8 grain(const int w, const int h, const unsigned seed) {
    return noisy_image(w, h, seed, 30, [](const int x, const int y) {
        return std::array<int, 3>{90 + x / 4, 120 + y / 4, 70};
    });
}

/// The bench's blob outline (app/cli/inpaint_object_cases.cpp: the radius wobbles with three and
/// five lobes), rasterised by an even-odd test of pixel centres, then grown by `grow` px as the
/// bench grows its holes.
inline Mask bench_blob(const int w, const int h, const int cx, const int cy, const int rx,
                       const int ry, const int grow) {
    std::vector<std::pair<double, double>> outline;
    for (int i = 0; i < 72; ++i) {
        const double a = 2 * std::numbers::pi * i / 72;
        const double k = 1 + 0.18 * std::sin(3 * a + cx * 0.1) + 0.08 * std::sin(5 * a);
        outline.emplace_back(std::round(cx + k * rx * std::cos(a)),
                             std::round(cy + k * ry * std::sin(a)));
    }
    Mask m(w, h, 0);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            bool inside = false;
            for (std::size_t i = 0, j = outline.size() - 1; i < outline.size(); j = i++) {
                const auto [xi, yi] = outline[i];
                const auto [xj, yj] = outline[j];
                if ((yi > y) != (yj > y) && x < (xj - xi) * (y - yi) / (yj - yi) + xi)
                    inside = !inside;
            }
            m.at(x, y) = inside ? 1 : 0;
        }
    return grow_mask(m.view(), grow);
}

/// A 16-bit grey measurement whose texture lives below 8 bits: vertical stripes 8 px wide and 96
/// samples high (under half an 8-bit level of the range: the 8-bit proxy is flat there) right of
/// a 12-px band that spans the whole 16-bit range (so the range is the type's). What a fill
/// deciding on every bit must continue into a hole in the stripes.
inline int faint_stripe(const int x) {
    return 30000 + ((x / 4) % 2) * 96;
}
inline NativeImage faint_stripes(const int w, const int h) {
    NativeImage image(w, h, {SampleType::U16, 1});
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            image.set_sample(x, y, 0, x < 12 ? (65535 * y) / (h - 1) : faint_stripe(x));
    return image;
}
/// The mean |sample - stripe| over the hole: 0 when the fill continued the stripes.
inline double stripe_error(const NativeImage& filled, const Mask& hole) {
    double sum = 0;
    int n = 0;
    for (int y = 0; y < filled.height(); ++y)
        for (int x = 0; x < filled.width(); ++x)
            if (hole.at(x, y)) {
                sum += std::abs(filled.sample(x, y, 0) - faint_stripe(x));
                ++n;
            }
    return n == 0 ? 0 : sum / n;
}

inline Mask ellipse_mask(const int w, const int h, const double cx, const double cy,
                         const double rx, const double ry) {
    Mask m(w, h, 0);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const double u = (x - cx) / rx;
            const double v = (y - cy) / ry;
            if (u * u + v * v <= 1.0) m.at(x, y) = 255;
        }
    return m;
}

/// A PatchMatch problem on faint_stripes(w, h) with an elliptic hole, prepared on its 8-bit
/// proxy as the editor prepares a measurement's fill.
struct StripesProblem {
    NativeImage samples;
    ImageRgba8 proxy;
    Mask mask;
    ops::InpaintParams params;
    ops::InpaintProblem problem;
};
inline StripesProblem stripes_problem(const int w, const int h, const double cx, const double cy,
                                      const double rx, const double ry, const int patch) {
    StripesProblem s;
    s.samples = faint_stripes(w, h);
    s.proxy = ops::carving_proxy(s.samples).image;
    s.mask = ellipse_mask(w, h, cx, cy, rx, ry);
    s.params.patch = patch;
    s.params.method = ops::InpaintMethod::PatchMatch;
    s.problem = ops::prepare_inpaint(s.proxy.view(), s.mask, s.params);
    return s;
}

/// The hole the CPU and CUDA equality tests share: an ellipse (centred, or cut by the left border
/// when `on_border`) plus a thin vertical bar beside it, so the fill front has odd shapes,
/// concave corners and two separate parts.
inline Mask odd_hole(const int w, const int h, const bool on_border) {
    Mask mask = ellipse_mask(w, h, on_border ? 3 : w / 2.0, h / 2.0, w / 6.0, h / 5.0);
    for (int x = w / 4; x < w / 4 + 3; ++x)
        for (int y = h / 5; y < h - h / 5; ++y) mask.at(x, y) = 255;
    return mask;
}

/// A rectangular hole of rw × rh pixels at (x0, y0) in a w × h mask.
inline Mask box_mask(const int w, const int h, const int x0, const int y0, const int rw,
                     const int rh) {
    Mask m(w, h, 0);
    for (int y = y0; y < y0 + rh; ++y)
        for (int x = x0; x < x0 + rw; ++x) m.at(x, y) = 255;
    return m;
}

/// A small never-sample area in the upper right of a w × h image.
inline Mask never_sample_spot(const int w, const int h) {
    return ellipse_mask(w, h, w * 0.8, h * 0.3, 6, 5);
}

inline ImageRgba8 crop(const ImageRgba8& image, const int x0, const int y0, const int w,
                       const int h) {
    ImageRgba8 out(w, h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) out.at(x, y) = image.at(x0 + x, y0 + y);
    return out;
}

/// Empty when both fills made the same decisions in the same order; else the first difference.
inline QString compare_histories(const std::vector<ops::PatchChoice>& a,
                                 const std::vector<ops::PatchChoice>& b) {
    const std::size_t n = std::min(a.size(), b.size());
    for (std::size_t i = 0; i < n; ++i) {
        if (a[i] == b[i]) continue;
        return QString("iteration %1: target %2 source %3 ssd %4 vs target %5 source %6 ssd %7")
            .arg(i)
            .arg(a[i].target)
            .arg(a[i].source)
            .arg(a[i].ssd)
            .arg(b[i].target)
            .arg(b[i].source)
            .arg(b[i].ssd);
    }
    if (a.size() != b.size()) return QString("%1 iterations vs %2").arg(a.size()).arg(b.size());
    return {};
}

/// Empty when the images are identical; else the first differing pixel.
inline QString compare_images(const ImageRgba8& a, const ImageRgba8& b) {
    if (a.width() != b.width() || a.height() != b.height()) return "sizes differ";
    for (int y = 0; y < a.height(); ++y)
        for (int x = 0; x < a.width(); ++x)
            if (a.at(x, y) != b.at(x, y)) return QString("pixel %1,%2 differs").arg(x).arg(y);
    return {};
}

}  // namespace lacuna::test
