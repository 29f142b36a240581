// Removing an object from a video: a temporally coherent fill of a masked region in every frame.
//
// Flow-guided completion (after Huang, Kang, Ahuja & Kopf 2016, classical, no learned weights):
//   1. dense optical flow (OpenCV's DIS) between neighbouring frames, both directions, completed
//      inside the (grown) hole from its surroundings, since the object's own motion is not the
//      background's;
//   2. every hole pixel whose place is visible (outside the mask) in another frame of the shot is
//      brought in from the nearest such frame along the chained flow (a forward and a backward
//      pass; each step must pass a forward-backward flow-consistency check);
//   3. what no frame shows is synthesised for the whole shot at once by the spatio-temporal
//      PatchMatch (ops::patchmatch3d_fill: 3-D patches over the frames, the pixels brought in
//      along the flow as known voxels), so it is the same content in neighbouring frames; or,
//      with TemporalFill::Image, filled once by the image fill (ops::inpaint) on a key frame and
//      carried along the flow to the following frames, only what cannot be carried filled again;
//   4. a scene cut (ops::mean_luma_difference above the threshold) starts a new shot: nothing is
//      carried across it.
// Every hole pixel keeps a reference (a source image, a sub-pixel position) that is chained from
// frame to frame, and is sampled once at the end, so carried content does not blur hop by hop.
// Outside the mask every frame is returned bit for bit as given.
//
// The flow and propagation are one CPU implementation (the reference); the key fills run on the
// image fill's backend (params.implementation: the CUDA fill makes the CPU fill's decisions
// exactly); the 3-D PatchMatch has a reference, a fast CPU and a CUDA path
// (VideoInpaintParams::volume_implementation). The frames of the processed range and their masks
// are held in memory; the flow fields only around the holes, the references one per hole pixel.
#pragma once

