// Comparing images in tests: the mean absolute difference over R, G, B (lossy round trips).
#pragma once

#include <lacuna/core/image.hpp>

#include <cstdlib>

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

}  // namespace lacuna::test
