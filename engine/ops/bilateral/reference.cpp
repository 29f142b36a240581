// The gold bilateral filter: the definition in bilateral.hpp, one pixel and one neighbour at a
// time, every weight from std::exp and every sum in double. Slow and obviously right.
#include "../reference_border.hpp"

#include <lacuna/ops/bilateral.hpp>

#include <cmath>
#include <cstdlib>

namespace lacuna::ops {
namespace {

// Written out here rather than taken from bilateral_math.h, so that the gold does not share a
// mistake with the implementations it checks (its border: reference_border.hpp).

double colour_distance(const Rgba8 a, const Rgba8 b) {
    return std::abs(a.r - b.r) + std::abs(a.g - b.g) + std::abs(a.b - b.b);
}

}  // namespace

ImageRgba8 bilateral_reference(const ImageView<const Rgba8> src, const ImageView<const Rgba8> guide,
                               const BilateralParams& params) {
    const bool guided = guide.data != nullptr;
    check_bilateral(params, src.width, src.height, guided ? guide.width : -1,
                    guided ? guide.height : -1);
    const ImageView<const Rgba8> g = guided ? guide : src;
    const int radius = bilateral_radius(params);
    const double ss = params.sigma_space, sr = params.sigma_range;
    ImageRgba8 out(src.width, src.height);
    for (int y = 0; y < src.height; ++y) {
        for (int x = 0; x < src.width; ++x) {
            const Rgba8 centre = g.row(y)[x];
            double sum[3] = {0, 0, 0}, weights = 0;
            for (int dy = -radius; dy <= radius; ++dy) {
                for (int dx = -radius; dx <= radius; ++dx) {
                    if (dx * dx + dy * dy > radius * radius) continue;
                    const int qx = detail::reference_reflect101(x + dx, src.width);
                    const int qy = detail::reference_reflect101(y + dy, src.height);
                    const double d = colour_distance(g.row(qy)[qx], centre);
                    const double w = std::exp(-(dx * dx + dy * dy) / (2 * ss * ss)) *
                                     std::exp(-(d * d) / (2 * sr * sr));
                    const Rgba8 q = src.row(qy)[qx];
                    sum[0] += w * q.r;
                    sum[1] += w * q.g;
                    sum[2] += w * q.b;
                    weights += w;
                }
            }
            Rgba8& o = out.at(x, y);
            o.r = static_cast<std::uint8_t>(std::lround(sum[0] / weights));
            o.g = static_cast<std::uint8_t>(std::lround(sum[1] / weights));
            o.b = static_cast<std::uint8_t>(std::lround(sum[2] / weights));
            o.a = src.row(y)[x].a;
        }
    }
    return out;
}

}  // namespace lacuna::ops