#include <lacuna/core/image.hpp>
#include <lacuna/core/mask.hpp>
#include <lacuna/io/audio_remux.hpp>
#include <lacuna/ops/inpaint.hpp>
#include <lacuna/ops/patchmatch3d.hpp>
#include <lacuna/video/track_masks.hpp>

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace lacuna::video {

/// How the hole pixels that no frame shows are synthesised.
enum class TemporalFill {
    PatchMatch3d = 0,  ///< one spatio-temporal PatchMatch over the shot (ops::patchmatch3d_fill)
    Image = 1,         ///< the image fill on key frames, carried along the flow
    /// Per shot: PatchMatch3d while the camera moves less than kAutoFillMotion pixels a frame,
    /// else Image (the 3-D search does not compensate camera motion; see the notes' table).
    Auto = 2,
};

/// The camera motion (the median flow length, pixels a frame, over the known pixels of a ring
/// around the hole, all frame pairs of the shot) from which TemporalFill::Auto takes key fills.
/// Measured (docs/notes/video-inpainting.md): the 3-D fill wins at 0 and 1 px a frame and loses
/// 6.7 dB at 8 px a frame.
inline constexpr double kAutoFillMotion = 2.0;

/// The `temporal-fill`, `volume-patch`, `volume-frames` and `volume-iterations` parameters
/// (declared in ops/params.cpp).
struct TemporalFillParams {
    TemporalFill method = TemporalFill::Auto;
    int patch = 5;       ///< spatial side of the 3-D patch
    int frames = 3;      ///< frames the 3-D patch spans
    int iterations = 2;  ///< EM iterations a level (the coarsest runs twice as many)
};

struct VideoInpaintParams {
    ops::InpaintParams fill;  ///< the image fill for key frames (and for per-frame filling)
    ops::InpaintImplementation implementation = ops::InpaintImplementation::Fast;
    /// false: every frame is filled on its own by the image fill (no flow): the peer that
    /// flickers, kept for comparison (`lacuna bench video-inpaint`).
    bool propagate = true;
    double cut_threshold = 30.0;  ///< mean |ΔY| of block means (0..255) that starts a new shot
    /// Forward-backward flow mismatch (pixels) above which a step along the flow is refused.
    float consistency = 1.0f;
    /// Pixels the hole is grown by before the flow inside it is discarded and completed from its
    /// surroundings (DIS's patches near the object see the object's motion).
    int flow_margin = 16;
    TemporalFillParams temporal;
    ops::PatchMatch3dImplementation volume_implementation = ops::PatchMatch3dImplementation::Fast;
    /// How the work is held and spread, not what it computes (the frames are identical either
    /// way; tested): true computes the flows of several frame pairs at once on all cores and
    /// keeps each flow field only where propagation reads it (around the holes); false keeps
    /// every field whole and computes the pairs one after another, the plain form the compact
    /// one is checked against.
    bool compact = true;
};

struct VideoInpaintStats {
    std::int64_t hole_pixels = 0;        ///< over all frames
    std::int64_t from_other_frames = 0;  ///< brought in along the flow from a frame that shows them
    std::int64_t carried = 0;            ///< synthesized on an earlier frame and carried
    std::int64_t synthesized = 0;  ///< filled by the image fill on a key frame or the 3-D fill
    int key_fills = 0;             ///< image fills run
    int volume_fills = 0;          ///< spatio-temporal PatchMatch runs (one a shot at most)
    int cuts = 0;                  ///< scene cuts found
    /// Per shot: the camera motion measured (pixels a frame; see kAutoFillMotion) and whether
    /// what no frame shows was synthesised by the 3-D fill (else by key fills, or nothing was).
    std::vector<double> shot_motion;
    std::vector<bool> shot_volume;
    double flow_seconds = 0;       ///< grey frames, DIS both ways, completion (wall)
    double propagate_seconds = 0;  ///< the reference passes, carrying and composing
    double fill_seconds = 0;       ///< the key fills and the 3-D fills
};

struct VideoInpaintProgress {
    std::string stage;  ///< "flow" or "fill"
    int done = 0, total = 0;
};
/// Return false to cancel (Error(Cancelled) is thrown).
using VideoInpaintProgressFn = std::function<bool(const VideoInpaintProgress&)>;

/// Receives each filled frame (its index in `frames`) in order, as soon as it is final.
using VideoFrameSink = std::function<void(int index, ImageRgba8&& frame)>;

/// Fills the hole of every frame. `masks` holds one mask for all frames (a still logo) or one per
/// frame; non-zero = hole. Throws Error(InvalidArgument) for no frames, frames of different
/// sizes, a mask count other than 1 or frames.size(), a mask of another size, masks that select
/// no pixel at all; Error(Cancelled).
std::vector<ImageRgba8> inpaint_frames(const std::vector<ImageRgba8>& frames,
                                       const std::vector<Mask>& masks,
                                       const VideoInpaintParams& params,
                                       VideoInpaintStats* stats = nullptr,
                                       const VideoInpaintProgressFn& progress = {});

/// The same, handing every frame to `sink` as soon as it is final instead of returning them all
/// (what inpaint_video does: each frame is encoded while the later ones are filled).
void inpaint_frames(const std::vector<ImageRgba8>& frames, const std::vector<Mask>& masks,
                    const VideoInpaintParams& params, const VideoFrameSink& sink,
                    VideoInpaintStats* stats = nullptr,
                    const VideoInpaintProgressFn& progress = {});

/// A mask painted on one frame of the clip (the clip's numbering, from 0), to be tracked.
struct KeyMaskFile {
    int frame = 0;
    std::filesystem::path path;
};

struct InpaintVideoOptions {
    std::filesystem::path input;  ///< a video file or an image-sequence pattern
    /// A still mask image, or a mask video / sequence; empty when `mask_keys` are given.
    std::filesystem::path mask;
    /// Masks on key frames, tracked to every frame of the range (MaskTracker); instead of `mask`.
    std::vector<KeyMaskFile> mask_keys;
    MaskTrackParams track;
    /// The masks themselves, in memory (the editor's tracked masks): one a frame of
    /// [first, end), or one still mask; instead of `mask` and `mask_keys`.
    std::vector<Mask> masks;
    /// If set, the masks of the range (tracked, or as read; before params.fill.mask_grow) are
    /// written there as 00000.png … (the clip's frame numbers), 255 = hole, before the fill, so
    /// a user can check them and give a corrected one back as a key frame.
    std::filesystem::path save_masks;
    std::filesystem::path output;  ///< a video file or a PNG-sequence pattern
    int first = 0;                 ///< the range [first, end) of frames processed and written
    int end = -1;                  ///< -1: to the last frame
    VideoInpaintParams params;     ///< params.fill.mask_grow grows (or shrinks) every mask first
    /// A file that ends before the frames it announces is an error (nothing is written) unless
    /// this is set: then the frames that decode are filled, with a notice.
    bool allow_truncated = false;
    /// The clip's audio streams are carried into a video output (io::VideoWriter::carry_audio:
    /// stream copy, the span of the frames written); false writes the video without sound.
    bool carry_audio = true;
};

struct InpaintVideoResult {
    int frames = 0;       ///< frames written
    int clip_frames = 0;  ///< frames in the input
    int width = 0, height = 0;
    double fps = 0;
    std::string output_codec;
    double seconds = 0, decode_seconds = 0;
    /// Seconds the encoder spent writing, on its own thread beside the fill.
    double encode_seconds = 0;
    /// Seconds waited after the last frame was filled for the encoder to finish.
    double encode_tail_seconds = 0;
    VideoInpaintStats stats;
    bool tracked = false;        ///< the masks were tracked from key frames
    MaskTrackStats track_stats;  ///< when tracked
    double track_seconds = 0;    ///< when tracked: flow and tracking
    std::int64_t mask_pixels_min = 0, mask_pixels_max = 0;  ///< per frame, before the grow
    int empty_masks = 0;  ///< frames whose mask selects nothing (nothing filled there)
    std::vector<io::AudioStreamReport> audio;  ///< the audio streams written (copies, or AAC)
    std::vector<std::string> audio_left_out;   ///< why some or all of the clip's audio is not
    std::vector<std::string> notices;
};

/// Reads the clip and its mask(s) (or tracks the key-frame masks through frames [first, end)),
/// fills frames [first, end) and writes them. The output appears only when every frame is
/// written. Throws Error with one sentence: unreadable input or mask, a mask of another size, a
/// mask video with another frame count, an empty mask, a key frame outside the range or given
/// twice, both a mask and key frames or neither, a bad range, an output or mask folder that
/// cannot be written, Cancelled.
InpaintVideoResult inpaint_video(const InpaintVideoOptions& options,
                                 const VideoInpaintProgressFn& progress = {});

}  // namespace lacuna::video
