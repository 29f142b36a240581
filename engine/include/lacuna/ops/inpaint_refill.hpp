// A post-fill pass against foreign blobs (issue 31: "no foreign content"): in a finished fill,
// clumps of pixels whose colour (5 bits a channel, colour_bins.hpp) occurs nowhere in the known
// ring around their hole region are a piece of another object pasted in (a letter's orange, a
// lamp's shell) or a blend across an edge. Each such blob is filled again as a smaller hole,
// with every known pixel of the blob's foreign colours (and their one-bin look-alikes) never
// sampled, and the new fill is kept only where it brings clearly fewer foreign colours.
//
// It reads the finished image only (a separate stage after the fill and the per-region choice,
// like choose_fill), so CPU and CUDA fillers, whose finished images are the same bytes, make the
// same decisions here; the refill itself is a PatchMatch fill, identical on every backend.
#pragma once

#include <lacuna/core/image.hpp>
#include <lacuna/core/mask.hpp>
#include <lacuna/ops/inpaint.hpp>

#include <cstdint>
#include <vector>

namespace lacuna::ops {

/// The ring (chessboard px) around each hole region whose colours count as the surroundings'
/// (the bench's foreign-content measure and the per-region choice use the same 16).
inline constexpr int kRefillRing = 16;
/// Foreign pixels within this many px (chessboard) of each other form one blob...
inline constexpr int kRefillJoin = 2;
/// ...and a blob is refilled when it holds at least this many foreign pixels (a clump, not the
/// scattered single pixels that noise and fine texture score too).
inline constexpr int kRefillMinForeign = 24;
/// The refilled hole: the blob's pixels grown by this much (chessboard), within the hole, so the
/// blend's transition around a pasted piece goes too.
inline constexpr int kRefillGrow = 2;
/// A refilled blob is kept when its foreign pixels drop to at most this share of before.
inline constexpr double kRefillKeepRatio = 0.5;

/// What the detection finds in a finished fill: per hole pixel, 1 where its colour is absent
/// from its region's ring; the blobs to refill as one mask (grown, within the hole), and per
/// blob (8-connected component of that mask) its foreign pixel count.
struct ForeignBlobs {
    Mask foreign;  ///< image-sized; 1 = a hole pixel of a colour its region's ring lacks
    Mask refill;   ///< image-sized; 1 = to be filled again
    std::vector<std::int64_t> foreign_in_blob;  ///< per component of `refill`, in scan order
    /// The 5-bit colours (colour_bin) no source may hold: the blobs' foreign colours widened by
    /// one bin a channel, less every colour of the rings of the blobs' regions.
    std::vector<std::uint8_t> excluded_bins;
};
ForeignBlobs find_foreign_blobs(ImageView<const Rgba8> filled, const Mask& hole);

/// What refill_foreign did.
struct RefillReport {
    int blobs = 0;                    ///< blobs found
    int kept = 0;                     ///< blobs whose refill was kept
    std::int64_t foreign_before = 0;  ///< foreign pixels in the found blobs
    std::int64_t foreign_after = 0;   ///< ... after (refills not kept count as before)
};

/// The stage: when params.refill_foreign and params.method is PatchMatch, finds the foreign
/// blobs of `filled` (a finished fill of the hole `mask`) and fills them again with
/// PatchMatch (`implementation`), the blobs the hole, every known pixel of an excluded colour,
/// the whole original hole and params.never_sample never sampled; each blob keeps its refill
/// when its foreign pixels drop to at most kRefillKeepRatio of before. Otherwise `filled`
/// unchanged. Pixels outside the mask are never written.
ImageRgba8 refill_foreign(const Mask& mask, const InpaintParams& params,
                          InpaintImplementation implementation, ImageRgba8 filled,
                          RefillReport* report = nullptr);

}  // namespace lacuna::ops
