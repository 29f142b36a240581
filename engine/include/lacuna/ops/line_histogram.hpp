// Histogram along a line (the interactive form) and along a whole direction (rotating the
// image and histogramming its columns, without the padded rotated copy). Three implementations
// agree exactly: a short CPU reference, a multi-threaded CPU version, and CUDA — all through
// kernels/line_sampling.h.
#pragma once

#include <lacuna/core/backend.hpp>
#include <lacuna/core/device_image.hpp>
#include <lacuna/core/native_image.hpp>
#include <lacuna/core/image.hpp>
#include <lacuna/kernels/line_sampling.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace lacuna::ops {

enum class HistogramChannel { Luminance, Red, Green, Blue, Rgb, Value };

/// Parameter limits, for the CLI, the editor and validation.
inline constexpr int kMaxHistogramBins = 65536;
inline constexpr int kDefaultHistogramBins = 256;
inline constexpr int kMaxBandWidth = 2048;
/// Line endpoints beyond ±1e9 pixels are refused: they could not be clipped to the image exactly.
inline constexpr double kMaxLineCoordinate = 1e9;

struct Point2 {
    double x = 0;
    double y = 0;
};

struct LineHistogramParams {
    Point2 from;  ///< pixel-centre coordinates: (0, 0) is the top-left pixel's centre
    Point2 to;
    int band_width = 1;  ///< samples across the line, 1..kMaxBandWidth
    int bins = kDefaultHistogramBins;
    std::optional<std::pair<float, float>>
        range;  ///< default: 0..255, or the data's min..max for float images
    HistogramChannel channel = HistogramChannel::Luminance;
    Sampling sampling = Sampling::Bilinear;
};

struct DirectionHistogramParams {
    double angle_degrees = 0;  ///< direction of the lines: 0 = left to right, 90 = top to bottom
    int bins = kDefaultHistogramBins;
    std::optional<std::pair<float, float>> range;
    HistogramChannel channel = HistogramChannel::Luminance;
    Sampling sampling = Sampling::Nearest;
};

/// A float plane in memory from calloc: zero until written, and pages never written never become
/// resident. A plane filled only along one line's band (PhotoPlanesBuilder::only_line) costs
/// only those pages: at 8K about 30 MB of the 133 MB a whole luminance plane takes.
class FloatPlane {
  public:
    FloatPlane() = default;
    FloatPlane(int width, int height);
    [[nodiscard]] bool empty() const { return !data_; }
    [[nodiscard]] int width() const { return width_; }
    [[nodiscard]] int height() const { return height_; }
    [[nodiscard]] ImageView<const float> view() const;
    [[nodiscard]] float* row(int y);
    [[nodiscard]] float& at(const int x, const int y) { return row(y)[x]; }

  private:
    std::shared_ptr<float> data_;  // shared: a HistogramSource stays copyable; never written
                                   // once the source is built
    int width_ = 0;
    int height_ = 0;
};

/// The image prepared for sampling: one float plane per channel (luminance, R, G, B; or the one
/// plane of a measurement image), built once and reused while the line moves.
class HistogramSource {
  public:
    explicit HistogramSource(ImageView<const Rgba8> image);
    /// Only the planes of `channels` (Rgb: red, green and blue; Value: luminance): plane() of
    /// another throws Error(InvalidArgument). A line of one channel needs one plane, not four.
    HistogramSource(ImageView<const Rgba8> image, const std::vector<HistogramChannel>& channels);
    explicit HistogramSource(ImageView<const float> values);
    /// A width × height photo described without planes: enough to plan lines and directions when
    /// the planes live elsewhere (on the device). plane() throws on it.
    static HistogramSource photo_shape(int width, int height);
    /// The same for a measurement plane with its finite min–max (kept on the device).
    static HistogramSource measurement_shape(int width, int height,
                                             std::pair<float, float> natural_range);
    /// This source's description (size, kind, natural range) without its planes.
    [[nodiscard]] HistogramSource shape() const;
    [[nodiscard]] bool has_planes() const { return !planes_.empty(); }

    [[nodiscard]] int width() const { return width_; }
    [[nodiscard]] int height() const { return height_; }
    [[nodiscard]] bool is_measurement() const { return measurement_; }
    /// The plane(s) a channel reads: Rgb gives three.
    [[nodiscard]] std::vector<HistogramChannel> planes_for(HistogramChannel channel) const;
    [[nodiscard]] const FloatPlane& plane(HistogramChannel channel) const;
    /// False for a shape, and for a plane left out when the source was built.
    [[nodiscard]] bool has_plane(HistogramChannel channel) const;
    /// The one line this source answers, when its planes were filled only along it.
    [[nodiscard]] const std::optional<LineHistogramParams>& only_line() const { return only_line_; }
    /// Finite min and max of the measurement plane (0..255 for photos).
    [[nodiscard]] std::pair<float, float> natural_range() const { return natural_range_; }

