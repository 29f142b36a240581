// Source prior by colour: see lacuna/ops/inpaint_sources.hpp.
#include <lacuna/ops/inpaint.hpp>
#include <lacuna/ops/inpaint_sources.hpp>

#include "colour_bins.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace lacuna::ops {
namespace {

/// Chessboard distance transform (two passes) of `seed` inside a w × h grid, capped at `cap`.
/// Capped (at most 255), so one byte a pixel: a 4K picture's map is 16 MB.
std::vector<std::uint8_t> chessboard_distance(const std::vector<std::uint8_t>& seed, const int w,
                                              const int h, const int cap) {
    std::vector<std::uint8_t> d(seed.size());
    for (std::size_t i = 0; i < seed.size(); ++i)
        d[i] = static_cast<std::uint8_t>(seed[i] != 0 ? 0 : cap);
    const auto at = [&](const int x, const int y) -> std::uint8_t& {
        return d[static_cast<std::size_t>(y) * w + x];
    };
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            int v = at(x, y);
            if (x > 0) v = std::min(v, at(x - 1, y) + 1);
            if (y > 0) {
                v = std::min(v, at(x, y - 1) + 1);
                if (x > 0) v = std::min(v, at(x - 1, y - 1) + 1);
                if (x + 1 < w) v = std::min(v, at(x + 1, y - 1) + 1);
            }
            at(x, y) = static_cast<std::uint8_t>(std::min(v, cap));
        }
    for (int y = h - 1; y >= 0; --y)
        for (int x = w - 1; x >= 0; --x) {
            int v = at(x, y);
            if (x + 1 < w) v = std::min(v, at(x + 1, y) + 1);
            if (y + 1 < h) {
                v = std::min(v, at(x, y + 1) + 1);
                if (x + 1 < w) v = std::min(v, at(x + 1, y + 1) + 1);
                if (x > 0) v = std::min(v, at(x - 1, y + 1) + 1);
            }
            at(x, y) = static_cast<std::uint8_t>(std::min(v, cap));
        }
    return d;
}

/// The 5-bit colours of `ring` pixels, widened by ±tolerance bins per channel.
std::vector<std::uint8_t> allowed_colours(const std::vector<std::uint16_t>& bins,
                                          const std::vector<std::uint8_t>& in_ring,
                                          const int tolerance) {
    std::vector<std::uint8_t> seen(detail::kColourBins, 0);
    for (std::size_t i = 0; i < bins.size(); ++i)
        if (in_ring[i] != 0) seen[static_cast<std::size_t>(bins[i])] = 1;
    if (tolerance <= 0) return seen;
    // Separable max filter over the 32³ cube, one channel axis at a time.
    std::vector<std::uint8_t> out = seen;
    for (const int shift : {0, 5, 10}) {
        std::vector<std::uint8_t> next(out.size(), 0);
        for (int bin = 0; bin < detail::kColourBins; ++bin) {
            if (out[static_cast<std::size_t>(bin)] == 0) continue;
            const int c = (bin >> shift) & 31;
            for (int v = std::max(0, c - tolerance); v <= std::min(31, c + tolerance); ++v)
                next[static_cast<std::size_t>((bin & ~(31 << shift)) | (v << shift))] = 1;
        }
        out = std::move(next);
    }
    return out;
}

}  // namespace

