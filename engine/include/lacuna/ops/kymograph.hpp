// Kymographs: the values along a line or polyline (averaged across a band) in every frame of a
// stack or a video, one row per frame: a position × time image in the data's units. The
// sampling is the line histogram's (kernels/line_sampling.h): a segment of length L gives
// ceil(L) + 1 positions, the band runs along the segment's normal, samples outside the image
// are excluded (never clamped). A short CPU reference, a multi-threaded CPU version and a CUDA
// version agree exactly.
#pragma once

#include <lacuna/core/device_image.hpp>
#include <lacuna/core/image.hpp>
#include <lacuna/core/native_image.hpp>
#include <lacuna/kernels/line_sampling.h>
#include <lacuna/ops/line_histogram.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace lacuna::ops {

/// The most positions a path may have (the kymograph's width; a 65536-pixel image's diagonal
/// several times over).
inline constexpr int kMaxKymographPositions = 1 << 20;

struct KymographParams {
    /// The path's vertices in pixel-centre coordinates: two for a line, more for a polyline.
    std::vector<Point2> path;
    int band_width = 1;  ///< samples across the path, 1..kMaxBandWidth
    Sampling sampling = Sampling::Bilinear;
};

/// Where every position of the kymograph lies: the polyline's segments, each sampled like a line
/// histogram's line (ceil(length) + 1 points, both ends included); a vertex shared by two
/// segments is one position (the earlier segment's last point). The band at a position follows
/// the normal of the position's segment, as ImageJ's wide polyline profiles do per segment.
struct KymographPlan {
    int width = 0;  ///< frame size
    int height = 0;
    Sampling sampling = Sampling::Bilinear;
    std::vector<LineGeometry> segments;
    std::vector<int> segment_of;   ///< per position
    std::vector<int> index_of;     ///< per position: the point's index within its segment
    std::vector<double> distance;  ///< per position: arc length from the path's start, pixels
    [[nodiscard]] int positions() const { return static_cast<int>(segment_of.size()); }
    [[nodiscard]] int band() const { return segments.empty() ? 1 : segments.front().band; }
    [[nodiscard]] double length() const { return distance.empty() ? 0.0 : distance.back(); }
    /// The centre of the band at `position` (where the profile is taken).
    [[nodiscard]] Point2 point(int position) const;
};

/// Each position's distance along the path in the unit of `spacing` (measured in physical space:
/// an anisotropic pixel makes a diagonal segment longer or shorter than its pixel count), or in
/// pixels (KymographPlan::distance) when the spacing is unknown.
std::vector<double> kymograph_distances(const KymographPlan& plan, const PixelSpacing& spacing);

/// What a kymograph's CSV says beside its values.
struct KymographTable {
    std::string values;                    ///< what the values are ("float32 samples, ...")
    std::string unit;                      ///< the values' unit ("": none)
    std::optional<double> frame_interval;  ///< seconds between frames, where known
    std::string interval_source;           ///< where the interval came from
    PixelSpacing spacing;                  ///< distances in its unit too, where known
    bool polyline = false;
};

/// The CSV `lacuna kymograph --csv` and the editor's Export write: '#' lines (what the values
/// are, the frame interval or "unknown", each position's x, y and distance in pixels and in the
/// spacing's unit), then `frame[,time_s],p0,p1,...`, one row per frame, 9 significant digits.
std::string kymograph_csv(const KymographPlan& plan, const ImageF32& rows,
                          const KymographTable& table);

/// Checks the parameters (2+ finite vertices within ±kMaxLineCoordinate, no zero-length segment,
/// band 1..kMaxBandWidth, at most kMaxKymographPositions positions, a non-empty frame) and builds
/// the plan. Throws Error(InvalidArgument)
/// with a sentence. A path that leaves the image is kept as drawn: its positions outside hold
/// NaN, so a position means the same place in every frame.
KymographPlan plan_kymograph(int width, int height, const KymographParams& params);

/// The gold standard: one kymograph row (plan.positions() values) from one frame: at each
/// position the mean (in double, rounded to float once) of the band's samples that lie inside
/// the image and are not NaN; NaN where there are none.
void kymograph_row_reference(const KymographPlan& plan, ImageView<const float> frame, float* row);

/// The same rows, multi-threaded, with the sample points worked out once for all frames.
class KymographSampler {
  public:
    explicit KymographSampler(KymographPlan plan);
    [[nodiscard]] const KymographPlan& plan() const { return plan_; }
    /// One row from one frame (the frame must have the plan's size): positions split across
    /// threads.
    void row(ImageView<const float> frame, float* out) const;
    /// Every frame of a stack: frames split across threads when there are enough of them.
    [[nodiscard]] ImageF32 stack(const std::vector<ImageF32>& frames) const;

  private:
    void row_range(ImageView<const float> frame, float* out, int begin, int end) const;
    KymographPlan plan_;
    std::vector<double> xs_, ys_;  // positions × band sample points
};

/// The CUDA kymograph on the caller's stream. The plan (segments, each position's segment and
/// index) is uploaded once; every frame is sampled on the device by the reference's own code
/// (kernels/line_sampling.h, built without FMA contraction) and each band summed in double in
/// band order, so every value equals kymograph_row_reference's bit for bit.
class CudaKymograph {
  public:
    /// Throws Error(CudaUnavailable) in a build without CUDA, InvalidArgument for a null stream.
    CudaKymograph(KymographPlan plan, DeviceStream stream);
    ~CudaKymograph();
    CudaKymograph(const CudaKymograph&) = delete;
    CudaKymograph& operator=(const CudaKymograph&) = delete;
    [[nodiscard]] const KymographPlan& plan() const;
    /// Another path on frames of the same or another size (the editor's region drags): the
    /// plan replaces the old one in the same device memory (grow-only: no allocation once it
    /// is large enough), uploaded asynchronously on the stream from page-locked memory; later
    /// calls sample along it. Nothing waits except for the previous plan's upload to finish.
    void replan(KymographPlan plan);

    /// Device in, device out, enqueued on the stream; nothing waits. `stack` holds `count`
    /// frames of the plan's size top to bottom (count × plan height rows of one pitch); `out`
    /// (device memory) gets one row of plan.positions() values per frame.
    void rows(ImageView<const float> stack, int count, ImageView<float> out);
    /// One host frame: uploaded, sampled, its row copied into `out` (plan.positions() floats).
    /// Waits for the stream.
    void row(ImageView<const float> frame, float* out);
    /// A whole host stack: uploaded in chunks of frames (about 256 MB of device memory at a
    /// time), one launch per chunk, rows copied back. Waits for the stream.
    [[nodiscard]] ImageF32 stack(const std::vector<ImageF32>& frames);

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

/// Whole stacks, for tests and the Python module: frames × positions, one row per frame. All
/// frames must have one size (Error(InvalidArgument) otherwise, naming the frame).
ImageF32 kymograph_reference(const std::vector<ImageF32>& frames, const KymographParams& params);
ImageF32 kymograph_fast(const std::vector<ImageF32>& frames, const KymographParams& params);
/// The same on the device, on `stream` (CudaKymograph::stack).
ImageF32 kymograph_cuda(const std::vector<ImageF32>& frames, const KymographParams& params,
                        DeviceStream stream);

}  // namespace lacuna::ops
