// Comparing images in tests: the mean absolute difference over R, G, B (lossy round trips), and
// the first pixel where two images that must be identical differ.
#pragma once

#include <lacuna/core/image.hpp>

#include <algorithm>
#include <random>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace lacuna::test {

inline double mean_abs_diff(const ImageRgba8& a, const ImageRgba8& b) {
    double sum = 0;
    for (int y = 0; y < a.height(); ++y)
        for (int x = 0; x < a.width(); ++x) {
            const Rgba8 p = a.at(x, y), q = b.at(x, y);
            sum += std::abs(p.r - q.r) + std::abs(p.g - q.g) + std::abs(p.b - q.b);
        }
    return sum / (3.0 * a.width() * a.height());
}

/// Smooth gradients with ±`jitter` noise over a checker of hard edges `edge_step` levels high, and
/// random alpha: a filter meets both gentle and abrupt neighbourhoods (bilateral range weights
/// near 1 and near 0; cubic kernels that overshoot).
inline ImageRgba8 edged_noise_image(const int w, const int h, const unsigned seed,
                                    const int edge_step, const int jitter) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> noise(-jitter, jitter), alpha(0, 255);
    ImageRgba8 out(w, h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const int edge = ((x / 5 + y / 3) % 2) * edge_step;
            const auto level = [&](const int base) {
                return std::uint8_t(std::clamp(base + edge + noise(rng), 0, 255));
            };
            out.at(x, y) = Rgba8{level(x * 3 % 120), level(y * 5 % 100), level((x + y) % 90),
                                 std::uint8_t(alpha(rng))};
        }
    return out;
}

/// Empty when both images have the same size and pixels; else where and how they first differ
/// ("pixel 3,7: expected (…), got (…)"), for a test's failure message.
inline std::string first_pixel_difference(const ImageRgba8& expected, const ImageRgba8& got) {
    char text[160];
    if (expected.width() != got.width() || expected.height() != got.height()) {
        std::snprintf(text, sizeof text, "sizes differ: %dx%d expected, %dx%d got",
                      expected.width(), expected.height(), got.width(), got.height());
        return text;
    }
    for (int y = 0; y < expected.height(); ++y)
        for (int x = 0; x < expected.width(); ++x) {
            const Rgba8 e = expected.at(x, y), g = got.at(x, y);
            if (e == g) continue;
            std::snprintf(text, sizeof text,
                          "pixel %d,%d: expected (%d,%d,%d,%d), got (%d,%d,%d,%d)", x, y, e.r, e.g,
                          e.b, e.a, g.r, g.g, g.b, g.a);
            return text;
        }
    return {};
}

}  // namespace lacuna::test
