// The per-region choice between finished fills (inpaint_choice.hpp). Everything here reads the
// region's box grown by the ring, so a small hole in a large image costs its box.
#include <lacuna/core/error.hpp>
#include <lacuna/ops/inpaint_choice.hpp>

#include "colour_bins.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace lacuna::ops {
namespace {

SearchRect grown(const SearchRect& box, const int by, const int w, const int h) {
    return {std::max(0, box.x0 - by), std::max(0, box.y0 - by), std::min(w - 1, box.x1 + by),
            std::min(h - 1, box.y1 + by)};
}

double luma(const Rgba8 p) {
    return 0.299 * p.r + 0.587 * p.g + 0.114 * p.b;
}

/// A crop's planes as doubles, row-major, `crop`'s size.
struct Crop {
    SearchRect rect;
    int w = 0, h = 0;
    [[nodiscard]] std::size_t index(const int x, const int y) const {
        return static_cast<std::size_t>(y - rect.y0) * w + (x - rect.x0);
    }
};

Crop crop_of(const SearchRect& rect) {
    return {rect, rect.x1 - rect.x0 + 1, rect.y1 - rect.y0 + 1};
}

/// 1 where a pixel of the crop lies within `reach` (chessboard) of a pixel of region `r`.
std::vector<std::uint8_t> near_region(const HoleRegions& regions, const int r, const Crop& c,
                                      const int reach) {
    std::vector<int> rows(static_cast<std::size_t>(c.w) * c.h, 0);
    for (int y = c.rect.y0; y <= c.rect.y1; ++y) {
        // Running count of region pixels in [x - reach, x + reach] along the row.
        const auto in = [&](const int x) {
            return x >= c.rect.x0 && x <= c.rect.x1 &&
                   regions.label[static_cast<std::size_t>(y) * regions.width + x] == r;
        };
        int count = 0;
        for (int x = c.rect.x0 - reach; x <= c.rect.x0 + reach; ++x) count += in(x);
        for (int x = c.rect.x0; x <= c.rect.x1; ++x) {
            rows[c.index(x, y)] = count;
            count += in(x + reach + 1) - in(x - reach);
        }
    }
    std::vector<std::uint8_t> out(rows.size(), 0);
    for (int x = 0; x < c.w; ++x) {
        const auto at = [&](const int j) {
            return j >= 0 && j < c.h && rows[static_cast<std::size_t>(j) * c.w + x] > 0;
        };
        int count = 0;
        for (int j = -reach; j <= reach; ++j) count += at(j);
        for (int j = 0; j < c.h; ++j) {
            out[static_cast<std::size_t>(j) * c.w + x] = count > 0 ? 1 : 0;
            count += at(j + reach + 1) - at(j - reach);
        }
    }
    return out;
}

/// The known pixels of the crop within `reach` of region `r` (its ring).
std::vector<std::uint8_t> known_ring(const HoleRegions& regions, const int r, const Crop& c,
                                     const int reach) {
    std::vector<std::uint8_t> ring = near_region(regions, r, c, reach);
    for (int y = c.rect.y0; y <= c.rect.y1; ++y)
        for (int x = c.rect.x0; x <= c.rect.x1; ++x)
            if (regions.label[static_cast<std::size_t>(y) * regions.width + x] >= 0)
                ring[c.index(x, y)] = 0;
    return ring;
}

/// The 5-bit colours of the crop's pixels where `take` is set.
std::vector<std::uint8_t> colours_in(const ImageView<const Rgba8> image, const Crop& c,
                                     const std::vector<std::uint8_t>& take) {
    std::vector<std::uint8_t> seen(detail::kColourBins, 0);
    for (int y = c.rect.y0; y <= c.rect.y1; ++y)
        for (int x = c.rect.x0; x <= c.rect.x1; ++x)
            if (take[c.index(x, y)] != 0)
                seen[static_cast<std::size_t>(detail::colour_bin(image.row(y)[x]))] = 1;
    return seen;
}

/// Separable Gaussian of σ on three planes of the crop, border replicated.
void gaussian(std::vector<double>& plane, const Crop& c, const double sigma) {
    const int radius = static_cast<int>(std::ceil(3.0 * sigma));
    std::vector<double> k(static_cast<std::size_t>(2 * radius + 1));
    double sum = 0;
    for (int i = -radius; i <= radius; ++i) {
        k[static_cast<std::size_t>(i + radius)] = std::exp(-0.5 * i * i / (sigma * sigma));
        sum += k[static_cast<std::size_t>(i + radius)];
    }
    for (double& v : k) v /= sum;
    std::vector<double> tmp(plane.size());
    for (int y = 0; y < c.h; ++y)
        for (int x = 0; x < c.w; ++x) {
            double s = 0;
            for (int i = -radius; i <= radius; ++i) {
                const int xx = std::clamp(x + i, 0, c.w - 1);
                s += k[static_cast<std::size_t>(i + radius)] *
                     plane[static_cast<std::size_t>(y) * c.w + xx];
            }
            tmp[static_cast<std::size_t>(y) * c.w + x] = s;
        }
    for (int y = 0; y < c.h; ++y)
        for (int x = 0; x < c.w; ++x) {
            double s = 0;
            for (int i = -radius; i <= radius; ++i) {
                const int yy = std::clamp(y + i, 0, c.h - 1);
                s += k[static_cast<std::size_t>(i + radius)] *
                     tmp[static_cast<std::size_t>(yy) * c.w + x];
            }
            plane[static_cast<std::size_t>(y) * c.w + x] = s;
        }
}

/// The membrane over region `r` in one channel of the crop: Gauss-Seidel with over-relaxation
/// on the region's pixels, every other pixel fixed (a hole pixel of another region counts as
/// absent: its link is dropped). Started from the mean of the ring's values.
void solve_membrane(std::vector<double>& plane, const HoleRegions& regions, const int r,
                    const Crop& c) {
    std::vector<std::size_t> unknown;
    std::vector<std::uint8_t> is_unknown(plane.size(), 0), usable(plane.size(), 1);
    for (int y = c.rect.y0; y <= c.rect.y1; ++y)
        for (int x = c.rect.x0; x <= c.rect.x1; ++x) {
            const std::int32_t l = regions.label[static_cast<std::size_t>(y) * regions.width + x];
            if (l == r) {
                unknown.push_back(c.index(x, y));
                is_unknown[c.index(x, y)] = 1;
            } else if (l >= 0) {
                usable[c.index(x, y)] = 0;
            }
        }
    // Start: the mean of the known pixels next to the region.
    double sum = 0;
    std::int64_t n = 0;
    for (const std::size_t i : unknown) {
        const int x = static_cast<int>(i % c.w), y = static_cast<int>(i / c.w);
        const int dx[4] = {-1, 1, 0, 0}, dy[4] = {0, 0, -1, 1};
        for (int d = 0; d < 4; ++d) {
            const int xx = x + dx[d], yy = y + dy[d];
            if (xx < 0 || yy < 0 || xx >= c.w || yy >= c.h) continue;
            const std::size_t j = static_cast<std::size_t>(yy) * c.w + xx;
            if (is_unknown[j] == 0 && usable[j] != 0) {
                sum += plane[j];
                ++n;
            }
        }
    }
    const double start = n > 0 ? sum / static_cast<double>(n) : 128.0;
    for (const std::size_t i : unknown) plane[i] = start;
    // Multi-resolution would converge faster; the regions this runs on are small (the caller
    // limits them), and a tone estimate needs no exact solution: a fixed number of sweeps.
    const int sweeps = 300;
    const double omega = 1.9;
    for (int s = 0; s < sweeps; ++s)
        for (const std::size_t i : unknown) {
            const int x = static_cast<int>(i % c.w), y = static_cast<int>(i / c.w);
            double acc = 0;
            int links = 0;
            const auto link = [&](const int xx, const int yy) {
                if (xx < 0 || yy < 0 || xx >= c.w || yy >= c.h) return;
                const std::size_t j = static_cast<std::size_t>(yy) * c.w + xx;
                if (usable[j] == 0) return;
                acc += plane[j];
                ++links;
            };
            link(x - 1, y);
            link(x + 1, y);
            link(x, y - 1);
            link(x, y + 1);
            if (links > 0) plane[i] += omega * (acc / links - plane[i]);
        }
}

std::vector<double> channel(const ImageView<const Rgba8> image, const Crop& c, const int ch) {
    std::vector<double> out(static_cast<std::size_t>(c.w) * c.h);
    for (int y = c.rect.y0; y <= c.rect.y1; ++y)
        for (int x = c.rect.x0; x <= c.rect.x1; ++x) {
            const Rgba8 p = image.row(y)[x];
            out[c.index(x, y)] = ch == 0 ? p.r : (ch == 1 ? p.g : p.b);
        }
    return out;
}

}  // namespace

