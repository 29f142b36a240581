// The post-fill pass against foreign blobs (inpaint_refill.hpp). Short and single-threaded: it
// is its own reference. Every loop runs over a region's box grown by the ring, so a small hole
// in a large picture costs its box (plus one labelling pass over the mask).
#include <lacuna/core/error.hpp>
#include <lacuna/ops/inpaint_choice.hpp>
#include <lacuna/ops/inpaint_refill.hpp>
#include <lacuna/ops/patchmatch.hpp>

#include "colour_bins.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace lacuna::ops {
namespace {

// Tuning switches for the measurements (removed once the constants are chosen).
int tune(const char* name, const int fallback) {
    const char* v = std::getenv(name);
    return v != nullptr ? std::atoi(v) : fallback;
}

SearchRect grown(const SearchRect& box, const int by, const int w, const int h) {
    return {std::max(0, box.x0 - by), std::max(0, box.y0 - by), std::min(w - 1, box.x1 + by),
            std::min(h - 1, box.y1 + by)};
}

/// Pixels of `rect` within `reach` (chessboard) of a pixel where `is(x, y)` holds: a separable
/// running count over the rect grown by reach. Returned over `rect`, row-major.
template <class Is>
std::vector<std::uint8_t> near(const SearchRect& rect, const int reach, const int w, const int h,
                               const Is& is) {
    const int cw = rect.x1 - rect.x0 + 1, ch = rect.y1 - rect.y0 + 1;
    // Rows first, over the rect's rows grown by reach (clipped to the image).
    const int ry0 = std::max(0, rect.y0 - reach), ry1 = std::min(h - 1, rect.y1 + reach);
    std::vector<std::uint8_t> rows(static_cast<std::size_t>(ry1 - ry0 + 1) * cw, 0);
    for (int y = ry0; y <= ry1; ++y)
        for (int x = rect.x0; x <= rect.x1; ++x) {
            bool hit = false;
            for (int xx = std::max(0, x - reach); xx <= std::min(w - 1, x + reach) && !hit; ++xx)
                hit = is(xx, y);
            rows[static_cast<std::size_t>(y - ry0) * cw + (x - rect.x0)] = hit ? 1 : 0;
        }
    std::vector<std::uint8_t> out(static_cast<std::size_t>(cw) * ch, 0);
    for (int y = rect.y0; y <= rect.y1; ++y)
        for (int x = rect.x0; x <= rect.x1; ++x) {
            bool hit = false;
            for (int yy = std::max(ry0, y - reach); yy <= std::min(ry1, y + reach) && !hit; ++yy)
                hit = rows[static_cast<std::size_t>(yy - ry0) * cw + (x - rect.x0)] != 0;
            out[static_cast<std::size_t>(y - rect.y0) * cw + (x - rect.x0)] = hit ? 1 : 0;
        }
    return out;
}

/// The 5-bit colours of the known pixels within kRefillRing of region `r`.
std::vector<std::uint8_t> ring_colours(const ImageView<const Rgba8> filled,
                                       const HoleRegions& regions, const int r, const int ring) {
    const int w = regions.width, h = regions.height;
    const SearchRect box = grown(regions.regions[static_cast<std::size_t>(r)].box, ring, w, h);
    const auto label = [&](const int x, const int y) {
        return regions.label[static_cast<std::size_t>(y) * w + x];
    };
    const std::vector<std::uint8_t> close =
        near(box, ring, w, h, [&](const int x, const int y) { return label(x, y) == r; });
    std::vector<std::uint8_t> seen(detail::kColourBins, 0);
    const int cw = box.x1 - box.x0 + 1;
    for (int y = box.y0; y <= box.y1; ++y)
        for (int x = box.x0; x <= box.x1; ++x)
            if (label(x, y) < 0 && close[static_cast<std::size_t>(y - box.y0) * cw + (x - box.x0)])
                seen[static_cast<std::size_t>(detail::colour_bin(filled.row(y)[x]))] = 1;
    return seen;
}

/// Sets every bin within one bin a channel of `bin` in `set`.
void widen_into(std::vector<std::uint8_t>& set, const int bin, const int by) {
    const int r = bin >> 10, g = (bin >> 5) & 31, b = bin & 31;
    for (int dr = -by; dr <= by; ++dr)
        for (int dg = -by; dg <= by; ++dg)
            for (int db = -by; db <= by; ++db) {
                const int rr = r + dr, gg = g + dg, bb = b + db;
                if (rr < 0 || gg < 0 || bb < 0 || rr > 31 || gg > 31 || bb > 31) continue;
                set[static_cast<std::size_t>((rr << 10) | (gg << 5) | bb)] = 1;
            }
}

/// Foreign pixels of `image` in the components of `blobs`, counted against each hole pixel's
/// region's ring colours.
std::vector<std::int64_t> count_foreign(const ImageView<const Rgba8> image,
                                        const HoleRegions& holes,
                                        const std::vector<std::vector<std::uint8_t>>& seen,
                                        const HoleRegions& blobs) {
    std::vector<std::int64_t> out(blobs.regions.size(), 0);
    for (std::size_t b = 0; b < blobs.regions.size(); ++b) {
        const SearchRect& box = blobs.regions[b].box;
        for (int y = box.y0; y <= box.y1; ++y)
            for (int x = box.x0; x <= box.x1; ++x) {
                const std::size_t i = static_cast<std::size_t>(y) * blobs.width + x;
                if (blobs.label[i] != static_cast<std::int32_t>(b)) continue;
                const std::vector<std::uint8_t>& s = seen[static_cast<std::size_t>(holes.label[i])];
                out[b] += s[static_cast<std::size_t>(detail::colour_bin(image.row(y)[x]))] == 0;
            }
    }
    return out;
}

double luma(const Rgba8 p) {
    return 0.299 * p.r + 0.587 * p.g + 0.114 * p.b;
}

/// Mean luma gradient magnitude (central differences) over blob `b`'s pixels.
double blob_gradient(const ImageView<const Rgba8> image, const HoleRegions& blobs, const int b) {
    const SearchRect& box = blobs.regions[static_cast<std::size_t>(b)].box;
    double sum = 0;
    std::int64_t n = 0;
    for (int y = std::max(box.y0, 1); y <= std::min(box.y1, image.height - 2); ++y)
        for (int x = std::max(box.x0, 1); x <= std::min(box.x1, image.width - 2); ++x) {
            if (blobs.label[static_cast<std::size_t>(y) * blobs.width + x] != b) continue;
            const double gx = luma(image.row(y)[x + 1]) - luma(image.row(y)[x - 1]);
            const double gy = luma(image.row(y + 1)[x]) - luma(image.row(y - 1)[x]);
            sum += std::sqrt(gx * gx + gy * gy);
            ++n;
        }
    return n > 0 ? sum / static_cast<double>(n) : 0.0;
}

struct Detection {
    ForeignBlobs blobs;
    HoleRegions holes;                            ///< the hole's regions
    std::vector<std::vector<std::uint8_t>> seen;  ///< per hole region, its ring's colours
    HoleRegions components;                       ///< of blobs.refill
};

Detection detect(const ImageView<const Rgba8> filled, const Mask& hole) {
    const int w = filled.width, h = filled.height;
    check_mask_size(hole.view(), w, h, "the mask");
    const int ring = tune("LACUNA_RF_RING", kRefillRing);
    const int join = tune("LACUNA_RF_JOIN", kRefillJoin);
    const int min_foreign = tune("LACUNA_RF_MIN", kRefillMinForeign);
    const int grow = tune("LACUNA_RF_GROW", kRefillGrow);
    const int widen = tune("LACUNA_RF_WIDEN", 1);
    Detection d;
    d.holes = hole_regions(hole);
    d.blobs.foreign = Mask(w, h, std::uint8_t{0});
    d.blobs.refill = Mask(w, h, std::uint8_t{0});
    d.blobs.excluded_bins.assign(detail::kColourBins, 0);
    Mask& foreign = d.blobs.foreign;
    for (std::size_t r = 0; r < d.holes.regions.size(); ++r) {
        d.seen.push_back(ring_colours(filled, d.holes, static_cast<int>(r), ring));
        const SearchRect& box = d.holes.regions[r].box;
        for (int y = box.y0; y <= box.y1; ++y)
            for (int x = box.x0; x <= box.x1; ++x)
                if (d.holes.label[static_cast<std::size_t>(y) * w + x] ==
                        static_cast<std::int32_t>(r) &&
                    d.seen.back()[static_cast<std::size_t>(detail::colour_bin(filled.row(y)[x]))] ==
                        0)
                    foreign.at(x, y) = 1;
    }
    // Candidate blobs: the foreign pixels joined across gaps of `join`, within the hole.
    Mask joined(w, h, std::uint8_t{0});
    for (std::size_t r = 0; r < d.holes.regions.size(); ++r) {
        const SearchRect& box = d.holes.regions[r].box;
        const std::vector<std::uint8_t> close =
            near(box, join, w, h, [&](const int x, const int y) { return foreign.at(x, y) != 0; });
        const int cw = box.x1 - box.x0 + 1;
        for (int y = box.y0; y <= box.y1; ++y)
            for (int x = box.x0; x <= box.x1; ++x)
                if (hole.at(x, y) != 0 &&
                    close[static_cast<std::size_t>(y - box.y0) * cw + (x - box.x0)] != 0)
                    joined.at(x, y) = 1;
    }
    const HoleRegions candidates = hole_regions(joined);
    Mask kept(w, h, std::uint8_t{0});
    for (std::size_t c = 0; c < candidates.regions.size(); ++c) {
        const SearchRect& box = candidates.regions[c].box;
        std::int64_t n = 0;
        for (int y = box.y0; y <= box.y1; ++y)
            for (int x = box.x0; x <= box.x1; ++x)
                n += candidates.label[static_cast<std::size_t>(y) * w + x] ==
                         static_cast<std::int32_t>(c) &&
                     foreign.at(x, y) != 0;
        if (n < min_foreign) continue;
        {
            const std::size_t first =
                static_cast<std::size_t>(box.y0) * w + box.x0;  // any pixel of the candidate
            (void)first;
        }
        const std::int32_t region = [&] {
            for (int y = box.y0; y <= box.y1; ++y)
                for (int x = box.x0; x <= box.x1; ++x)
                    if (candidates.label[static_cast<std::size_t>(y) * w + x] ==
                        static_cast<std::int32_t>(c))
                        return d.holes.label[static_cast<std::size_t>(y) * w + x];
            return std::int32_t{0};
        }();
        const double share =
            static_cast<double>(candidates.regions[c].pixels) /
            static_cast<double>(d.holes.regions[static_cast<std::size_t>(region)].pixels);
        if (std::getenv("LACUNA_RF_DEBUG"))
            std::fprintf(stderr, "RF cand foreign %lld px %lld share %.3f\n", (long long)n,
                         (long long)candidates.regions[c].pixels, share);
        if (share * 100.0 > tune("LACUNA_RF_MAXSHARE", 100)) continue;
        for (int y = box.y0; y <= box.y1; ++y)
            for (int x = box.x0; x <= box.x1; ++x) {
                const std::size_t i = static_cast<std::size_t>(y) * w + x;
                if (candidates.label[i] != static_cast<std::int32_t>(c)) continue;
                kept.at(x, y) = 1;
                if (foreign.at(x, y) == 0) continue;
                // The blob's foreign colour and its look-alikes, less the ring's own colours.
                widen_into(d.blobs.excluded_bins, detail::colour_bin(filled.row(y)[x]), widen);
            }
    }
    // Ring colours are never excluded: structure next to the hole stays a source.
    std::vector<std::uint8_t> any_ring(detail::kColourBins, 0);
    for (const auto& s : d.seen)
        for (std::size_t b = 0; b < s.size(); ++b) any_ring[b] |= s[b];
    for (std::size_t b = 0; b < any_ring.size(); ++b)
        if (any_ring[b] != 0) d.blobs.excluded_bins[b] = 0;
    // The refill hole: the kept blobs grown by `grow`, within the hole.
    for (std::size_t r = 0; r < d.holes.regions.size(); ++r) {
        const SearchRect& box = d.holes.regions[r].box;
        const std::vector<std::uint8_t> close =
            near(box, grow, w, h, [&](const int x, const int y) { return kept.at(x, y) != 0; });
        const int cw = box.x1 - box.x0 + 1;
        for (int y = box.y0; y <= box.y1; ++y)
            for (int x = box.x0; x <= box.x1; ++x)
                if (hole.at(x, y) != 0 &&
                    close[static_cast<std::size_t>(y - box.y0) * cw + (x - box.x0)] != 0)
                    d.blobs.refill.at(x, y) = 1;
    }
    d.components = hole_regions(d.blobs.refill);
    d.blobs.foreign_in_blob = count_foreign(filled, d.holes, d.seen, d.components);
    return d;
}

}  // namespace

