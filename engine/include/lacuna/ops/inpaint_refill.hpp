// A post-fill pass against foreign blobs (issue 31: "no foreign content"): in a finished fill,
// clumps of pixels whose colour (5 bits a channel, colour_bins.hpp) occurs nowhere in the known
// ring around their hole region are a piece of another object pasted in (a letter's orange, a
// lamp) or a blend across an edge. Each such blob is filled again by PatchMatch as a smaller
// hole, the rest of the fill around it known (so the new patches must agree with it) and the
// whole original hole never sampled, and the new fill is kept only where it brings clearly
// fewer foreign colours. (Never sampling the picture's pixels of the blob's foreign colours too
// was measured and lost: those shades are often a structure's beyond the ring, a façade's
// ledges, a fabric's pattern; docs/notes/patchmatch.md.)
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
/// ...and at most this share of its hole region's pixels (a larger one is a structure whose
/// shades the ring lacks, not a pasted piece).
inline constexpr double kRefillMaxShare = 0.2;
/// The stage runs on holes of at most this many pixels, as the per-region choice does
/// (kChoiceMaxPixels): on the 1080p 300 × 200 hole it costs one count of the mask.
inline constexpr std::int64_t kRefillMaxPixels = 16384;
/// A refilled blob is kept when its foreign pixels drop to at most this share of before.
inline constexpr double kRefillKeepRatio = 0.5;
/// Structure entering the hole: a straight edge traced from the ring to the hole's border
/// (edges_into_hole, inpaint_structure.hpp). A blob's pixels within this many px of such an
/// edge's line, ahead of its end, lie on its continuation...
inline constexpr double kRefillLineReach = 2.0;
/// ...and when at least this many of them...
inline constexpr int kRefillMinStructure = 8;
/// ...hold an edge in the fill (mean Sobel magnitude of the luma, |gx| + |gy| in 0..2040, at
/// least this)...
inline constexpr int kRefillEdge = 160;
/// ...the refill is refused when its Sobel sum over them is below this share of the fill's: it
/// would erase the edge's continuation rather than a pasted piece.
inline constexpr double kRefillStructureKeep = 0.5;

/// What the detection finds in a finished fill: per hole pixel, 1 where its colour is absent
/// from its region's ring; the blobs to refill as one mask (grown, within the hole), and per
/// blob (8-connected component of that mask) its foreign pixel count.
struct ForeignBlobs {
    Mask foreign;  ///< image-sized; 1 = a hole pixel of a colour its region's ring lacks
    Mask refill;   ///< image-sized; 1 = to be filled again
    std::vector<std::int64_t> foreign_in_blob;  ///< per component of `refill`, in scan order
};
ForeignBlobs find_foreign_blobs(ImageView<const Rgba8> filled, const Mask& hole);

/// What refill_foreign did.
struct RefillReport {
    int blobs = 0;                    ///< blobs found
    int kept = 0;                     ///< blobs whose refill was kept
    std::int64_t foreign_before = 0;  ///< foreign pixels in the found blobs
    std::int64_t foreign_after = 0;   ///< ... after (refills not kept count as before)
    int structure_refused = 0;  ///< refills not kept: they erased a ring's edge's continuation
};

/// The stage: when params.refill_foreign, params.method is PatchMatch and the hole has at most
/// kRefillMaxPixels pixels, finds the foreign blobs of `filled` (a finished fill of the hole
/// `mask`) and fills them again with PatchMatch (`implementation`, blended as any finished
/// fill), the blobs the hole, the whole original hole and params.never_sample never sampled;
/// each blob keeps its refill when its foreign pixels drop to at most kRefillKeepRatio of
/// before and the refill keeps the straight edges the blob continues from the ring
/// (kRefillLineReach and below). Otherwise `filled` unchanged.
/// Pixels outside the mask are never written.
ImageRgba8 refill_foreign(const Mask& mask, const InpaintParams& params,
                          InpaintImplementation implementation, ImageRgba8 filled,
                          RefillReport* report = nullptr);

}  // namespace lacuna::ops