HoleRegions hole_regions(const Mask& hole) {
    HoleRegions out;
    out.width = hole.width();
    out.height = hole.height();
    out.label.assign(static_cast<std::size_t>(out.width) * out.height, -1);
    std::vector<std::int32_t> stack;
    for (int y = 0; y < out.height; ++y)
        for (int x = 0; x < out.width; ++x) {
            const std::size_t i = static_cast<std::size_t>(y) * out.width + x;
            if (hole.at(x, y) == 0 || out.label[i] >= 0) continue;
            const auto r = static_cast<std::int32_t>(out.regions.size());
            HoleRegions::Region region{{x, y, x, y}, 0};
            out.label[i] = r;
            stack.push_back(static_cast<std::int32_t>(i));
            while (!stack.empty()) {
                const std::int32_t p = stack.back();
                stack.pop_back();
                const int px = p % out.width, py = p / out.width;
                ++region.pixels;
                region.box = {std::min(region.box.x0, px), std::min(region.box.y0, py),
                              std::max(region.box.x1, px), std::max(region.box.y1, py)};
                for (int dy = -1; dy <= 1; ++dy)
                    for (int dx = -1; dx <= 1; ++dx) {
                        const int qx = px + dx, qy = py + dy;
                        if (qx < 0 || qy < 0 || qx >= out.width || qy >= out.height) continue;
                        const std::size_t q = static_cast<std::size_t>(qy) * out.width + qx;
                        if (hole.at(qx, qy) == 0 || out.label[q] >= 0) continue;
                        out.label[q] = r;
                        stack.push_back(static_cast<std::int32_t>(q));
                    }
            }
            out.regions.push_back(region);
        }
    return out;
}