ForeignBlobs find_foreign_blobs(const ImageView<const Rgba8> filled, const Mask& hole) {
    return std::move(detect(filled, hole).blobs);
}

ImageRgba8 refill_foreign(const Mask& mask, const InpaintParams& params,
                          const InpaintImplementation implementation, ImageRgba8 filled,
                          RefillReport* report) {
    if (report != nullptr) *report = {};
    if (!params.refill_foreign || params.method != InpaintMethod::PatchMatch) return filled;
    const Detection d = detect(filled.view(), mask);
    const std::size_t blobs = d.components.regions.size();
    if (report != nullptr) {
        report->blobs = static_cast<int>(blobs);
        for (const std::int64_t n : d.blobs.foreign_in_blob) report->foreign_before += n;
        report->foreign_after = report->foreign_before;
    }
    if (blobs == 0) return filled;
    const int w = filled.width(), h = filled.height();
    // Never sampled: the whole original hole (its pixels are a fill, not the picture), what the
    // caller never samples, and every known pixel of an excluded colour.
    Mask never(w, h, std::uint8_t{0});
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const bool user = params.never_sample != nullptr && params.never_sample->at(x, y) != 0;
            never.at(x, y) = (mask.at(x, y) != 0 || user ||
                              d.blobs.excluded_bins[static_cast<std::size_t>(
                                  detail::colour_bin(filled.at(x, y)))] != 0)
                                 ? 1
                                 : 0;
        }
    InpaintParams again = params;
    again.never_sample = &never;
    again.lines = false;
    again.choose = false;
    again.refill_foreign = false;
    again.source_colours = false;
    if (tune("LACUNA_RF_CRIM", 0) != 0) again.method = InpaintMethod::Criminisi;
    ImageRgba8 refilled;
    try {
        const std::unique_ptr<Inpainter> filler =
            make_inpainter(filled.view(), d.blobs.refill, again, implementation);
        while (!filler->progress().done()) filler->advance(1 << 20);
        refilled = finished_image(*filler);
    } catch (const Error& e) {
        // Too few sources left once the foreign colours are out: the fill stays as it was.
        if (std::getenv("LACUNA_RF_DEBUG"))
            std::fprintf(stderr, "RF refill failed: %s\n", e.what());
        if (e.code() == ErrorCode::InvalidArgument) return filled;
        throw;
    }
    const std::vector<std::int64_t> after =
        count_foreign(refilled.view(), d.holes, d.seen, d.components);
    const double keep_ratio = tune("LACUNA_RF_KEEP", 50) / 100.0;
    for (std::size_t b = 0; b < blobs; ++b) {
        const std::int64_t before = d.blobs.foreign_in_blob[b];
        const double g0 = blob_gradient(filled.view(), d.components, static_cast<int>(b));
        const double g1 = blob_gradient(refilled.view(), d.components, static_cast<int>(b));
        if (std::getenv("LACUNA_RF_DEBUG"))
            std::fprintf(stderr, "RF blob %zu px %lld foreign %lld -> %lld grad %.2f -> %.2f\n", b,
                         (long long)d.components.regions[b].pixels, (long long)before,
                         (long long)after[b], g0, g1);
        if (static_cast<double>(after[b]) > keep_ratio * static_cast<double>(before)) continue;
        if (g1 * 100.0 < tune("LACUNA_RF_GRAD", 0) * g0) continue;
        if (report != nullptr) {
            ++report->kept;
            report->foreign_after -= before - after[b];
        }
        const SearchRect& box = d.components.regions[b].box;
        for (int y = box.y0; y <= box.y1; ++y)
            for (int x = box.x0; x <= box.x1; ++x)
                if (d.components.label[static_cast<std::size_t>(y) * w + x] ==
                    static_cast<std::int32_t>(b))
                    filled.at(x, y) = refilled.at(x, y);
    }
    return filled;
}

}  // namespace lacuna::ops
