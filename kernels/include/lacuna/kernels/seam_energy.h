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

/// Transversal: |I(x + 1) − I(x − 1)| of the intensity (R + G + B) across the seam only, liblqr's
/// default (LQR_EF_GRAD_XABS, what ImageMagick's -liquid-rescale carves with): a seam may run
/// along or cross an edge parallel to the carved direction, which removes a pixel of the edge
/// without breaking it.
enum class SeamEnergy { L1 = 0, Prewitt = 1, Sobel = 2, Forward = 3, Transversal = 4 };

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
/// channel, summed; Transversal, |gx| of the intensity (at most 765). Forward energy has no
/// per-pixel term (returns 0).
template <class RowFn>
LACUNA_HD int pixel_energy(const ClampedRgb<RowFn>& img, const SeamEnergy kind, const int x,
                           const int y) {
    if (kind == SeamEnergy::Forward) return 0;
    if (kind == SeamEnergy::Transversal)
        return iabs(img.intensity(x + 1, y) - img.intensity(x - 1, y));
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

/// The largest per-pixel level term (level × unit) that the 8-bit carvers fold into their
/// unmasked layout (a level map without protect/remove masks or per-seam levels: a still's
/// importance, a video distance map), keeping 32-bit costs; beyond it they take the 64-bit
/// masked layout. Why nothing overflows, at the largest image (kMaxImageSide = 32768 rows):
/// - gradient energies: the folded energy E + L·u ≤ 6120 (Sobel's largest, 3 × 2040) + 26647 =
///   32767 fits the 16-bit energy/aux terms exactly, and a path's cost is at most 32768 × 32767 =
///   1 073 709 056 < 2^31 − 1 = 2 147 483 647;
/// - forward energy: the per-pixel term L·u ≤ 26647 plus the largest transition 2 × 765 per row
///   gives 32768 × 28177 = 923 303 936 < 2^31 − 1 (on CUDA the level itself, 0..63, rides in
///   bits 10..15 of the 16-bit aux term above the intensity, 0..765 in bits 0..9, and is
///   multiplied by the unit in the recurrence).
/// Every partial sum of the recurrence (a row's cost above plus a transition) is below a full
/// path's bound. So folded costs are the reference's 64-bit costs exactly, and the seams agree
/// (test_seam_carve::folded_levels_at_the_extremes,
/// test_seam_carve_cuda::importance_fold_at_the_extremes).
/// The importance units (48 forward, L1 and transversal, 96 Prewitt, 128 Sobel: at most 63 × 128 =
/// 8064) all fold.
inline constexpr int kMaxFoldedLevelTerm = 32767 - 6120;
/// Whether levels 0 .. kTemporalLevels − 1 at `unit` each fold into the 32-bit layout.
LACUNA_HD constexpr bool level_unit_folds(const int unit) {
    return unit >= 0 && (kTemporalLevels - 1) * unit <= kMaxFoldedLevelTerm;
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
