// The editor's kymograph: the Regions tool's selected region, or else the Line tool's line, with
// its band, through every page of the open
// stack (a multi-page TIFF, multi-frame DICOM or FITS cube opened as measurement pages) or every
// frame of the open video, as a position × time image. Computed in the background (progress,
// cancel) by the engine `lacuna kymograph` uses — the same values, the same CSV — on the device
// when the session is there. What the view needs comes from here: the image through the
// document's LUT and window, the axes (distance in the pixel spacing's unit where known, time in
// seconds where the interval is known, else frames), the readout under the pointer, and Export.
#pragma once

#include "background_job.hpp"

#include <lacuna/core/backend.hpp>
#include <lacuna/core/display.hpp>
#include <lacuna/core/image.hpp>
#include <lacuna/ops/kymograph.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace lacuna::session {

class Session;

struct KymographResult {
    ops::KymographPlan plan;
    ImageF32 values;               ///< positions × frames, one row per frame
    ops::KymographTable table;     ///< what the values are, their unit, the time axis, spacing
    std::vector<double> distance;  ///< per position, in distance_unit
    std::string distance_unit;     ///< the spacing's unit, or "px"
    Backend backend = Backend::Cpu;
    std::string source;  ///< "page stack of 12 pages", "video clip.mp4"
    std::string path;    ///< what it follows: "the Line tool's line", "region 'axon' (polyline)"
};

/// The path a kymograph follows now: the Regions tool's selected region (a line or polyline with
/// its band; a rectangle's centre line with its height as band, as `lacuna histogram --regions`
/// profiles it), else the Line tool's line and band.
struct KymographPath {
    ops::KymographParams params;
    std::string what;  ///< as KymographResult::path
    bool polyline = false;
};

class Kymographer {
  public:
    explicit Kymographer(Session& session);
    ~Kymographer();
    Kymographer(const Kymographer&) = delete;
    Kymographer& operator=(const Kymographer&) = delete;

    /// Empty when start() can run now; else why not (no line or region, not a stack or a video).
    [[nodiscard]] std::string unavailable() const;
    /// The path start() would follow now; nullopt when there is neither a selected region nor a
    /// line.
    [[nodiscard]] std::optional<KymographPath> path() const;
    /// Starts computing along path() (a running job is cancelled first). The job works on its own
    /// copy of the pages (the current page with its edits), or reads the video file itself. Throws
    /// Error(InvalidArgument) with unavailable()'s sentence or the path's own refusal.
    void start();
    [[nodiscard]] bool running() const { return job_.running(); }
    /// Frames done and in all (0 total: not known yet).
    [[nodiscard]] int done() const { return job_.done(); }
    [[nodiscard]] int total() const { return job_.total(); }
    void cancel() { job_.cancel(); }
    /// Takes a finished job's outcome (call from the owner's timer). True when the result or
    /// message changed.
    bool poll();
    [[nodiscard]] const KymographResult* result() const { return result_ ? &*result_ : nullptr; }
    /// The last job's error, or "Kymograph cancelled.", or empty.
    [[nodiscard]] const std::string& message() const { return message_; }

    /// The image as the document is shown: the session's LUT and window (values are in the
    /// document's calibrated unit), NaN in the NaN colour. Empty without a result.
    [[nodiscard]] ImageRgba8 render() const;

    struct Readout {
        int position = 0;
        int frame = 0;
        double distance = 0;           ///< in the result's distance_unit
        std::optional<double> time_s;  ///< where the frame interval is known
        float value = 0;
    };
    /// What is at kymograph pixel (x, y) (pixel centres at integers); nullopt outside.
    [[nodiscard]] std::optional<Readout> readout(double x, double y) const;
    /// "d = 12.5 mm, t = 0.4 s (frame 8): 1234.5 HU" for the status line; "" outside.
    [[nodiscard]] std::string readout_text(double x, double y) const;

    /// Writes the result as `lacuna kymograph` does: the float image (TIFF/PFM/FITS keep the
    /// floats and FITS the unit) and/or the CSV; atomic, the notices returned. Throws
    /// lacuna::Error (nothing to export, a file that cannot be written).
    std::vector<std::string> export_to(const std::optional<std::filesystem::path>& image,
                                       const std::optional<std::filesystem::path>& csv) const;

  private:
    Session& session_;
    BackgroundJob<KymographResult> job_;
    std::optional<KymographResult> result_;
    std::string message_;
};

}  // namespace lacuna::session
