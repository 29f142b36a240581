#include "measurement.hpp"

#include "options.hpp"

#include <lacuna/core/error.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <limits>
#include <optional>

namespace lacuna::cli {
namespace {

// What write_native keeps without narrowing (see image_io.hpp): unsigned 16-bit in PNG, TIFF,
// PGM (grey) and PPM (RGB); signed 16-bit in TIFF; float in TIFF and PFM (grey or RGB). 8-bit
// goes everywhere.
bool keeps_samples(const io::ImageFormat format, const PixelFormat pixels) {
    const SampleType s = pixels.sample;
    const int c = pixels.channels;
    switch (format) {
        case io::ImageFormat::Png:
            return s == SampleType::U16;
        case io::ImageFormat::Tiff:
            return s == SampleType::U16 || s == SampleType::I16 || s == SampleType::F32;
        case io::ImageFormat::Pgm:
            return s == SampleType::U16 && c == 1;
        case io::ImageFormat::Ppm:
            return s == SampleType::U16 && c == 3;
        case io::ImageFormat::Pfm:
            return s == SampleType::F32 && (c == 1 || c == 3);
        case io::ImageFormat::Fits:
            return io::format_holds(format, s, c);
        default:
            return false;
    }
}

// The samples write_native keeps, and the channels it writes: colour with alpha goes without
// the alpha, at its depth, to a format that holds that depth as colour only (PPM, PFM).
std::optional<PixelFormat> kept_as(const io::ImageFormat format, const PixelFormat pixels) {
    if (keeps_samples(format, pixels)) return pixels;
    const PixelFormat colour{pixels.sample, 3};
    if (pixels.channels == 4 && keeps_samples(format, colour)) return colour;
    return std::nullopt;
}

// Colour with alpha for a format that has no alpha but keeps the colour's samples, or their exact
// widening (PPM, PFM): the alpha goes here, before widen_exactly, with the notice 8-bit images get
// when it was not opaque (judged in its own type's range, which widening to float would lose).
std::optional<NativeImage> without_alpha(const NativeImage& page, const io::ImageFormat format,
                                         std::vector<std::string>& notices) {
    if (page.channels() != 4 || keeps_samples(format, page.format())) return std::nullopt;
    const PixelFormat colour{page.sample_type(), 3};
    if (!keeps_samples(format, colour) && !keeps_samples(format, PixelFormat{SampleType::U16, 3}) &&
        !keeps_samples(format, PixelFormat{SampleType::F32, 3}))
        return std::nullopt;
    const double opaque = type_range(page.sample_type()).second;
    bool transparent = false;
    for (int y = 0; y < page.height() && !transparent; ++y)
        for (int x = 0; x < page.width() && !transparent; ++x)
            transparent = !(page.sample(x, y, 3) >= opaque);
    if (transparent)
        notices.push_back("transparency dropped: " + std::string(io::to_string(format)) +
                          " has no alpha channel");
    return convert(page, colour);
}

double min_sample(const NativeImage& image) {
    double lo = 0;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x)
            for (int c = 0; c < image.channels(); ++c) lo = std::min(lo, image.sample(x, y, c));
    return lo;
}

// Samples the format cannot hold as they are, but can without changing a value: signed 16-bit
// (a CT slice; no writable format stores it) becomes unsigned 16-bit when none is negative, and
// 16-bit becomes float where the format holds float but not 16-bit (TIFF, PFM). Nothing when the
// image is kept as it is, or narrowed to 8 bits by write_native, which says so.
std::optional<NativeImage> widen_exactly(const NativeImage& image, const io::ImageFormat format,
                                         std::vector<std::string>& notices) {
    const PixelFormat u16{SampleType::U16, image.channels()};
    const PixelFormat f32{SampleType::F32, image.channels()};
    const bool is_signed = image.sample_type() == SampleType::I16;
    if (kept_as(format, image.format())) return std::nullopt;
    if (is_signed && kept_as(format, u16) && min_sample(image) >= 0) {
        notices.emplace_back("signed 16-bit samples (none negative) written as unsigned 16-bit");
        return convert(image, u16);
    }
    if (image.sample_type() != SampleType::F32 && kept_as(format, f32)) {
        // The format may well have such samples (TIFF has signed 16-bit); Lacuna's writer
        // does not write them.
        notices.push_back("Lacuna writes no " + std::string(to_string(image.sample_type())) +
                          " samples to " + std::string(io::to_string(format)) +
                          ": written as 32-bit float with the same values");
        return convert(image, f32);
    }
    return std::nullopt;
}

}  // namespace

// One page to `out`: 8-bit pages as photos (write_image: alpha dropped where unused), deeper ones
// through write_native, which keeps their depth where the format holds it.
Written write_page(const std::string& out, const io::ImageFormat format, const NativeImage& page,
                   const io::WriteOptions& options) {
    Written w;
    // FITS keeps any page as it is (grey stays grey, the calibration goes along).
    if (page.sample_type() == SampleType::U8 && format != io::ImageFormat::Fits) {
        // 8-bit grey: write_native keeps it grey where the format has grey.
        if (page.channels() == 1) {
            w.notices = io::write_native(out, page, options);
            w.pixels = page.format();
            return w;
        }
        const PixelFormat rgba{SampleType::U8, 4};
        const ImageRgba8 image =
            page.channels() == 4 ? to_rgba8(page) : to_rgba8(convert(page, rgba));
        w.notices = io::write_image(out, image.view(), options);
        w.pixels = page.format();
        return w;
    }
    const std::optional<NativeImage> colour = without_alpha(page, format, w.notices);
    const NativeImage& opaque = colour ? *colour : page;
    const std::optional<NativeImage> widened = widen_exactly(opaque, format, w.notices);
    const NativeImage& image = widened ? *widened : opaque;
    for (std::string& n : io::write_native(out, image, options)) w.notices.push_back(std::move(n));
    if (const std::optional<PixelFormat> kept = kept_as(format, image.format())) {
        w.pixels = *kept;
    } else {
        w.pixels = image.format();
        w.pixels.sample = SampleType::U8;
        w.notices.push_back("to keep the " + std::string(to_string(page.sample_type())) +
                            " samples, write TIFF");
    }
    return w;
}

