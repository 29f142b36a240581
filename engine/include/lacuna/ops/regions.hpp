// Named regions for profiles: lines, polylines and rectangles, each profiled along its path (a
// rectangle along its width, each position the mean over its height: ImageJ's rectangle
// profile). One implementation for `lacuna histogram IMG --regions FILE` and the editor's region
// list: the JSON file both read and write, the profiles (kymograph rows of one frame) and the
// one CSV that holds them all.
#pragma once

#include <lacuna/core/image.hpp>
#include <lacuna/ops/kymograph.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace lacuna::ops {

/// Vertices compare exactly (a region's profile is recomputed only when its path changed).
inline bool operator==(const Point2& a, const Point2& b) {
    return a.x == b.x && a.y == b.y;
}

enum class RegionShape { Line, Polyline, Rectangle };
/// "line", "polyline", "rectangle" (the file's "type").
[[nodiscard]] const char* to_string(RegionShape shape);

struct ProfileRegion {
    std::string name;
    RegionShape shape = RegionShape::Line;
    /// A line's two or a polyline's 2+ vertices, pixel-centre coordinates ((0, 0) is the
    /// top-left pixel's centre).
    std::vector<Point2> points;
    /// A line's or polyline's band (samples across, 1..kMaxBandWidth); a rectangle's width in
    /// pixels (at least 2).
    int width = 1;
    /// A rectangle: its top-left pixel (column x, row y) and its height in pixels
    /// (1..kMaxBandWidth).
    double x = 0, y = 0;
    int height = 0;
    /// As the file says; nullopt: the shape's default (bilinear for lines and polylines,
    /// nearest for rectangles, so a rectangle reads each of its pixels once).
    std::optional<Sampling> sampling;
    /// "#rrggbb", or empty: the editor picks one. The CLI ignores it.
    std::string color;

    /// The path profiled and its band: a rectangle x, y, w, h becomes the line through its
    /// rows' middle from column x to x + w - 1 with a band of h samples.
    [[nodiscard]] KymographParams params() const;
    bool operator==(const ProfileRegion&) const = default;
};

/// Parses a regions file's text:
///   [{"name": "axon", "type": "line", "points": [[10, 20], [200, 40]], "width": 5},
///    {"name": "path", "type": "polyline", "points": [[0, 0], [50, 10], [80, 60]]},
///    {"name": "box", "type": "rectangle", "x": 30, "y": 40, "width": 100, "height": 12}]
/// "width" of a line or polyline is its band (default 1); "sampling" may be "bilinear" or
/// "nearest"; "color" may be "#rrggbb". Names must be unique. Throws Error(InvalidArgument)
/// naming the file and the JSON line, or the region's number and name, and what is wrong.
/// `allow_empty`: an empty list is a valid (empty) file (the editor's list may be emptied);
/// the CLI refuses it.
[[nodiscard]] std::vector<ProfileRegion> parse_regions(const std::string& text,
                                                       const std::string& file,
                                                       bool allow_empty = false);

/// The regions as the file parse_regions reads (one region a line; numbers written so they
/// read back exactly). Throws Error(InvalidArgument) for a region parse_regions would refuse.
[[nodiscard]] std::string regions_json(const std::vector<ProfileRegion>& regions);

/// Checks what parse_regions checks of one region (names apart); throws
/// Error(InvalidArgument) "region N ('name'): ...".
void check_region(const ProfileRegion& region, int index);

/// One region's profile: where each position lies and the mean across the band there (NaN
/// where no sample of the band is inside the image or not NaN).
struct RegionProfile {
    KymographPlan plan;
    std::vector<float> values;
};
/// Throws Error(InvalidArgument) for a region whose path cannot be planned (a zero-length
/// segment, too many positions).
[[nodiscard]] RegionProfile profile_region(const ProfileRegion& region,
                                           ImageView<const float> plane);

/// Region profiles on the device, for the editor's drags: the plane profile_region reads (a
/// photo's Rec. 709 luminance, a measurement's calibrated values) is built on the device from the
/// document's device copy, no host copy; each profile plans on the host (plan_kymograph, as
/// profile_region), uploads the plan (a few KB), samples with the CUDA kymograph's kernel and
/// copies back only the values, through page-locked memory. Every copy and launch runs on the
/// caller's stream; buffers grow only, so a drag allocates nothing once they are large enough.
/// The values equal profile_region's on the same plane bit for bit.
class CudaRegionProfiler {
  public:
    /// Throws Error(CudaUnavailable) in a build without CUDA, InvalidArgument for a null stream.
    explicit CudaRegionProfiler(DeviceStream stream);
    ~CudaRegionProfiler();
    CudaRegionProfiler(const CudaRegionProfiler&) = delete;
    CudaRegionProfiler& operator=(const CudaRegionProfiler&) = delete;

    /// The plane of a photo: Rec. 709 luminance (HistogramSource's luminance plane), computed
    /// on the photo's stream after the work already enqueued there, which is waited for.
    void build_luminance(const DeviceImage<Rgba8>& photo);
    /// The plane of a measurement: measurement_plane(samples, calibration) computed from the
    /// stored sample rows on the device (`format`, `width` pixels a row), on the rows' stream
    /// after the work enqueued there, which is waited for.
    void build_values(const DeviceImage<std::uint8_t>& rows, PixelFormat format, int width,
                      const Calibration& calibration);
    /// A host plane uploaded (tests, benchmarks).
    void upload(ImageView<const float> plane);
    [[nodiscard]] int width() const;
    [[nodiscard]] int height() const;

    /// profile_region(region, plane) on the device into `into` (its vectors' memory reused).
    /// Throws what profile_region throws for a path that cannot be planned; device errors as
    /// lacuna::Error. Waits for the stream.
    void profile(const ProfileRegion& region, RegionProfile& into);
    /// Device time of one profile (plan upload, kernel, values back), the median of `repeats`
    /// runs after a warm-up, in milliseconds (CUDA events on the stream).
    [[nodiscard]] double time_profile(const ProfileRegion& region, int repeats);

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

/// Every region's profile as one CSV: `header` ('#' lines, each ending in '\n') then
/// region,type,position,x,y,distance,value; values with 9 significant digits (floats read
/// back exactly). With a known `spacing` a "# pixel spacing" comment line follows the header and
/// a distance_<unit> column (kymograph_distances: measured in physical space) follows distance
/// (pixels); without one the file is exactly as before.
[[nodiscard]] std::string region_profiles_csv(const std::vector<ProfileRegion>& regions,
                                              const std::vector<RegionProfile>& profiles,
                                              const std::string& header,
                                              const PixelSpacing& spacing = {});

}  // namespace lacuna::ops
