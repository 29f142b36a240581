// Seam-carving energies in integer arithmetic, shared by the CPU reference, the fast CPU carver
// and CUDA, so every implementation computes the same costs and picks the same seams.
// All energies work on R, G, B summed over channels; borders repeat the edge pixel. Pixels are
// Rgba8 (photos) or Rgba16 (measurement documents' decision images): every energy is homogeneous
// of degree one in the samples, so an Rgba16 image of 257 × an Rgba8 one has 257 × its costs and
// the same seams.
#pragma once

#include <lacuna/core/pixel.hpp>

#include <stdint.h>

namespace lacuna {

enum class SeamEnergy { L1 = 0, Prewitt = 1, Sobel = 2, Forward = 3 };

/// Mask terms: a protected pixel costs this much more, a pixel marked for removal this much less.
/// It exceeds the largest possible unmasked seam cost (32768 rows × 6120 for Rgba8, × 1 572 840
/// for Rgba16: 5.2e10 < 2^40), so any seam that avoids protection is cheaper than every seam
/// through it.
inline constexpr int64_t kSeamMaskWeight = int64_t{1} << 40;

/// Pixel access with clamped coordinates: `row(y)` gives the start of row y of a w × h image.
template <class RowFn>
struct ClampedRgb {
    RowFn row;
    int width;
    int height;
    LACUNA_HD int channel(int x, int y, const int c) const {
        x = x < 0 ? 0 : (x >= width ? width - 1 : x);
        y = y < 0 ? 0 : (y >= height ? height - 1 : y);
        const auto p = row(y)[x];
        return c == 0 ? int(p.r) : (c == 1 ? int(p.g) : int(p.b));
    }
    LACUNA_HD int intensity(int x, int y) const {
        x = x < 0 ? 0 : (x >= width ? width - 1 : x);
        y = y < 0 ? 0 : (y >= height ? height - 1 : y);
        const auto p = row(y)[x];
        return int(p.r) + int(p.g) + int(p.b);
    }
};

LACUNA_HD int iabs(const int v) {
    return v < 0 ? -v : v;
}

/// Backward energy of pixel (x, y): L1 central differences, Prewitt or Sobel, |gx| + |gy| per
/// channel, summed. Forward energy has no per-pixel term (returns 0).
template <class RowFn>
LACUNA_HD int pixel_energy(const ClampedRgb<RowFn>& img, const SeamEnergy kind, const int x,
                           const int y) {
    if (kind == SeamEnergy::Forward) return 0;
    int total = 0;
    for (int c = 0; c < 3; ++c) {
        int gx = 0, gy = 0;
        if (kind == SeamEnergy::L1) {
            gx = img.channel(x + 1, y, c) - img.channel(x - 1, y, c);
            gy = img.channel(x, y + 1, c) - img.channel(x, y - 1, c);
        } else {
            const int w = kind == SeamEnergy::Sobel ? 2 : 1;
            const int tl = img.channel(x - 1, y - 1, c), tc = img.channel(x, y - 1, c),
                      tr = img.channel(x + 1, y - 1, c);
            const int ml = img.channel(x - 1, y, c), mr = img.channel(x + 1, y, c);
            const int bl = img.channel(x - 1, y + 1, c), bc = img.channel(x, y + 1, c),
                      br = img.channel(x + 1, y + 1, c);
            gx = (tr + w * mr + br) - (tl + w * ml + bl);
            gy = (bl + w * bc + br) - (tl + w * tc + tr);
        }
        total += iabs(gx) + iabs(gy);
    }
    return total;
}

/// Forward energy (Rubinstein, Shamir & Avidan 2008): the cost of the new edges a seam creates
/// when it reaches (x, y) from (x + d, y - 1), d in {-1, 0, 1}. Row 0 uses d = 0.
template <class RowFn>
LACUNA_HD int forward_cost(const ClampedRgb<RowFn>& img, const int x, const int y, const int d) {
    const int left = img.intensity(x - 1, y);
    const int right = img.intensity(x + 1, y);
    const int up = iabs(right - left);
    if (d == 0 || y == 0) return up;
    const int above = img.intensity(x, y - 1);
    return d < 0 ? up + iabs(above - left) : up + iabs(above - right);
}

/// The mask term of a pixel: +weight if protected, -weight if marked for removal.
LACUNA_HD int64_t mask_term(const uint8_t protect, const uint8_t remove) {
    return (protect ? kSeamMaskWeight : 0) - (remove ? kSeamMaskWeight : 0);
}

/// Video's temporal term (Grundmann et al. 2010 in spirit): a pixel costs `unit` per column of
/// distance to the nearest pixel the previous frame's seams removed in its row, the distance
/// capped at kTemporalLevels - 1. Both bounds keep every unmasked seam cheaper than one
/// protected pixel: 32768 rows × (1 572 840 + 63 × 65535) < 2^40.
inline constexpr int kTemporalLevels = 64;
inline constexpr int kTemporalMaxUnit = 65535;
LACUNA_HD int64_t temporal_term(const uint8_t level, const int unit) {
    return static_cast<int64_t>(level) * unit;
}

/// The per-seam temporal term (the k-th seam near the previous frame's k-th): a pixel's level for
/// seam k is its distance to where that seam crossed its line, capped here. The cap bounds the
/// cells whose level changes between two seams (within the cap of either seam's crossing), which
/// keeps the incremental carvers' update local.
inline constexpr int kSeamTemporalCap = 32;
LACUNA_HD uint8_t seam_temporal_level(const int position, const int previous_seam) {
    const int d = position > previous_seam ? position - previous_seam : previous_seam - position;
    return static_cast<uint8_t>(d < kSeamTemporalCap ? d : kSeamTemporalCap);
}

}  // namespace lacuna