std::vector<std::uint8_t> ring_colours(const ImageView<const Rgba8> image,
                                       const HoleRegions& regions, const int region,
                                       const int ring) {
    if (image.width != regions.width || image.height != regions.height)
        throw Error(ErrorCode::InvalidArgument, "the image and the hole differ in size");
    const HoleRegions::Region& reg = regions.regions.at(static_cast<std::size_t>(region));
    const Crop c = crop_of(grown(reg.box, ring, regions.width, regions.height));
    return colours_in(image, c, known_ring(regions, region, c, ring));
}

ImageRgba8 membrane_fill(const ImageView<const Rgba8> image, const HoleRegions& regions,
                         const int region) {
    if (image.width != regions.width || image.height != regions.height)
        throw Error(ErrorCode::InvalidArgument, "the image and the hole differ in size");
    ImageRgba8 out = clone(image);
    const Crop c = crop_of(grown(regions.regions.at(static_cast<std::size_t>(region)).box, 1,
                                 regions.width, regions.height));
    for (int ch = 0; ch < 3; ++ch) {
        std::vector<double> plane = channel(image, c, ch);
        solve_membrane(plane, regions, region, c);
        for (int y = c.rect.y0; y <= c.rect.y1; ++y)
            for (int x = c.rect.x0; x <= c.rect.x1; ++x) {
                if (regions.label[static_cast<std::size_t>(y) * regions.width + x] != region)
                    continue;
                const auto v = static_cast<std::uint8_t>(
                    std::clamp(std::lround(plane[c.index(x, y)]), 0L, 255L));
                Rgba8& p = out.at(x, y);
                (ch == 0 ? p.r : (ch == 1 ? p.g : p.b)) = v;
            }
    }
    return out;
}