SourcePriorResult restrict_sources(const ImageView<const Rgba8> image, const Mask& hole,
                                   const Mask& valid, const SearchRect& window, const int radius,
                                   const std::int64_t hole_pixels,
                                   const SourcePriorOptions& options) {
    SourcePriorResult result;
    const int w = image.width, h = image.height;
    // The pixels any candidate patch can read: the window's centres grown by the radius.
    const int x0 = std::max(0, window.x0 - radius), y0 = std::max(0, window.y0 - radius);
    const int x1 = std::min(w - 1, window.x1 + radius), y1 = std::min(h - 1, window.y1 + radius);
    const int rw = x1 - x0 + 1, rh = y1 - y0 + 1;
    if (rw <= 0 || rh <= 0) return result;
    const auto idx = [&](const int x, const int y) {
        return static_cast<std::size_t>(y - y0) * rw + (x - x0);
    };
    std::vector<std::uint8_t> in_hole(static_cast<std::size_t>(rw) * rh);
    std::vector<std::uint16_t> bins(in_hole.size());
    for (int y = y0; y <= y1; ++y) {
        const Rgba8* row = image.row(y);
        const std::uint8_t* hr = hole.row(y);
        for (int x = x0; x <= x1; ++x) {
            in_hole[idx(x, y)] = hr[x] != 0 ? 1 : 0;
            bins[idx(x, y)] = static_cast<std::uint16_t>(detail::colour_bin(row[x]));
        }
    }
    // The ring: known pixels within `ring` of the hole (holes outside the region are ignored:
    // the region holds the whole hole, since the window contains the hole's box).
    const int cap = std::min(255, std::max(options.ring, options.exempt) + 2);
    const std::vector<std::uint8_t> dist = chessboard_distance(in_hole, rw, rh, cap);
    std::vector<std::uint8_t> in_ring(in_hole.size(), 0);
    for (std::size_t i = 0; i < in_hole.size(); ++i)
        in_ring[i] = in_hole[i] == 0 && dist[i] <= options.ring ? 1 : 0;
    const std::vector<std::uint8_t> allowed = allowed_colours(bins, in_ring, options.tolerance);

    // Foreign pixels: known, outside the ring, colour not allowed.
    std::vector<std::uint8_t> foreign(in_hole.size(), 0);
    for (std::size_t i = 0; i < in_hole.size(); ++i)
        foreign[i] = in_hole[i] == 0 && allowed[static_cast<std::size_t>(bins[i])] == 0 ? 1 : 0;
    // Foreign regions reaching within `exempt` of the hole continue into it (a chimney's cap,
    // a line's far part): 8-connected components touching that zone stay sources.
    if (options.exempt > options.ring) {
        std::vector<int> stack;
        for (std::size_t i = 0; i < foreign.size(); ++i) {
            if (foreign[i] != 1 || dist[i] > options.exempt) continue;
            foreign[i] = 2;
            stack.push_back(static_cast<int>(i));
            while (!stack.empty()) {
                const int p = stack.back();
                stack.pop_back();
                const int px = p % rw, py = p / rw;
                for (int dy = -1; dy <= 1; ++dy)
                    for (int dx = -1; dx <= 1; ++dx) {
                        const int qx = px + dx, qy = py + dy;
                        if (qx < 0 || qy < 0 || qx >= rw || qy >= rh) continue;
                        const std::size_t q = static_cast<std::size_t>(qy) * rw + qx;
                        if (foreign[q] != 1) continue;
                        foreign[q] = 2;
                        stack.push_back(static_cast<int>(q));
                    }
            }
        }
    }
    // Integral image of the excluded foreign pixels, for each centre's patch count.
    std::vector<std::int32_t> sum(static_cast<std::size_t>(rw + 1) * (rh + 1), 0);
    for (int y = 0; y < rh; ++y) {
        std::int32_t line = 0;
        for (int x = 0; x < rw; ++x) {
            line += foreign[static_cast<std::size_t>(y) * rw + x] == 1 ? 1 : 0;
            sum[static_cast<std::size_t>(y + 1) * (rw + 1) + x + 1] =
                sum[static_cast<std::size_t>(y) * (rw + 1) + x + 1] + line;
        }
    }
    const auto box_sum = [&](const int ax, const int ay, const int bx, const int by) {
        const auto s = [&](const int x, const int y) {
            return sum[static_cast<std::size_t>(y) * (rw + 1) + x];
        };
        return s(bx + 1, by + 1) - s(ax, by + 1) - s(bx + 1, ay) + s(ax, ay);
    };
    result.valid = Mask(w, h, 0);
    std::int64_t before = 0, after = 0;
    for (int y = 0; y < h; ++y) std::copy_n(valid.row(y), w, result.valid.row(y));
    for (int y = window.y0; y <= window.y1; ++y) {
        std::uint8_t* out = result.valid.row(y);
        for (int x = window.x0; x <= window.x1; ++x) {
            if (out[x] == 0) continue;
            ++before;
            const int n =
                box_sum(x - radius - x0, y - radius - y0, x + radius - x0, y + radius - y0);
            if (n >= options.max_foreign) {
                out[x] = 0;
                continue;
            }
            ++after;
        }
    }
    result.before = before;
    result.after = after;
    // Too few sources left: the prior would starve the fill; keep every source.
    result.applied = after < before && after >= std::min<std::int64_t>(before, hole_pixels);
    if (!result.applied) result.valid = Mask();
    return result;
}

SourcePriorOptions source_prior_options(const InpaintParams& params) {
    (void)params;  // one setting today: on or off (the tolerances measured best on the bench)
    return SourcePriorOptions{};
}

void restrict_sources(InpaintProblem& problem, const SourcePriorOptions& options) {
    if (problem.hole_pixels == 0) return;
    // PatchMatch takes candidates from the whole image (the window is Criminisi's).
    const int r0 = problem.radius;
    const SearchRect every{r0, r0, problem.image.width() - 1 - r0, problem.image.height() - 1 - r0};
    SourcePriorResult r = restrict_sources(problem.image.view(), problem.hole, problem.valid_source,
                                           every, problem.radius, problem.hole_pixels, options);
    if (!r.applied) return;
    problem.valid_source = std::move(r.valid);
    problem.notes.push_back("source prior: " + std::to_string(r.before - r.after) + " of " +
                            std::to_string(r.before) +
                            " source patches hold colours the hole's surroundings lack");
}

}  // namespace lacuna::ops
