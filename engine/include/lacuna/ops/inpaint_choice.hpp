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
//
// A measurement (16-bit, float) is filled by moving its stored samples from sources, never by
// converting 8-bit pixels: there the choice is made on its 8-bit proxy exactly as it is made on
// a picture, and applied by moving the samples of the regions that chose Criminisi from
// Criminisi's sources (choose_sources, apply_choice).
#pragma once

#include <lacuna/core/image.hpp>
#include <lacuna/core/mask.hpp>
#include <lacuna/core/native_image.hpp>
#include <lacuna/ops/inpaint.hpp>
#include <lacuna/ops/patchmatch.hpp>

#include <cstdint>
#include <string>
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
/// The 5-bit colours (detail::colour_bin) of the known pixels within `ring` px (chessboard) of
/// region `region`: what the choice, the refill and the bench call the surroundings' colours.
std::vector<std::uint8_t> ring_colours(ImageView<const Rgba8> image, const HoleRegions& regions,
                                       int region, int ring);

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

/// Criminisi's fill as a source map: the known pixel whose value each hole pixel took. The
/// filler copies whole pixels patch by patch, so this is its whole result: read from its
/// history() with the copy rule of every Criminisi filler (a chosen source patch goes into the
/// target patch's pixels not filled yet), so the Reference, Fast and CUDA fillers, whose
/// histories are identical, give identical maps. A source always lies outside the hole and the
/// never-sample area (it is a pixel of a complete source patch). Pixels not filled yet are -1.
/// Throws InvalidArgument for a PatchMatch inpainter.
FillSources criminisi_sources(const Inpainter& criminisi);
/// The 8-bit counterpart of fill_from_sources (patchmatch.hpp): `image` with every pixel that
/// `sources` gives a source for set to that source pixel. Throws InvalidArgument when the
/// sources are for another size.
ImageRgba8 fill_from_sources(ImageView<const Rgba8> image, const FillSources& sources);

/// Whether the choice runs for a fill of `mask` with `params`: params.choose, PatchMatch, and a
/// hole of 1 to kChoiceMaxPixels pixels (counted without labelling a large one).
bool choice_runs(const Mask& mask, const InpaintParams& params);

/// The choice for one fill: the hole's regions, which fill each takes, and Criminisi's fill it
/// was chosen against (as pixels and as sources).
struct FillChoice {
    HoleRegions regions;
    /// Per region: 0 PatchMatch, 1 Criminisi. Empty when the stage did not run.
    std::vector<int> choice;
    ImageRgba8 criminisi;           ///< Criminisi's finished fill (empty when not run)
    FillSources criminisi_sources;  ///< the same fill as sources (criminisi_sources)
    /// How many regions take Criminisi's fill.
    [[nodiscard]] int criminisi_regions() const;
};

/// The decision of the stage after a finished PatchMatch fill (`filled`, of `image` with
/// `mask`): where choice_runs, Criminisi fills the same hole (same patch, window and
/// never-sample area) with `implementation`, and each region is scored on both fills and chosen
/// by choose_fills. Otherwise an empty choice.
FillChoice choose_regions(ImageView<const Rgba8> image, const Mask& mask,
                          const InpaintParams& params, InpaintImplementation implementation,
                          const ImageRgba8& filled);

/// The stage after a finished PatchMatch fill (`filled`, of `image` with `mask`): when
/// params.choose and the hole has at most kChoiceMaxPixels pixels, Criminisi fills the same
/// hole with `implementation` too, and each region keeps the fill choose_fills picks (
/// choose_regions, then compose_fills). Otherwise `filled` unchanged. `chosen`, when given,
/// receives the choice per region (0 PatchMatch, 1 Criminisi; empty when the stage did not run).
ImageRgba8 choose_fill(ImageView<const Rgba8> image, const Mask& mask, const InpaintParams& params,
                       InpaintImplementation implementation, ImageRgba8 filled,
                       std::vector<int>* chosen = nullptr);

/// The choice for a measurement's fill, made on its 8-bit proxy (`proxy`, the image its fill was
/// prepared on) exactly as choose_fill makes it on a picture: PatchMatch's fill is the proxy
/// filled from `patchmatch` (the sources that move the samples) and blended with blend_fill,
/// which is what a PatchMatch fill of the proxy with those sources shows after ops::inpaint's
/// blend; Criminisi fills the proxy. So a measurement and its 8-bit picture, filled from the
/// same sources, choose alike. Where choice_runs is false nothing is filled or blended.
/// `bands`, when given and not empty, are the line stage's (continue_lines of the problem):
/// their pixels are copied first and left unblended, `patchmatch` covers the rest of the hole and
/// only the rest is blended, as a picture's fill with params.lines shows it (sources_picture).
FillChoice choose_sources(ImageView<const Rgba8> proxy, const Mask& mask,
                          const InpaintParams& params, InpaintImplementation implementation,
                          const FillSources& patchmatch, const FillSources* bands = nullptr);

/// What a picture's PatchMatch fill shows for these sources after ops::inpaint's blend: `proxy`
/// with the bands (may be null) copied in, then the rest of the hole (`mask` less the bands)
/// filled from `patchmatch` and blended over that rest with blend_fill. What choose_sources and
/// refill_sources judge.
ImageRgba8 sources_picture(ImageView<const Rgba8> proxy, const Mask& mask,
                           const FillSources& patchmatch, const FillSources* bands);

/// Moves samples by a source map into the selected regions: every pixel of each region r of
/// `regions` with selected[r] == 1 takes, in `filled` (the samples of `rect`), the sample of
/// `samples` at its source in `sources`, unconverted. Everything is checked before anything is
/// written (`filled` has `rect`'s size and `samples`' format, the maps are for `samples`' size,
/// `rect` and `sources` cover every selected region, each of its pixels has a source):
/// InvalidArgument otherwise, `filled` left as it was. What apply_choice and apply_refill share.
void move_selected_samples(NativeImage& filled, const PixelRect& rect, const NativeImage& samples,
                           const HoleRegions& regions, const std::vector<int>& selected,
                           const FillSources& sources);

/// Applies a measurement's choice: the pixels of `filled` (the samples of `rect`, filled from
/// PatchMatch's sources and blended) in the regions that chose Criminisi take the samples of
/// `samples` (the measurement before the fill) at Criminisi's sources, unconverted and
/// unblended, as a picture takes Criminisi's pixels there. `filled` must have `rect`'s size and
/// `samples`' format; InvalidArgument otherwise.
void apply_choice(NativeImage& filled, const PixelRect& rect, const NativeImage& samples,
                  const FillChoice& choice);

/// The note a fill adds when regions took Criminisi ("2 of 3 hole regions filled by
/// Criminisi ..."); empty when none did.
std::string choice_note(const FillChoice& choice);

}  // namespace lacuna::ops
