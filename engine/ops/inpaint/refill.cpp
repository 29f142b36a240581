// The post-fill pass against foreign blobs (inpaint_refill.hpp). Short and single-threaded: it
// is its own reference. The detection's loops run over each hole region's box grown by the
// ring; the labelling, the masks and the never-sample mask of a refill are image-sized passes.
#include <lacuna/core/error.hpp>
#include <lacuna/ops/inpaint_choice.hpp>
#include <lacuna/ops/inpaint_refill.hpp>
#include <lacuna/ops/inpaint_structure.hpp>
#include <lacuna/ops/patchmatch.hpp>

#include "colour_bins.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace lacuna::ops {
namespace {

/// Pixels of `rect` within `reach` (chessboard) of a pixel where `is(x, y)` holds: a row pass
/// over the rect grown by reach, then a column pass. Returned over `rect`, row-major.
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

/// The hole region that component `c` of `parts` (a labelling of a subset of the hole) lies in.
std::int32_t region_of(const HoleRegions& parts, const int c, const HoleRegions& holes) {
    const SearchRect& box = parts.regions[static_cast<std::size_t>(c)].box;
    for (int y = box.y0; y <= box.y1; ++y)
        for (int x = box.x0; x <= box.x1; ++x) {
            const std::size_t i = static_cast<std::size_t>(y) * parts.width + x;
            if (parts.label[i] == c) return holes.label[i];
        }
    return 0;
}

/// Sobel magnitude (|gx| + |gy|) of the luma at (x, y), neighbours clamped to the image.
int edge_strength(const ImageView<const Rgba8> im, const int x, const int y) {
    const auto luma = [&](const int xx, const int yy) {
        const Rgba8 p = im.row(std::clamp(yy, 0, im.height - 1))[std::clamp(xx, 0, im.width - 1)];
        return (77 * p.r + 150 * p.g + 29 * p.b) >> 8;
    };
    const int gx = luma(x + 1, y - 1) + 2 * luma(x + 1, y) + luma(x + 1, y + 1) -
                   luma(x - 1, y - 1) - 2 * luma(x - 1, y) - luma(x - 1, y + 1);
    const int gy = luma(x - 1, y + 1) + 2 * luma(x, y + 1) + luma(x + 1, y + 1) -
                   luma(x - 1, y - 1) - 2 * luma(x, y - 1) - luma(x + 1, y - 1);
    return std::abs(gx) + std::abs(gy);
}

/// Whether blob `b`'s refill erases a straight edge that enters the hole from the ring (a
/// ledge whose shades the ring lacks): the blob's pixels within kRefillLineReach of one of
/// `lines`' continuations into the hole, at least kRefillMinStructure of them, hold an edge in
/// the fill (mean Sobel >= kRefillEdge) and the refill's Sobel sum over them is below
/// kRefillStructureKeep of the fill's. A pasted piece (a lamp, a block beside an edge) does not
/// lie on such a line, or the refill keeps the edge along it.
bool erases_structure(const ImageView<const Rgba8> filled, const ImageView<const Rgba8> refilled,
                      const std::vector<EdgeTrace>& lines, const HoleRegions& blobs, const int b) {
    const SearchRect& box = blobs.regions[static_cast<std::size_t>(b)].box;
    for (const EdgeTrace& line : lines) {
        std::int64_t pixels = 0, before = 0, after = 0;
        for (int y = box.y0; y <= box.y1; ++y)
            for (int x = box.x0; x <= box.x1; ++x) {
                if (blobs.label[static_cast<std::size_t>(y) * blobs.width + x] !=
                    static_cast<std::int32_t>(b))
                    continue;
                const double px = x - line.x, py = y - line.y;
                // Ahead of the edge's hole-side end, and close to its line.
                if (px * line.dx + py * line.dy <= 0 ||
                    std::abs(px * line.dy - py * line.dx) > kRefillLineReach)
                    continue;
                ++pixels;
                before += edge_strength(filled, x, y);
                after += edge_strength(refilled, x, y);
            }
        if (pixels >= kRefillMinStructure && before >= kRefillEdge * pixels &&
            static_cast<double>(after) < kRefillStructureKeep * static_cast<double>(before))
            return true;
    }
    return false;
}

struct Detection {
    ForeignBlobs blobs;
    HoleRegions holes;                            ///< the hole's regions
    std::vector<std::vector<std::uint8_t>> seen;  ///< per hole region, its ring's colours
    HoleRegions components;                       ///< of blobs.refill
};

/// Marks in `kept` the clumps of the pixels of `foreign` (a subset of the hole's foreign
/// pixels) joined across gaps of `join` (chessboard), within the hole: those of at least
/// kRefillMinForeign foreign pixels that cover at most kRefillMaxShare of their hole region.
void pick_clumps(const Detection& d, const Mask& hole, const Mask& foreign, const int join,
                 Mask& kept) {
    const int w = hole.width(), h = hole.height();
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
    for (std::size_t c = 0; c < candidates.regions.size(); ++c) {
        const SearchRect& box = candidates.regions[c].box;
        const auto in_c = [&](const int x, const int y) {
            return candidates.label[static_cast<std::size_t>(y) * w + x] ==
                   static_cast<std::int32_t>(c);
        };
        std::int64_t n = 0;
        for (int y = box.y0; y <= box.y1; ++y)
            for (int x = box.x0; x <= box.x1; ++x) n += in_c(x, y) && foreign.at(x, y) != 0;
        if (n < kRefillMinForeign) continue;
        // A clump of foreign pixels, and a piece of the region rather than most of it (a
        // larger one is a structure whose shades the ring lacks, a window grid's ledge).
        const std::int32_t region = region_of(candidates, static_cast<int>(c), d.holes);
        const auto pixels = static_cast<double>(candidates.regions[c].pixels);
        if (pixels >
            kRefillMaxShare *
                static_cast<double>(d.holes.regions[static_cast<std::size_t>(region)].pixels))
            continue;
        for (int y = box.y0; y <= box.y1; ++y)
            for (int x = box.x0; x <= box.x1; ++x)
                if (in_c(x, y)) kept.at(x, y) = 1;
    }
}

Detection detect(const ImageView<const Rgba8> filled, const Mask& hole) {
    const int w = filled.width, h = filled.height;
    check_mask_size(hole.view(), w, h, "the mask");
    const int ring = kRefillRing, join = kRefillJoin, grow = kRefillGrow;
    Detection d;
    d.holes = hole_regions(hole);
    d.blobs.foreign = Mask(w, h, std::uint8_t{0});
    d.blobs.refill = Mask(w, h, std::uint8_t{0});
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
    Mask kept(w, h, std::uint8_t{0});
    pick_clumps(d, hole, foreign, join, kept);
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

namespace {

/// The blobs of `filled`, refilled and judged. Empty when no blob is found or no complete source
/// patch is left for the refill.
RefillChoice refill_blobs(const Mask& mask, const InpaintParams& params,
                          const InpaintImplementation implementation, const ImageRgba8& filled) {
    RefillChoice out;
    RefillReport& report = out.report;
    Detection d = detect(filled.view(), mask);
    const std::size_t blobs = d.components.regions.size();
    report.blobs = static_cast<int>(blobs);
    for (const std::int64_t n : d.blobs.foreign_in_blob) report.foreign_before += n;
    report.foreign_after = report.foreign_before;
    if (blobs == 0) return out;
    const int w = filled.width(), h = filled.height();
    // Never sampled: the whole original hole (its pixels are a fill, not the picture: a source
    // there could copy the blob's neighbour, or the blob itself) and what the caller never
    // samples. The blob's surroundings in the fill are known, so the new patches must agree
    // with them.
    Mask never(w, h, std::uint8_t{0});
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            never.at(x, y) = mask.at(x, y) != 0 || (params.never_sample != nullptr &&
                                                    params.never_sample->at(x, y) != 0)
                                 ? 1
                                 : 0;
    InpaintParams again = params;
    again.never_sample = &never;
    again.lines = false;
    again.choose = false;
    again.refill_foreign = false;
    again.source_colours = false;
    try {
        const std::unique_ptr<Inpainter> filler =
            make_inpainter(filled.view(), d.blobs.refill, again, implementation);
        while (!filler->progress().done()) filler->advance(1 << 20);
        out.refilled = finished_image(*filler);
        const InpaintProblem& problem = filler->problem();
        out.sources = patchmatch_sources(*patchmatch_field(*filler), problem.hole, problem.radius);
    } catch (const Error& e) {
        // No complete source patch left (a hole that covers nearly the whole picture): the
        // fill stays as it was.
        if (e.code() == ErrorCode::InvalidArgument) return {};
        throw;
    }
    const std::vector<std::int64_t> after =
        count_foreign(out.refilled.view(), d.holes, d.seen, d.components);
    // The straight edges that reach the hole from the ring (the line continuation's tracer,
    // with its default tolerances), for the structure check.
    const std::vector<EdgeTrace> lines = edges_into_hole(filled.view(), mask, {});
    out.kept.assign(blobs, 0);
    for (std::size_t b = 0; b < blobs; ++b) {
        const std::int64_t before = d.blobs.foreign_in_blob[b];
        if (static_cast<double>(after[b]) > kRefillKeepRatio * static_cast<double>(before))
            continue;
        if (erases_structure(filled.view(), out.refilled.view(), lines, d.components,
                             static_cast<int>(b))) {
            ++report.structure_refused;
            continue;
        }
        out.kept[b] = 1;
        ++report.kept;
        report.foreign_after -= before - after[b];
    }
    out.refill = std::move(d.blobs.refill);
    out.blobs = std::move(d.components);
    return out;
}

/// Calls visit(x, y, blob) for every pixel of a kept blob of `choice`.
template <class Visit>
void each_kept(const RefillChoice& choice, const Visit& visit) {
    const HoleRegions& blobs = choice.blobs;
    for (std::size_t b = 0; b < blobs.regions.size(); ++b) {
        if (choice.kept[b] == 0) continue;
        const SearchRect& box = blobs.regions[b].box;
        for (int y = box.y0; y <= box.y1; ++y)
            for (int x = box.x0; x <= box.x1; ++x)
                if (blobs.label[static_cast<std::size_t>(y) * blobs.width + x] ==
                    static_cast<std::int32_t>(b))
                    visit(x, y, b);
    }
}

}  // namespace

bool refill_runs(const Mask& mask, const InpaintParams& params) {
    if (!params.refill_foreign || params.method != InpaintMethod::PatchMatch) return false;
    // Count first: a large hole (the 1080p case) costs one pass over the mask.
    std::int64_t pixels = 0;
    for (int y = 0; y < mask.height() && pixels <= kRefillMaxPixels; ++y) {
        const std::uint8_t* row = mask.row(y);
        for (int x = 0; x < mask.width(); ++x) pixels += row[x] != 0;
    }
    return pixels > 0 && pixels <= kRefillMaxPixels;
}

int RefillChoice::kept_blobs() const {
    return static_cast<int>(std::count(kept.begin(), kept.end(), 1));
}

RefillChoice refill_regions(const Mask& mask, const InpaintParams& params,
                            const InpaintImplementation implementation, const ImageRgba8& filled) {
    if (!refill_runs(mask, params)) return {};
    check_mask_size(mask.view(), filled.width(), filled.height(), "the mask");
    if (params.never_sample != nullptr)
        check_mask_size(params.never_sample->view(), filled.width(), filled.height(),
                        "the never-sample mask");
    return refill_blobs(mask, params, implementation, filled);
}

ImageRgba8 compose_refill(ImageRgba8 filled, const RefillChoice& choice) {
    each_kept(choice, [&](const int x, const int y, std::size_t) {
        filled.at(x, y) = choice.refilled.at(x, y);
    });
    return filled;
}

ImageRgba8 refill_foreign(const Mask& mask, const InpaintParams& params,
                          const InpaintImplementation implementation, ImageRgba8 filled,
                          RefillReport* report) {
    const RefillChoice choice = refill_regions(mask, params, implementation, filled);
    if (report != nullptr) *report = choice.report;
    return compose_refill(std::move(filled), choice);
}

RefillChoice refill_sources(const ImageView<const Rgba8> proxy, const Mask& mask,
                            const InpaintParams& params, const InpaintImplementation implementation,
                            const FillSources& patchmatch, const FillChoice& choice,
                            const FillSources* bands) {
    if (!refill_runs(mask, params)) return {};
    // What the picture shows for these sources before the refill (choose_sources' PatchMatch
    // candidate), with the regions that took Criminisi composed in.
    ImageRgba8 filled = sources_picture(proxy, mask, patchmatch, bands);
    if (choice.criminisi_regions() > 0)
        filled = compose_fills({&filled, &choice.criminisi}, choice.regions, choice.choice);
    return refill_regions(mask, params, implementation, filled);
}

void apply_refill(NativeImage& filled, const PixelRect& rect, const NativeImage& samples,
                  const RefillChoice& choice) {
    if (choice.kept_blobs() == 0) return;
    move_selected_samples(filled, rect, samples, choice.blobs, choice.kept, choice.sources);
}

std::string refill_note(const RefillReport& report) {
    if (report.kept == 0) return {};
    return std::to_string(report.kept) + " of " + std::to_string(report.blobs) +
           " blobs of colours foreign to the surroundings filled again";
}

}  // namespace lacuna::ops
