// Exemplar-based inpainting (Criminisi, Pérez & Toyama 2004): the per-pixel terms that
// the CPU reference, the fast CPU filler and the CUDA kernels must compute identically so that all
// three fill the same patches in the same order.
//
// Everything that decides an order is exact: confidence is fixed point, gradients and normals are
// integers, the SSD is an integer, and the single floating expression (the priority) is a fixed
// sequence of IEEE double operations (division, sqrt, product, sum), each correctly rounded on the
// host and on the device. Kernels and host code are built without FMA contraction.
//
// Shared with CUDA (C++17).
#pragma once

#include <lacuna/core/pixel.hpp>

#include <cmath>
#include <cstdint>

namespace lacuna::inpaint_terms {

/// Confidence of a known pixel, in fixed point (C = 1 in Criminisi's notation).
inline constexpr std::int32_t kFullConfidence = 1 << 16;
/// Added to the data term so that flat regions fill in confidence order (onion peel) instead of
/// all having priority 0 and filling in scan order.
inline constexpr double kDataFloor = 0.001;
/// Priority of a pixel that is not on the fill front.
inline constexpr double kNotFront = -1.0;

/// Integer luma 0..255 (weights sum to 256), used for isophotes.
LACUNA_HD std::uint8_t inpaint_luma(const Rgba8 p) {
    return static_cast<std::uint8_t>((54u * p.r + 183u * p.g + 19u * p.b + 128u) >> 8);
}

/// The dense per-pixel state the priority reads. All arrays are width × height, row-major,
/// unpadded (host vectors or device buffers).
struct PriorityInputs {
    int width = 0;
    int height = 0;
    int radius = 0;                            ///< patch is (2 radius + 1)²
    const std::uint8_t* known = nullptr;       ///< 1 = known (original outside the hole, or filled)
    const std::uint8_t* luma = nullptr;        ///< inpaint_luma of the current image
    const std::int32_t* confidence = nullptr;  ///< fixed point; 0 for unknown pixels
};

LACUNA_HD bool known_at(const PriorityInputs& in, const int x, const int y) {
    return in.known[static_cast<std::int64_t>(y) * in.width + x] != 0;
}

/// Known with clamping at the image border (the border continues the edge pixel), for normals.
LACUNA_HD int known_clamped(const PriorityInputs& in, int x, int y) {
    x = x < 0 ? 0 : (x >= in.width ? in.width - 1 : x);
    y = y < 0 ? 0 : (y >= in.height ? in.height - 1 : y);
    return known_at(in, x, y) ? 1 : 0;
}

/// The fill front δΩ: unknown pixels with a known 4-neighbour.
LACUNA_HD bool on_front(const PriorityInputs& in, const int x, const int y) {
    if (known_at(in, x, y)) return false;
    return (x > 0 && known_at(in, x - 1, y)) || (x + 1 < in.width && known_at(in, x + 1, y)) ||
           (y > 0 && known_at(in, x, y - 1)) || (y + 1 < in.height && known_at(in, x, y + 1));
}

/// Sum of the confidence over the patch around (x, y), clipped to the image. The patch's
/// confidence C(p) is this sum over the full patch area; filled pixels inherit sum / area.
LACUNA_HD std::int64_t patch_confidence_sum(const PriorityInputs& in, const int x, const int y) {
    std::int64_t sum = 0;
    for (int dy = -in.radius; dy <= in.radius; ++dy) {
        const int yy = y + dy;
        if (yy < 0 || yy >= in.height) continue;
        for (int dx = -in.radius; dx <= in.radius; ++dx) {
            const int xx = x + dx;
            if (xx < 0 || xx >= in.width) continue;
            sum += in.confidence[static_cast<std::int64_t>(yy) * in.width + xx];
        }
    }
    return sum;
}

/// Criminisi's priority C(p)·(D(p) + floor) for a front pixel, kNotFront otherwise.
/// D(p) = |∇I⊥ · n| / (|n| · 255): the isophote is the strongest central-difference luma gradient
/// among known pixels of the patch whose four neighbours are known (first in scan order on ties);
/// the front normal is the Sobel gradient of the known indicator.
LACUNA_HD double priority_at(const PriorityInputs& in, const int x, const int y) {
    if (!on_front(in, x, y)) return kNotFront;
    const int r = in.radius;
    int best_gx = 0, best_gy = 0, best_g2 = -1;
    for (int dy = -r; dy <= r; ++dy) {
        const int yy = y + dy;
        if (yy < 1 || yy + 1 >= in.height) continue;
        for (int dx = -r; dx <= r; ++dx) {
            const int xx = x + dx;
            if (xx < 1 || xx + 1 >= in.width) continue;
            if (!known_at(in, xx, yy) || !known_at(in, xx - 1, yy) || !known_at(in, xx + 1, yy) ||
                !known_at(in, xx, yy - 1) || !known_at(in, xx, yy + 1))
                continue;
            const std::int64_t row = static_cast<std::int64_t>(yy) * in.width;
            const int gx = int(in.luma[row + xx + 1]) - int(in.luma[row + xx - 1]);
            const int gy = int(in.luma[row + in.width + xx]) - int(in.luma[row - in.width + xx]);
            const int g2 = gx * gx + gy * gy;
            if (g2 > best_g2) {
                best_g2 = g2;
                best_gx = gx;
                best_gy = gy;
            }
        }
    }
    const auto k = [&](const int dx, const int dy) { return known_clamped(in, x + dx, y + dy); };
    const int nx = (k(1, -1) + 2 * k(1, 0) + k(1, 1)) - (k(-1, -1) + 2 * k(-1, 0) + k(-1, 1));
    const int ny = (k(-1, 1) + 2 * k(0, 1) + k(1, 1)) - (k(-1, -1) + 2 * k(0, -1) + k(1, -1));
    const int n2 = nx * nx + ny * ny;
    double data = 0.0;
    if (n2 > 0 && best_g2 > 0) {
        // Isophote = gradient rotated by 90°: (-gy, gx).
        int dot = -best_gy * nx + best_gx * ny;
        dot = dot < 0 ? -dot : dot;
        const double norm = sqrt(static_cast<double>(n2));
        const double scaled = norm * 255.0;
        data = static_cast<double>(dot) / scaled;
    }
    const double area = static_cast<double>((2 * r + 1) * (2 * r + 1)) * kFullConfidence;
    const double confidence = static_cast<double>(patch_confidence_sum(in, x, y)) / area;
    const double boosted = data + kDataFloor;
    return confidence * boosted;
}

/// Squared RGB distance of two pixels.
LACUNA_HD std::uint32_t rgb_distance2(const Rgba8 a, const Rgba8 b) {
    const int dr = int(a.r) - int(b.r);
    const int dg = int(a.g) - int(b.g);
    const int db = int(a.b) - int(b.b);
    return static_cast<std::uint32_t>(dr * dr + dg * dg + db * db);
}

/// A candidate's rank: lower SSD wins, then the lower linear index of the source centre. Packing
/// both into one integer makes the choice independent of evaluation order (and an atomicMin on
/// the device). A 31×31 patch has an SSD below 961 · 3 · 255² < 2³², so it fits the high word.
LACUNA_HD std::uint64_t candidate_key(const std::uint32_t ssd, const std::uint32_t index) {
    return (static_cast<std::uint64_t>(ssd) << 32) | index;
}
inline constexpr std::uint64_t kNoCandidate = ~std::uint64_t{0};

/// Candidate ranking for the highest priority: higher priority, then lower linear index.
LACUNA_HD bool ranks_before(const double priority, const std::int64_t index,
                            const double other_priority, const std::int64_t other_index) {
    return priority > other_priority || (priority == other_priority && index < other_index);
}

}  // namespace lacuna::inpaint_terms
