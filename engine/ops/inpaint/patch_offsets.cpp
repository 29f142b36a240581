// The image's dominant patch offsets (He & Sun 2012): see patch_offsets.hpp.
#include "patch_offsets.hpp"

#include <lacuna/kernels/patchmatch_terms.h>

#include <algorithm>
#include <cstdlib>
#include <limits>

namespace lacuna::ops::detail {
namespace {

namespace pt = patchmatch_terms;

/// The reduced copy's longer side at most (He & Sun also work on a reduced image: the
/// repetitions that matter span many pixels, and the search is then a fraction of the fill).
constexpr int kReducedSide = 256;
/// Patch radius of the offset search in reduced pixels (7 × 7).
constexpr int kSearchRadius = 3;
/// Offsets shorter than this many level-0 pixels are not repetitions but the patch's own
/// neighbourhood (every smooth patch's nearest neighbour is next to it).
constexpr int kMinOffset = 8;
/// PatchMatch iterations of the offset search (scans alternate direction).
constexpr int kSearchIterations = 4;
/// Non-maximum suppression radius over the smoothed histogram, in reduced pixels.
constexpr int kPeakRadius = 3;
/// Seed of the search's hashed random numbers (fixed: the list must not follow the fill's seed,
/// so that every fill of the same image tries the same repetitions).
constexpr std::uint32_t kSearchSeed = 0x0ff5e75U;

struct Reduced {
    int width = 0;
    int height = 0;
    int scale = 1;
    std::vector<Rgba8> color;
    std::vector<std::uint8_t> centre;  ///< 1 = the patch centred here is complete and known
};

/// The known region at 1 / scale: each pixel the rounded mean of its scale × scale block, known
/// when no pixel of the block is in the hole; centres whose whole patch is known.
Reduced reduce(const InpaintProblem& problem) {
    const int w = problem.image.width(), h = problem.image.height();
    Reduced r;
    r.scale = std::max(1, (std::max(w, h) + kReducedSide - 1) / kReducedSide);
    r.width = w / r.scale;
    r.height = h / r.scale;
    const auto n = static_cast<std::size_t>(r.width) * r.height;
    r.color.resize(n);
    std::vector<std::uint8_t> known(n);
    const auto image = problem.image.view();
    const auto hole = problem.hole.view();
    const unsigned area = static_cast<unsigned>(r.scale * r.scale);
    for (int y = 0; y < r.height; ++y)
        for (int x = 0; x < r.width; ++x) {
            unsigned sr = 0, sg = 0, sb = 0;
            bool any_hole = false;
            for (int yy = y * r.scale; yy < (y + 1) * r.scale; ++yy)
                for (int xx = x * r.scale; xx < (x + 1) * r.scale; ++xx) {
                    const Rgba8 c = image.row(yy)[xx];
                    sr += c.r;
                    sg += c.g;
                    sb += c.b;
                    any_hole = any_hole || hole.row(yy)[xx] != 0;
                }
            const std::size_t i = static_cast<std::size_t>(y) * r.width + x;
            r.color[i] = pt::pm_mean_color<pt::PmDepth8>(sr, sg, sb, 255ULL * area, area);
            known[i] = any_hole ? 0 : 1;
        }
    // Complete centres: interior and no unknown pixel in the patch (a summed-area table).
    std::vector<int> sat(static_cast<std::size_t>(r.width + 1) * (r.height + 1), 0);
    const auto at = [&](const int x, const int y) -> int& {
        return sat[static_cast<std::size_t>(y) * (r.width + 1) + x];
    };
    for (int y = 0; y < r.height; ++y)
        for (int x = 0; x < r.width; ++x)
            at(x + 1, y + 1) = at(x, y + 1) + at(x + 1, y) - at(x, y) +
                               (known[static_cast<std::size_t>(y) * r.width + x] ? 0 : 1);
    r.centre.assign(n, 0);
    const int pr = kSearchRadius;
    for (int y = pr; y + pr < r.height; ++y)
        for (int x = pr; x + pr < r.width; ++x) {
            const int unknown = at(x + pr + 1, y + pr + 1) - at(x - pr, y + pr + 1) -
                                at(x + pr + 1, y - pr) + at(x - pr, y - pr);
            r.centre[static_cast<std::size_t>(y) * r.width + x] = unknown == 0 ? 1 : 0;
        }
    return r;
}

/// Colour SSD of the patches at a and b, stopping once it reaches `bound`.
unsigned patch_ssd(const Reduced& r, const int ax, const int ay, const int bx, const int by,
                   const unsigned bound) {
    unsigned sum = 0;
    for (int dy = -kSearchRadius; dy <= kSearchRadius; ++dy) {
        const Rgba8* pa = r.color.data() + static_cast<std::size_t>(ay + dy) * r.width + ax;
        const Rgba8* pb = r.color.data() + static_cast<std::size_t>(by + dy) * r.width + bx;
        for (int dx = -kSearchRadius; dx <= kSearchRadius; ++dx) {
            const int er = pa[dx].r - pb[dx].r, eg = pa[dx].g - pb[dx].g, eb = pa[dx].b - pb[dx].b;
            sum += static_cast<unsigned>(er * er + eg * eg + eb * eb);
        }
        if (sum >= bound) return sum;
    }
    return sum;
}

/// Every complete centre's most similar complete centre at least `min_offset` away (reduced
/// pixels), by PatchMatch with serial scans: -1 where none was found.
std::vector<std::int32_t> nearest_far_patches(const Reduced& r, const int min_offset) {
    const int w = r.width, h = r.height;
    const auto n = static_cast<std::size_t>(w) * h;
    std::vector<std::int32_t> nn(n, -1);
    std::vector<unsigned> dist(n, std::numeric_limits<unsigned>::max());
    const long long min2 = static_cast<long long>(min_offset) * min_offset;
    const auto allowed = [&](const int x, const int y, const int sx, const int sy) {
        if (sx < 0 || sy < 0 || sx >= w || sy >= h) return false;
        if (!r.centre[static_cast<std::size_t>(sy) * w + sx]) return false;
        const long long dx = sx - x, dy = sy - y;
        return dx * dx + dy * dy >= min2;
    };
    const auto consider = [&](const std::size_t p, const int x, const int y, const int sx,
                              const int sy) {
        if (!allowed(x, y, sx, sy)) return;
        const auto c = static_cast<std::int32_t>(sy * w + sx);
        if (c == nn[p]) return;
        const unsigned d = patch_ssd(r, x, y, sx, sy, dist[p]);
        if (d < dist[p]) nn[p] = c, dist[p] = d;
    };
    const int span0 = std::max(w, h);
    for (int it = 0; it < kSearchIterations; ++it) {
        const bool forward = it % 2 == 0;
        const int step = forward ? 1 : -1;
        for (int i = 0; i < h; ++i) {
            const int y = forward ? i : h - 1 - i;
            for (int j = 0; j < w; ++j) {
                const int x = forward ? j : w - 1 - j;
                const std::size_t p = static_cast<std::size_t>(y) * w + x;
                if (!r.centre[p]) continue;
                if (it == 0)
                    for (int k = 0; k < 4; ++k)
                        consider(
                            p, x, y,
                            pt::pm_uniform(pt::pm_hash(kSearchSeed, 0, -1, x, y, 2 * k), 0, w - 1),
                            pt::pm_uniform(pt::pm_hash(kSearchSeed, 0, -1, x, y, 2 * k + 1), 0,
                                           h - 1));
                // Propagation from the neighbours already visited in this scan.
                const int nx = x - step, ny = y - step;
                if (nx >= 0 && nx < w) {
                    const std::int32_t q = nn[static_cast<std::size_t>(y) * w + nx];
                    if (q >= 0) consider(p, x, y, q % w + step, q / w);
                }
                if (ny >= 0 && ny < h) {
                    const std::int32_t q = nn[static_cast<std::size_t>(ny) * w + x];
                    if (q >= 0) consider(p, x, y, q % w, q / w + step);
                }
                // Random search in windows halving around the best.
                if (nn[p] < 0) continue;
                int k = 0;
                for (int span = span0; span >= 1; span /= 2, ++k) {
                    const int bx = nn[p] % w, by = nn[p] / w;
                    consider(p, x, y,
                             pt::pm_uniform(pt::pm_hash(kSearchSeed, 0, it, x, y, 2 * k), bx - span,
                                            bx + span),
                             pt::pm_uniform(pt::pm_hash(kSearchSeed, 0, it, x, y, 2 * k + 1),
                                            by - span, by + span));
                }
            }
        }
    }
    return nn;
}

/// 1-4-6-4-1 smoothing along one axis (a binomial, about a Gaussian of σ = 1), zero outside.
std::vector<std::uint32_t> smooth_axis(const std::vector<std::uint32_t>& in, const int w,
                                       const int h, const bool along_x) {
    constexpr std::uint32_t kTaps[5] = {1, 4, 6, 4, 1};
    std::vector<std::uint32_t> out(in.size(), 0);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            std::uint32_t s = 0;
            for (int t = -2; t <= 2; ++t) {
                const int xx = along_x ? x + t : x, yy = along_x ? y : y + t;
                if (xx < 0 || yy < 0 || xx >= w || yy >= h) continue;
                s += kTaps[t + 2] * in[static_cast<std::size_t>(yy) * w + xx];
            }
            out[static_cast<std::size_t>(y) * w + x] = s;
        }
    return out;
}

}  // namespace

