// Images in the file's own sample type: 8-bit, 16-bit (unsigned and signed) and 32-bit float, with
// 1, 3 or 4 channels (grey, RGB, RGBA; channel order R, G, B, A). Measurement images (temperature
// maps, CT slices) live in one of these so that nothing is rescaled behind the user's back; a
// calibration turns stored samples into the quantity measured, and the display is only a view.
#pragma once

#include <lacuna/core/image.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace lacuna {

enum class SampleType : std::uint8_t { U8, U16, I16, F32 };

/// "8-bit", "16-bit", "signed 16-bit", "32-bit float".
std::string_view to_string(SampleType type);
[[nodiscard]] std::size_t sample_size(SampleType type);
/// Bits per sample as files describe them: 8, 16 or 32.
[[nodiscard]] int bit_depth(SampleType type);
[[nodiscard]] inline bool is_integer(SampleType type) {
    return type != SampleType::F32;
}
/// The type's sample range (U8 0..255, U16 0..65535, I16 -32768..32767; float: 0..1, the range
/// its normalised samples conventionally use). Energies and patch distances divide by its width
/// so an 8-bit image and its ×257 16-bit copy measure the same.
[[nodiscard]] std::pair<double, double> type_range(SampleType type);

struct PixelFormat {
    SampleType sample = SampleType::U8;
    int channels = 4;  ///< 1 grey, 3 RGB, 4 RGBA
    [[nodiscard]] std::size_t bytes_per_pixel() const {
        return sample_size(sample) * static_cast<std::size_t>(channels);
    }
    friend bool operator==(const PixelFormat&, const PixelFormat&) = default;
};
/// "16-bit grey", "32-bit float RGB", ...
std::string describe(PixelFormat format);

/// An owning image of any PixelFormat. Rows are padded to 64 bytes like Image<T>.
class NativeImage {
  public:
    NativeImage() = default;
    /// Zero-filled. Throws Error(TooLarge / EmptyImage / InvalidArgument) for sizes or channel
    /// counts that are not allowed.
    NativeImage(int width, int height, PixelFormat format);

    [[nodiscard]] int width() const { return width_; }
    [[nodiscard]] int height() const { return height_; }
    [[nodiscard]] PixelFormat format() const { return format_; }
    [[nodiscard]] int channels() const { return format_.channels; }
    [[nodiscard]] SampleType sample_type() const { return format_.sample; }
    [[nodiscard]] std::size_t pitch() const { return pitch_; }
    [[nodiscard]] bool empty() const { return width_ <= 0 || height_ <= 0; }
    [[nodiscard]] std::size_t row_bytes() const { return format_.bytes_per_pixel() * width_; }

    [[nodiscard]] std::byte* row(const int y) { return bytes_.data() + pitch_ * y; }
    [[nodiscard]] const std::byte* row(const int y) const { return bytes_.data() + pitch_ * y; }
    /// Row `y` as samples of type S (must match the sample type; checked in debug builds).
    template <class S>
    [[nodiscard]] S* samples(const int y) {
        return reinterpret_cast<S*>(row(y));
    }
    template <class S>
    [[nodiscard]] const S* samples(const int y) const {
        return reinterpret_cast<const S*>(row(y));
    }
    /// One stored sample, converted to double without rescaling.
    [[nodiscard]] double sample(int x, int y, int channel) const;
    void set_sample(int x, int y, int channel, double value);

    friend bool operator==(const NativeImage& a, const NativeImage& b);

  private:
    int width_ = 0;
    int height_ = 0;
    PixelFormat format_{};
    std::size_t pitch_ = 0;
    std::vector<std::byte> bytes_;
};

/// Calls f(S{}) with S the image's sample type (std::uint8_t, std::uint16_t, std::int16_t,
/// float): one place that turns the runtime type into a template argument.
template <class F>
decltype(auto) visit_sample_type(const SampleType type, F&& f) {
    switch (type) {
        case SampleType::U8:
            return f(std::uint8_t{});
        case SampleType::U16:
            return f(std::uint16_t{});
        case SampleType::I16:
            return f(std::int16_t{});
        case SampleType::F32:
            break;
    }
    return f(float{});
}

