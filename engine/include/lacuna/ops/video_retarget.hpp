// Video retargeting: every frame is carved to the target
// size with the image carvers, plus a temporal term that keeps seams where the previous frame had
// them (in the spirit of Grundmann et al. 2010, "Discontinuous seam-carving for video
// retargeting"). Per seam (the default): the k-th seam's pixels cost `unit` per column (row, for
// horizontal seams) of distance to where the previous frame's k-th seam crossed their line,
// capped at kSeamTemporalCap. Or per frame: every pixel costs `unit` per column of distance to
// the nearest pixel any of the previous frame's seams removed. Seams then stay put on static
// content and follow slow motion, instead of jumping between equally cheap paths from frame to
// frame, which is what makes per-frame carving flicker. A scene cut (a large mean change of luma
// between two input frames) drops the term for the frame after it.
#pragma once

#include <lacuna/core/image.hpp>
#include <lacuna/core/mask.hpp>
#include <lacuna/ops/seam_carve.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace lacuna::ops {

/// The temporal term's distance levels of an order: per row (vertical seams) or column
/// (horizontal seams), the distance from each pixel to the nearest pixel that the first `count`
/// seams remove, capped at kTemporalLevels − 1 (and that cap where the line has none).
Mask temporal_distance_map(const SeamOrder& order, int count);

/// How steady seams are between two frames: the share of the pixels the first `count` seams
/// remove that only one of two orders (same size and direction) removes, 0 (the same) .. 1.
double removed_pixels_changed(const SeamOrder& a, const SeamOrder& b, int count);

/// The carvers' cost per distance level for a user weight (0 = independent frames): one level of
/// weight 1 costs as much as an edge of 8 grey levels (R + G + B) in forward energy.
int temporal_unit(double weight);

/// Mean |ΔY| (Rec. 709 luma on 0..255) between two frames of the same size, over the means of
/// 16 × 16 blocks: motion moves texture within blocks and barely changes this; a cut does.
double mean_luma_difference(ImageView<const Rgba8> a, ImageView<const Rgba8> b);

/// Which temporal term (see the top of this file).
enum class TemporalTerm {
    PerSeam,        ///< seam k near the previous frame's seam k
    RemovedPixels,  ///< every seam near any pixel the previous frame removed
};
std::string to_string(TemporalTerm term);
std::optional<TemporalTerm> parse_temporal_term(const std::string& text);

struct VideoRetargetParams {
    int width = 0;  ///< target size: 1 .. 2 × the source − 1 in each direction
    int height = 0;
    SeamEnergy energy = SeamEnergy::Forward;
    double temporal = 1.0;  ///< weight of the temporal term; 0 = independent frames
    TemporalTerm term = TemporalTerm::PerSeam;
    const Mask* protect = nullptr;  ///< a still mask for every frame (the source's size)
    double cut_threshold = 30.0;    ///< mean |ΔY| above which a frame starts a new shot
    /// 1: exact seams. 2, 4, 8: seams of a copy downscaled by this factor, stretched back (the
    /// editor's approximate-first maps; blocks of `factor` neighbouring seams): about factor²
    /// times less work per frame, for real-time video.
    int approximate = 1;
    /// Exact seams with the per-seam term (or none), CUDA or the fast CPU carver: how many frames
    /// are carved side by side as a wavefront (seam_orders_cuda_chained / _fast_chained); 0
    /// chooses (CUDA: from the frame size, up to 32; CPU: one per core, up to 16).
    int chained_frames = 0;
    /// The cost of one importance level (importance_unit(energy)) for the per-frame importance
    /// maps given to process / process_batch (faces tracked over the shot: face_tracks.hpp).
    /// The carvers add it to the temporal term (CPU carvers; CUDA refuses the pair).
    int importance_unit = 48;
    /// With faces on (video::retarget_video): the detector runs on every k-th frame of a shot
    /// (and its first); the tracks interpolate between. Detection is the first pass's cost.
    int face_every = 2;
    /// With saliency, lines or skin on (video::retarget_video): their per-frame maps are filtered
    /// along the optical flow within each shot with the noise reduction of an N-frame mean
    /// (video/importance_smoothing.hpp), so a protected region does not jump; 1: per frame.
    int importance_window = 9;
};