namespace {

/// What every candidate of one region is scored against: the ring's colours and mean gradient,
/// and the membrane over the region, low-passed. All depend on known pixels only (candidates
/// agree outside the hole), so they are computed once per region.
struct RegionReference {
    const HoleRegions* regions = nullptr;
    int region = 0;
    Crop ring_crop;
    std::vector<std::uint8_t> in_ring;  ///< over ring_crop
    std::vector<std::uint8_t> seen;     ///< 5-bit colours of the ring
    double ring_gradient = 0;
    bool with_tone = false;
    Crop tone_crop;
    std::vector<double> membrane[3];  ///< low-passed, over tone_crop
};

constexpr double kToneSigma = 3.0;

[[nodiscard]] std::int32_t label_at(const HoleRegions& regions, const int x, const int y) {
    return regions.label[static_cast<std::size_t>(y) * regions.width + x];
}

/// Mean luma gradient (central differences) over the pixels of `crop` where `take` holds,
/// the image's outermost pixels left out.
template <class Take>
double mean_gradient(const ImageView<const Rgba8> image, const Crop& c, const Take& take) {
    double sum = 0;
    std::int64_t n = 0;
    for (int y = std::max(c.rect.y0, 1); y <= std::min(c.rect.y1, image.height - 2); ++y)
        for (int x = std::max(c.rect.x0, 1); x <= std::min(c.rect.x1, image.width - 2); ++x) {
            if (!take(x, y)) continue;
            const double gx = luma(image.row(y)[x + 1]) - luma(image.row(y)[x - 1]);
            const double gy = luma(image.row(y + 1)[x]) - luma(image.row(y - 1)[x]);
            sum += std::sqrt(gx * gx + gy * gy);
            ++n;
        }
    return n > 0 ? sum / static_cast<double>(n) : 0.0;
}

RegionReference reference_of(const ImageView<const Rgba8> image, const HoleRegions& regions,
                             const int region, const bool tone) {
    if (image.width != regions.width || image.height != regions.height)
        throw Error(ErrorCode::InvalidArgument, "the image and the hole differ in size");
    const HoleRegions::Region& reg = regions.regions.at(static_cast<std::size_t>(region));
    const int w = regions.width, h = regions.height;
    RegionReference ref;
    ref.regions = &regions;
    ref.region = region;
    ref.ring_crop = crop_of(grown(reg.box, kChoiceRing, w, h));
    const Crop& c = ref.ring_crop;
    ref.in_ring = known_ring(regions, region, c, kChoiceRing);
    ref.seen = colours_in(image, c, ref.in_ring);
    ref.ring_gradient = mean_gradient(
        image, c, [&](const int x, const int y) { return ref.in_ring[c.index(x, y)] != 0; });
    if (!tone) return ref;
    ref.with_tone = true;
    // The low-pass reaches 3σ (9 px) past the region: the crop covers it.
    ref.tone_crop = crop_of(grown(reg.box, 10, w, h));
    for (int ch = 0; ch < 3; ++ch) {
        std::vector<double>& plane = ref.membrane[ch];
        plane = channel(image, ref.tone_crop, ch);
        solve_membrane(plane, regions, region, ref.tone_crop);
        gaussian(plane, ref.tone_crop, kToneSigma);
    }
    return ref;
}

FillScore score_against(const ImageView<const Rgba8> filled, const RegionReference& ref) {
    const HoleRegions& regions = *ref.regions;
    const HoleRegions::Region& reg = regions.regions.at(static_cast<std::size_t>(ref.region));
    const auto in_region = [&](const int x, const int y) {
        return label_at(regions, x, y) == ref.region;
    };
    FillScore score;
    std::int64_t foreign = 0;
    const SearchRect& box = reg.box;
    for (int y = box.y0; y <= box.y1; ++y)
        for (int x = box.x0; x <= box.x1; ++x)
            if (in_region(x, y))
                foreign +=
                    ref.seen[static_cast<std::size_t>(detail::colour_bin(filled.row(y)[x]))] == 0;
    score.foreign = static_cast<double>(foreign) / static_cast<double>(reg.pixels);
    const double hole_gradient = mean_gradient(filled, ref.ring_crop, in_region);
    score.detail = std::abs(std::log2((hole_gradient + 1.0) / (ref.ring_gradient + 1.0)));
    if (!ref.with_tone) return score;
    const Crop& c = ref.tone_crop;
    double sum = 0;
    for (int ch = 0; ch < 3; ++ch) {
        std::vector<double> a = channel(filled, c, ch);
        gaussian(a, c, kToneSigma);
        for (int y = box.y0; y <= box.y1; ++y)
            for (int x = box.x0; x <= box.x1; ++x)
                if (in_region(x, y)) {
                    const double d = a[c.index(x, y)] - ref.membrane[ch][c.index(x, y)];
                    sum += d * d;
                }
    }
    score.tone = std::sqrt(sum / (3.0 * static_cast<double>(reg.pixels)));
    return score;
}

}  // namespace

