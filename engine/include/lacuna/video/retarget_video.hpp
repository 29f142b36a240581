// Retargeting a whole video: decoding, carving and encoding run as a pipeline (a reader thread,
// the carver on the calling thread, a writer thread) joined by bounded queues, so the device and
// the codecs work at the same time and memory stays at a few frames. Used by `lacuna retarget`,
// `lacuna bench video` and the editor's Export Video.
#pragma once

#include <lacuna/core/mask.hpp>
#include <lacuna/io/audio_remux.hpp>
#include <lacuna/ops/face_tracks.hpp>
#include <lacuna/ops/importance.hpp>
#include <lacuna/ops/video_retarget.hpp>

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace lacuna::video {

struct RetargetVideoOptions {
    std::filesystem::path input;
    std::filesystem::path output;     ///< MP4 (or another container) or a PNG sequence pattern
    ops::VideoRetargetParams params;  ///< target size, energy, temporal weight, protect, cuts
    ops::CarveImplementation implementation = ops::CarveImplementation::Fast;
    int queue_frames = 4;  ///< frames each queue holds at most
    bool measure_flicker = false;
    /// A file that ends before the frames it announces is an error (nothing is written) unless
    /// this is set: then the frames that decode are retargeted, with a notice.
    bool allow_truncated = false;
    int max_frames = 0;  ///< 0: every frame; otherwise only the first max_frames (benchmarks)
    /// The clip's audio streams are carried into a video output (io::VideoWriter::carry_audio:
    /// stream copy, cut to the frames written when they are not the whole clip); false writes
    /// the video without sound.
    bool carry_audio = true;
    /// Importance per frame, as a photo's retarget has it: faces tracked over each shot
    /// (video_face_tracks: detected on every `params.face_every`-th frame in a first pass over the
    /// clip, so protected regions move smoothly), saliency, lines and skin on each frame and
    /// filtered along the motion within each shot (params.importance_window,
    /// importance_smoothing.hpp), added to the temporal term by every carver. Off for videos unless
    /// asked for (faces too: the face pass runs the detector on every `face_every`-th frame,
    /// seconds a frame on a small CPU).
    ops::ImportanceParams importance = [] {
        ops::ImportanceParams p;
        p.faces = false;
        return p;
    }();
    ops::FaceTrackParams tracks;
};

/// The faces of every frame of a clip as tracks per shot: the detector (detect_faces on a copy
/// at most `detect_max_side` long) on the first frame of every shot and every `every`-th frame,
/// cuts found as VideoRetargeter finds them (mean_luma_difference above `cut_threshold`).
struct VideoFaceTracks {
    ops::FaceTracks tracks;
    int frames = 0;
    int examined = 0;    ///< frames the detector ran on
    int detections = 0;  ///< faces it reported, before tracking
    int cuts = 0;
    double seconds = 0;              ///< the whole pass (decoding included)
    double detect_seconds = 0;       ///< the detector alone (wall time: a frame per core)
    double track_seconds = 0;        ///< associating and smoothing (track_faces)
    std::vector<std::string> notes;  ///< e.g. the cascades are not installed
};
/// `progress` (optional) hears the frames read and the clip's announced count (0: unknown)
/// after each frame; returning false stops the pass with Error(Cancelled).
VideoFaceTracks video_face_tracks(const std::filesystem::path& input, int every,
                                  int detect_max_side, double cut_threshold,
                                  const ops::FaceTrackParams& tracks, int max_frames = 0,
                                  bool allow_truncated = false,
                                  const std::function<bool(int done, int total)>& progress = {});
/// The same on frames in memory.
VideoFaceTracks video_face_tracks(const std::vector<ImageView<const Rgba8>>& frames, int every,
                                  int detect_max_side, double cut_threshold,
                                  const ops::FaceTrackParams& tracks);

struct VideoProgress {
    int frame = 0;  ///< frames written so far
    int total = 0;  ///< frames the container announces (0: unknown)
    double fps = 0;
    double seconds_left = -1;  ///< -1: unknown
};
/// Called from the calling thread after each frame; returning false cancels (the output is not
/// created, Error(Cancelled) is thrown).
using VideoProgressFn = std::function<bool(const VideoProgress&)>;

struct RetargetVideoResult {
    int frames = 0;
    int width = 0, height = 0;          ///< the input's
    int out_width = 0, out_height = 0;  ///< the output's
    double fps = 0;                     ///< the frame rate, kept
    std::string input_codec, output_codec;
    double seconds = 0;  ///< wall time, end to end
    /// Busy time of each stage (they overlap: each is at most `seconds`).
    double decode_seconds = 0, carve_seconds = 0, encode_seconds = 0;
    int cuts = 0;
    double flicker_excess = 0;                 ///< with measure_flicker
    std::string backend;                       ///< "cuda" or "cpu" (after a fallback: "cpu")
    std::vector<io::AudioStreamReport> audio;  ///< the audio streams written (copies, or AAC)
    std::vector<std::string> audio_left_out;   ///< why some or all of the clip's audio is not
    std::vector<std::string> notices;
    /// Importance: the terms used ("faces", "saliency", "lines", "skin"; empty: none), the face
    /// tracks and the cost of the first pass (decoding and detecting) and of the per-frame maps
    /// (rasterising the tracked faces, saliency, lines, skin; inside carve_seconds).
    std::vector<std::string> importance_terms;
    int face_tracks = 0;
    int faces_examined_frames = 0;
    int face_detections = 0;
    double face_pass_seconds = 0, face_detect_seconds = 0, importance_map_seconds = 0;
    /// Smoothing saliency, lines and skin along the motion (params.importance_window > 1; flow,
    /// warp and filter, inside importance_map_seconds), and the cuts that restarted it.
    double importance_smooth_seconds = 0;
};

/// Retargets every frame of `options.input` into `options.output`. The output appears only when
/// every frame is written (a temporary name until then). Throws Error: unreadable or empty input,
/// frames of different sizes, a bad target, an output that cannot be written, Cancelled. Falls
/// back from CUDA to the CPU carver with a notice when the device fails.
RetargetVideoResult retarget_video(const RetargetVideoOptions& options,
                                   const VideoProgressFn& progress = {});

}  // namespace lacuna::video
