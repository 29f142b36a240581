// Whether a PatchMatch fill takes the gradient channels in its patch distance: see
// gradient_weight_for in patchmatch_driver.hpp.
#include "patchmatch_driver.hpp"

#include "chessboard_near.hpp"

#include <lacuna/ops/inpaint_structure.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>  // std::abs
#include <vector>

namespace lacuna::ops::detail {
namespace {

/// 1 for the pixels of `area` that are known and within kGateRing px (chessboard) of a hole
/// pixel, row major over `area` (the hole's box grown by kGateRing + 1, clipped: the ring never
/// needs the rest of the picture).
std::vector<std::uint8_t> ring_of(const MaskView hole, const SearchRect& area) {
    const int w = area.x1 - area.x0 + 1, h = area.y1 - area.y0 + 1;
    Mask local(w, h, 0);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) local.at(x, y) = hole.row(area.y0 + y)[area.x0 + x];
    std::vector<std::uint8_t> ring = chessboard_near(local, kGateRing, 1);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            if (local.at(x, y) != 0) ring[static_cast<std::size_t>(y) * w + x] = 0;
    return ring;
}

}  // namespace

bool ring_is_fine_texture(const InpaintProblem& problem) {
    const ImageView<const Rgba8> image = problem.image.view();
    const MaskView hole = problem.hole.view();
    const SearchRect& b = problem.hole_box;
    const SearchRect area{std::max(0, b.x0 - kGateRing - 1), std::max(0, b.y0 - kGateRing - 1),
                          std::min(image.width - 1, b.x1 + kGateRing + 1),
                          std::min(image.height - 1, b.y1 + kGateRing + 1)};
    const std::vector<std::uint8_t> ring = ring_of(hole, area);
    const int w = area.x1 - area.x0 + 1;
    const auto known = [&](const int x, const int y) {
        return x >= 0 && y >= 0 && x < image.width && y < image.height && hole.row(y)[x] == 0;
    };
    const auto luma = [&](const int x, const int y) {
        return patchmatch_terms::pm_luma(image.row(y)[x]);
    };
    // Integer sums, so the decision cannot depend on the order or the backend.
    std::int64_t sum = 0, count = 0;
    for (int y = area.y0; y <= area.y1; ++y)
        for (int x = area.x0; x <= area.x1; ++x) {
            if (!ring[static_cast<std::size_t>(y - area.y0) * w + (x - area.x0)]) continue;
            if (!known(x - 1, y) || !known(x + 1, y) || !known(x, y - 1) || !known(x, y + 1))
                continue;
            sum += std::abs(luma(x + 1, y) - luma(x - 1, y)) +
                   std::abs(luma(x, y + 1) - luma(x, y - 1));
            ++count;
        }
    if (count == 0 || sum < std::int64_t{kGateTexture} * count) return false;
    // Straight edges reaching the hole are structure that the gradient term loses (a pole's
    // line, a lattice's gap): only a hole that none reaches counts as texture.
    const PixelRect near = clip({b.x0 - kGateTraceMargin, b.y0 - kGateTraceMargin,
                                 b.x1 + kGateTraceMargin, b.y1 + kGateTraceMargin},
                                image.width, image.height);
    return !edge_reaches_hole(sub_view(image, near), copy_region(problem.hole, near), {});
}

std::uint32_t gradient_weight_for(const InpaintProblem& problem) {
    if (problem.hole_pixels == 0) return 0;
    return ring_is_fine_texture(problem) ? patchmatch_terms::kGradientWeight : 0U;
}

}  // namespace lacuna::ops::detail