/// value = slope · sample + intercept, in `unit` (DICOM rescale, FITS BSCALE/BZERO/BUNIT, or typed
/// in). The identity calibration has an empty unit.
struct Calibration {
    double slope = 1.0;
    double intercept = 0.0;
    std::string unit;
    [[nodiscard]] bool identity() const { return slope == 1.0 && intercept == 0.0; }
    [[nodiscard]] double apply(const double sample) const { return slope * sample + intercept; }
    /// "value = 1 · sample − 1024 HU", or "none" for the identity without a unit.
    [[nodiscard]] std::string describe() const;
    friend bool operator==(const Calibration&, const Calibration&) = default;
};

/// How large a pixel is: `x` between columns and `y` between rows, in `unit` (mm, µm, arcsec …;
/// DICOM PixelSpacing, FITS CDELT/CUNIT, TIFF resolution, or set by the user as ImageJ's Set
/// Scale does). Unknown when either is not positive: distances are then in pixels.
struct PixelSpacing {
    double x = 0;
    double y = 0;
    std::string unit;
    [[nodiscard]] bool known() const { return x > 0 && y > 0 && !unit.empty(); }
    /// The length of a step of (dx, dy) pixels in the unit: measured in physical space, so a
    /// diagonal of an anisotropic image is √((dx·x)² + (dy·y)²).
    [[nodiscard]] double length(double dx, double dy) const;
    /// "0.5 × 0.5 mm" (or "0.5 mm" when square), or "none".
    [[nodiscard]] std::string describe() const;
    friend bool operator==(const PixelSpacing&, const PixelSpacing&) = default;
};

/// ImageJ's Set Scale: a line of (dx, dy) pixels is `known_length` `unit` long and a pixel is
/// `aspect` times as tall as it is wide (ImageJ's "Pixel aspect ratio"), so, measuring the line
/// in physical space, width = known_length / √(dx² + (aspect · dy)²) and height = aspect · width.
/// Unknown (PixelSpacing{}) when the line has no length, the length or aspect is not finite and
/// above 0, or the unit is empty.
PixelSpacing spacing_from_line(double dx, double dy, double known_length, std::string unit,
                               double aspect = 1.0);

/// One value per pixel, calibrated: grey images give their channel, colour images Rec. 709
/// luminance of R, G, B. NaN and infinities are kept (they are data, shown and counted apart).
ImageF32 measurement_plane(const NativeImage& image, const Calibration& calibration = {});

struct ValueStats {
    double min = 0;  ///< over finite values; 0 when there are none
    double max = 0;
    std::int64_t finite = 0;
    std::int64_t non_finite = 0;  ///< NaN and ±infinity
};
ValueStats value_stats(ImageView<const float> values);

/// ImageJ's auto-contrast: the window [lo, hi] that leaves `saturated` of the finite values
/// below lo and the same fraction above hi (0.35% at each end by default). A constant image
/// gives lo == hi; an image without finite values gives {0, 1}.
std::pair<double, double> auto_window(ImageView<const float> values, double saturated = 0.0035);

/// An 8-bit RGBA photo as a native image (the same samples; 4 channels).
NativeImage to_native(ImageView<const Rgba8> image);
/// The inverse for 8-bit 4-channel images; throws InvalidArgument for other formats.
ImageRgba8 to_rgba8(const NativeImage& image);
/// The same pixels at another format (samples converted without rescaling, clamped to an integer
/// type's range, NaN to 0; channels: grey→RGB copies, RGB→grey luminance, alpha added opaque).
NativeImage convert(const NativeImage& image, PixelFormat format);
/// A rectangle's pixels (undo snapshots).
NativeImage copy_region(const NativeImage& image, const PixelRect& rect);
void paste_region(NativeImage& image, const PixelRect& rect, const NativeImage& region);

}  // namespace lacuna
