// A truth-free choice between finished fills, per connected region of the hole (issue 31: "an
// automatic choice between methods per region where one clearly wins").
//
// Every candidate is a whole finished image of the same input (outside the hole they equal the
// input); each 8-connected region of the hole takes its pixels from the candidate that scores
// best there. The score needs only the picture: how many of the region's pixels have a colour
// (5 bits a channel) that occurs nowhere in the known ring around it, and how far the region's
// low-pass tones stray from a membrane (harmonic) interpolation of that ring. The choice runs on
// the host after the fillers, so every backend's fills go through the same choice.
#pragma once

#include <lacuna/core/image.hpp>
#include <lacuna/core/mask.hpp>
#include <lacuna/ops/inpaint.hpp>

#include <cstdint>
#include <vector>

namespace lacuna::ops {

/// The hole's 8-connected regions: label per pixel (-1 outside the hole) and each region's box
/// and pixel count, in scan order of their first pixel.
struct HoleRegions {
    int width = 0, height = 0;
    std::vector<std::int32_t> label;
    struct Region {
        SearchRect box{0, 0, -1, -1};
        std::int64_t pixels = 0;
    };
    std::vector<Region> regions;
};
HoleRegions hole_regions(const Mask& hole);

/// What a candidate scores on one region (lower is better for both).
struct FillScore {
    /// Share of the region's pixels whose 5-bit colour occurs nowhere in the known ring of
    /// kChoiceRing px (chessboard) around the region.
    double foreign = 0;
    /// RMS difference (levels) over the region between the candidate after a Gaussian low-pass
    /// (σ 3) and the membrane interpolation of the ring after the same low-pass.
    double tone = 0;
    /// |log2| of the region's mean luma gradient over the ring's.
    double detail = 0;
};
inline constexpr int kChoiceRing = 16;

FillScore score_fill(ImageView<const Rgba8> filled, const HoleRegions& regions, int region);

/// The membrane interpolation of `image` over the region (used by score_fill): hole pixels of
/// the region solved for a zero Laplacian with the ring as boundary; other pixels as they are.
/// Exposed for tests.
ImageRgba8 membrane_fill(ImageView<const Rgba8> image, const HoleRegions& regions, int region);

/// Per region, which candidate wins: candidate 0 (the default fill) unless another one's foreign
/// share is lower by more than `margin` (and at most half of candidate 0's). Returns one index
/// per region.
std::vector<int> choose_fills(const std::vector<const ImageRgba8*>& candidates,
                              const HoleRegions& regions, double margin);

/// The composed image: each region's pixels from its chosen candidate, the rest candidate 0's.
ImageRgba8 compose_fills(const std::vector<const ImageRgba8*>& candidates,
                         const HoleRegions& regions, const std::vector<int>& choice);

}  // namespace lacuna::ops