FillScore score_fill(const ImageView<const Rgba8> filled, const HoleRegions& regions,
                     const int region) {
    return score_against(filled, reference_of(filled, regions, region, true));
}

std::vector<std::vector<FillScore>> score_fills(const std::vector<const ImageRgba8*>& candidates,
                                                const HoleRegions& regions, const bool tone) {
    std::vector<std::vector<FillScore>> out(regions.regions.size());
    if (candidates.empty()) return out;
    for (std::size_t r = 0; r < regions.regions.size(); ++r) {
        const RegionReference ref =
            reference_of(candidates[0]->view(), regions, static_cast<int>(r), tone);
        for (const ImageRgba8* candidate : candidates)
            out[r].push_back(score_against(candidate->view(), ref));
    }
    return out;
}

std::vector<int> choose_fills(const std::vector<std::vector<FillScore>>& scores) {
    std::vector<int> choice(scores.size(), 0);
    for (std::size_t r = 0; r < scores.size(); ++r) {
        if (scores[r].empty() || scores[r][0].foreign < kChoiceMinForeign) continue;
        double best = kChoiceForeignRatio * scores[r][0].foreign;
        for (std::size_t k = 1; k < scores[r].size(); ++k)
            if (scores[r][k].foreign <= best) {
                best = scores[r][k].foreign;
                choice[r] = static_cast<int>(k);
            }
    }
    return choice;
}

ImageRgba8 compose_fills(const std::vector<const ImageRgba8*>& candidates,
                         const HoleRegions& regions, const std::vector<int>& choice) {
    if (candidates.empty()) throw Error(ErrorCode::InvalidArgument, "no fill to choose from");
    ImageRgba8 out = clone(candidates[0]->view());
    for (std::size_t r = 0; r < regions.regions.size(); ++r) {
        const int k = choice.at(r);
        if (k == 0) continue;
        const ImageRgba8& from = *candidates.at(static_cast<std::size_t>(k));
        const SearchRect& box = regions.regions[r].box;
        for (int y = box.y0; y <= box.y1; ++y)
            for (int x = box.x0; x <= box.x1; ++x)
                if (regions.label[static_cast<std::size_t>(y) * regions.width + x] ==
                    static_cast<std::int32_t>(r))
                    out.at(x, y) = from.at(x, y);
    }
    return out;
}

}  // namespace lacuna::ops

