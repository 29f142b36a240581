// keep_cut_off_regions: the blend's tone correction taken back out of regions of the fill that
// strong edges cut off from the known pixels (see patchmatch.hpp).
#include <lacuna/core/error.hpp>
#include <lacuna/ops/patchmatch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <vector>

namespace lacuna::ops {
namespace {

int largest_step(const Rgba8 a, const Rgba8 b) {
    return std::max({std::abs(a.r - b.r), std::abs(a.g - b.g), std::abs(a.b - b.b)});
}

}  // namespace

ImageRgba8 keep_cut_off_regions(const ImageRgba8& copied, const ImageRgba8& blended,
                                const Mask& hole, const CutOffOptions& options) {
    const int w = copied.width(), h = copied.height();
    if (blended.width() != w || blended.height() != h)
        throw Error(ErrorCode::InvalidArgument, "the blended fill is for another size");
    check_mask_size(hole.view(), w, h, "the hole");
    ImageRgba8 out = blended;
    if (options.edge_levels <= 0) return out;
    constexpr int dx[4] = {-1, 1, 0, 0};
    constexpr int dy[4] = {0, 0, -1, 1};
    std::vector<std::uint8_t> seen(static_cast<std::size_t>(w) * h);
    std::vector<int> region;  // the current region's pixels (y · w + x), in the order found
    for (int y0 = 0; y0 < h; ++y0)
        for (int x0 = 0; x0 < w; ++x0) {
            if (!hole.at(x0, y0) || seen[static_cast<std::size_t>(y0) * w + x0]) continue;
            // Flood the region from (x0, y0): hole neighbours joined by a weak step.
            region.assign(1, y0 * w + x0);
            seen[static_cast<std::size_t>(y0) * w + x0] = 1;
            bool touches_known = false;
            for (std::size_t next = 0; next < region.size(); ++next) {
                const int x = region[next] % w, y = region[next] / w;
                for (int k = 0; k < 4; ++k) {
                    const int qx = x + dx[k], qy = y + dy[k];
                    if (qx < 0 || qy < 0 || qx >= w || qy >= h) continue;
                    if (!hole.at(qx, qy)) {
                        touches_known = true;
                        continue;
                    }
                    const std::size_t q = static_cast<std::size_t>(qy) * w + qx;
                    if (seen[q] ||
                        largest_step(copied.at(x, y), copied.at(qx, qy)) >= options.edge_levels)
                        continue;
                    seen[q] = 1;
                    region.push_back(qy * w + qx);
                }
            }
            if (touches_known || static_cast<int>(region.size()) < options.min_pixels) continue;
            for (const int i : region) out.at(i % w, i / w) = copied.at(i % w, i / w);
        }
    return out;
}

}  // namespace lacuna::ops
