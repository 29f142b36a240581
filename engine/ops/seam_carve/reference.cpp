// The reference: for every seam, recompute every energy and the whole cumulative-cost map, take
// the leftmost cheapest end, walk back, remove. Slow and obviously right.
#include "carve_state.hpp"

#include <algorithm>

namespace lacuna::ops {
namespace {

template <class Pixel>
SeamOrder vertical_reference(const BasicCarveInput<Pixel>& in, const int seams) {
    const int W = in.image.width, h = in.image.height;
    int w = W;
    // Row-major working copies with the original width as stride; removal shifts rows left.
    std::vector<Pixel> img(static_cast<std::size_t>(W) * h);
    std::vector<std::int32_t> index(img.size());
    std::vector<std::uint8_t> protect(img.size(), 0), remove(img.size(), 0),
        temporal(img.size(), 0), importance(img.size(), 0);
    const int unit = in.temporal_unit;
    const int importance_unit = in.importance ? in.importance_unit : 0;
    for (int y = 0; y < h; ++y) {
        for (int x = 0; x < W; ++x) {
            const std::size_t k = static_cast<std::size_t>(y) * W + x;
            img[k] = in.image.row(y)[x];
            index[k] = static_cast<std::int32_t>(k);
            if (in.protect) protect[k] = in.protect->at(x, y);
            if (in.remove) remove[k] = in.remove->at(x, y);
            if (in.temporal) temporal[k] = in.temporal->at(x, y);
            if (in.importance) importance[k] = in.importance->at(x, y);
        }
    }
    SeamOrder result;
    result.direction = SeamDirection::Vertical;
    result.width = W;
    result.height = h;
    result.seams = seams;
    result.order = Image<std::int32_t>(W, h, kNeverRemoved);

    std::vector<std::int64_t> cost(img.size());
    std::vector<std::int8_t> parent(img.size());
    std::vector<int> seam(h);
    const bool forward = in.energy == SeamEnergy::Forward;
    for (int s = 0; s < seams; ++s) {
        const auto row = [&](const int y) { return img.data() + static_cast<std::size_t>(y) * W; };
        const ClampedRgb<decltype(row)> pixels{row, w, h};
        const auto at = [&](const int x, const int y) {
            return static_cast<std::size_t>(y) * W + x;
        };
        for (int y = 0; y < h; ++y) {
            for (int x = 0; x < w; ++x) {
                // Per seam: the distance of the pixel's original column to the previous
                // frame's s-th seam in this row.
                const std::uint8_t level =
                    in.temporal_seams
                        ? seam_temporal_level(index[at(x, y)] % W, in.temporal_seams->at(s, y))
                        : temporal[at(x, y)];
                const std::int64_t own = pixel_energy(pixels, in.energy, x, y) +
                                         mask_term(protect[at(x, y)], remove[at(x, y)]) +
                                         temporal_term(level, unit) +
                                         temporal_term(importance[at(x, y)], importance_unit);
                if (y == 0) {
                    cost[at(x, 0)] = own + (forward ? forward_cost(pixels, x, 0, 0) : 0);
                    continue;
                }
                std::int64_t best = 0;
                int best_d = 2;
                for (int d = -1; d <= 1; ++d) {  // left first: ties go to the leftmost parent
                    if (x + d < 0 || x + d >= w) continue;
                    const std::int64_t c =
                        cost[at(x + d, y - 1)] + (forward ? forward_cost(pixels, x, y, d) : 0);
                    if (best_d == 2 || c < best) {
                        best = c;
                        best_d = d;
                    }
                }
                cost[at(x, y)] = best + own;
                parent[at(x, y)] = static_cast<std::int8_t>(best_d);
            }
        }
        int x = 0;
        for (int c = 1; c < w; ++c) {
            if (cost[at(c, h - 1)] < cost[at(x, h - 1)]) x = c;
        }
        result.costs.push_back(cost[at(x, h - 1)]);
        for (int y = h - 1; y >= 0; --y) {
            seam[y] = x;
            if (y > 0) x += parent[at(x, y)];
        }
        std::int32_t crossed_protect = 0, crossed_remove = 0;
        for (int y = 0; y < h; ++y) {
            const std::size_t k = at(seam[y], y);
            const std::int32_t original = index[k];
            result.order.at(original % W, original / W) = s;
            crossed_protect += protect[k] != 0;
            crossed_remove += remove[k] != 0;
            const auto shift = [&](auto& v) {
                std::copy(v.begin() + static_cast<std::ptrdiff_t>(k) + 1,
                          v.begin() + static_cast<std::ptrdiff_t>(at(w, y)),
                          v.begin() + static_cast<std::ptrdiff_t>(k));
            };
            shift(img);
            shift(index);
            shift(protect);
            shift(remove);
            shift(temporal);
            shift(importance);
        }
        result.protected_crossed.push_back(crossed_protect);
        result.remove_crossed.push_back(crossed_remove);
        --w;
    }
    return result;
}

}  // namespace

SeamOrder seam_order_reference(const CarveInput& input, const SeamDirection direction,
                               const int seams) {
    detail::check_carve_input(input, direction, seams);
    return detail::in_direction(detail::importance_as_levels(input), direction, seams,
                                vertical_reference<Rgba8>);
}

SeamOrder seam_order_reference(const DeepCarveInput& input, const SeamDirection direction,
                               const int seams) {
    detail::check_carve_input(input, direction, seams);
    return detail::in_direction(detail::importance_as_levels(input), direction, seams,
                                vertical_reference<Rgba16>);
}

}  // namespace lacuna::ops
