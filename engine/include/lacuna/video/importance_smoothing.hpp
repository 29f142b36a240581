// Importance over time for video retargeting: the terms computed per frame (saliency, straight
// lines, skin) jump with the detectors' noise — spectral residual saliency reacts to compression
// noise and exposure, a line is found on one frame and missed on the next — and a protected region
// that jumps drags the seams with it (the output flickers). Faces are tracked instead
// (face_tracks.hpp). This smoother filters the other terms' map recursively along the motion:
//
//   S_t = α · M_t + (1 − α) · S_{t−1}(x + f_t(x)),   α = 2 / (N + 1),
//
// where M_t is frame t's map of those terms (on the detectors' downscaled copy) and f_t the optical
// flow from frame t to frame t − 1 (OpenCV's DIS, preset medium, on a grey copy at most 320 long).
// α = 2/(N + 1) gives the same reduction of independent per-frame noise as the mean of N frames
// (its variance α / (2 − α) = 1/N), while the warp keeps a moving object's protection on the
// object: a temporal mean without the warp lags behind it by (1 − α)/α × its speed. It is causal,
// so the video pipeline keeps streaming (no frames held back) and costs one flow and one warp per
// frame. A scene cut (the carver's rule: mean_luma_difference above the cut threshold) restarts it:
// S = M on a shot's first frame. The tracked faces' levels are added after smoothing (they are
// smooth already), capped at 63 as importance_map combines terms. The result is a level map like
// importance_map's, an input of the carvers, so the reference, fast CPU and CUDA carvers still pick
// identical seams.
#pragma once

#include <lacuna/core/image.hpp>
#include <lacuna/core/mask.hpp>
#include <lacuna/ops/importance.hpp>

#include <memory>
#include <vector>

namespace lacuna::video {

struct ImportanceSmoothingParams {
    /// Frames whose mean the filter matches in noise reduction; 1: each frame's map as it is.
    int window = 9;
    double cut_threshold = 30.0;  ///< as VideoRetargetParams::cut_threshold
    /// Warp the previous state along the optical flow (false: a plain exponential average, which
    /// lags behind moving objects; kept for the benchmark's comparison).
    bool follow_motion = true;
};

/// Throws Error(InvalidArgument) for a window below 1 or above 120, or a negative cut threshold.
void check_importance_smoothing(const ImportanceSmoothingParams& params);

class ImportanceSmoother {
  public:
    /// `importance`: the terms (as ops::importance_map takes them); `detect_max_side` of it is
    /// also the size the filter works at.
    ImportanceSmoother(const ops::ImportanceParams& importance,
                       const ImportanceSmoothingParams& params);
    ~ImportanceSmoother();
    ImportanceSmoother(const ImportanceSmoother&) = delete;
    ImportanceSmoother& operator=(const ImportanceSmoother&) = delete;

    /// The next frame's importance levels: its untracked terms smoothed over the shot, plus its
    /// tracked `faces` (where the face term is on). With window 1, exactly
    /// ops::importance_map(frame, importance, faces).levels. `lines` (optional): the straight
    /// lines found on this frame, for an overlay (the editor's preview of a video frame).
    Mask next(ImageView<const Rgba8> frame, const std::vector<ops::FaceBox>& faces,
              std::vector<ops::LineSegment>* lines = nullptr);
    /// The filter alone: `terms` (levels 0..63, the frame's size) is this frame's map of the
    /// untracked terms; returns it smoothed (the frame gives the motion and the cuts).
    Mask smooth(ImageView<const Rgba8> frame, const Mask& terms);

    [[nodiscard]] int cuts() const;             ///< shots started after the first
    [[nodiscard]] double flow_seconds() const;  ///< optical flow and warping, all frames

  private:
    struct State;
    ops::ImportanceParams importance_;
    ImportanceSmoothingParams params_;
    std::unique_ptr<State> state_;
};

}  // namespace lacuna::video
