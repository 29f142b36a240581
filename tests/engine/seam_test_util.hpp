// Helpers shared by the CPU and CUDA seam-carving tests: masks and exact comparison of orders.
#pragma once

#include <lacuna/ops/seam_carve.hpp>

#include <QString>

#include <algorithm>
#include <random>

namespace lacuna::test {

inline Mask rect_mask(const int w, const int h, const int x0, const int y0, const int x1,
                      const int y1) {
    Mask m(w, h, 0);
    for (int y = y0; y < y1; ++y)
        for (int x = x0; x < x1; ++x) m.at(x, y) = 255;
    return m;
}

/// A 16-bit decision image of random samples: `levels` evenly spaced values over 0..65535 (few
/// levels: many equal costs, so the tie-break is exercised), alpha opaque.
inline Image<Rgba16> random_deep_image(const int w, const int h, const int levels,
                                       std::mt19937& rng) {
    std::uniform_int_distribution<int> pick(0, levels - 1);
    Image<Rgba16> img(w, h);
    const auto level = [&] {
        return static_cast<std::uint16_t>(std::int64_t{pick(rng)} * 65535 / (levels - 1));
    };
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) img.at(x, y) = Rgba16{level(), level(), level(), 65535};
    return img;
}

/// Previous-frame seam paths for the per-seam temporal term: `count` seams over `lines` lines of
/// `extent` positions, each a random walk (steps −2 … 2) from a random start; every fourth seam
/// starts far from the one before, so the windows the carvers update are both narrow and wide.
inline ops::SeamPaths random_seam_paths(const int lines, const int count, const int extent,
                                        std::mt19937& rng) {
    ops::SeamPaths paths;
    paths.lines = lines;
    paths.count = count;
    paths.positions.resize(static_cast<std::size_t>(lines) * count);
    std::uniform_int_distribution<int> start(0, extent - 1), step(-2, 2), near(-3, 3);
    int previous_start = start(rng);
    for (int k = 0; k < count; ++k) {
        int x = k % 4 == 0 ? start(rng) : std::clamp(previous_start + near(rng), 0, extent - 1);
        previous_start = x;
        for (int y = 0; y < lines; ++y) {
            paths.positions[static_cast<std::size_t>(k) * lines + y] = x;
            x = std::clamp(x + step(rng), 0, extent - 1);
        }
    }
    return paths;
}

/// The folded level term at its worst (kMaxFoldedLevelTerm): a `w` × `h` image whose channels
/// are each 0 or 255 at random (the largest gradient energies and forward transitions an image
/// has) and levels 63 but for one pixel in 20 (random), so the seams still have choices.
struct ExtremeLevels {
    ImageRgba8 image;
    Mask levels;
};
inline ExtremeLevels extreme_levels(const int w, const int h, std::mt19937& rng) {
    ExtremeLevels e{ImageRgba8(w, h), Mask(w, h, 0)};
    std::uniform_int_distribution<int> bit(0, 1), level(0, kTemporalLevels - 1), one_in(0, 19);
    const auto channel = [&] { return static_cast<std::uint8_t>(255 * bit(rng)); };
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            e.image.at(x, y) = Rgba8{channel(), channel(), channel(), 255};
            e.levels.at(x, y) =
                static_cast<std::uint8_t>(one_in(rng) == 0 ? level(rng) : kTemporalLevels - 1);
        }
    return e;
}

/// Empty when both orders are identical (costs, every pixel's rank, mask counts); else the first
/// difference.
inline QString compare(const ops::SeamOrder& a, const ops::SeamOrder& b) {
    if (a.seams != b.seams || a.width != b.width || a.height != b.height) return "shape differs";
    for (int s = 0; s < a.seams; ++s)
        if (a.costs[s] != b.costs[s])
            return QString("seam %1 cost %2 vs %3").arg(s).arg(a.costs[s]).arg(b.costs[s]);
    for (int y = 0; y < a.height; ++y)
        for (int x = 0; x < a.width; ++x)
            if (a.order.at(x, y) != b.order.at(x, y))
                return QString("order at %1,%2: %3 vs %4")
                    .arg(x)
                    .arg(y)
                    .arg(a.order.at(x, y))
                    .arg(b.order.at(x, y));
    if (a.protected_crossed != b.protected_crossed || a.remove_crossed != b.remove_crossed)
        return "mask counts differ";
    return {};
}

}  // namespace lacuna::test