  private:
    friend class PhotoPlanesBuilder;
    HistogramSource() = default;

    int width_ = 0;
    int height_ = 0;
    bool measurement_ = false;
    std::vector<FloatPlane> planes_;  // photos: lum, r, g, b; measurement: value
    std::pair<float, float> natural_range_{0.0f, 255.0f};
    /// Set when the planes hold only the pixels this line reads (PhotoPlanesBuilder::only_line):
    /// plan_line refuses any other line, plan_direction every direction.
    std::optional<LineHistogramParams> only_line_;
};

/// A photo's planes built row by row, as a decoder gives the rows (io::read_photo_rows), without
/// the RGBA image: only the planes of `channels`, and the EXIF orientation applied as each row
/// is written. At 8K the four planes of a photo are 531 MB and the RGBA image 133 MB; the
/// luminance plane alone is 133 MB. The same values as HistogramSource(the upright image).
class PhotoPlanesBuilder {
  public:
    /// `stored_width` × `stored_height` as the file stores it; `orientation` (EXIF 1..8) turns
    /// it upright as io::read_image does (5..8 swap width and height).
    PhotoPlanesBuilder(int stored_width, int stored_height, int orientation,
                       const std::vector<HistogramChannel>& channels);
    /// Fill the planes only where `line` reads them (its band's pixels and one pixel around
    /// them, upright), zero elsewhere: the source then answers this line only (plan_line
    /// refuses others). Call before the first row. A line that cannot be planned on this image
    /// leaves the planes whole, so that plan_line reports it as it always did.
    void only_line(const LineHistogramParams& line);
    /// Stored row y (stored_width pixels).
    void add_row(int y, const Rgba8* row);
    /// The source; every stored row must have been added.
    [[nodiscard]] HistogramSource finish() &&;

  private:
    HistogramSource source_;
    int stored_width_ = 0;
    int stored_height_ = 0;
    int orientation_ = 1;
    int rows_added_ = 0;
    /// Per upright row: the columns to fill, first..last (first > last: none). Empty: all.
    std::vector<std::pair<int, int>> spans_;
};

/// One channel's result.
struct ChannelHistogram {
    HistogramChannel channel = HistogramChannel::Luminance;
    /// counts[position * bins + bin]: the bins × positions matrix, stored position by position.
    std::vector<std::uint32_t> counts;
    // Profile across the band at each position (NaN where no sample fell inside the image).
    std::vector<float> mean, median, min, max;
    std::vector<std::uint32_t> samples;  ///< valid samples per position

    [[nodiscard]] std::uint32_t count(const int bin, const int position, const int bins) const {
        return counts[static_cast<std::size_t>(position) * bins + bin];
    }
};

struct LineHistogram {
    int bins = 0;
    int positions = 0;
    float range_lo = 0;
    float range_hi = 0;
    LineGeometry geometry;  ///< the (clipped) segment actually sampled
    bool clipped = false;   ///< true when the drawn segment was clipped to the image
    Point2 requested_from, requested_to;
    std::int64_t samples_outside = 0;  ///< band samples outside the image: excluded, not clamped
    std::int64_t samples_out_of_range = 0;  ///< inside the image but outside [lo, hi], or NaN
    std::vector<ChannelHistogram> channels;
};

struct DirectionHistogram {
    int bins = 0;
    int positions = 0;  ///< columns: lines parallel to the direction
    float range_lo = 0;
    float range_hi = 0;
    DirectionGeometry geometry;
    std::int64_t samples_outside = 0;  ///< rotated-square samples outside the image (Liu's padding)
    std::int64_t samples_out_of_range = 0;
    /// counts[column * bins + bin], per channel.
    std::vector<std::vector<std::uint32_t>> counts;
    std::vector<HistogramChannel> channels;
};

/// Where a drawn segment lies in a direction histogram (Liu's getNewXY): the direction's
/// angle, the column holding the segment's line, and the rows the segment spans.
struct DirectionColumn {
    double angle_degrees = 0;
    int column = 0;
    double row_from = 0;
    double row_to = 0;
};

// ---- validation and geometry (shared by every implementation) ----

/// Checks parameters against the source and builds the sampling geometry. Throws
/// Error(InvalidArgument) with a clear sentence: zero-length line, line wholly outside the image,
/// bins out of 1..65536, band width out of 1..2048, empty or inverted range, NaN coordinates or
/// coordinates beyond ±kMaxLineCoordinate.
struct LinePlan {
    LineGeometry geometry;
    BinMapping mapping;
    bool clipped = false;
    std::vector<HistogramChannel> planes;
};
LinePlan plan_line(const HistogramSource& source, const LineHistogramParams& params);

