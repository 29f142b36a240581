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
#include <lacuna/core/native_image.hpp>
#include <lacuna/ops/inpaint.hpp>
#include <lacuna/ops/inpaint_choice.hpp>
#include <lacuna/ops/patchmatch.hpp>

#include <cstdint>
#include <string>
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

/// The stage's decision on a finished 8-bit fill: the blobs found, the refill's finished
/// (blended) fill of them, its sources, and which blobs keep it. Empty (no blob) when the stage
/// does not run or finds none.
struct RefillChoice {
    Mask refill;            ///< image-sized; 1 = filled again (every blob found)
    HoleRegions blobs;      ///< the components of `refill`, one per blob
    std::vector<int> kept;  ///< per blob: 1 when it keeps the refill
    ImageRgba8 refilled;    ///< the refill of the whole fill (blobs kept or not)
    /// The refill's PatchMatch sources over `refill`: every one a pixel of the picture outside
    /// the original hole and the never-sample area (the whole hole is never sampled), so a
    /// measurement moves its own samples from them.
    FillSources sources;
    RefillReport report;
    /// How many blobs keep the refill.
    [[nodiscard]] int kept_blobs() const;
};

/// Whether the stage runs for a fill of `mask` with `params`: params.refill_foreign, PatchMatch,
/// and a hole of 1 to kRefillMaxPixels pixels (counted without labelling a large one).
bool refill_runs(const Mask& mask, const InpaintParams& params);

/// The decision of the stage on `filled` (a finished fill of the hole `mask`), as refill_foreign
/// makes it; refill_foreign is compose_refill of it.
RefillChoice refill_regions(const Mask& mask, const InpaintParams& params,
                            InpaintImplementation implementation, const ImageRgba8& filled);
/// `filled` with every kept blob's refilled pixels.
ImageRgba8 compose_refill(ImageRgba8 filled, const RefillChoice& choice);

/// The decision for a measurement's fill, made on its 8-bit proxy (`proxy`, the image its fill
/// was prepared on) as refill_foreign makes it on a picture: the fill it looks at is what the
/// picture shows for the same sources (the proxy filled from `patchmatch` and blended with
/// blend_fill, as choose_sources makes it) with the regions `choice` gave Criminisi composed
/// in. Where refill_runs is false nothing is filled. `bands`: the line stage's, as for
/// choose_sources (sources_picture).
RefillChoice refill_sources(ImageView<const Rgba8> proxy, const Mask& mask,
                            const InpaintParams& params, InpaintImplementation implementation,
                            const FillSources& patchmatch, const FillChoice& choice,
                            const FillSources* bands = nullptr);

/// Applies a measurement's refill: the pixels of `filled` (the samples of `rect`, filled and
/// chosen) in the kept blobs take the samples of `samples` (the measurement before the fill) at
/// the refill's sources, unconverted and unblended, as apply_choice moves Criminisi's. `filled`
/// must have `rect`'s size and `samples`' format, `rect` must hold every kept blob; InvalidArgument
/// otherwise (and `filled` is left as it was).
void apply_refill(NativeImage& filled, const PixelRect& rect, const NativeImage& samples,
                  const RefillChoice& choice);

/// The note a fill adds when blobs were filled again ("2 of 3 blobs of colours foreign to the
/// surroundings filled again"); empty when none was.
std::string refill_note(const RefillReport& report);

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