std::vector<PatchOffset> dominant_offsets(const InpaintProblem& problem, const int count) {
    if (count <= 0 || problem.hole_pixels == 0) return {};
    const Reduced r = reduce(problem);
    if (r.width <= 2 * kSearchRadius || r.height <= 2 * kSearchRadius) return {};
    const int min_offset = std::max(3, (kMinOffset + r.scale - 1) / r.scale);
    const std::vector<std::int32_t> nn = nearest_far_patches(r, min_offset);
    // The histogram of offsets, index (dy + height - 1, dx + width - 1).
    const int hw = 2 * r.width - 1, hh = 2 * r.height - 1;
    std::vector<std::uint32_t> hist(static_cast<std::size_t>(hw) * hh, 0);
    for (std::size_t p = 0; p < nn.size(); ++p) {
        if (nn[p] < 0) continue;
        const int x = static_cast<int>(p % r.width), y = static_cast<int>(p / r.width);
        const int dx = nn[p] % r.width - x, dy = nn[p] / r.width - y;
        ++hist[static_cast<std::size_t>(dy + r.height - 1) * hw + (dx + r.width - 1)];
    }
    hist = smooth_axis(smooth_axis(hist, hw, hh, true), hw, hh, false);
    // Local maxima: not below any neighbour, and above those before it in scan order (a
    // plateau keeps its first pixel).
    struct Peak {
        std::uint32_t votes;
        int index;
    };
    std::vector<Peak> peaks;
    for (int y = 0; y < hh; ++y)
        for (int x = 0; x < hw; ++x) {
            const int i = y * hw + x;
            const std::uint32_t v = hist[static_cast<std::size_t>(i)];
            if (v == 0) continue;
            bool peak = true;
            for (int yy = std::max(0, y - kPeakRadius);
                 peak && yy <= std::min(hh - 1, y + kPeakRadius); ++yy)
                for (int xx = std::max(0, x - kPeakRadius); xx <= std::min(hw - 1, x + kPeakRadius);
                     ++xx) {
                    const int j = yy * hw + xx;
                    const std::uint32_t u = hist[static_cast<std::size_t>(j)];
                    if (u > v || (j < i && u == v)) {
                        peak = false;
                        break;
                    }
                }
            if (peak) peaks.push_back({v, i});
        }
    std::sort(peaks.begin(), peaks.end(), [](const Peak& a, const Peak& b) {
        return a.votes != b.votes ? a.votes > b.votes : a.index < b.index;
    });
    std::vector<PatchOffset> out;
    for (const Peak& p : peaks) {
        if (static_cast<int>(out.size()) >= count) break;
        const int dx = p.index % hw - (r.width - 1), dy = p.index / hw - (r.height - 1);
        const long long d2 = static_cast<long long>(dx) * dx + static_cast<long long>(dy) * dy;
        // Smoothing spreads votes towards zero; the short offsets are excluded as in the search.
        if (d2 < static_cast<long long>(min_offset) * min_offset) continue;
        out.push_back({dx * r.scale, dy * r.scale});
    }
    return out;
}

std::vector<std::int32_t> offsets_at_level(const std::vector<PatchOffset>& offsets,
                                           const int level) {
    const auto shrink = [level](const int v) {
        const int half = level > 0 ? 1 << (level - 1) : 0;
        return v >= 0 ? (v + half) >> level : -((-v + half) >> level);
    };
    std::vector<std::int32_t> out;
    for (const PatchOffset& o : offsets) {
        const int dx = shrink(o.dx), dy = shrink(o.dy);
        if (dx == 0 && dy == 0) continue;
        bool seen = false;
        for (std::size_t i = 0; i < out.size(); i += 2)
            seen = seen || (out[i] == dx && out[i + 1] == dy);
        if (seen) continue;
        out.push_back(dx);
        out.push_back(dy);
    }
    return out;
}

int patch_offset_count() {
    const char* e = std::getenv("LACUNA_PM_OFFSETS");
    return e != nullptr ? std::atoi(e) : 0;
}

}  // namespace lacuna::ops::detail