struct DirectionPlan {
    DirectionGeometry geometry;
    BinMapping mapping;
    std::vector<HistogramChannel> planes;
};
DirectionPlan plan_direction(const HistogramSource& source, const DirectionHistogramParams& params);

DirectionColumn direction_column_of(int width, int height, Point2 from, Point2 to);

/// A result with its shape and description filled from the plan and no counts yet: what every
/// implementation starts from.
LineHistogram empty_result(const LinePlan& plan, const LineHistogramParams& params);
DirectionHistogram empty_result(const DirectionPlan& plan);

// ---- implementations ----

/// The gold standard: single-threaded, straightforward loops.
LineHistogram line_histogram_reference(const HistogramSource& source,
                                       const LineHistogramParams& params);
DirectionHistogram direction_histogram_reference(const HistogramSource& source,
                                                 const DirectionHistogramParams& params);

/// Multi-threaded (positions split across hardware threads); identical results.
LineHistogram line_histogram_fast(const HistogramSource& source, const LineHistogramParams& params);
DirectionHistogram direction_histogram_fast(const HistogramSource& source,
                                            const DirectionHistogramParams& params);

/// CUDA: the planes live on the device (uploaded once); scratch buffers only grow. Throws
/// Error(CudaUnavailable) in builds or on machines without CUDA.
class CudaLineHistogrammer {
  public:
    explicit CudaLineHistogrammer(const HistogramSource& source);
    /// Planes built on the device from a device photo (the editor's document): no host copy.
    explicit CudaLineHistogrammer(const DeviceImage<Rgba8>& image);
    /// The same from a device photo someone else owns (a DLPack H x W x 4 uint8 array from
    /// Python), read where it is on `stream` (not nullptr), already ordered after its writer.
    CudaLineHistogrammer(ImageView<const Rgba8> device_photo, DeviceStream stream);
    /// The photo changed (same or another size): planes rebuilt on the device, capacity kept.
    void rebuild(const DeviceImage<Rgba8>& image);
    /// A measurement document's stored samples on the device (raw rows of `format`, `width`
    /// pixels wide): the plane of calibrated values and its finite min–max are computed on the
    /// device, equal to HistogramSource(measurement_plane(samples, calibration)).
    CudaLineHistogrammer(const DeviceImage<std::uint8_t>& rows, PixelFormat format, int width,
                         const Calibration& calibration);
    void rebuild(const DeviceImage<std::uint8_t>& rows, PixelFormat format, int width,
                 const Calibration& calibration);
    /// The same from device rows someone else owns (a DLPack array from Python: a CuPy or
    /// PyTorch tensor), read where they are on `stream` (not nullptr), which must already be
    /// ordered after whatever wrote them. `rows.width` is in bytes (format's bytes × width).
    CudaLineHistogrammer(ImageView<const std::uint8_t> device_rows, DeviceStream stream,
                         PixelFormat format, int width, const Calibration& calibration);
    /// The finite min–max the device found (the measurement plane's natural range).
    [[nodiscard]] std::pair<float, float> natural_range() const;
    ~CudaLineHistogrammer();
    CudaLineHistogrammer(const CudaLineHistogrammer&) = delete;
    CudaLineHistogrammer& operator=(const CudaLineHistogrammer&) = delete;

    LineHistogram line(const LineHistogramParams& params);
    /// The same into `into`, reusing its vectors' memory: a line dragged in the editor
    /// recomputes at every mouse move, and a fresh 2-MB matrix each time is a fresh mapping of
    /// pages by the allocator (page faults on the way in, unmapping on the way out) on the path
    /// from input to plot.
    void line(const LineHistogramParams& params, LineHistogram& into);
    DirectionHistogram direction(const DirectionHistogramParams& params);

    /// Device-only timing for benchmarks: runs the kernels `repeats` times (after one warm-up)
    /// and returns the median milliseconds per run, results left on the device.
    double time_line_kernels(const LineHistogramParams& params, int repeats);
    double time_direction_kernels(const DirectionHistogramParams& params, int repeats);

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

/// Runs on the chosen backend.
LineHistogram line_histogram(const HistogramSource& source, const LineHistogramParams& params,
                             Backend backend);
DirectionHistogram direction_histogram(const HistogramSource& source,
                                       const DirectionHistogramParams& params, Backend backend);

std::string to_string(HistogramChannel channel);
std::optional<HistogramChannel> parse_histogram_channel(const std::string& text);

}  // namespace lacuna::ops
