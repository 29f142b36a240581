// The gradient-domain blend of a finished PatchMatch fill: see patchmatch.hpp.
#include <lacuna/core/error.hpp>
#include <lacuna/core/native_image.hpp>
#include <lacuna/core/parallel.hpp>
#include <lacuna/kernels/blend_terms.h>
#include <lacuna/ops/patchmatch.hpp>
#include <lacuna/ops/seam_carve.hpp>

#include "chessboard_near.hpp"
#include "blend_grids.hpp"
#include "colour_bins.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <optional>
#include <initializer_list>
#include <memory>
#include <utility>
#include <vector>

namespace lacuna::ops {
namespace {

namespace bt = blend_terms;
using bt::BlendDot;
using bt::BlendGrid;
using bt::BlendScalars;

/// The host's storage of one level (BlendGrid points into it).
struct HostLevel {
    std::vector<std::uint8_t> active;
    std::vector<double> weight, diag, x, b;
    BlendGrid grid;
    explicit HostLevel(const BlendGrid& shape)
        : active(static_cast<std::size_t>(shape.size())),
          weight(4 * active.size()),
          diag(active.size()),
          x(3 * active.size()),
          b(3 * active.size()),
          grid(shape) {
        grid.active = active.data();
        grid.weight = weight.data();
        grid.diag = diag.data();
        grid.x = x.data();
        grid.b = b.data();
    }
    HostLevel(const HostLevel&) = delete;
    HostLevel& operator=(const HostLevel&) = delete;
};

/// body(i) for every node: in parallel on large grids (every step's nodes are independent:
/// each writes only its own entries and reads what the step does not write).
template <class Body>
void each_node(const int n, Body&& body) {
    constexpr int kSerialNodes = 4096;
    if (n < kSerialNodes) {
        for (int i = 0; i < n; ++i) body(i);
        return;
    }
    parallel_chunks(n, [&](const int begin, const int end, int) {
        for (int i = begin; i < end; ++i) body(i);
    });
}

/// The device's dot product, block by block and thread by thread, in its order.
void dot(const double* a, const double* b, const int n, BlendScalars& s, const BlendDot what,
         const double tolerance) {
    const int blocks = (n + bt::kDotChunk - 1) / bt::kDotChunk;
    std::vector<double> partial(static_cast<std::size_t>(blocks));
    double sums[bt::kDotThreads];
    for (int c = 0; c < 3; ++c) {
        for (int block = 0; block < blocks; ++block) {
            for (int t = 0; t < bt::kDotThreads; ++t)
                sums[t] = bt::dot_thread(a, b, n, c, block, t);
            for (int half = bt::kDotThreads / 2; half > 0; half /= 2)
                for (int t = 0; t < half; ++t) sums[t] += sums[t + half];
            partial[static_cast<std::size_t>(block)] = sums[0];
        }
        double v = 0;
        for (const double p : partial) v += p;
        bt::dot_finish(s, c, v, what, tolerance);
    }
}

void smooth(const BlendGrid& g, std::initializer_list<int> parities) {
    for (const int parity : parities)
        each_node(g.size(), [&](const int i) { bt::smooth_node(g, i, parity); });
}

/// One V-cycle from level 0's b (the residual) into level 0's x, from zero.
void v_cycle(const std::vector<std::unique_ptr<HostLevel>>& levels) {
    const std::size_t last = levels.size() - 1;
    std::fill(levels[0]->x.begin(), levels[0]->x.end(), 0.0);
    for (std::size_t l = 0; l < last; ++l) {
        const BlendGrid& fine = levels[l]->grid;
        const BlendGrid& coarse = levels[l + 1]->grid;
        smooth(fine, {0, 1, 0, 1});
        each_node(coarse.size(), [&](const int i) { bt::restrict_node(fine, coarse, i); });
    }
    const BlendGrid& bottom = levels[last]->grid;
    std::fill(levels[last]->x.begin(), levels[last]->x.end(), 0.0);
    for (int s = 0; s < bt::kCoarsestSweeps; ++s) smooth(bottom, {0, 1, 1, 0});
    for (std::size_t l = last; l-- > 0;) {
        const BlendGrid& fine = levels[l]->grid;
        const BlendGrid& coarse = levels[l + 1]->grid;
        each_node(fine.size(), [&](const int i) { bt::prolong_node(fine, coarse, i); });
        smooth(fine, {1, 0, 1, 0});
    }
}

}  // namespace

namespace {

/// A measurement's samples as the blend reads them: each channel mapped linearly so that the
/// display range (lo … hi) spans 0 … 255, so the structure threshold (κ levels) means what it
/// means for a photo.
struct SamplePixels {
    const NativeImage* samples = nullptr;
    const Mask* hole = nullptr;
    int width = 0, height = 0, channels = 1;
    double structure_levels = 24;
    double edge_levels = 4;
    double lo = 0, scale = 1;  ///< value = (sample − lo) × scale
    /// When set, `samples` are the unfilled samples and a hole pixel with a source reads its
    /// source's samples: what fill_from_sources(samples, *moved) holds, without that copy.
    const FillSources* moved = nullptr;
    [[nodiscard]] bool in_hole(const int x, const int y) const { return hole->at(x, y) != 0; }
    [[nodiscard]] double sample(int x, int y, const int c) const {
        if (moved != nullptr) {
            const SearchRect& b = moved->box;
            if (x >= b.x0 && x <= b.x1 && y >= b.y0 && y <= b.y1) {
                const std::int32_t s =
                    moved->index[static_cast<std::size_t>(y - b.y0) * (b.x1 - b.x0 + 1) +
                                 (x - b.x0)];
                if (s >= 0) x = s % width, y = s / width;
            }
        }
        const int k = x * samples->channels() + c;
        switch (samples->sample_type()) {
            case SampleType::U8:
                return samples->samples<std::uint8_t>(y)[k];
            case SampleType::U16:
                return samples->samples<std::uint16_t>(y)[k];
            case SampleType::I16:
                return samples->samples<std::int16_t>(y)[k];
            case SampleType::F32:
                return samples->samples<float>(y)[k];
        }
        return 0;
    }
    [[nodiscard]] double value(const int x, const int y, const int c) const {
        return (sample(x, y, c) - lo) * scale;
    }
};

/// Solves the blend for `pixels` over the sources' box and calls write(x, y, channel, value)
/// for every unknown and solved channel (nothing when the box is empty).
template <class Pixels, class Write>
void solve_blend(const Pixels& pixels, const FillSources& sources, const BlendOptions& options,
                 Write&& write) {
    const SearchRect& box = sources.box;
    if (box.x1 < box.x0) return;
    std::vector<std::unique_ptr<HostLevel>> levels;
    for (const BlendGrid& shape : detail::blend_grid_shapes(box))
        levels.push_back(std::make_unique<HostLevel>(shape));
    const BlendGrid& g0 = levels[0]->grid;
    const int n = g0.size();
    if (sources.index.size() != static_cast<std::size_t>(n))
        throw Error(ErrorCode::InvalidArgument, "the fill's sources do not cover their box");
    const auto vec = [&] { return std::vector<double>(3 * static_cast<std::size_t>(n)); };
    std::vector<double> rhs = vec(), f = vec(), p = vec(), ap = vec();
    each_node(n, [&](const int i) {
        bt::setup_node(pixels, g0, sources.index.data(), rhs.data(), f.data(), i);
    });
    for (std::size_t l = 0; l + 1 < levels.size(); ++l) {
        const BlendGrid& fine = levels[l]->grid;
        const BlendGrid& coarse = levels[l + 1]->grid;
        each_node(coarse.size(), [&](const int i) { bt::coarsen_node(fine, coarse, i); });
    }
    // Conjugate gradients, all three channels in step (a converged channel's α is 0), exactly
    // as the device runs them.
    BlendScalars s{};
    double* const r = g0.b;
    double* const z = g0.x;
    each_node(n, [&](const int i) { bt::residual_node(g0, rhs.data(), f.data(), r, i); });
    dot(rhs.data(), rhs.data(), n, s, BlendDot::StopFromRhs, options.tolerance);
    dot(r, r, n, s, BlendDot::RrStart, options.tolerance);
    v_cycle(levels);
    dot(r, z, n, s, BlendDot::RzStart, options.tolerance);
    std::copy_n(z, p.size(), p.begin());
    for (int it = 0; it < options.max_iterations; ++it) {
        if (s.running[0] == 0 && s.running[1] == 0 && s.running[2] == 0) break;
        each_node(n, [&](const int i) { bt::apply_node(g0, p.data(), ap.data(), i); });
        dot(p.data(), ap.data(), n, s, BlendDot::PapToAlpha, options.tolerance);
        each_node(n,
                  [&](const int i) { bt::step_node(s, n, p.data(), ap.data(), f.data(), r, i); });
        dot(r, r, n, s, BlendDot::Rr, options.tolerance);
        v_cycle(levels);
        dot(r, z, n, s, BlendDot::RzToBeta, options.tolerance);
        each_node(n, [&](const int i) { bt::direction_node(s, n, z, p.data(), i); });
    }
    each_node(n, [&](const int i) {
        if (!g0.active[i]) return;
        const int x = g0.x0 + i % g0.width, y = g0.y0 + i / g0.width;
        for (int c = 0; c < pixels.channels; ++c)
            write(x, y, c, f[static_cast<std::size_t>(c) * n + i]);
    });
}

void check_blend_inputs(const int w, const int h, const Mask& hole, const FillSources& sources) {
    check_mask_size(hole.view(), w, h, "the hole");
    if (sources.width != w || sources.height != h)
        throw Error(ErrorCode::InvalidArgument, "the fill's sources are for another size");
}

/// Whether every sample the blend may read (the sources' box grown by one) is finite: a NaN
/// (FITS BLANK) would spread through the whole solve.
bool finite_around(const SamplePixels& pixels, const SearchRect& box) {
    const NativeImage& samples = *pixels.samples;
    if (samples.sample_type() != SampleType::F32) return true;
    for (int y = std::max(0, box.y0 - 1); y <= std::min(samples.height() - 1, box.y1 + 1); ++y)
        for (int x = std::max(0, box.x0 - 1); x <= std::min(samples.width() - 1, box.x1 + 1); ++x)
            for (int c = 0; c < samples.channels(); ++c)
                if (!std::isfinite(pixels.sample(x, y, c))) return false;
    return true;
}

SamplePixels sample_pixels(const NativeImage& samples, const Mask& hole,
                           const std::pair<double, double> range, const BlendOptions& options) {
    SamplePixels pixels;
    pixels.samples = &samples;
    pixels.hole = &hole;
    pixels.width = samples.width();
    pixels.height = samples.height();
    pixels.channels = std::min(samples.channels(), 3);  // a fourth channel is alpha: kept
    pixels.structure_levels = options.structure_levels;
    pixels.edge_levels = options.edge_levels;
    pixels.lo = range.first;
    pixels.scale = range.second > range.first ? 255.0 / (range.second - range.first) : 1.0;
    return pixels;
}

/// Solves the blend of `pixels` and writes each solved sample, in the samples' own type, at
/// (x − origin_x, y − origin_y) of `out`.
void solve_samples(const SamplePixels& pixels, const FillSources& sources,
                   const BlendOptions& options, NativeImage& out, const int origin_x,
                   const int origin_y) {
    const SampleType type = out.sample_type();
    const int channels = out.channels();
    solve_blend(pixels, sources, options, [&](int x, int y, const int c, const double v) {
        const double sample = pixels.lo + v / pixels.scale;
        x -= origin_x;
        y -= origin_y;
        const int k = x * channels + c;
        const auto integer = [&](const double low, const double high) {
            return std::clamp(static_cast<double>(std::llround(sample)), low, high);
        };
        switch (type) {
            case SampleType::U8:
                out.samples<std::uint8_t>(y)[k] = static_cast<std::uint8_t>(integer(0, 255));
                break;
            case SampleType::U16:
                out.samples<std::uint16_t>(y)[k] = static_cast<std::uint16_t>(integer(0, 65535));
                break;
            case SampleType::I16:
                out.samples<std::int16_t>(y)[k] = static_cast<std::int16_t>(integer(-32768, 32767));
                break;
            case SampleType::F32:
                out.samples<float>(y)[k] = static_cast<float>(sample);
                break;
        }
    });
}

}  // namespace

namespace {

/// One bit per 5-bit colour (detail::colour_bin).
using ColourSet = std::vector<std::uint64_t>;

bool has_colour(const ColourSet& set, const Rgba8 p) {
    const int b = detail::colour_bin(p);
    return ((set[static_cast<std::size_t>(b >> 6)] >> (b & 63)) & 1u) != 0;
}

/// The colours of the known pixels of `image` within r px (chessboard) of a hole pixel: column
/// counts of hole pixels over rows y − r … y + r, summed along the row over x − r … x + r. Only
/// the hole's box grown by 2r is read.
ColourSet ring_colour_set(const ImageRgba8& image, const Mask& hole, const SearchRect& box,
                          const int r) {
    const int w = image.width(), h = image.height();
    ColourSet seen(detail::kColourBins / 64, 0);
    const int x0 = std::max(0, box.x0 - 2 * r), x1 = std::min(w - 1, box.x1 + 2 * r);
    const int y0 = std::max(0, box.y0 - r), y1 = std::min(h - 1, box.y1 + r);
    const int cw = x1 - x0 + 1;
    std::vector<int> col(static_cast<std::size_t>(cw), 0);
    const auto add_row = [&](const int y, const int sign) {
        if (y < 0 || y >= h) return;
        for (int x = x0; x <= x1; ++x)
            col[static_cast<std::size_t>(x - x0)] += sign * (hole.at(x, y) != 0 ? 1 : 0);
    };
    for (int y = y0 - r; y < y0 + r; ++y) add_row(y, 1);
    for (int y = y0; y <= y1; ++y) {
        add_row(y + r, 1);
        add_row(y - r - 1, -1);
        int run = 0;
        for (int x = x0; x < std::min(x0 + r, x1 + 1); ++x)
            run += col[static_cast<std::size_t>(x - x0)];
        for (int x = x0; x <= x1; ++x) {
            if (x + r <= x1) run += col[static_cast<std::size_t>(x + r - x0)];
            if (x - r - 1 >= x0) run -= col[static_cast<std::size_t>(x - r - 1 - x0)];
            if (run == 0 || hole.at(x, y) != 0) continue;
            const int b = detail::colour_bin(image.at(x, y));
            seen[static_cast<std::size_t>(b >> 6)] |= std::uint64_t{1} << (b & 63);
        }
    }
    return seen;
}

/// keep_ring_colours' rule, the one decision for pictures and measurements: how many sixteenths
/// k (0 … 16) of its correction a blended pixel keeps. `colour(k)` is the 5-bit-binned colour
/// (8 bits a channel: a picture's own, a measurement's proxy) of copy + k/16 × (blended − copy);
/// colour(0) is the copy's, colour(16) the blended pixel's. 16: the whole correction.
template <class PartColour>
int kept_part(const ColourSet& seen, const PartColour& colour) {
    const Rgba8 copy = colour(0), blended = colour(16);
    if (has_colour(seen, blended) || !has_colour(seen, copy)) return 16;
    // A correction larger than a tone offset is the blend easing a copy that does not fit
    // (a pasted piece): pulling it back would only show the piece more sharply.
    const int correction = std::max(
        {std::abs(copy.r - blended.r), std::abs(copy.g - blended.g), std::abs(copy.b - blended.b)});
    if (correction > kKeepColoursMaxCorrection) return 16;
    for (int k = 15; k > 0; --k)
        if (has_colour(seen, colour(k))) return k;
    return 0;  // the copy itself, whose colour the ring has
}

/// A blended pixel's colour kept to `seen` (keep_ring_colours' rule on a picture's pixels:
/// each part truncated toward the copy, alpha the blended pixel's).
Rgba8 kept_colour(const ColourSet& seen, const Rgba8 copy, const Rgba8 blended) {
    const auto part = [](const int from, const int to, const int k) {
        return static_cast<std::uint8_t>(from + k * (to - from) / 16);
    };
    const auto colour = [&](const int k) {
        return Rgba8{part(copy.r, blended.r, k), part(copy.g, blended.g, k),
                     part(copy.b, blended.b, k), blended.a};
    };
    return colour(kept_part(seen, colour));
}

/// copy + k/16 × (blended − copy) in a measurement's own type, channel by channel: the colour
/// channels (up to three, as blend_samples solves them) truncated toward the copy (integers) or
/// exact (floats); a fourth channel, alpha, the blended one's (the blend keeps it). k = 0 and
/// k = 16 are the copy's and the blended sample's bytes.
template <class S>
void sample_part(const S* copy, const S* blended, const int channels, const int k, S* out) {
    const int colours = std::min(channels, 3);
    for (int c = 0; c < channels; ++c) {
        if (c >= colours || k == 16) {
            out[c] = blended[c];
        } else if (k == 0) {
            out[c] = copy[c];
        } else if constexpr (std::is_floating_point_v<S>) {
            out[c] = static_cast<S>(static_cast<double>(copy[c]) +
                                    k * (static_cast<double>(blended[c]) - copy[c]) / 16);
        } else {
            const std::int64_t from = copy[c], to = blended[c];
            out[c] = static_cast<S>(from + k * (to - from) / 16);
        }
    }
}

}  // namespace

ImageRgba8 keep_ring_colours(const ImageRgba8& copy, const ImageRgba8& blended, const Mask& hole,
                             ImageRgba8 result) {
    const int w = blended.width(), h = blended.height();
    check_mask_size(hole.view(), w, h, "the hole");
    if (copy.width() != w || copy.height() != h || result.width() != w || result.height() != h)
        throw Error(ErrorCode::InvalidArgument, "the fills differ in size");
    const SearchRect box = detail::hole_box(hole);
    if (box.x1 < box.x0) return result;
    const ColourSet seen = ring_colour_set(blended, hole, box, kKeepColoursRing);
    for (int y = box.y0; y <= box.y1; ++y)
        for (int x = box.x0; x <= box.x1; ++x) {
            if (hole.at(x, y) == 0) continue;
            Rgba8& out = result.at(x, y);
            const Rgba8 b = blended.at(x, y);
            if (out.r != b.r || out.g != b.g || out.b != b.b || out.a != b.a) continue;
            out = kept_colour(seen, copy.at(x, y), b);
        }
    return result;
}

void keep_ring_colours(NativeImage& result, const PixelRect& rect, const NativeImage& blended,
                       const NativeImage& samples, const FillSources& sources,
                       const ImageRgba8& proxy, const Mask& hole,
                       const std::pair<double, double> range) {
    const int w = samples.width(), h = samples.height();
    check_mask_size(hole.view(), w, h, "the hole");
    if (proxy.width() != w || proxy.height() != h || sources.width != w || sources.height != h)
        throw Error(ErrorCode::InvalidArgument, "the proxy or the sources are for another size");
    if (rect.empty() || rect.x0 < 0 || rect.y0 < 0 || rect.x1 >= w || rect.y1 >= h ||
        result.width() != rect.width() || result.height() != rect.height() ||
        blended.width() != rect.width() || blended.height() != rect.height() ||
        !(result.format() == samples.format()) || !(blended.format() == samples.format()))
        throw Error(ErrorCode::InvalidArgument,
                    "the filled samples do not match the rectangle and the samples");
    const SearchRect& sb = sources.box;
    const int bw = sb.x1 - sb.x0 + 1;
    if (sb.x1 >= sb.x0 &&
        sources.index.size() != static_cast<std::size_t>(bw) * (sb.y1 - sb.y0 + 1))
        throw Error(ErrorCode::InvalidArgument, "the sources do not cover their box");
    const SearchRect box = detail::hole_box(hole);
    if (box.x1 < box.x0) return;
    // The ring's colours from the proxy of the samples before the fill: outside the hole the
    // blended samples are those, as a picture's ring is read from its blended image.
    const ColourSet seen = ring_colour_set(proxy, hole, box, kKeepColoursRing);
    const std::size_t bpp = samples.format().bytes_per_pixel();
    // The hole pixels that still hold the blended sample (the choice and the refill did not move
    // them) and have a source: (x, y, source index).
    struct Candidate {
        int x, y;
        std::int32_t source;
    };
    std::vector<Candidate> candidates;
    for (int y = std::max(box.y0, rect.y0); y <= std::min(box.y1, rect.y1); ++y)
        for (int x = std::max(box.x0, rect.x0); x <= std::min(box.x1, rect.x1); ++x) {
            if (hole.at(x, y) == 0 || x < sb.x0 || x > sb.x1 || y < sb.y0 || y > sb.y1) continue;
            const std::int32_t s =
                sources.index[static_cast<std::size_t>(y - sb.y0) * bw + (x - sb.x0)];
            if (s < 0 || s >= static_cast<std::int64_t>(w) * h) continue;
            const std::size_t at = bpp * static_cast<std::size_t>(x - rect.x0);
            if (std::memcmp(result.row(y - rect.y0) + at, blended.row(y - rect.y0) + at, bpp) != 0)
                continue;
            candidates.push_back({x, y, s});
        }
    // Each candidate's 17 parts (k = 0 … 16) as one row of samples, so that their proxy colours
    // are carving_proxy's of the same range (the mapping the proxy was made with); in chunks of
    // rows, so that a large hole's parts stay a few MB.
    constexpr int kParts = 17, kChunk = 4096;
    const int channels = samples.channels();
    for (std::size_t first = 0; first < candidates.size(); first += kChunk) {
        const int n = static_cast<int>(std::min<std::size_t>(kChunk, candidates.size() - first));
        NativeImage parts(kParts, n, samples.format());
        visit_sample_type(samples.sample_type(), [&](auto zero) {
            using S = decltype(zero);
            for (int i = 0; i < n; ++i) {
                const Candidate& c = candidates[first + static_cast<std::size_t>(i)];
                const S* copy = samples.samples<S>(c.source / w) + (c.source % w) * channels;
                const S* blend = blended.samples<S>(c.y - rect.y0) + (c.x - rect.x0) * channels;
                S* row = parts.samples<S>(i);
                for (int k = 0; k < kParts; ++k)
                    sample_part(copy, blend, channels, k, row + k * channels);
            }
        });
        const ImageRgba8 colours = carving_proxy(parts, range.first, range.second).image;
        for (int i = 0; i < n; ++i) {
            const int k = kept_part(seen, [&](const int part) { return colours.at(part, i); });
            if (k == 16) continue;
            const Candidate& c = candidates[first + static_cast<std::size_t>(i)];
            std::memcpy(result.row(c.y - rect.y0) + bpp * static_cast<std::size_t>(c.x - rect.x0),
                        parts.row(i) + bpp * static_cast<std::size_t>(k), bpp);
        }
    }
}

ImageRgba8 blend_fill(const ImageRgba8& filled, const Mask& hole, const FillSources& sources,
                      const BlendOptions& options) {
    const int w = filled.width(), h = filled.height();
    check_blend_inputs(w, h, hole, sources);
    ImageRgba8 out = filled;
    bt::BlendPixels pixels;
    pixels.color = filled.row(0);
    pixels.color_pitch = filled.pitch();
    pixels.hole = hole.row(0);
    pixels.hole_pitch = hole.pitch();
    pixels.width = w;
    pixels.height = h;
    pixels.structure_levels = options.structure_levels;
    pixels.edge_levels = options.edge_levels;
    solve_blend(pixels, sources, options,
                [&](const int x, const int y, const int c, const double v) {
                    Rgba8& o = out.at(x, y);
                    (c == 0 ? o.r : c == 1 ? o.g : o.b) = bt::blended_level(v);
                });
    return out;
}

NativeImage blend_samples(const NativeImage& filled, const Mask& hole, const FillSources& sources,
                          const std::pair<double, double> range, const BlendOptions& options) {
    check_blend_inputs(filled.width(), filled.height(), hole, sources);
    NativeImage out = filled;
    const SamplePixels pixels = sample_pixels(filled, hole, range, options);
    if (sources.empty() || !finite_around(pixels, sources.box)) return out;
    solve_samples(pixels, sources, options, out, 0, 0);
    return out;
}

namespace {

/// Whether `sources`' index covers its box (what reading it assumes).
bool covers_its_box(const FillSources& sources) {
    const SearchRect& b = sources.box;
    return sources.empty() || sources.index.size() == static_cast<std::size_t>(b.x1 - b.x0 + 1) *
                                                          static_cast<std::size_t>(b.y1 - b.y0 + 1);
}

/// One map that moves what `first` and then `then` move: fill_from_sources(samples, result)
/// equals fill_from_sources(fill_from_sources(samples, first), then). A pixel `then` moves reads
/// its source in the image `first` filled (so that source's own source when `first` moved it).
FillSources composed_sources(const FillSources& first, const FillSources& then) {
    if (first.width != then.width || first.height != then.height || !covers_its_box(first) ||
        !covers_its_box(then))
        throw Error(ErrorCode::InvalidArgument, "the sources do not match the image");
    if (first.empty()) return then;
    if (then.empty()) return first;
    const auto source = [](const FillSources& map, const int x, const int y) -> std::int32_t {
        const SearchRect& b = map.box;
        if (x < b.x0 || x > b.x1 || y < b.y0 || y > b.y1) return -1;
        return map.index[static_cast<std::size_t>(y - b.y0) * (b.x1 - b.x0 + 1) + (x - b.x0)];
    };
    FillSources out{first.width,
                    first.height,
                    {std::min(first.box.x0, then.box.x0), std::min(first.box.y0, then.box.y0),
                     std::max(first.box.x1, then.box.x1), std::max(first.box.y1, then.box.y1)},
                    {}};
    const SearchRect& b = out.box;
    out.index.reserve(static_cast<std::size_t>(b.x1 - b.x0 + 1) * (b.y1 - b.y0 + 1));
    const int w = first.width;
    for (int y = b.y0; y <= b.y1; ++y)
        for (int x = b.x0; x <= b.x1; ++x) {
            const std::int32_t s = source(then, x, y);
            const std::int32_t moved = s >= 0 ? source(first, s % w, s / w) : -1;
            out.index.push_back(s < 0 ? source(first, x, y) : moved >= 0 ? moved : s);
        }
    return out;
}

/// blend_samples_region of the samples `moved` fills (the sources themselves, or the sources
/// after the bands): the blend solves over `sources`' box and reads every sample through `moved`.
NativeImage blend_moved_region(const NativeImage& samples, const Mask& hole,
                               const FillSources& sources, const FillSources& moved,
                               const std::pair<double, double> range, const PixelRect& rect,
                               const BlendOptions& options) {
    check_blend_inputs(samples.width(), samples.height(), hole, sources);
    const SearchRect& box = sources.box;
    if (box.x1 >= box.x0 &&
        (box.x0 < rect.x0 || box.y0 < rect.y0 || box.x1 > rect.x1 || box.y1 > rect.y1))
        throw Error(ErrorCode::InvalidArgument, "the rectangle does not hold the fill's hole");
    NativeImage out = fill_region_from_sources(samples, moved, rect);
    SamplePixels pixels = sample_pixels(samples, hole, range, options);
    pixels.moved = &moved;
    if (box.x1 < box.x0 || !finite_around(pixels, box)) return out;
    solve_samples(pixels, sources, options, out, rect.x0, rect.y0);
    return out;
}

}  // namespace

NativeImage blend_samples_region(const NativeImage& samples, const Mask& hole,
                                 const FillSources& sources, const std::pair<double, double> range,
                                 const PixelRect& rect, const BlendOptions& options) {
    return blend_moved_region(samples, hole, sources, sources, range, rect, options);
}

NativeImage blend_samples_region(const NativeImage& samples, const FillSources& bands,
                                 const Mask& hole, const FillSources& sources,
                                 const std::pair<double, double> range, const PixelRect& rect,
                                 const BlendOptions& options) {
    return blend_moved_region(samples, hole, sources, composed_sources(bands, sources), range, rect,
                              options);
}

ImageRgba8 finished_image(const Inpainter& filler) {
    const std::optional<PatchMatchField> field = patchmatch_field(filler);
    if (!field || field->level != 0 || !filler.progress().done()) return filler.image();
    const InpaintProblem& problem = filler.problem();
    return blend_fill(filler.image(), problem.hole,
                      patchmatch_sources(*field, problem.hole, problem.radius));
}

ImageRgba8 finished_image(Inpainter& filler) {
    if (filler.progress().done() && filler.blend_in_place(BlendOptions{})) return filler.image();
    return finished_image(std::as_const(filler));
}

}  // namespace lacuna::ops
