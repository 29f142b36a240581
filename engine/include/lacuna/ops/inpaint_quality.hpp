// How good is a fill? Measures used by `lacuna bench inpaint` to compare methods on the same holes.
// Hole PSNR alone rewards blur (a smooth smear is close to any texture on average), so it is
// reported with SSIM and two measures of texture: the texture-energy ratio (a smear scores far
// below 1) and the seam score (a visible border around the fill scores above 1).
#pragma once

#include <lacuna/core/image.hpp>
#include <lacuna/core/mask.hpp>

namespace lacuna::ops {

struct FillQuality {
    double psnr_db = 0;  ///< RGB, hole pixels only; +inf when identical; NaN without truth
    double ssim = 0;  ///< luma, 7×7 uniform windows, averaged over hole pixels; NaN without truth
    /// Mean luma gradient magnitude in the hole ÷ the same in the truth's hole (or, without a
    /// truth, in a ring around the hole). About 1 is right; a smear is 0.1–0.4.
    double texture_ratio = 0;
    /// Mean gradient magnitude on the one-pixel band either side of the mask border ÷ the same
    /// band in the truth (or the ring without a truth). Above 1: the border shows.
    double seam_score = 0;
};

/// `truth` may be null (a real object removed: nothing to compare with). The ring is the pixels
/// outside the mask within `ring_width` (chessboard distance) of it.
FillQuality measure_fill(ImageView<const Rgba8> result, const Mask& mask, const ImageRgba8* truth,
                         int ring_width = 8);

}  // namespace lacuna::ops
