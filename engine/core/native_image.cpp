#include <lacuna/core/native_image.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>

namespace lacuna {

std::string_view to_string(const SampleType type) {
    switch (type) {
        case SampleType::U8:
            return "8-bit";
        case SampleType::U16:
            return "16-bit";
        case SampleType::I16:
            return "signed 16-bit";
        case SampleType::F32:
            return "32-bit float";
    }
    return "?";
}

std::size_t sample_size(const SampleType type) {
    switch (type) {
        case SampleType::U8:
            return 1;
        case SampleType::U16:
        case SampleType::I16:
            return 2;
        case SampleType::F32:
            return 4;
    }
    return 1;
}

int bit_depth(const SampleType type) {
    return static_cast<int>(sample_size(type)) * 8;
}

std::pair<double, double> type_range(const SampleType type) {
    switch (type) {
        case SampleType::U8:
            return {0.0, 255.0};
        case SampleType::U16:
            return {0.0, 65535.0};
        case SampleType::I16:
            return {-32768.0, 32767.0};
        case SampleType::F32:
            return {0.0, 1.0};
    }
    return {0.0, 1.0};
}

std::string describe(const PixelFormat format) {
    std::string text(to_string(format.sample));
    switch (format.channels) {
        case 1:
            return text + " grey";
        case 3:
            return text + " RGB";
        case 4:
            return text + " RGBA";
        default:
            return text + " " + std::to_string(format.channels) + "-channel";
    }
}

NativeImage::NativeImage(const int width, const int height, const PixelFormat format)
    : width_(width), height_(height), format_(format) {
    check_image_size(width, height);
    if (format.channels != 1 && format.channels != 3 && format.channels != 4)
        throw Error(ErrorCode::InvalidArgument,
                    "an image has 1, 3 or 4 channels, not " + std::to_string(format.channels));
    // 64-byte rows as Image<T> has them: SIMD loops and uploads start every row aligned.
    pitch_ = (row_bytes() + 63) / 64 * 64;
    bytes_.assign(pitch_ * static_cast<std::size_t>(height), std::byte{0});
}

double NativeImage::sample(const int x, const int y, const int channel) const {
    const std::size_t i = static_cast<std::size_t>(x) * format_.channels + channel;
    return visit_sample_type(
        format_.sample, [&](auto s) { return static_cast<double>(samples<decltype(s)>(y)[i]); });
}

namespace {

template <class S>
S saturate(const double value) {
    if constexpr (std::is_floating_point_v<S>) {
        return static_cast<S>(value);
    } else {
        if (std::isnan(value)) return S{0};
        const double lo = std::numeric_limits<S>::min(), hi = std::numeric_limits<S>::max();
        return static_cast<S>(std::lround(std::clamp(value, lo, hi)));
    }
}

}  // namespace

void NativeImage::set_sample(const int x, const int y, const int channel, const double value) {
    const std::size_t i = static_cast<std::size_t>(x) * format_.channels + channel;
    visit_sample_type(format_.sample, [&](auto s) {
        using S = decltype(s);
        samples<S>(y)[i] = saturate<S>(value);
    });
}

bool operator==(const NativeImage& a, const NativeImage& b) {
    if (a.width_ != b.width_ || a.height_ != b.height_ || !(a.format_ == b.format_)) return false;
    for (int y = 0; y < a.height_; ++y)
        if (std::memcmp(a.row(y), b.row(y), a.row_bytes()) != 0) return false;
    return true;
}

std::string Calibration::describe() const {
    if (identity()) return unit.empty() ? "none" : "values in " + unit;
    std::ostringstream text;
    text.precision(10);
    text << "value = " << slope << " * sample";
    if (intercept != 0) text << (intercept < 0 ? " - " : " + ") << std::abs(intercept);
    if (!unit.empty()) text << " " << unit;
    return text.str();
}

double PixelSpacing::length(const double dx, const double dy) const {
    return std::hypot(dx * x, dy * y);
}

PixelSpacing spacing_from_line(const double dx, const double dy, const double known_length,
                               std::string unit, const double aspect) {
    const auto positive = [](const double v) { return std::isfinite(v) && v > 0; };
    const double pixels = std::hypot(dx, aspect * dy);  // the line's length in pixel widths
    if (!positive(known_length) || !positive(aspect) || !positive(pixels) || unit.empty())
        return {};
    const double width = known_length / pixels;
    return {width, aspect * width, std::move(unit)};
}

std::string PixelSpacing::describe() const {
    if (!known()) return "none";
    std::ostringstream text;
    text.precision(10);
    text << x;
    if (y != x) text << " \u00d7 " << y;
    text << " " << unit;
    return text.str();
}

ImageF32 measurement_plane(const NativeImage& image, const Calibration& calibration) {
    ImageF32 plane(image.width(), image.height());
    const int channels = image.channels();
    visit_sample_type(image.sample_type(), [&](auto s) {
        using S = decltype(s);
        for (int y = 0; y < image.height(); ++y) {
            const S* in = image.samples<S>(y);
            float* out = plane.row(y);
            for (int x = 0; x < image.width(); ++x) {
                const S* p = in + static_cast<std::ptrdiff_t>(x) * channels;
                const double raw = channels == 1 ? static_cast<double>(p[0])
                                                 : 0.2126 * static_cast<double>(p[0]) +
                                                       0.7152 * static_cast<double>(p[1]) +
                                                       0.0722 * static_cast<double>(p[2]);
                out[x] = static_cast<float>(calibration.apply(raw));
            }
        }
    });
    return plane;
}

ValueStats value_stats(const ImageView<const float> values) {
    ValueStats stats;
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (int y = 0; y < values.height; ++y) {
        const float* row = values.row(y);
        for (int x = 0; x < values.width; ++x) {
            if (!std::isfinite(row[x])) {
                ++stats.non_finite;
                continue;
            }
            ++stats.finite;
            lo = std::min(lo, static_cast<double>(row[x]));
            hi = std::max(hi, static_cast<double>(row[x]));
        }
    }
    if (stats.finite > 0) {
        stats.min = lo;
        stats.max = hi;
    }
    return stats;
}

std::pair<double, double> auto_window(const ImageView<const float> values, const double saturated) {
    std::vector<float> finite;
    finite.reserve(static_cast<std::size_t>(values.width) * values.height);
    for (int y = 0; y < values.height; ++y)
        for (int x = 0; x < values.width; ++x)
            if (std::isfinite(values.row(y)[x])) finite.push_back(values.row(y)[x]);
    if (finite.empty()) return {0.0, 1.0};
    // The k-th smallest and k-th largest: `saturated` of the values at each end lie beyond.
    const auto k = static_cast<std::size_t>(
        std::floor(std::clamp(saturated, 0.0, 0.5) * static_cast<double>(finite.size())));
    const std::size_t last = finite.size() - 1;
    std::nth_element(finite.begin(), finite.begin() + static_cast<std::ptrdiff_t>(k), finite.end());
    const double lo = finite[k];
    std::nth_element(finite.begin(), finite.begin() + static_cast<std::ptrdiff_t>(last - k),
                     finite.end());
    const double hi = finite[last - k];
    return {lo, std::max(lo, hi)};
}

NativeImage to_native(const ImageView<const Rgba8> image) {
    NativeImage out(image.width, image.height, {SampleType::U8, 4});
    for (int y = 0; y < image.height; ++y)
        std::memcpy(out.row(y), image.row(y), static_cast<std::size_t>(image.width) * 4);
    return out;
}

ImageRgba8 to_rgba8(const NativeImage& image) {
    if (!(image.format() == PixelFormat{SampleType::U8, 4}))
        throw Error(ErrorCode::InvalidArgument,
                    "an 8-bit RGBA image was expected, not " + describe(image.format()));
    ImageRgba8 out(image.width(), image.height());
    for (int y = 0; y < image.height(); ++y)
        std::memcpy(out.row(y), image.row(y), static_cast<std::size_t>(image.width()) * 4);
    return out;
}

NativeImage convert(const NativeImage& image, const PixelFormat format) {
    NativeImage out(image.width(), image.height(), format);
    const int in_c = image.channels(), out_c = format.channels;
    const double opaque = format.sample == SampleType::F32 ? 1.0 : type_range(format.sample).second;
    for (int y = 0; y < image.height(); ++y) {
        for (int x = 0; x < image.width(); ++x) {
            double rgb[3];
            if (in_c == 1) {
                rgb[0] = rgb[1] = rgb[2] = image.sample(x, y, 0);
            } else {
                for (int c = 0; c < 3; ++c) rgb[c] = image.sample(x, y, c);
            }
            if (out_c == 1) {
                const double v =
                    in_c == 1 ? rgb[0] : 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2];
                out.set_sample(x, y, 0, v);
                continue;
            }
            for (int c = 0; c < 3; ++c) out.set_sample(x, y, c, rgb[c]);
            if (out_c == 4) out.set_sample(x, y, 3, in_c == 4 ? image.sample(x, y, 3) : opaque);
        }
    }
    return out;
}

NativeImage copy_region(const NativeImage& image, const PixelRect& rect) {
    NativeImage out(rect.width(), rect.height(), image.format());
    const std::size_t bpp = image.format().bytes_per_pixel();
    for (int y = 0; y < rect.height(); ++y)
        std::memcpy(out.row(y), image.row(rect.y0 + y) + bpp * rect.x0, out.row_bytes());
    return out;
}

void paste_region(NativeImage& image, const PixelRect& rect, const NativeImage& region) {
    if (region.width() != rect.width() || region.height() != rect.height() ||
        !(region.format() == image.format()))
        throw Error(ErrorCode::InvalidArgument, "a region does not fit its rectangle");
    const std::size_t bpp = image.format().bytes_per_pixel();
    for (int y = 0; y < rect.height(); ++y)
        std::memcpy(image.row(rect.y0 + y) + bpp * rect.x0, region.row(y), region.row_bytes());
}

}  // namespace lacuna
