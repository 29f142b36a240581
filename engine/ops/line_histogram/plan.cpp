// Parameters → sampling geometry, with every check a user can trip over; the prepared source.
#include "../line_sampling.hpp"

#include <lacuna/core/error.hpp>
#include <lacuna/ops/line_histogram.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numbers>
#include <sstream>
#include <tuple>

namespace lacuna::ops {
namespace {

using detail::invalid;
using detail::point_text;

BinMapping make_mapping(const HistogramSource& source, const int bins,
                        const std::optional<std::pair<float, float>>& range) {
    if (bins < 1 || bins > kMaxHistogramBins) {
        invalid("bins must be from 1 to " + std::to_string(kMaxHistogramBins) + ", not " +
                std::to_string(bins));
    }
    std::pair<float, float> r = range.value_or(source.natural_range());
    if (!range && r.second <= r.first) r.second = r.first + 1.0f;  // a flat measurement image
    if (!std::isfinite(r.first) || !std::isfinite(r.second) || !(r.first < r.second)) {
        std::ostringstream s;
        s << "the value range must satisfy lo < hi with finite numbers, not " << r.first << ".."
          << r.second;
        invalid(s.str());
    }
    BinMapping m;
    m.lo = r.first;
    m.hi = r.second;
    m.bins = bins;
    m.scale =
        static_cast<double>(bins) / (static_cast<double>(r.second) - static_cast<double>(r.first));
    return m;
}

// Liang–Barsky: clips p0 + t (p1 - p0), t in [0, 1], to [0, w-1] × [0, h-1].
bool clip_segment(Point2& p0, Point2& p1, const double max_x, const double max_y, bool& clipped) {
    const double dx = p1.x - p0.x, dy = p1.y - p0.y;
    double t0 = 0.0, t1 = 1.0;
    const double p[4] = {-dx, dx, -dy, dy};
    const double q[4] = {p0.x, max_x - p0.x, p0.y, max_y - p0.y};
    for (int k = 0; k < 4; ++k) {
        if (p[k] == 0.0) {
            if (q[k] < 0.0) return false;
            continue;
        }
        const double t = q[k] / p[k];
        if (p[k] < 0.0)
            t0 = std::max(t0, t);
        else
            t1 = std::min(t1, t);
        if (t0 > t1) return false;
    }
    const Point2 a = p0;
    if (t0 > 0.0) p0 = {a.x + t0 * dx, a.y + t0 * dy};
    if (t1 < 1.0) p1 = {a.x + t1 * dx, a.y + t1 * dy};
    clipped = t0 > 0.0 || t1 < 1.0;
    return true;
}

// cos and sin of an angle in degrees, exact at multiples of 90 degrees (std::cos(pi / 2) is 6e-17,
// which would tip pixel-centre samples of axis-aligned directions across rounding boundaries).
std::pair<double, double> cos_sin_degrees(const double degrees) {
    double turned = std::fmod(std::fmod(degrees, 360.0) + 360.0, 360.0);
    // atan2 of an axis-aligned segment converted to degrees can be 90.00000000000001.
    if (const double quarter = std::round(turned / 90.0) * 90.0;
        std::abs(turned - quarter) < 1e-9) {
        turned = std::fmod(quarter, 360.0);
    }
    if (turned == 0.0) return {1.0, 0.0};
    if (turned == 90.0) return {0.0, 1.0};
    if (turned == 180.0) return {-1.0, 0.0};
    if (turned == 270.0) return {0.0, -1.0};
    const double radians = degrees * std::numbers::pi / 180.0;
    return {std::cos(radians), std::sin(radians)};
}

}  // namespace

std::string to_string(const HistogramChannel channel) {
    switch (channel) {
        case HistogramChannel::Luminance:
            return "lum";
        case HistogramChannel::Red:
            return "r";
        case HistogramChannel::Green:
            return "g";
        case HistogramChannel::Blue:
            return "b";
        case HistogramChannel::Rgb:
            return "rgb";
        case HistogramChannel::Value:
            return "value";
    }
    return "?";
}

std::optional<HistogramChannel> parse_histogram_channel(const std::string& text) {
    if (text == "lum" || text == "luminance") return HistogramChannel::Luminance;
    if (text == "r") return HistogramChannel::Red;
    if (text == "g") return HistogramChannel::Green;
    if (text == "b") return HistogramChannel::Blue;
    if (text == "rgb") return HistogramChannel::Rgb;
    if (text == "value") return HistogramChannel::Value;
    return std::nullopt;
}

HistogramSource::HistogramSource(const ImageView<const Rgba8> image)
    : HistogramSource(image, {HistogramChannel::Luminance, HistogramChannel::Rgb}) {}

HistogramSource::HistogramSource(const ImageView<const Rgba8> image,
                                 const std::vector<HistogramChannel>& channels) {
    PhotoPlanesBuilder builder(image.width, image.height, 1, channels);
    for (int y = 0; y < image.height; ++y) builder.add_row(y, image.row(y));
    *this = std::move(builder).finish();
}

namespace {

// planes_: luminance, red, green, blue (an empty image where left out).
int plane_slot(const HistogramChannel channel) {
    switch (channel) {
        case HistogramChannel::Red:
            return 1;
        case HistogramChannel::Green:
            return 2;
        case HistogramChannel::Blue:
            return 3;
        default:
            return 0;
    }
}

float channel_value(const int slot, const Rgba8 p) {
    switch (slot) {
        case 1:
            return p.r;
        case 2:
            return p.g;
        case 3:
            return p.b;
        default:
            return luminance709(p);
    }
}

}  // namespace

FloatPlane::FloatPlane(const int width, const int height) {
    check_image_size(width, height);
    // calloc, not new + fill: the zeros of a fresh mapping cost nothing until a page is written.
    void* bytes = std::calloc(static_cast<std::size_t>(width) * height, sizeof(float));
    if (bytes == nullptr)
        throw Error(ErrorCode::OutOfMemory, "out of host memory allocating a " +
                                                std::to_string(width) + "x" +
                                                std::to_string(height) + " histogram plane");
    data_ = std::shared_ptr<float>(static_cast<float*>(bytes), [](float* p) { std::free(p); });
    width_ = width;
    height_ = height;
}

ImageView<const float> FloatPlane::view() const {
    return {data_.get(), width_, height_, static_cast<std::size_t>(width_) * sizeof(float)};
}

float* FloatPlane::row(const int y) {
    return data_.get() + static_cast<std::size_t>(y) * static_cast<std::size_t>(width_);
}

PhotoPlanesBuilder::PhotoPlanesBuilder(const int stored_width, const int stored_height,
                                       const int orientation,
                                       const std::vector<HistogramChannel>& channels)
    : stored_width_(stored_width),
      stored_height_(stored_height),
      orientation_(orientation >= 1 && orientation <= 8 ? orientation : 1) {
    check_image_size(stored_width, stored_height);
    const bool turns = orientation_ >= 5;
    source_.width_ = turns ? stored_height : stored_width;
    source_.height_ = turns ? stored_width : stored_height;
    source_.planes_.resize(4);
    for (const HistogramChannel c : channels) {
        const std::vector<HistogramChannel> planes =
            c == HistogramChannel::Rgb
                ? std::vector{HistogramChannel::Red, HistogramChannel::Green,
                              HistogramChannel::Blue}
                : std::vector{c == HistogramChannel::Value ? HistogramChannel::Luminance : c};
        for (const HistogramChannel p : planes) {
            FloatPlane& plane = source_.planes_[static_cast<std::size_t>(plane_slot(p))];
            if (plane.empty()) plane = FloatPlane(source_.width_, source_.height_);
        }
    }
}

void PhotoPlanesBuilder::only_line(const LineHistogramParams& line) {
    if (rows_added_ > 0) invalid("only_line must come before the first row");
    const int w = source_.width_, h = source_.height_;
    LinePlan plan;
    try {
        plan = plan_line(HistogramSource::photo_shape(w, h), line);
    } catch (const Error&) {
        return;  // the planes stay whole; plan_line says what is wrong when the line is drawn
    }
    // Every pixel a sample of this line reads (sample_nearest, sample_bilinear), visiting the
    // points as the reference does, and one pixel around them: a margin against the last bit of
    // the fast path's hoisted expressions, at no cost.
    std::vector<std::pair<int, int>> spans(static_cast<std::size_t>(h), {w, -1});
    const auto cover = [&](const int x0, const int x1, const int y0, const int y1) {
        for (int y = std::max(y0 - 1, 0); y <= std::min(y1 + 1, h - 1); ++y) {
            auto& [first, last] = spans[static_cast<std::size_t>(y)];
            first = std::min(first, std::max(x0 - 1, 0));
            last = std::max(last, std::min(x1 + 1, w - 1));
        }
    };
    const LineGeometry& g = plan.geometry;
    for (int i = 0; i < g.positions; ++i) {
        for (int j = 0; j < g.band; ++j) {
            double x = 0, y = 0;
            line_sample_point(g, i, j, x, y);
            if (line.sampling == Sampling::Nearest) {
                const double sx = x + 0.5, sy = y + 0.5;
                if (sx >= 0.0 && sy >= 0.0 && sx < w && sy < h)
                    cover(static_cast<int>(sx), static_cast<int>(sx), static_cast<int>(sy),
                          static_cast<int>(sy));
            } else if (x >= 0.0 && y >= 0.0 && x <= w - 1 && y <= h - 1) {
                const int ix = static_cast<int>(x), iy = static_cast<int>(y);
                cover(ix, std::min(ix + 1, w - 1), iy, std::min(iy + 1, h - 1));
            }
        }
    }
    spans_ = std::move(spans);
    source_.only_line_ = line;
}

void PhotoPlanesBuilder::add_row(const int y, const Rgba8* row) {
    if (y != rows_added_ || y >= stored_height_)
        invalid("rows must be added in order, once each (row " + std::to_string(y) + ")");
    ++rows_added_;
    const int w = stored_width_, h = stored_height_;
    const auto wanted = [&](const int u, const int v) {
        if (spans_.empty()) return true;
        const auto [first, last] = spans_[static_cast<std::size_t>(v)];
        return u >= first && u <= last;
    };
    for (int slot = 0; slot < 4; ++slot) {
        FloatPlane& plane = source_.planes_[static_cast<std::size_t>(slot)];
        if (plane.empty()) continue;
        if (orientation_ == 1) {
            // Upright already: the row's wanted columns, one channel at a time (no per-pixel
            // switch in the loop).
            // Plain ints, not a structured binding: clang before 16 (the fuzzing build) cannot
            // capture bindings in the lambda below.
            const std::pair<int, int> span =
                spans_.empty() ? std::pair{0, w - 1} : spans_[static_cast<std::size_t>(y)];
            const int first = span.first, last = span.second;
            float* out = plane.row(y);
            const auto fill = [&](const auto value) {
                for (int x = first; x <= last; ++x) out[x] = value(row[x]);
            };
            switch (slot) {
                case 1:
                    fill([](const Rgba8 p) { return float(p.r); });
                    break;
                case 2:
                    fill([](const Rgba8 p) { return float(p.g); });
                    break;
                case 3:
                    fill([](const Rgba8 p) { return float(p.b); });
                    break;
                default:
                    fill([](const Rgba8 p) { return luminance709(p); });
            }
            continue;
        }
        // Stored (x, y) lands at upright (u, v): upright() in io/image_io.cpp, pixel by pixel.
        const auto put = [&](const auto& where) {
            for (int x = 0; x < w; ++x) {
                const auto [u, v] = where(x);
                if (wanted(u, v)) plane.at(u, v) = channel_value(slot, row[x]);
            }
        };
        switch (orientation_) {
            case 2:
                put([&](const int x) { return std::pair{w - 1 - x, y}; });
                break;
            case 3:
                put([&](const int x) { return std::pair{w - 1 - x, h - 1 - y}; });
                break;
            case 4:
                put([&](const int x) { return std::pair{x, h - 1 - y}; });
                break;
            case 5:
                put([&](const int x) { return std::pair{y, x}; });
                break;
            case 6:
                put([&](const int x) { return std::pair{h - 1 - y, x}; });
                break;
            case 7:
                put([&](const int x) { return std::pair{h - 1 - y, w - 1 - x}; });
                break;
            default:  // 8
                put([&](const int x) { return std::pair{y, w - 1 - x}; });
        }
    }
}

HistogramSource PhotoPlanesBuilder::finish() && {
    if (rows_added_ != stored_height_)
        invalid("the photo has " + std::to_string(stored_height_) + " rows; " +
                std::to_string(rows_added_) + " were added");
    return std::move(source_);
}

HistogramSource::HistogramSource(const ImageView<const float> values)
    : width_(values.width), height_(values.height), measurement_(true) {
    check_image_size(values.width, values.height);
    FloatPlane plane(values.width, values.height);
    for (int y = 0; y < values.height; ++y) std::copy_n(values.row(y), values.width, plane.row(y));
    planes_.push_back(std::move(plane));
    float lo = INFINITY, hi = -INFINITY;
    for (int y = 0; y < values.height; ++y) {
        for (int x = 0; x < values.width; ++x) {
            const float v = values.row(y)[x];
            if (std::isfinite(v)) {
                lo = std::min(lo, v);
                hi = std::max(hi, v);
            }
        }
    }
    natural_range_ = lo <= hi ? std::pair{lo, hi} : std::pair{0.0f, 1.0f};
}

HistogramSource HistogramSource::photo_shape(const int width, const int height) {
    check_image_size(width, height);
    HistogramSource shape;
    shape.width_ = width;
    shape.height_ = height;
    return shape;
}

HistogramSource HistogramSource::measurement_shape(const int width, const int height,
                                                   const std::pair<float, float> natural_range) {
    check_image_size(width, height);
    HistogramSource shape;
    shape.width_ = width;
    shape.height_ = height;
    shape.measurement_ = true;
    shape.natural_range_ = natural_range;
    return shape;
}

HistogramSource HistogramSource::shape() const {
    HistogramSource shape;
    shape.width_ = width_;
    shape.height_ = height_;
    shape.measurement_ = measurement_;
    shape.natural_range_ = natural_range_;
    return shape;
}

std::vector<HistogramChannel> HistogramSource::planes_for(const HistogramChannel channel) const {
    if (measurement_) {
        if (channel == HistogramChannel::Luminance || channel == HistogramChannel::Value) {
            return {HistogramChannel::Value};
        }
        invalid("a measurement image has one channel of values; channel '" + to_string(channel) +
                "' needs a colour image");
    }
    switch (channel) {
        case HistogramChannel::Rgb:
            return {HistogramChannel::Red, HistogramChannel::Green, HistogramChannel::Blue};
        case HistogramChannel::Value:
            return {HistogramChannel::Luminance};
        default:
            return {channel};
    }
}

const FloatPlane& HistogramSource::plane(const HistogramChannel channel) const {
    if (planes_.empty()) {
        invalid("this " + std::to_string(width_) + "x" + std::to_string(height_) +
                " histogram source describes a shape and holds no planes");
    }
    if (measurement_) return planes_[0];
    const FloatPlane& plane = planes_[static_cast<std::size_t>(plane_slot(channel))];
    if (plane.empty())
        invalid("this histogram source was built without its '" + to_string(channel) + "' plane");
    return plane;
}

bool HistogramSource::has_plane(const HistogramChannel channel) const {
    if (planes_.empty()) return false;
    return measurement_ || !planes_[static_cast<std::size_t>(plane_slot(channel))].empty();
}

LinePlan plan_line(const HistogramSource& source, const LineHistogramParams& params) {
    const Point2 a = params.from, b = params.to;
    if (!detail::is_finite(a) || !detail::is_finite(b)) {
        invalid("line endpoints must be finite numbers");
    }
    // Far-away ends cannot be clipped exactly: with |x| near 1e270 the clip's rounding error is
    // about 1e254 pixels, so a segment wholly outside was "clipped" to one 1e144 pixels long and
    // its position count overflowed int (found by fuzz/fuzz_line_histogram.cpp). Within this
    // bound the clip is exact to 1e-7 pixels.
    if (!detail::within_line_bound(a) || !detail::within_line_bound(b)) {
        std::ostringstream s;
        s << "line endpoints must lie within " << kMaxLineCoordinate << " pixels of the image, not "
          << point_text(a) << "–" << point_text(b);
        invalid(s.str());
    }
    if (a.x == b.x && a.y == b.y) {
        invalid("the line has zero length: both ends are at " + point_text(a));
    }
    detail::check_band_width(params.band_width);
    if (const auto& only = source.only_line();
        only &&
        !(only->from.x == a.x && only->from.y == a.y && only->to.x == b.x && only->to.y == b.y &&
          only->band_width == params.band_width && only->sampling == params.sampling)) {
        invalid("this histogram source holds only the pixels along " + point_text(only->from) +
                "–" + point_text(only->to) + " (band " + std::to_string(only->band_width) +
                "), not " + point_text(a) + "–" + point_text(b));
    }
    LinePlan plan;
    plan.planes = source.planes_for(params.channel);
    plan.mapping = make_mapping(source, params.bins, params.range);
    Point2 p0 = a, p1 = b;
    if (!clip_segment(p0, p1, source.width() - 1.0, source.height() - 1.0, plan.clipped) ||
        (p0.x == p1.x && p0.y == p1.y)) {
        invalid("the line " + point_text(a) + "–" + point_text(b) + " lies wholly outside the " +
                std::to_string(source.width()) + "x" + std::to_string(source.height()) + " image");
    }
    plan.geometry = detail::segment_geometry(p0, p1, params.band_width);
    return plan;
}

DirectionPlan plan_direction(const HistogramSource& source,
                             const DirectionHistogramParams& params) {
    if (!std::isfinite(params.angle_degrees))
        invalid("the direction must be a finite angle in degrees");
    if (source.only_line())
        invalid("this histogram source holds only the pixels along one line, not a direction's");
    DirectionPlan plan;
    plan.planes = source.planes_for(params.channel);
    plan.mapping = make_mapping(source, params.bins, params.range);
    DirectionGeometry& g = plan.geometry;
    g.cx = (source.width() - 1) / 2.0;
    g.cy = (source.height() - 1) / 2.0;
    std::tie(g.dx, g.dy) = cos_sin_degrees(params.angle_degrees);
    g.nx = -g.dy;
    g.ny = g.dx;
    g.extent =
        static_cast<int>(std::ceil(std::hypot(double(source.width()), double(source.height()))));
    g.half = (g.extent - 1) / 2.0;
    return plan;
}

LineHistogram empty_result(const LinePlan& plan, const LineHistogramParams& params) {
    LineHistogram result;
    result.bins = plan.mapping.bins;
    result.positions = plan.geometry.positions;
    result.range_lo = plan.mapping.lo;
    result.range_hi = plan.mapping.hi;
    result.geometry = plan.geometry;
    result.clipped = plan.clipped;
    result.requested_from = params.from;
    result.requested_to = params.to;
    return result;
}

DirectionHistogram empty_result(const DirectionPlan& plan) {
    DirectionHistogram result;
    result.bins = plan.mapping.bins;
    result.positions = plan.geometry.extent;
    result.range_lo = plan.mapping.lo;
    result.range_hi = plan.mapping.hi;
    result.geometry = plan.geometry;
    result.channels = plan.planes;
    return result;
}

DirectionColumn direction_column_of(const int width, const int height, const Point2 from,
                                    const Point2 to) {
    if (from.x == to.x && from.y == to.y)
        invalid("the line has zero length: both ends are at " + point_text(from));
    const double angle = std::atan2(to.y - from.y, to.x - from.x) * 180.0 / std::numbers::pi;
    const double cx = (width - 1) / 2.0, cy = (height - 1) / 2.0;
    // Plain variables, not a structured binding: clang before 16 (the fuzzing build) cannot
    // capture bindings in a lambda.
    double dx = 0, dy = 0;
    std::tie(dx, dy) = cos_sin_degrees(angle);
    const double half = (std::ceil(std::hypot(double(width), double(height))) - 1) / 2.0;
    const auto along = [&](const Point2 p) { return (p.x - cx) * dx + (p.y - cy) * dy + half; };
    const double across = (from.x - cx) * -dy + (from.y - cy) * dx + half;
    return {angle, static_cast<int>(std::lround(across)), along(from), along(to)};
}

}  // namespace lacuna::ops
