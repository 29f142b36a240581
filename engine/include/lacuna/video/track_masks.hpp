// Masks that follow the object: a mask painted on one or a few key frames of a clip, carried to
// every other frame along dense optical flow and refined per frame by GrabCut.
//
// The method (one CPU implementation, the reference; there is no fast or CUDA variant):
//   1. Flow. OpenCV's DIS (PRESET_MEDIUM) on grey frames between every pair of neighbours, both
//      directions, computed once per clip (MaskTracker), so a correction re-tracks without it.
//      Unlike the fill's flow (inpaint_video.hpp) nothing is masked out: here the object's own
//      motion is the one wanted.
//   2. Carrying. Frame t's mask is frame t − 1's (forward from a key) or t + 1's (backward to
//      earlier frames) moved along that neighbour's flow to t: every mask pixel is splatted
//      bilinearly at its new place, and pixels that receive at least ½ are kept. The flow used
//      is the object's: DIS's flow inside the mask shrunk by 6 pixels (where its patches see
//      only the object), completed out to the outline by pull-push (at the outline DIS mixes the
//      object's motion with the background's, and a mask carried by that lags behind). Every
//      key frame starts a chain forward and one backward; a
//      chain runs until the middle between its key and the next key (or the clip's end), so
//      every frame takes its mask from the nearer key frame; a frame exactly in the middle takes
//      the union of both (a pixel of the object left unmasked shows in the fill, a pixel of
//      background masked costs only a little fill).
//   3. Refinement (MaskTrackParams::grabcut). GrabCut (Rother et al. 2004) on every carried
//      frame, started from the carried mask: certain object in the mask eroded by `core`,
//      probable object in the rest of it, probable background in a band `band` pixels wide
//      around it, certain background beyond. The refined mask is what the chain carries on, so
//      an object that grows, shrinks or turns is followed by up to `band` pixels a frame.
//      Where the object and the background move differently (by 1.5 px a frame or more),
//      pixels whose reliable flow follows the background's motion are certain background: by
//      colour alone, GrabCut kept the background a sticker uncovered where they shared colours
//      (white text, white wall) and dragged it along as a trail.
//      GrabCut segments the object itself, while a painted mask is usually drawn a little wider
//      (the fill needs the object's soft edge too): on the first frame of each chain the painted
//      mask carried there is compared with GrabCut's object, and the margin m (0..band
//      pixels) for which the object grown by m matches it best (IoU) is added to every frame of
//      that chain. Where GrabCut's object matches it poorly there (IoU below ½: no colour model
//      separates the object), that chain is carried by flow alone. (The smallest margin that
//      covered 99.5 % of it instead was tried: one corner GrabCut left out sent it to the
//      band's width on the logo clip, and the fill fell from 39.9 to 26.4 dB; a fill should
//      rather grow the tracked masks by a pixel or two, `lacuna inpaint --grow 2`.)
//   4. Scene cuts. A frame whose mean block-luma change from the frame before
//      (ops::mean_luma_difference, the fill's measure) is above `cut_threshold` starts a new
//      shot; no chain crosses a cut. A shot without a key frame gets empty masks (nothing is
//      removed there until a key is painted in it); a key in a shot is carried forward and
//      backward only to that shot's ends.
//   A key frame's own mask is returned exactly as given. A still mask (a logo that does not move)
//   needs none of this: it is one image for every frame (inpaint_frames takes it as such).
#pragma once

#include <lacuna/core/image.hpp>
#include <lacuna/core/mask.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace lacuna::video {

/// Declared in the parameter tables (ops::mask_track_param_fields) for the CLI and the editor.
struct MaskTrackParams {
    bool grabcut = true;         ///< refine every carried mask with GrabCut (false: flow alone)
    int band = 8;                ///< pixels around the carried mask GrabCut may give the object
    int core = 4;                ///< pixels inside the carried mask's edge that are surely object
    int grabcut_iterations = 3;  ///< GrabCut's rounds a frame
    /// Mean |ΔY| of 16 × 16 block means (0..255) above which a frame starts a new shot, which
    /// no mask is carried into. Not a user parameter of its own: it is the fill's
    /// (VideoInpaintParams::cut_threshold, the same default), and inpaint_video() passes the
    /// fill's to the tracker, so the masks stop exactly where the fill starts a new shot.
    double cut_threshold = 30.0;
};

/// A mask painted (or corrected) on frame `frame` of the clip: non-zero = the object.
struct KeyMask {
    int frame = 0;
    Mask mask;
};

struct MaskTrackStats {
    int key_frames = 0;
    int refined_frames = 0;           ///< frames GrabCut refined
    std::vector<int> margins;         ///< per chain refined (keys in order, backward then forward)
    std::vector<int> flow_only_keys;  ///< key frames with a chain carried by flow alone
    std::vector<int> cuts;            ///< frames that start a new shot (a scene cut before them)
    int empty_frames = 0;             ///< frames of shots without a key frame: no mask
    double flow_seconds = 0;          ///< DIS, both directions (MaskTracker's constructor)
    double carry_seconds = 0;         ///< warping the masks along the flow
    double refine_seconds = 0;        ///< GrabCut
};

struct MaskTrackProgress {
    std::string stage;  ///< "flow" (pairs of frames done) or "track" (frames done)
    int done = 0, total = 0;
};
/// Return false to cancel (Error(Cancelled) is thrown).
using MaskTrackProgressFn = std::function<bool(const MaskTrackProgress&)>;

/// The clip's frames and the flow between every pair of neighbours, both ways, computed once;
/// track() may then run for any set of key frames (a correction is one more key frame).
class MaskTracker {
  public:
    /// Throws Error(InvalidArgument) for no frames or frames of different sizes;
    /// Error(Cancelled).
    explicit MaskTracker(const std::vector<ImageRgba8>& frames,
                         const MaskTrackProgressFn& progress = {});

    /// One mask a frame (255 = object). Throws Error(InvalidArgument) with one sentence for no
    /// key frames, a key frame outside the clip or given twice, a key mask of another size or
    /// one that selects no pixel, a parameter outside its declared range; Error(Cancelled).
    /// Frames of a shot without a key frame get empty masks (see the scene-cut rule above).
    [[nodiscard]] std::vector<Mask> track(const std::vector<KeyMask>& keys,
                                          const MaskTrackParams& params,
                                          MaskTrackStats* stats = nullptr,
                                          const MaskTrackProgressFn& progress = {}) const;

    /// The frames that start a new shot: the mean block-luma change from the frame before
    /// (ops::mean_luma_difference) is above `threshold`. In order; never 0.
    [[nodiscard]] std::vector<int> cuts(double threshold) const;

    [[nodiscard]] int frames() const;
    [[nodiscard]] int width() const;
    [[nodiscard]] int height() const;
    [[nodiscard]] double flow_seconds() const;

  private:
    /// The frames (BGR, for GrabCut) and the flows (OpenCV matrices, kept out of this header);
    /// shared and immutable, so a copy of the tracker (a background job's) costs nothing.
    struct Data;
    std::shared_ptr<const Data> data_;
};

/// MaskTracker(frames).track(keys, params): the masks of every frame from key-frame masks.
std::vector<Mask> track_masks(const std::vector<ImageRgba8>& frames,
                              const std::vector<KeyMask>& keys, const MaskTrackParams& params,
                              MaskTrackStats* stats = nullptr,
                              const MaskTrackProgressFn& progress = {});

/// Intersection over union of two masks' selected pixels (1 when both select nothing).
double mask_iou(MaskView a, MaskView b);

}  // namespace lacuna::video
