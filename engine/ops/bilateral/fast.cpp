// The fast CPU bilateral filter: the image and the guide are mirrored into padded copies once, so
// every neighbour is a fixed offset; weights come from float tables; rows are split over the
// cores. The arithmetic is bilateral_math's, in the CUDA kernel's order, so both give identical
// pixels.
#include "tables.hpp"

#include <lacuna/core/parallel.hpp>
#include <lacuna/kernels/bilateral_math.h>
#include <lacuna/kernels/border.h>
#include <lacuna/ops/bilateral.hpp>

#include <cstddef>
#include <vector>

namespace lacuna::ops {
namespace {

/// The view mirrored by `radius` pixels on every side, rows packed.
std::vector<Rgba8> padded_copy(const ImageView<const Rgba8> view, const int radius) {
    const int pw = view.width + 2 * radius, ph = view.height + 2 * radius;
    std::vector<Rgba8> out(static_cast<std::size_t>(pw) * ph);
    for (int y = 0; y < ph; ++y) {
        const Rgba8* row = view.row(border::reflect101(y - radius, view.height));
        Rgba8* dst = out.data() + static_cast<std::size_t>(y) * pw;
        for (int x = 0; x < pw; ++x) dst[x] = row[border::reflect101(x - radius, view.width)];
    }
    return out;
}

}  // namespace

ImageRgba8 bilateral_fast(const ImageView<const Rgba8> src, const ImageView<const Rgba8> guide,
                          const BilateralParams& params) {
    const bool guided = guide.data != nullptr;
    check_bilateral(params, src.width, src.height, guided ? guide.width : -1,
                    guided ? guide.height : -1);
    const detail::BilateralTables tables = detail::make_bilateral_tables(params);
    const int r = tables.radius;
    const int pw = src.width + 2 * r;
    const std::vector<Rgba8> padded_src = padded_copy(src, r);
    const std::vector<Rgba8> padded_guide = guided ? padded_copy(guide, r) : std::vector<Rgba8>{};
    const Rgba8* image = padded_src.data();
    const Rgba8* g = guided ? padded_guide.data() : image;

    std::vector<detail::BilateralTap> taps;  // the kernel's order: rows of the circle top to bottom
    for (int dy = -r; dy <= r; ++dy)
        for (int dx = -r; dx <= r; ++dx)
            if (dx * dx + dy * dy <= r * r)
                taps.push_back({static_cast<std::ptrdiff_t>(dy) * pw + dx,
                                tables.space[static_cast<std::size_t>(dx * dx + dy * dy)]});
    const float* range = tables.range.data();

    ImageRgba8 out(src.width, src.height);
    parallel_chunks(src.height, [&](const int y0, const int y1, int) {
        for (int y = y0; y < y1; ++y) {
            const std::ptrdiff_t row = static_cast<std::ptrdiff_t>(y + r) * pw + r;
            Rgba8* dst = out.row(y);
            for (int x = 0; x < src.width; ++x) {
                const std::ptrdiff_t centre = row + x;
                const Rgba8 gc = g[centre];
                bilateral_math::Sums sums;
                for (const detail::BilateralTap& tap : taps) {
                    const std::ptrdiff_t q = centre + tap.offset;
                    bilateral_math::accumulate(sums, tap.space,
                                               range[bilateral_math::colour_distance(g[q], gc)],
                                               image[q]);
                }
                dst[x] = bilateral_math::finish(sums, image[centre].a);
            }
        }
    });
    return out;
}

}  // namespace lacuna::ops