std::string_view sample_type_code(const SampleType type) {
    switch (type) {
        case SampleType::U8:
            return "u8";
        case SampleType::U16:
            return "u16";
        case SampleType::I16:
            return "i16";
        case SampleType::F32:
            break;
    }
    return "f32";
}

bool has_calibration(const Calibration& calibration) {
    return !calibration.identity() || !calibration.unit.empty();
}

bool is_measurement(const io::LoadedNative& file) {
    const NativeImage& first = file.pages.front();
    if (first.channels() != 1) return false;
    // DICOM and FITS hold measurements even at 8 bits; elsewhere 8-bit grey is a picture unless
    // the file says what its samples measure.
    const bool scientific =
        file.info.format == io::ImageFormat::Dicom || file.info.format == io::ImageFormat::Fits;
    return scientific || first.sample_type() != SampleType::U8 || has_calibration(file.calibration);
}

std::string unit_suffix(const Calibration& calibration) {
    return calibration.unit.empty() ? std::string() : " " + calibration.unit;
}

ValueStats stack_value_stats(const io::LoadedNative& file) {
    ValueStats all;
    all.min = std::numeric_limits<double>::infinity();
    all.max = -std::numeric_limits<double>::infinity();
    for (const NativeImage& page : file.pages) {
        const ValueStats s = value_stats(measurement_plane(page, file.calibration).view());
        // value_stats reports 0..0 for a page without finite values: it must not widen the range.
        if (s.finite > 0) {
            all.min = std::min(all.min, s.min);
            all.max = std::max(all.max, s.max);
        }
        all.finite += s.finite;
        all.non_finite += s.non_finite;
    }
    if (all.finite == 0) all.min = all.max = 0;
    return all;
}

std::size_t selected_page(const Context& ctx, const io::LoadedNative& file, const std::string& path,
                          const std::string_view purpose) {
    const std::size_t pages = file.pages.size();
    const auto text = ctx.args.get("page");
    if (!text) {
        if (pages > 1)
            ctx.note("'" + path + "' is a stack of " + std::to_string(pages) + " pages: page 1 " +
                     std::string(purpose) + " (choose another with --page N)");
        return 0;
    }
    const int page = parse_int("page", *text);
    if (page < 1) throw UsageError("--page must be 1 or more, not " + *text);
    if (static_cast<std::size_t>(page) > pages)
        throw Error(ErrorCode::InvalidArgument, "--page " + *text + " is beyond the " +
                                                    std::to_string(pages) + " page(s) of '" + path +
                                                    "'");
    return static_cast<std::size_t>(page - 1);
}

Input read_input(const Context& ctx, const std::string& path) {
    Input input;
    const auto native = [&] {
        input.native = io::read_native(path);
        for (const std::string& n : input.native->notices) ctx.note(n);
        input.page = selected_page(ctx, *input.native, path, "used");
    };
    // DICOM, FITS and PFM hold measurements only: no photo decode first.
    std::string ext = std::filesystem::path(path).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](const unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (ext == ".dcm" || ext == ".fits" || ext == ".fit" || ext == ".fts" || ext == ".pfm") {
        native();
        return input;
    }
    io::LoadedImage photo = io::read_image(path);
    if (photo.info.bit_depth != 8 || photo.info.pages > 1 ||
        photo.info.format == io::ImageFormat::Dicom || photo.info.format == io::ImageFormat::Fits) {
        native();
        return input;
    }
    for (const std::string& n : photo.notices) ctx.note(n);
    input.photo = std::move(photo);
    return input;
}

PixelFormat write_measurement(const Context& ctx, const std::string& out,
                              const NativeImage& samples, const io::LoadedNative& file) {
    return write_measurement(ctx, out, samples, file, file.spacing);
}

PixelFormat write_measurement(const Context& ctx, const std::string& out,
                              const NativeImage& samples, const io::LoadedNative& file,
                              const PixelSpacing& spacing, io::WriteOptions options) {
    const io::ImageFormat format = io::format_for_path(out);
    options.metadata = &file.metadata;
    options.calibration = &file.calibration;
    options.spacing = &spacing;
    const Written written = write_page(out, format, samples, options);
    for (const std::string& n : written.notices) ctx.note(n);
    if (const Calibration& c = file.calibration;
        has_calibration(c) && !io::format_keeps_calibration(format)) {
        const std::string what =
            c.identity() ? "unit (" + c.unit + ")" : "calibration (" + c.describe() + ")";
        ctx.note("the " + what + " is not written: " + std::string(io::to_string(format)) +
                 " files carry none");
    }
    if (spacing.known() && format != io::ImageFormat::Tiff && format != io::ImageFormat::Fits)
        ctx.note("the pixel spacing (" + spacing.describe() + ") is not written: " +
                 std::string(io::to_string(format)) + " files carry none here (TIFF and FITS do)");
    return written.pixels;
}

}  // namespace lacuna::cli