/// Carves a sequence of frames one after another, remembering the previous frame's seams.
class VideoRetargeter {
  public:
    /// Throws Error(InvalidArgument) for an impossible target, a protect mask of another size,
    /// a negative weight or threshold.
    VideoRetargeter(int source_width, int source_height, const VideoRetargetParams& params,
                    CarveImplementation implementation);

    /// The next frame at the target size. Throws InvalidArgument for a frame of another size
    /// (and whatever the carver throws: CudaUnavailable, Cancelled …).
    /// `importance`: the frame's importance levels 0 .. 63 (the source's size) or null; they are
    /// added to the temporal term and carried through both passes.
    ImageRgba8 process(ImageView<const Rgba8> frame, const Mask* importance = nullptr);

    /// The next frames at the target size: the same frames as process() one after another, but
    /// carved side by side (on the device, or a thread each) when frames_in_flight() > 1.
    /// `importance`: empty, or a map (or null) per frame.
    std::vector<ImageRgba8> process_batch(const std::vector<ImageView<const Rgba8>>& frames,
                                          const std::vector<const Mask*>& importance = {});
    /// How many frames process_batch carves at once (1: it calls process for each).
    [[nodiscard]] int frames_in_flight() const;

    [[nodiscard]] int frames() const { return frames_; }
    [[nodiscard]] int cuts() const { return cuts_; }
    [[nodiscard]] bool last_was_cut() const { return last_cut_; }
    /// The last frame's seam orders (for tests and the flicker view).
    [[nodiscard]] const std::optional<SeamOrder>& vertical_order() const { return vertical_; }
    [[nodiscard]] const std::optional<SeamOrder>& horizontal_order() const { return horizontal_; }
    void set_implementation(CarveImplementation implementation) {
        implementation_ = implementation;
    }

  private:
    /// Whether a frame takes the temporal term from the one before (per the cut detector), and
    /// that frame's block means; the state is committed by the caller once the frame is done.
    struct FrameStart {
        std::vector<double> blocks;
        bool cut = false;
        bool follows = false;
    };
    [[nodiscard]] FrameStart start_frame(ImageView<const Rgba8> frame,
                                         const std::vector<double>& previous_blocks,
                                         int index) const;
    [[nodiscard]] bool chains() const;
    void check_importance_map(const Mask* importance) const;

    int source_w_, source_h_;
    VideoRetargetParams params_;
    CarveImplementation implementation_;
    int unit_ = 0;
    std::vector<double> previous_blocks_;  ///< the previous frame's 16 × 16 block luma
    std::optional<SeamOrder> vertical_, horizontal_;
    int frames_ = 0, cuts_ = 0;
    bool last_cut_ = false;
};

/// How much a retargeted video flickers: for consecutive frames, the mean absolute difference
/// (over R, G, B, 0..255) of the output frames, minus that of the input frames scaled to the
/// output size (bilinear). Scaling follows the input's own change and nothing else, so the excess
/// is what the carving adds: seams jumping between frames.
class FlickerMeter {
  public:
    void add(ImageView<const Rgba8> input, ImageView<const Rgba8> output);
    [[nodiscard]] int pairs() const { return pairs_; }
    [[nodiscard]] double output_change() const { return pairs_ ? output_sum_ / pairs_ : 0; }
    [[nodiscard]] double scaled_change() const { return pairs_ ? scaled_sum_ / pairs_ : 0; }
    [[nodiscard]] double excess() const { return output_change() - scaled_change(); }

  private:
    std::optional<ImageRgba8> previous_output_, previous_scaled_;
    double output_sum_ = 0, scaled_sum_ = 0;
    int pairs_ = 0;
};

/// Bilinear resampling (pixel centres aligned), for the flicker measure's baseline.
ImageRgba8 resize_bilinear(ImageView<const Rgba8> image, int width, int height);

}  // namespace lacuna::ops
