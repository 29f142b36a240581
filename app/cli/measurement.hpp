// What info, histogram and convert share about measurement files (CT slices, temperature maps,
// astronomical frames): which files are measurements, which page of a stack a command uses, and
// how a calibration and its unit read in CSV, JSON and text.
#pragma once

#include "commands.hpp"

#include <lacuna/core/native_image.hpp>
#include <lacuna/io/image_io.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace lacuna::cli {

/// "u8", "u16", "i16", "f32": the sample types as --json names them.
std::string_view sample_type_code(SampleType type);

/// True when the file's values are measured quantities rather than picture levels: a
/// single-channel image deeper than 8 bits, one that carries a calibration, or any
/// single-channel DICOM or FITS file. These are histogrammed by value and ranged by `info`.
bool is_measurement(const io::LoadedNative& file);

/// True when the file carries a calibration worth mentioning (not the unitless identity).
bool has_calibration(const Calibration& calibration);

/// " HU", or "" for a unitless calibration: appended to printed values.
std::string unit_suffix(const Calibration& calibration);

/// The finite range and non-finite count of every page's calibrated values.
ValueStats stack_value_stats(const io::LoadedNative& file);

/// The 0-based index of the page --page N (1-based, default 1) names. A non-number or N < 1 is
/// a usage error; N beyond the stack is an Error naming the file. When a stack is read without
/// --page, a note says which page `purpose` ("used", "written") took.
std::size_t selected_page(const Context& ctx, const io::LoadedNative& file, const std::string& path,
                          std::string_view purpose);

/// What write_page wrote: the pixel format as written and what the user should know.
struct Written {
    PixelFormat pixels;
    std::vector<std::string> notices;
};

/// One page to `out`: 8-bit pages as photos (write_image: alpha dropped where unused), deeper
/// ones through write_native, which keeps their depth where the format holds it (signed 16-bit
/// widened exactly where possible); a narrowed page gets a notice naming TIFF.
Written write_page(const std::string& out, io::ImageFormat format, const NativeImage& page,
                   const io::WriteOptions& options);

/// An input as the editor opens it: an 8-bit file without calibration (one page, not DICOM or
/// FITS) is a photo, read as RGBA8 with its EXIF orientation applied; anything else is a
/// measurement, kept as stored (`native`, the page --page N names, or the first).
struct Input {
    io::LoadedImage photo;                   ///< photos only
    std::optional<io::LoadedNative> native;  ///< measurements only
    std::size_t page = 0;
    [[nodiscard]] bool measurement() const { return native.has_value(); }
    [[nodiscard]] const NativeImage& samples() const { return native->pages[page]; }
    [[nodiscard]] int width() const {
        return measurement() ? samples().width() : photo.image.width();
    }
    [[nodiscard]] int height() const {
        return measurement() ? samples().height() : photo.image.height();
    }
};
/// Reads `path` (notices go to ctx.note). Photos are decoded once; a measurement file in a photo
/// format (16-bit PNG, float TIFF) is decoded again as stored.
Input read_input(const Context& ctx, const std::string& path);

/// Writes a measurement's processed samples to `out` like `convert`: the stored type where the
/// format holds it, else 8 bits with one line saying so; the file's calibration, pixel spacing
/// and metadata where the format carries them, else a note. Returns the format as written.
PixelFormat write_measurement(const Context& ctx, const std::string& out,
                              const NativeImage& samples, const io::LoadedNative& file);
/// The same with the pixel size the result has (a scaled image's pixels are larger or smaller),
/// and the writer's other options (`convert`'s JPEG quality).
PixelFormat write_measurement(const Context& ctx, const std::string& out,
                              const NativeImage& samples, const io::LoadedNative& file,
                              const PixelSpacing& spacing, io::WriteOptions options = {});

}  // namespace lacuna::cli
