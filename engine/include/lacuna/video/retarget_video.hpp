// Retargeting a whole video: decoding, carving and encoding run as a pipeline (a reader thread,
// the carver on the calling thread, a writer thread) joined by bounded queues, so the device and
// the codecs work at the same time and memory stays at a few frames. Used by `lacuna retarget`,
// `lacuna bench video` and the editor's Export Video.
#pragma once

#include <lacuna/core/mask.hpp>
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
};

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
    double flicker_excess = 0;  ///< with measure_flicker
    std::string backend;        ///< "cuda" or "cpu" (after a fallback: "cpu")
    std::vector<std::string> notices;
};

/// Retargets every frame of `options.input` into `options.output`. The output appears only when
/// every frame is written (a temporary name until then). Throws Error: unreadable or empty input,
/// frames of different sizes, a bad target, an output that cannot be written, Cancelled. Falls
/// back from CUDA to the CPU carver with a notice when the device fails.
RetargetVideoResult retarget_video(const RetargetVideoOptions& options,
                                   const VideoProgressFn& progress = {});

}  // namespace lacuna::video
