// A source prior by colour for PatchMatch: source patches that hold colours found nowhere around
// the hole (look-alike objects elsewhere in the picture) are taken out of the valid sources
// before any filler starts. It runs once on the host, on the prepared problem (like the line
// continuation), so the CPU and CUDA PatchMatch take the same sources and still decide alike.
#pragma once

#include <lacuna/core/image.hpp>
#include <lacuna/core/mask.hpp>

#include <cstdint>

namespace lacuna::ops {

struct InpaintProblem;
struct InpaintParams;
struct SearchRect;

struct SourcePriorOptions {
    /// Known pixels within this many pixels (chessboard) of the hole make its surroundings.
    int ring = 16;
    /// A colour is the surroundings' when its 5-bit bin lies within this many bins (per
    /// channel) of a ring pixel's.
    int tolerance = 1;
    /// Foreign regions (8-connected) that reach within this many pixels of the hole continue
    /// into it and stay sources (0 or at most `ring`: none are exempt).
    int exempt = 32;
    /// A source patch with this many foreign pixels or more is not a source.
    int max_foreign = 1;
};

SourcePriorOptions source_prior_options(const InpaintParams& params);

struct SourcePriorResult {
    Mask valid;               ///< the restricted valid sources (empty when not applied)
    std::int64_t before = 0;  ///< valid centres in the window before
    std::int64_t after = 0;   ///< and after
    bool applied = false;     ///< false: nothing foreign, or too few sources would be left
};

/// The valid source centres of `valid` inside `window` whose patch (radius `radius`) holds fewer
/// than max_foreign foreign pixels. Not applied when fewer than min(before, hole_pixels) centres
/// would be left.
SourcePriorResult restrict_sources(ImageView<const Rgba8> image, const Mask& hole,
                                   const Mask& valid, const SearchRect& window, int radius,
                                   std::int64_t hole_pixels, const SourcePriorOptions& options);

/// Applies it to a prepared problem (its valid sources), with a note when it took sources out.
void restrict_sources(InpaintProblem& problem, const SourcePriorOptions& options);

}  // namespace lacuna::ops