namespace lacuna::ops {

FillSources criminisi_sources(const Inpainter& criminisi) {
    const InpaintProblem& problem = criminisi.problem();
    if (problem.method != InpaintMethod::Criminisi)
        throw Error(ErrorCode::InvalidArgument, "only a Criminisi fill copies whole patches");
    const int w = problem.image.width(), h = problem.image.height();
    const SearchRect& box = problem.hole_box;
    FillSources out{w, h, box, {}};
    if (problem.hole_pixels == 0) {
        out.box = {w, h, -1, -1};
        return out;
    }
    const int bw = box.x1 - box.x0 + 1;
    out.index.assign(static_cast<std::size_t>(bw) * (box.y1 - box.y0 + 1), -1);
    // FillState::fill's rule (the CUDA filler's is the same; their histories and bytes are
    // tested equal): the source patch goes into the target patch's pixels that are neither
    // known nor filled yet, each taking the pixel at the same offset from the source centre.
    // Hole pixels are exactly the unknown ones, and all lie in the hole's box.
    const int r = problem.radius;
    for (const PatchChoice& c : criminisi.history()) {
        const int tx = c.target % w, ty = c.target / w;
        for (int dy = -r; dy <= r; ++dy)
            for (int dx = -r; dx <= r; ++dx) {
                const int x = tx + dx, y = ty + dy;
                if (x < 0 || y < 0 || x >= w || y >= h || problem.hole.at(x, y) == 0) continue;
                std::int32_t& s =
                    out.index[static_cast<std::size_t>(y - box.y0) * bw + (x - box.x0)];
                if (s < 0) s = c.source + dy * w + dx;
            }
    }
    return out;
}

ImageRgba8 fill_from_sources(const ImageView<const Rgba8> image, const FillSources& sources) {
    const SearchRect& b = sources.box;
    const int bw = b.x1 - b.x0 + 1;
    if (sources.width != image.width || sources.height != image.height ||
        (b.x1 >= b.x0 &&
         (b.x0 < 0 || b.y0 < 0 || b.x1 >= image.width || b.y1 >= image.height ||
          sources.index.size() != static_cast<std::size_t>(bw) * (b.y1 - b.y0 + 1))))
        throw Error(ErrorCode::InvalidArgument, "the sources do not match the image");
    ImageRgba8 out = clone(image);
    const auto n = static_cast<std::int64_t>(image.width) * image.height;
    for (int y = b.y0; y <= b.y1; ++y)
        for (int x = b.x0; x <= b.x1; ++x) {
            const std::int32_t s =
                sources.index[static_cast<std::size_t>(y - b.y0) * bw + (x - b.x0)];
            if (s < 0) continue;
            if (s >= n) throw Error(ErrorCode::InvalidArgument, "a source lies outside the image");
            out.at(x, y) = image.row(s / image.width)[s % image.width];
        }
    return out;
}

bool choice_runs(const Mask& mask, const InpaintParams& params) {
    if (!params.choose || params.method != InpaintMethod::PatchMatch) return false;
    // Count first: a large hole (the 1080p case) costs one pass over the mask, not a labelling.
    std::int64_t pixels = 0;
    for (int y = 0; y < mask.height() && pixels <= kChoiceMaxPixels; ++y) {
        const std::uint8_t* row = mask.row(y);
        for (int x = 0; x < mask.width(); ++x) pixels += row[x] != 0;
    }
    return pixels > 0 && pixels <= kChoiceMaxPixels;
}

int FillChoice::criminisi_regions() const {
    return static_cast<int>(std::count(choice.begin(), choice.end(), 1));
}

FillChoice choose_regions(const ImageView<const Rgba8> image, const Mask& mask,
                          const InpaintParams& params, const InpaintImplementation implementation,
                          const ImageRgba8& filled) {
    FillChoice out;
    if (!choice_runs(mask, params)) return out;
    out.regions = hole_regions(mask);
    // Criminisi on the same hole, same patch, window and never-sample area: the same problem.
    InpaintParams criminisi = params;
    criminisi.method = InpaintMethod::Criminisi;
    const std::unique_ptr<Inpainter> other = make_inpainter(image, mask, criminisi, implementation);
    while (!other->progress().done()) other->advance(1 << 20);
    out.criminisi = other->image();
    out.criminisi_sources = criminisi_sources(*other);
    const std::vector<const ImageRgba8*> candidates{&filled, &out.criminisi};
    out.choice = choose_fills(score_fills(candidates, out.regions));
    return out;
}

ImageRgba8 choose_fill(const ImageView<const Rgba8> image, const Mask& mask,
                       const InpaintParams& params, const InpaintImplementation implementation,
                       ImageRgba8 filled, std::vector<int>* chosen) {
    const FillChoice choice = choose_regions(image, mask, params, implementation, filled);
    if (chosen != nullptr) *chosen = choice.choice;
    if (choice.criminisi_regions() == 0) return filled;
    return compose_fills({&filled, &choice.criminisi}, choice.regions, choice.choice);
}

ImageRgba8 sources_picture(const ImageView<const Rgba8> proxy, const Mask& mask,
                           const FillSources& patchmatch, const FillSources* bands) {
    // What ops::inpaint's PatchMatch shows for these sources: the line stage copied the bands
    // into the problem's image and took them out of its hole; the final vote copies the
    // proxy's pixels at the sources (patchmatch_sources reproduces it exactly), then
    // finished_image blends the problem's hole with the same sources.
    const bool banded = bands != nullptr && !bands->empty();
    const ImageRgba8 start = banded ? fill_from_sources(proxy, *bands) : ImageRgba8();
    const ImageView<const Rgba8> before = banded ? start.view() : proxy;
    Mask hole(mask.width(), mask.height(), 0);
    for (int y = 0; y < mask.height(); ++y)
        for (int x = 0; x < mask.width(); ++x) hole.at(x, y) = mask.at(x, y) != 0 ? 1 : 0;
    if (banded) {
        const SearchRect& b = bands->box;
        const int bw = b.x1 - b.x0 + 1;
        for (int y = b.y0; y <= b.y1; ++y)
            for (int x = b.x0; x <= b.x1; ++x)
                if (bands->index[static_cast<std::size_t>(y - b.y0) * bw + (x - b.x0)] >= 0)
                    hole.at(x, y) = 0;
    }
    return blend_fill(fill_from_sources(before, patchmatch), hole, patchmatch);
}

FillChoice choose_sources(const ImageView<const Rgba8> proxy, const Mask& mask,
                          const InpaintParams& params, const InpaintImplementation implementation,
                          const FillSources& patchmatch, const FillSources* bands) {
    if (!choice_runs(mask, params)) return {};
    const ImageRgba8 filled = sources_picture(proxy, mask, patchmatch, bands);
    return choose_regions(proxy, mask, params, implementation, filled);
}

void move_selected_samples(NativeImage& filled, const PixelRect& rect, const NativeImage& samples,
                           const HoleRegions& regions, const std::vector<int>& selected,
                           const FillSources& sources) {
    if (filled.width() != rect.width() || filled.height() != rect.height() ||
        !(filled.format() == samples.format()))
        throw Error(ErrorCode::InvalidArgument,
                    "the filled samples do not match the rectangle and the samples");
    const int w = samples.width();
    if (sources.width != w || sources.height != samples.height() || regions.width != w ||
        regions.height != samples.height() || selected.size() != regions.regions.size())
        throw Error(ErrorCode::InvalidArgument, "the source map is for another size");
    const SearchRect& fb = sources.box;
    const int bw = fb.x1 - fb.x0 + 1;
    const auto within = [](const SearchRect& box, const int x0, const int y0, const int x1,
                           const int y1) {
        return box.x0 >= x0 && box.y0 >= y0 && box.x1 <= x1 && box.y1 <= y1;
    };
    // Every pixel of a region lies in its box: checked box by box before anything is written.
    for (std::size_t r = 0; r < regions.regions.size(); ++r) {
        if (selected[r] != 1) continue;
        const SearchRect& box = regions.regions[r].box;
        if (!within(box, rect.x0, rect.y0, rect.x1, rect.y1))
            throw Error(ErrorCode::InvalidArgument, "the rectangle does not hold the fill's hole");
        if (!within(box, fb.x0, fb.y0, fb.x1, fb.y1) ||
            sources.index.size() != static_cast<std::size_t>(bw) * (fb.y1 - fb.y0 + 1))
            throw Error(ErrorCode::InvalidArgument, "the sources do not cover the hole");
    }
    const auto source_of = [&](const int x, const int y) {
        return sources.index[static_cast<std::size_t>(y - fb.y0) * bw + (x - fb.x0)];
    };
    const auto each_selected = [&](const auto& visit) {
        for (std::size_t r = 0; r < regions.regions.size(); ++r) {
            if (selected[r] != 1) continue;
            const SearchRect& box = regions.regions[r].box;
            for (int y = box.y0; y <= box.y1; ++y)
                for (int x = box.x0; x <= box.x1; ++x)
                    if (regions.label[static_cast<std::size_t>(y) * w + x] ==
                        static_cast<std::int32_t>(r))
                        visit(x, y, source_of(x, y));
        }
    };
    const std::int64_t n = static_cast<std::int64_t>(w) * samples.height();
    each_selected([&](int, int, const std::int32_t s) {
        if (s < 0 || s >= n) throw Error(ErrorCode::InvalidArgument, "a hole pixel has no source");
    });
    const std::size_t bpp = samples.format().bytes_per_pixel();
    each_selected([&](const int x, const int y, const std::int32_t s) {
        std::memcpy(filled.row(y - rect.y0) + bpp * (x - rect.x0),
                    samples.row(s / w) + bpp * (s % w), bpp);
    });
}

void apply_choice(NativeImage& filled, const PixelRect& rect, const NativeImage& samples,
                  const FillChoice& choice) {
    if (choice.criminisi_regions() == 0) return;
    move_selected_samples(filled, rect, samples, choice.regions, choice.choice,
                          choice.criminisi_sources);
}

std::string choice_note(const FillChoice& choice) {
    const int taken = choice.criminisi_regions();
    if (taken == 0) return {};
    return std::to_string(taken) + " of " + std::to_string(choice.choice.size()) +
           " hole regions filled by Criminisi (it scored clearly better there)";
}

}  // namespace lacuna::ops
