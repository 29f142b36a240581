// Spatio-temporal PatchMatch completion of a video volume (Newson, Almansa, Fradet, Gousseau &
// Pérez 2014, "Video inpainting of complex scenes"): 3-D patches (x, y and t), a nearest-neighbour
// field over the frames × image volume, propagation along x, y and t, random search, a spatial
// pyramid (the frames are kept at every level), and reconstruction by weighted votes (winner-take-
// all in the finest level's last iteration). What a single frame's image fill would invent anew on
// every frame is synthesised once for the whole volume: a hole voxel's patch spans neighbouring
// frames, so neighbouring frames are filled from the same place.
//
// The video fill (lacuna_video's inpaint_frames) uses it for the hole pixels that no frame shows
// and nothing could be carried to, with everything else (including the pixels brought in along the
// flow) as known voxels.
//
// Three implementations make the same decisions: the reference (single-threaded, every step
// written out plainly), the fast CPU path (threads over rows, early-stopping distances) and CUDA
// (one kernel per step on the caller's stream). Everything is integer (hashed random numbers, the
// distance, the vote), so the field and the filled voxels are identical on all three.
#pragma once

#include <lacuna/core/image.hpp>
#include <lacuna/core/mask.hpp>

#include <cstdint>
#include <functional>
#include <vector>

namespace lacuna::ops {

struct PatchMatch3dParams {
    int patch = 5;         ///< spatial side of a patch (odd, 3..15)
    int patch_frames = 3;  ///< frames a patch spans (odd, 1..9)
    std::uint32_t seed = 1;
    int iterations = 2;  ///< EM iterations at every level below the coarsest (which runs twice)
    /// Pixels around the hole's box (over all frames) where sources are looked for; -1: the box's
    /// longer side, at least 32.
    int margin = -1;
    int max_levels = 8;  ///< spatial pyramid levels at most (the hole decides the depth)
};

enum class PatchMatch3dImplementation { Reference, Fast, Cuda };

struct PatchMatch3dResult {
    std::vector<ImageRgba8> frames;  ///< the input with every hole voxel filled
    /// The finest level's field over the crop (crop_w × crop_h × frames, -1 where undefined):
    /// source voxel indices in the crop, (t · crop_h + y) · crop_w + x.
    std::vector<std::int32_t> nnf;
    int crop_x = 0, crop_y = 0, crop_w = 0, crop_h = 0;
    int levels = 0;
};

/// Return false to cancel (Error(Cancelled) is thrown); called between EM iterations.
using PatchMatch3dCancelFn = std::function<bool()>;

/// Fills the `holes` (one mask a frame, non-zero = hole) of `frames` by spatio-temporal
/// PatchMatch. Pixels outside the holes are returned unchanged (alpha everywhere). Throws
/// Error(InvalidArgument) for no frames, frames or masks of different sizes, a mask count other
/// than the frame count, bad parameters, fewer frames than a patch spans, or a hole with no
/// source patch around it (every patch of the searched area touches the hole);
/// Error(CudaUnavailable) for Cuda without CUDA; Error(Cancelled).
PatchMatch3dResult patchmatch3d_fill(const std::vector<ImageRgba8>& frames,
                                     const std::vector<Mask>& holes,
                                     const PatchMatch3dParams& params,
                                     PatchMatch3dImplementation implementation,
                                     const PatchMatch3dCancelFn& cancel = {});

}  // namespace lacuna::ops
