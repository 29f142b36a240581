// A truth-free choice between finished fills, per connected region of the hole (issue 31: "an
// automatic choice between methods per region where one clearly wins").
//
// Every candidate is a whole finished image of the same input (outside the hole they equal the
// input); each 8-connected region of the hole takes its pixels from the candidate that scores
// best there. The score needs only the picture: how many of the region's pixels have a colour
// (5 bits a channel) that occurs nowhere in the known ring around it (what a pasted piece of
// another object, or a blend across an edge, brings). The choice runs on the host after the
// fillers, on their finished images, so every backend's fills go through the same choice and
// the CPU and CUDA fillers' own decisions are untouched.
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

/// What a candidate scores on one region (lower is better for each).
struct FillScore {
    /// Share of the region's pixels whose 5-bit colour occurs nowhere in the known ring of
    /// kChoiceRing px (chessboard) around the region (the bench's foreign content).
    double foreign = 0;
    /// RMS difference (levels) over the region between the candidate after a Gaussian low-pass
    /// (σ 3) and the membrane interpolation of the ring after the same low-pass: a fill whose
    /// tones stray from what the border suggests scores high. Reported by the bench (it
    /// predicts the better of two fills in 72 % of pairs) but not used by the choice: as a
    /// chooser it took Criminisi on textured holes where PatchMatch was better (notes).
    double tone = 0;
    /// |log2| of the region's mean luma gradient over the ring's (reported, not used: it did
    /// not predict the better fill).
    double detail = 0;
};
inline constexpr int kChoiceRing = 16;
/// Another candidate replaces the default (candidate 0) on a region only where the default
/// brought many colours the ring lacks (a share of at least kChoiceMinForeign)...
inline constexpr double kChoiceMinForeign = 0.05;
/// ...and the other brought at most this fraction of that share: one clearly wins.
inline constexpr double kChoiceForeignRatio = 0.25;
/// The choice runs only on holes of at most this many pixels (the extra Criminisi fill costs
/// its hole: about 0.1 s for 7000 px on two cores; 24 s at 1080p with 47000 px).
inline constexpr std::int64_t kChoiceMaxPixels = 16384;

FillScore score_fill(ImageView<const Rgba8> filled, const HoleRegions& regions, int region);
/// Every candidate on every region: scores[region][candidate]. The ring (and the membrane) are
/// read from candidates[0] (all candidates equal it outside the hole). Without `tone` the
/// membrane is not solved and tone stays 0.
std::vector<std::vector<FillScore>> score_fills(const std::vector<const ImageRgba8*>& candidates,
                                                const HoleRegions& regions, bool tone = false);

/// The membrane interpolation of `image` over the region (used by score_fill): hole pixels of
/// the region solved for a zero Laplacian with the ring as boundary; other pixels as they are.
/// Exposed for tests.
ImageRgba8 membrane_fill(ImageView<const Rgba8> image, const HoleRegions& regions, int region);

/// Per region, which candidate wins: 0 (the default fill) unless its foreign share is at least
/// kChoiceMinForeign and another's is at most kChoiceForeignRatio times it; then the one with
/// the lowest share (the first on ties).
std::vector<int> choose_fills(const std::vector<std::vector<FillScore>>& scores);

/// The composed image: each region's pixels from its chosen candidate, the rest candidate 0's.
ImageRgba8 compose_fills(const std::vector<const ImageRgba8*>& candidates,
                         const HoleRegions& regions, const std::vector<int>& choice);

/// The stage after a finished PatchMatch fill (`filled`, of `image` with `mask`): when
/// params.choose and the hole has at most kChoiceMaxPixels pixels, Criminisi fills the same
/// hole with `implementation` too, and each region keeps the fill choose_fills picks. Otherwise
/// `filled` unchanged. `chosen`, when given, receives the choice per region (0 PatchMatch,
/// 1 Criminisi; empty when the stage did not run).
ImageRgba8 choose_fill(ImageView<const Rgba8> image, const Mask& mask, const InpaintParams& params,
                       InpaintImplementation implementation, ImageRgba8 filled,
                       std::vector<int>* chosen = nullptr);

}  // namespace lacuna::ops
