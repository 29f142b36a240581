// Approximate-first seam orders: carve a box-downscaled copy of the image, then stretch the
// coarse order back to full size (coarse seam k becomes fine seams factor·k … factor·k + factor −
// 1). The editor shows such an order at once and replaces it with the exact one when that is ready;
// order_distance measures how far the two are apart.
//
// Layout of the upsampled order (vertical seams; horizontal swaps x and y): the image is cut into
// factor × factor blocks, floor(width / factor) × floor(height / factor) of them. Fine pixel
// (x, y) of block (x / factor, y / factor) gets factor·k + x % factor, k being the coarse order
// of its block. The rows below the last whole block row (height % factor of them) repeat the
// last covered row; the columns right of the last whole block column are never removed. Every
// fine row therefore holds each seam index below `seams` exactly once.
//
// Per fine seam: costs repeat the coarse seam's cost (the energy of the downscaled image's seam;
// a ranking of the seams, not a full-size energy); protected_crossed and remove_crossed are
// counted exactly on the full-size masks.
#include "carve_state.hpp"

#include <lacuna/core/parallel.hpp>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

namespace lacuna::ops {
namespace {

using detail::invalid;

bool is_power_of_two(const int v) {
    return v > 0 && (v & (v - 1)) == 0;
}

/// The average of every whole factor × factor block (rounded to nearest); partial blocks at the
/// right and bottom edges are dropped.
ImageRgba8 box_downscale(const ImageView<const Rgba8> image, const int factor) {
    const int cw = image.width / factor, ch = image.height / factor;
    ImageRgba8 out(cw, ch);
    const int n = factor * factor;
    parallel_chunks(ch, [&](const int cy0, const int cy1, int) {
        std::vector<int> sums(static_cast<std::size_t>(cw) * 4);
        for (int cy = cy0; cy < cy1; ++cy) {
            std::fill(sums.begin(), sums.end(), 0);
            for (int y = cy * factor; y < (cy + 1) * factor; ++y) {
                const Rgba8* row = image.row(y);
                for (int x = 0; x < cw * factor; ++x) {
                    int* s = &sums[static_cast<std::size_t>(x / factor) * 4];
                    s[0] += row[x].r;
                    s[1] += row[x].g;
                    s[2] += row[x].b;
                    s[3] += row[x].a;
                }
            }
            Rgba8* dst = out.row(cy);
            for (int cx = 0; cx < cw; ++cx) {
                const int* s = &sums[static_cast<std::size_t>(cx) * 4];
                const auto avg = [&](const int v) {
                    return static_cast<std::uint8_t>((v + n / 2) / n);
                };
                dst[cx] = Rgba8{avg(s[0]), avg(s[1]), avg(s[2]), avg(s[3])};
            }
        }
    });
    return out;
}

/// 255 where any pixel of the block is set.
Mask mask_downscale(const MaskView mask, const int factor) {
    const int cw = mask.width / factor, ch = mask.height / factor;
    Mask out(cw, ch, 0);
    for (int y = 0; y < ch * factor; ++y) {
        const std::uint8_t* row = mask.row(y);
        std::uint8_t* dst = out.row(y / factor);
        for (int x = 0; x < cw * factor; ++x)
            if (row[x] != 0) dst[x / factor] = 255;
    }
    return out;
}

/// The temporal term's distance levels at the coarse scale: the nearest distance in the block,
/// in coarse columns (rows), rounded.
Mask temporal_downscale(const MaskView levels, const int factor) {
    const int cw = levels.width / factor, ch = levels.height / factor;
    Mask out(cw, ch, kTemporalLevels - 1);
    for (int y = 0; y < ch * factor; ++y) {
        const std::uint8_t* row = levels.row(y);
        std::uint8_t* dst = out.row(y / factor);
        for (int x = 0; x < cw * factor; ++x) {
            const auto coarse = static_cast<std::uint8_t>((row[x] + factor / 2) / factor);
            std::uint8_t& d = dst[x / factor];
            if (coarse < d) d = coarse;
        }
    }
    return out;
}

/// Importance levels at the coarse scale: the largest level of the block, undivided. A level is
/// a cost per pixel, not a distance: a coarse pixel stands for every fine pixel of its block, and
/// a face that covers part of a block must still be dear there (the mean would let a coarse seam
/// graze a small face; the minimum would miss it).
Mask importance_downscale(const MaskView levels, const int factor) {
    const int cw = levels.width / factor, ch = levels.height / factor;
    Mask out(cw, ch, 0);
    for (int y = 0; y < ch * factor; ++y) {
        const std::uint8_t* row = levels.row(y);
        std::uint8_t* dst = out.row(y / factor);
        for (int x = 0; x < cw * factor; ++x) dst[x / factor] = std::max(dst[x / factor], row[x]);
    }
    return out;
}

/// The per-seam term's paths at the coarse scale: coarse seam j stands for fine seams
/// j·factor … j·factor + factor − 1 (the stretch below), so it follows fine seam j·factor, taken at
/// the block's first line.
SeamPaths paths_downscale(const SeamPaths& fine, const int factor, const int coarse_lines,
                          const int coarse_seams, const int coarse_extent) {
    SeamPaths out;
    out.lines = coarse_lines;
    out.count = coarse_seams;
    out.positions.resize(static_cast<std::size_t>(coarse_seams) * coarse_lines);
    for (int j = 0; j < coarse_seams; ++j)
        for (int line = 0; line < coarse_lines; ++line)
            out.positions[static_cast<std::size_t>(j) * coarse_lines + line] =
                std::min(fine.at(j * factor, line * factor) / factor, coarse_extent - 1);
    return out;
}

/// |I(x+1,y) − I(x−1,y)| + |I(x,y+1) − I(x,y−1)| with I = r + g + b and clamped borders.
std::int64_t gradient(const ImageView<const Rgba8> image, const int x, const int y) {
    const auto intensity = [&](const int px, const int py) {
        const Rgba8 p =
            image.row(std::clamp(py, 0, image.height - 1))[std::clamp(px, 0, image.width - 1)];
        return int{p.r} + int{p.g} + int{p.b};
    };
    return std::abs(intensity(x + 1, y) - intensity(x - 1, y)) +
           std::abs(intensity(x, y + 1) - intensity(x, y - 1));
}

}  // namespace

SeamOrder seam_order_approximate(const CarveInput& input, const SeamDirection direction,
                                 const int seams, const int factor,
                                 const CarveImplementation implementation,
                                 const CarveProgress& progress) {
    if (factor < 2 || !is_power_of_two(factor))
        invalid("the approximation factor must be a power of two of at least 2, not " +
                std::to_string(factor));
    detail::check_carve_input(input, direction, seams);
    const bool vertical = direction == SeamDirection::Vertical;
    const int w = input.image.width, h = input.image.height;
    const int cw = w / factor, ch = h / factor;
    if (cw < 1 || ch < 1)
        invalid("a " + std::to_string(w) + " × " + std::to_string(h) +
                " image is too small to downscale by " + std::to_string(factor));
    const int coarse_extent = vertical ? cw : ch;
    const int coarse_seams = seams / factor;
    if (coarse_seams >= coarse_extent)
        invalid("cannot find " + std::to_string(seams) + " approximate seams at factor " +
                std::to_string(factor) + ": the downscaled image is " +
                std::to_string(coarse_extent) + " pixels " + (vertical ? "wide" : "high") +
                " (at most " + std::to_string((coarse_extent - 1) * factor) + " seams)");

    const ImageRgba8 coarse_image = box_downscale(input.image, factor);
    std::optional<Mask> coarse_protect, coarse_remove, coarse_temporal, coarse_importance;
    std::optional<SeamPaths> coarse_paths;
    CarveInput coarse{coarse_image.view(), nullptr, nullptr, input.energy};
    if (input.temporal_seams && input.temporal_unit > 0) {
        coarse.temporal_seams = &coarse_paths.emplace(paths_downscale(
            *input.temporal_seams, factor, vertical ? ch : cw, coarse_seams, coarse_extent));
        coarse.temporal_unit = input.temporal_unit;
    }
    if (input.temporal && input.temporal_unit > 0) {
        coarse.temporal =
            &coarse_temporal.emplace(temporal_downscale(input.temporal->view(), factor));
        coarse.temporal_unit = input.temporal_unit;
    }
    if (input.importance && input.importance_unit > 0) {
        coarse.importance =
            &coarse_importance.emplace(importance_downscale(input.importance->view(), factor));
        coarse.importance_unit = input.importance_unit;
    }
    if (input.protect)
        coarse.protect = &coarse_protect.emplace(mask_downscale(input.protect->view(), factor));
    if (input.remove)
        coarse.remove = &coarse_remove.emplace(mask_downscale(input.remove->view(), factor));
    const SeamOrder c = seam_order(coarse, direction, coarse_seams, implementation, progress);

    SeamOrder out;
    out.direction = direction;
    out.width = w;
    out.height = h;
    out.seams = coarse_seams * factor;
    out.order = Image<std::int32_t>(w, h);
    // Across: the coordinate seams are counted along (x for vertical seams); along: the other.
    const int across_blocks = vertical ? cw : ch;
    const int along_blocks = vertical ? ch : cw;
    parallel_chunks(h, [&](const int y0, const int y1, int) {
        for (int y = y0; y < y1; ++y) {
            std::int32_t* dst = out.order.row(y);
            for (int x = 0; x < w; ++x) {
                const int a = vertical ? x : y;
                const int b = vertical ? y : x;
                if (a >= across_blocks * factor) {
                    dst[x] = kNeverRemoved;
                    continue;
                }
                const int ca = a / factor;
                const int cb = std::min(b / factor, along_blocks - 1);
                const std::int32_t k = vertical ? c.order.at(ca, cb) : c.order.at(cb, ca);
                dst[x] = k == kNeverRemoved ? kNeverRemoved : factor * k + a % factor;
            }
        }
    });
    out.costs.resize(static_cast<std::size_t>(out.seams));
    for (int s = 0; s < out.seams; ++s)
        out.costs[static_cast<std::size_t>(s)] = c.costs[static_cast<std::size_t>(s / factor)];
    out.protected_crossed.assign(static_cast<std::size_t>(out.seams), 0);
    out.remove_crossed.assign(static_cast<std::size_t>(out.seams), 0);
    for (int y = 0; y < h && (input.protect || input.remove); ++y) {
        const std::int32_t* o = out.order.row(y);
        for (int x = 0; x < w; ++x) {
            if (o[x] >= out.seams) continue;
            const auto s = static_cast<std::size_t>(o[x]);
            if (input.protect && input.protect->at(x, y) != 0) ++out.protected_crossed[s];
            if (input.remove && input.remove->at(x, y) != 0) ++out.remove_crossed[s];
        }
    }
    return out;
}

int approximate_factor(const int width, const int height, const std::int64_t max_pixels) {
    if (width < 1 || height < 1)
        invalid("cannot choose an approximation factor for a " + std::to_string(width) + " × " +
                std::to_string(height) + " image");
    if (max_pixels < 1)
        invalid("the preview needs at least one pixel, not " + std::to_string(max_pixels));
    int factor = 1;
    // Stop before a side would shrink below one pixel (only very thin images get there).
    while (std::int64_t{width / factor} * (height / factor) > max_pixels &&
           std::min(width, height) / (factor * 2) >= 1)
        factor *= 2;
    return factor;
}

OrderDistance order_distance(const ImageView<const Rgba8> image, const SeamOrder& exact,
                             const SeamOrder& approximate, const int count) {
    for (const SeamOrder* o : {&exact, &approximate}) {
        const char* which = o == &exact ? "the exact" : "the approximate";
        if (o->width != image.width || o->height != image.height ||
            o->order.width() != image.width || o->order.height() != image.height)
            invalid(std::string(which) + " seam order belongs to an image of another size (" +
                    std::to_string(o->order.width()) + " × " + std::to_string(o->order.height()) +
                    ", not " + std::to_string(image.width) + " × " + std::to_string(image.height) +
                    ")");
    }
    if (exact.direction != approximate.direction)
        invalid("the exact and the approximate seam orders run in different directions");
    const int depth = std::min(exact.seams, approximate.seams);
    if (count < 0 || count > depth)
        invalid("cannot compare " + std::to_string(count) + " seams: the orders hold " +
                std::to_string(exact.seams) + " and " + std::to_string(approximate.seams));

    OrderDistance d;
    std::int64_t differing = 0;
    for (int y = 0; y < image.height; ++y) {
        const std::int32_t* e = exact.order.row(y);
        const std::int32_t* a = approximate.order.row(y);
        for (int x = 0; x < image.width; ++x) {
            const bool in_e = e[x] < count, in_a = a[x] < count;
            if (in_e != in_a) ++differing;
            if (in_e || in_a) {
                const std::int64_t g = gradient(image, x, y);
                if (in_e) d.exact_energy += g;
                if (in_a) d.approximate_energy += g;
            }
        }
    }
    const int lines = exact.direction == SeamDirection::Vertical ? image.height : image.width;
    if (count > 0) d.differing_share = static_cast<double>(differing) / (2.0 * count * lines);
    return d;
}

}  // namespace lacuna::ops
