// Temporal smoothing of a whole video (a 3-D Gaussian over x, y and t, ops::TemporalFilter),
// for `lacuna filter temporal` and the editor's Filters ▸ Temporal Smoothing: the export, with
// progress and cancel, written whole or not at all; and one frame of it for the live preview.
#pragma once

#include <lacuna/ops/conv3d.hpp>
#include <lacuna/video/retarget_video.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace lacuna::video {

/// The kernel's size and sigmas are ops::TemporalSmoothParams (declared in the parameter tables).
struct SmoothVideoOptions : ops::TemporalSmoothParams {
    std::filesystem::path input;
    std::filesystem::path output;
    bool use_cuda = false;
    bool allow_truncated = false;  ///< as RetargetVideoOptions::allow_truncated
};

struct SmoothVideoResult {
    int frames = 0;
    double fps = 0;
    double seconds = 0;
    std::string output_codec;
    std::string backend;  ///< "cuda" or "cpu"
    std::vector<std::string> notices;
};

/// Throws lacuna::Error (the input, the parameters, writing; Cancelled when `progress` says so)
/// and leaves no output file then.
SmoothVideoResult smooth_video(const SmoothVideoOptions& options, const VideoProgressFn& progress);

/// Frame `index` of the smoothed clip (what smooth_video writes there): its neighbours within
/// k/2 frames are decoded (the clip mirrored at its ends), the rest not.
ImageRgba8 smoothed_frame(const std::filesystem::path& input, int index,
                          const SmoothVideoOptions& options);

}  // namespace lacuna::video
