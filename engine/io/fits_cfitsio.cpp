// FITS images (lines, planes, cubes as stacks) through CFITSIO, and FITS writing. The stored values
// are read raw (CFITSIO's own BSCALE/BZERO scaling is turned off) and the scaling goes into the
// Calibration, so an integer image stays an integer image. One exception is the FITS convention for
// unsigned 16-bit data (BITPIX 16, BZERO 32768, BSCALE 1): it becomes a U16 image with the identity
// calibration.
#include "calibration_tags.hpp"
#include "scientific_io.hpp"

#include <fitsio.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>

namespace lacuna::io::detail {
namespace {

using Bytes = std::vector<std::uint8_t>;

struct FitsCloser {
    void operator()(fitsfile* file) const {
        int status = 0;
        fits_close_file(file, &status);
    }
};
using FitsHandle = std::unique_ptr<fitsfile, FitsCloser>;

// CFITSIO's short description of a status code, e.g. "tried to move past end of file".
std::string status_text(const int status) {
    char text[FLEN_STATUS] = {};
    fits_get_errstatus(status, text);
    return text;
}

// Turns a CFITSIO failure into an Error: running out of bytes means the file was cut short;
// anything else means the header or data are not valid FITS.
void check(const int status, const std::string_view name) {
    if (status == 0) return;
    // CFITSIO keeps a stack of detailed messages per failure; ours carry the summary.
    fits_clear_errmsg();
    const bool truncated = status == END_OF_FILE || status == READ_ERROR;
    fail_reading(
        truncated ? ErrorCode::Truncated : ErrorCode::Corrupt, name,
        std::string(truncated ? "the FITS file is truncated" : "the FITS file is corrupt") +
            " (CFITSIO: " + status_text(status) + ")");
}

// FITS files are made of 2880-byte records, and CFITSIO's memory driver reads whole records,
// the last one too even where the file ends inside it. The copy it reads is therefore padded
// with zeros to a whole record, while CFITSIO is told the file's real length, which its
// end-of-file checks use.
constexpr std::size_t kFitsRecord = 2880;

std::vector<std::uint8_t> padded_copy(const Bytes& bytes) {
    const std::size_t records =
        std::max<std::size_t>(1, (bytes.size() + kFitsRecord - 1) / kFitsRecord);
    std::vector<std::uint8_t> copy(records * kFitsRecord, 0);
    std::copy(bytes.begin(), bytes.end(), copy.begin());
    return copy;
}

// A FITS file opened from memory, read-only.
class MemoryFits {
  public:
    MemoryFits(const Bytes& bytes, const std::string_view name)
        : buffer_(padded_copy(bytes)), address_(buffer_.data()), size_(bytes.size()) {
        fitsfile* file = nullptr;
        int status = 0;
        // No realloc function: a READONLY memory file never grows.
        fits_open_memfile(&file, "memory.fits", READONLY, &address_, &size_, 0, nullptr, &status);
        handle_.reset(file);
        check(status, name);
    }
    MemoryFits(const MemoryFits&) = delete;
    MemoryFits& operator=(const MemoryFits&) = delete;

    [[nodiscard]] fitsfile* get() const { return handle_.get(); }

  private:
    // CFITSIO keeps the addresses of address_ and size_: all three must outlive the handle
    // (members are destroyed in reverse order).
    std::vector<std::uint8_t> buffer_;
    void* address_ = nullptr;
    std::size_t size_ = 0;
    FitsHandle handle_;
};

// An image HDU's shape as CFITSIO reports it.
struct ImageShape {
    int bitpix = 0;
    std::vector<LONGLONG> axes;  ///< NAXIS1 (width), NAXIS2 (height), ...

    // An image Lacuna opens: a line (one axis, shown as one row), a plane, or a cube whose
    // planes are pages; axes beyond the third must have length 1 (the degenerate
    // frequency/Stokes axes radio astronomy writes).
    [[nodiscard]] bool is_image() const {
        return !axes.empty() &&
               (axes.size() <= 3 ||
                std::all_of(axes.begin() + 3, axes.end(), [](const LONGLONG n) { return n == 1; }));
    }
    [[nodiscard]] bool has_pixels() const {
        return std::none_of(axes.begin(), axes.end(), [](const LONGLONG n) { return n <= 0; });
    }
    [[nodiscard]] LONGLONG width() const { return axes.at(0); }
    [[nodiscard]] LONGLONG height() const { return axes.size() >= 2 ? axes[1] : 1; }
    [[nodiscard]] LONGLONG planes() const { return axes.size() >= 3 ? axes[2] : 1; }
    /// "4x3x4". Appended piecewise: GCC 12 warns falsely (-Wrestrict) on "x" + std::string.
    [[nodiscard]] std::string describe() const {
        std::string text;
        for (const LONGLONG n : axes) {
            if (!text.empty()) text.push_back('x');
            text.append(std::to_string(n));
        }
        return text;
    }
};

ImageShape shape_of(fitsfile* file, const std::string_view name) {
    int status = 0;
    int naxis = 0;
    fits_get_img_dim(file, &naxis, &status);
    check(status, name);
    ImageShape shape;
    shape.axes.assign(static_cast<std::size_t>(std::max(naxis, 0)), 0);
    fits_get_img_paramll(file, naxis, &shape.bitpix, &naxis, shape.axes.data(), &status);
    check(status, name);
    return shape;
}

// True when the file continues after the current HDU (its padded data end).
bool more_hdus_follow(fitsfile* file, const std::size_t file_bytes, const std::string_view name) {
    LONGLONG header_start = 0, data_start = 0, data_end = 0;
    int status = 0;
    fits_get_hduaddrll(file, &header_start, &data_start, &data_end, &status);
    check(status, name);
    return static_cast<std::size_t>(data_end) < file_bytes;
}

// Moves to the first HDU that holds an image with pixels (a line, a plane or a cube) and
// returns its shape. Empty primary arrays, arrays with a zero-length axis (random groups) and
// tables are skipped; a file whose images all have more dimensions is UnsupportedFormat.
ImageShape find_image(fitsfile* file, const std::size_t file_bytes, const std::string_view name,
                      std::vector<std::string>& notices) {
    std::string first_other;  // the first image skipped for its dimensions, for the messages
    std::string first_empty;  // the first array without pixels
    for (int hdu = 1;; ++hdu) {
        if (hdu > 1) {
            if (!more_hdus_follow(file, file_bytes, name)) break;
            int status = 0;
            fits_movabs_hdu(file, hdu, nullptr, &status);
            check(status, name);
        }
        int type = 0, status = 0;
        fits_get_hdu_type(file, &type, &status);
        check(status, name);
        if (type != IMAGE_HDU) continue;  // tables (tile-compressed images report IMAGE_HDU)
        ImageShape shape = shape_of(file, name);
        if (shape.axes.empty()) continue;  // a primary HDU without data, as extensions need
        if (!shape.has_pixels()) {
            if (first_empty.empty()) first_empty = shape.describe();
            continue;
        }
        if (shape.is_image()) {
            if (!first_other.empty()) {
                notices.push_back("opened the image in HDU " + std::to_string(hdu) +
                                  "; the FITS file's first image (" + first_other +
                                  ") has more than 3 dimensions");
            }
            return shape;
        }
        if (first_other.empty()) first_other = shape.describe();
    }
    if (first_other.empty()) {
        fail_reading(ErrorCode::UnsupportedFormat, name,
                     first_empty.empty() ? std::string("the FITS file holds no image")
                                         : "the FITS file holds no image (its " + first_empty +
                                               " array has no pixels)");
    }
    fail_reading(ErrorCode::UnsupportedFormat, name,
                 "the FITS image is " + first_other +
                     "; Lacuna opens FITS images of 1, 2 or 3 dimensions (a cube as a stack)");
}

// Keyword values; nullopt when the keyword is absent. A keyword with a value of the wrong type
// makes the header corrupt.
template <class T>
std::optional<T> keyword(fitsfile* file, const int datatype, const char* key,
                         const std::string_view name) {
    T value{};
    int status = 0;
    fits_read_key(file, datatype, key, &value, nullptr, &status);
    if (status == KEY_NO_EXIST) {
        fits_clear_errmsg();
        return std::nullopt;
    }
    check(status, name);
    return value;
}

std::string unit_keyword(fitsfile* file, const std::string_view name) {
    char unit[FLEN_VALUE] = {};
    int status = 0;
    fits_read_key(file, TSTRING, "BUNIT", unit, nullptr, &status);
    if (status == KEY_NO_EXIST) {
        fits_clear_errmsg();
        return {};
    }
    check(status, name);
    return unit;
}

std::string string_keyword(fitsfile* file, const char* key, const std::string_view name) {
    char value[FLEN_VALUE] = {};
    int status = 0;
    fits_read_key(file, TSTRING, key, value, nullptr, &status);
    if (status == KEY_NO_EXIST) {
        fits_clear_errmsg();
        return {};
    }
    check(status, name);
    return value;
}

// The pixel size from CDELTi/CUNITi, or from a CD matrix without rotation or skew
// (CD1_2 = CD2_1 = 0). Celestial axes (CTYPE RA--, DEC-, GLON … or CUNIT deg) are given in
// arcsec, as DS9 and ImageJ's users measure them. A rotated matrix or an axis without a unit
// gives none: a distance along it would need the full WCS.
PixelSpacing fits_spacing(fitsfile* file, const std::string_view name) {
    std::optional<double> d1 = keyword<double>(file, TDOUBLE, "CDELT1", name);
    std::optional<double> d2 = keyword<double>(file, TDOUBLE, "CDELT2", name);
    if (!d1 || !d2) {
        const auto cd11 = keyword<double>(file, TDOUBLE, "CD1_1", name);
        const auto cd22 = keyword<double>(file, TDOUBLE, "CD2_2", name);
        const double cd12 = keyword<double>(file, TDOUBLE, "CD1_2", name).value_or(0.0);
        const double cd21 = keyword<double>(file, TDOUBLE, "CD2_1", name).value_or(0.0);
        if (!cd11 || !cd22 || cd12 != 0.0 || cd21 != 0.0) return {};
        d1 = cd11;
        d2 = cd22;
    }
    const auto celestial = [](const std::string& ctype) {
        for (const char* prefix : {"RA--", "DEC-", "GLON", "GLAT", "ELON", "ELAT"})
            if (ctype.rfind(prefix, 0) == 0) return true;
        return false;
    };
    std::string unit1 = string_keyword(file, "CUNIT1", name);
    std::string unit2 = string_keyword(file, "CUNIT2", name);
    const bool degrees1 =
        unit1 == "deg" || (unit1.empty() && celestial(string_keyword(file, "CTYPE1", name)));
    const bool degrees2 =
        unit2 == "deg" || (unit2.empty() && celestial(string_keyword(file, "CTYPE2", name)));
    double x = std::abs(*d1), y = std::abs(*d2);
    if (degrees1) x *= 3600, unit1 = "arcsec";
    if (degrees2) y *= 3600, unit2 = "arcsec";
    // The FITS standard's micrometre, shown as everywhere else in Lacuna.
    if (unit1 == "um") unit1 = "\u00b5m";
    if (unit2 == "um") unit2 = "\u00b5m";
    if (unit1.empty() || unit1 != unit2 || !std::isfinite(x) || !std::isfinite(y) || x <= 0 ||
        y <= 0)
        return {};
    return {x, y, unit1};
}

// The time between a cube's planes: CDELT3 in CUNIT3 when that is a unit of time, or in seconds
// on a TIME axis without CUNIT3 (the FITS time paper's default). A spectral or spatial third
// axis (CUNIT3 Angstrom, m/s, ...) has none.
std::optional<FrameInterval> fits_frame_interval(fitsfile* file, const LONGLONG planes,
                                                 const std::string_view name,
                                                 std::vector<std::string>& notices) {
    if (planes < 2) return std::nullopt;
    const std::optional<double> step = keyword<double>(file, TDOUBLE, "CDELT3", name);
    if (!step) return std::nullopt;
    const std::string unit = string_keyword(file, "CUNIT3", name);
    const std::string type = string_keyword(file, "CTYPE3", name);
    const std::optional<double> per =
        unit.empty() ? (type.rfind("TIME", 0) == 0 ? std::optional(1.0) : std::nullopt)
                     : detail::seconds_per(unit);
    if (!per) return std::nullopt;
    if (!(*step > 0) || !std::isfinite(*step)) {
        notices.push_back("ignored a time axis whose CDELT3 is not a positive number");
        return std::nullopt;
    }
    char text[64];
    std::snprintf(text, sizeof text, "FITS CDELT3 = %.9g %s", *step,
                  unit.empty() ? "s (CTYPE3 TIME)" : unit.c_str());
    return FrameInterval{*step * *per, text};
}

// How the stored type maps to ours.
struct Plan {
    SampleType sample = SampleType::U8;
    bool unsigned_16 = false;  ///< BITPIX 16 with BZERO 32768: stored + 32768 as U16
};

Plan plan_for(const int bitpix, const double bscale, const double bzero,
              std::vector<std::string>& notices) {
    switch (bitpix) {
        case BYTE_IMG:
            return {SampleType::U8, false};
        case SHORT_IMG:
            if (bscale == 1.0 && bzero == 32768.0) return {SampleType::U16, true};
            return {SampleType::I16, false};
        case LONG_IMG:
            notices.push_back("32-bit integer FITS read as float");
            break;
        case DOUBLE_IMG:
            notices.push_back("64-bit float FITS read as 32-bit float");
            break;
        default:
            break;  // FLOAT_IMG
    }
    return {SampleType::F32, false};
}

// Reads the FITS row holding our row y into `out`. FITS stores the bottom row first (row 1 is
// at the bottom, as in a plot), while every other format Lacuna reads, and NativeImage, put row
// 0 at the top: our row y is FITS row height - y.
template <class Stored>
void read_row(fitsfile* file, const int datatype, const int y, const int width, const int height,
              Stored* out, const std::string_view name, const int plane) {
    // CFITSIO counts from 1; plane p (a cube's page) starts after p whole planes.
    const LONGLONG first = (LONGLONG{plane} * height + (height - 1 - y)) * width + 1;
    int any_null = 0, status = 0;
    // A null `nulval` turns off null checking: NaN stays NaN, BLANK keeps its stored value.
    fits_read_img(file, datatype, first, width, nullptr, out, &any_null, &status);
    check(status, name);
}

NativeImage read_plane(fitsfile* file, const ImageShape& shape, const Plan& plan, const int width,
                       const int height, const int plane, const std::string_view name) {
    NativeImage image(width, height, PixelFormat{plan.sample, 1});
    for (int y = 0; y < height; ++y) {
        switch (shape.bitpix) {
            case BYTE_IMG:
                read_row(file, TBYTE, y, width, height, image.samples<std::uint8_t>(y), name,
                         plane);
                break;
            case SHORT_IMG:
                if (!plan.unsigned_16) {
                    read_row(file, TSHORT, y, width, height, image.samples<std::int16_t>(y), name,
                             plane);
                } else {
                    // stored + 32768, which for 16 bits is flipping the sign bit
                    std::vector<std::int16_t> stored(static_cast<std::size_t>(width));
                    read_row(file, TSHORT, y, width, height, stored.data(), name, plane);
                    std::transform(stored.begin(), stored.end(), image.samples<std::uint16_t>(y),
                                   [](const std::int16_t v) {
                                       return static_cast<std::uint16_t>(
                                           static_cast<std::uint16_t>(v) ^ 0x8000u);
                                   });
                }
                break;
            case LONG_IMG: {
                std::vector<std::int32_t> stored(static_cast<std::size_t>(width));
                read_row(file, TINT, y, width, height, stored.data(), name, plane);
                std::transform(stored.begin(), stored.end(), image.samples<float>(y),
                               [](const std::int32_t v) { return static_cast<float>(v); });
                break;
            }
            case DOUBLE_IMG: {
                std::vector<double> stored(static_cast<std::size_t>(width));
                read_row(file, TDOUBLE, y, width, height, stored.data(), name, plane);
                // Beyond float's range becomes ±infinity explicitly (the cast would be UB).
                constexpr double kMax = std::numeric_limits<float>::max();
                std::transform(stored.begin(), stored.end(), image.samples<float>(y),
                               [](const double v) {
                                   if (v > kMax) return std::numeric_limits<float>::infinity();
                                   if (v < -kMax) return -std::numeric_limits<float>::infinity();
                                   return static_cast<float>(v);
                               });
                break;
            }
            default:
                read_row(file, TFLOAT, y, width, height, image.samples<float>(y), name, plane);
                break;
        }
    }
    return image;
}

// CFITSIO reads missing data as zeros without an error, so a file cut inside its data is caught
// here from the header: the data must reach datastart + pixels × bytes per pixel (the padding
// to a 2880-byte block may be missing). A tile-compressed image lives in a table whose size the
// padded data end gives.
void check_complete(fitsfile* file, const ImageShape& shape, const std::size_t file_bytes,
                    const std::string_view name) {
    LONGLONG header_start = 0, data_start = 0, data_end = 0;
    int status = 0, compressed = 0;
    fits_get_hduaddrll(file, &header_start, &data_start, &data_end, &status);
    check(status, name);
    compressed = fits_is_compressed_image(file, &status);
    check(status, name);
    LONGLONG needed = data_end;
    if (!compressed) {
        needed = data_start +
                 shape.width() * shape.height() * shape.planes() * (std::abs(shape.bitpix) / 8);
    }
    if (static_cast<LONGLONG>(file_bytes) < needed) {
        fail_reading(ErrorCode::Truncated, name,
                     "the FITS file is truncated (it ends before its image data does)");
    }
}

// FITS BLANK marks undefined pixels of integer images by a stored value. There is no integer
// NaN, so an image that uses its BLANK becomes float: the stored values, exact (every 8- and
// 16-bit integer is a float), and NaN where BLANK is, as astropy reads it. The calibration still
// applies to the stored values, and NaN stays NaN through it.
void blank_to_nan(std::vector<NativeImage>& pages, const LONGLONG blank, const Plan& plan,
                  std::vector<std::string>& notices) {
    const double marker = plan.unsigned_16 ? double(blank) + 32768.0 : double(blank);
    std::int64_t count = 0;
    for (const NativeImage& page : pages)
        for (int y = 0; y < page.height(); ++y)
            for (int x = 0; x < page.width(); ++x) count += page.sample(x, y, 0) == marker;
    if (count == 0) return;
    // Every page becomes float, so the stack keeps one sample type.
    for (NativeImage& page : pages) {
        NativeImage out(page.width(), page.height(), PixelFormat{SampleType::F32, 1});
        for (int y = 0; y < page.height(); ++y) {
            float* row = out.samples<float>(y);
            for (int x = 0; x < page.width(); ++x) {
                const double v = page.sample(x, y, 0);
                row[x] =
                    v == marker ? std::numeric_limits<float>::quiet_NaN() : static_cast<float>(v);
            }
        }
        page = std::move(out);
    }
    notices.push_back("the FITS BLANK value " + std::to_string(blank) + " marks " +
                      std::to_string(count) +
                      " undefined pixels: read as 32-bit float, NaN there (as astropy reads it)");
}

}  // namespace

bool fits_supported() {
    return true;
}

LoadedNative read_fits(const std::vector<std::uint8_t>& bytes, const std::string_view name) {
    if (!looks_like_fits(bytes)) {
        fail_reading(ErrorCode::Corrupt, name, "not a FITS file (it does not start with SIMPLE)");
    }
    LoadedNative loaded;
    const MemoryFits fits(bytes, name);
    fitsfile* file = fits.get();
    const ImageShape shape = find_image(file, bytes.size(), name, loaded.notices);

    // Sizes are checked before anything is allocated; LONGLONG axes are clamped into int first.
    const auto side = [](const LONGLONG n) {
        return static_cast<int>(std::clamp<LONGLONG>(n, -1, kMaxImageSide + 1));
    };
    const int width = side(shape.width());
    const int height = side(shape.height());
    try {
        check_image_size(width, height);
    } catch (const Error& e) {
        fail_reading(e.code(), name, e.what());
    }
    // A cube's planes are pages: together they get the budget of one image.
    if (double(shape.planes()) * width * height > double(kMaxImagePixels)) {
        fail_reading(ErrorCode::TooLarge, name,
                     "the FITS cube " + shape.describe() + " exceeds the limit of " +
                         std::to_string(kMaxImagePixels) + " pixels");
    }
    const int planes = static_cast<int>(shape.planes());
    check_complete(file, shape, bytes.size(), name);

    const double bscale = keyword<double>(file, TDOUBLE, "BSCALE", name).value_or(1.0);
    const double bzero = keyword<double>(file, TDOUBLE, "BZERO", name).value_or(0.0);
    const Plan plan = plan_for(shape.bitpix, bscale, bzero, loaded.notices);
    int status = 0;
    fits_set_bscale(file, 1.0, 0.0, &status);  // raw stored values; the scale is the calibration
    check(status, name);
    for (int plane = 0; plane < planes; ++plane)
        loaded.pages.push_back(read_plane(file, shape, plan, width, height, plane, name));

    loaded.spacing = fits_spacing(file, name);
    loaded.frame_interval = fits_frame_interval(file, shape.planes(), name, loaded.notices);
    Calibration& calibration = loaded.calibration;
    calibration.unit = unit_keyword(file, name);
    if (!plan.unsigned_16) {
        if (std::isfinite(bscale) && bscale != 0.0 && std::isfinite(bzero)) {
            calibration.slope = bscale;
            calibration.intercept = bzero;
        } else {
            loaded.notices.push_back("ignored an invalid FITS BSCALE or BZERO");
        }
    }
    if (shape.bitpix > 0) {
        if (const auto blank = keyword<LONGLONG>(file, TLONGLONG, "BLANK", name)) {
            blank_to_nan(loaded.pages, *blank, plan, loaded.notices);
        }
    }

    FileInfo& info = loaded.info;
    info.format = ImageFormat::Fits;
    info.width = width;
    info.height = height;
    info.channels = 1;
    info.sample = loaded.pages.front().sample_type();
    info.pages = planes;
    info.bit_depth = bit_depth(info.sample);
    info.has_alpha = false;
    info.file_bytes = bytes.size();
    return loaded;
}

namespace {

// A FITS file written into memory: CFITSIO's memory driver grows the buffer with realloc, and
// the buffer is freed here whatever happens.
class MemoryFitsOut {
  public:
    explicit MemoryFitsOut(const std::string_view name) : name_(name) {
        size_ = kFitsRecord;
        buffer_ = std::malloc(size_);
        if (buffer_ == nullptr) throw std::bad_alloc();
        fitsfile* file = nullptr;
        int status = 0;
        fits_create_memfile(&file, &buffer_, &size_, kFitsRecord, std::realloc, &status);
        handle_.reset(file);
        check_write(status);
    }
    ~MemoryFitsOut() {
        handle_.reset();  // closes first: CFITSIO may still write into the buffer
        std::free(buffer_);
    }
    MemoryFitsOut(const MemoryFitsOut&) = delete;
    MemoryFitsOut& operator=(const MemoryFitsOut&) = delete;

    [[nodiscard]] fitsfile* get() const { return handle_.get(); }

    void check_write(const int status) const {
        if (status == 0) return;
        fits_clear_errmsg();
        throw Error(ErrorCode::WriteFailed, "cannot write '" + std::string(name_) +
                                                "': CFITSIO failed (" + status_text(status) + ")");
    }

    // The finished file: the single HDU up to its padded data end.
    std::vector<std::uint8_t> bytes() {
        int status = 0;
        fits_flush_file(handle_.get(), &status);
        LONGLONG header_start = 0, data_start = 0, data_end = 0;
        fits_get_hduaddrll(handle_.get(), &header_start, &data_start, &data_end, &status);
        check_write(status);
        handle_.reset();  // closing writes nothing more after the flush
        const auto* begin = static_cast<const std::uint8_t*>(buffer_);
        return {begin, begin + std::min<std::size_t>(static_cast<std::size_t>(data_end), size_)};
    }

  private:
    void* buffer_ = nullptr;
    std::size_t size_ = 0;
    std::string_view name_;
    FitsHandle handle_;
};

// The stored type of each sample type. Unsigned 16-bit uses the FITS convention (BITPIX 16,
// BZERO 32768) where the calibration is the identity; with a calibration of its own it goes to
// 32-bit integers, whose BSCALE/BZERO can then hold the calibration, values unchanged.
struct WritePlan {
    int bitpix = BYTE_IMG;
    int datatype = TBYTE;
};

WritePlan write_plan(const SampleType sample, const Calibration& calibration) {
    switch (sample) {
        case SampleType::U8:
            return {BYTE_IMG, TBYTE};
        case SampleType::U16:
            return calibration.identity() ? WritePlan{USHORT_IMG, TUSHORT}
                                          : WritePlan{LONG_IMG, TINT};
        case SampleType::I16:
            return {SHORT_IMG, TSHORT};
        case SampleType::F32:
            return {FLOAT_IMG, TFLOAT};
    }
    return {FLOAT_IMG, TFLOAT};
}

// One channel of `image` in FITS order (bottom row first), as the plan's stored type.
template <class Stored>
std::vector<Stored> fits_plane(const NativeImage& image, const int channel) {
    std::vector<Stored> plane;
    plane.reserve(static_cast<std::size_t>(image.width()) * image.height());
    for (int y = image.height() - 1; y >= 0; --y) {
        for (int x = 0; x < image.width(); ++x) {
            plane.push_back(static_cast<Stored>(image.sample(x, y, channel)));
        }
    }
    return plane;
}

template <class Stored>
void write_planes(const MemoryFitsOut& out, const NativeImage& image, const int datatype) {
    const LONGLONG plane_size = LONGLONG{image.width()} * image.height();
    for (int c = 0; c < image.channels(); ++c) {
        std::vector<Stored> plane = fits_plane<Stored>(image, c);
        int status = 0;
        fits_write_img(out.get(), datatype, 1 + c * plane_size, plane_size, plane.data(), &status);
        out.check_write(status);
    }
}

}  // namespace

std::vector<std::uint8_t> encode_fits(const NativeImage& image, const Calibration& calibration,
                                      const PixelSpacing& spacing, const std::string_view name) {
    MemoryFitsOut out(name);
    const WritePlan plan = write_plan(image.sample_type(), calibration);
    std::vector<long> axes = {image.width(), image.height()};
    if (image.channels() > 1) axes.push_back(image.channels());
    int status = 0;
    fits_create_img(out.get(), plan.bitpix, static_cast<int>(axes.size()), axes.data(), &status);
    out.check_write(status);
    if (!calibration.identity()) {
        double slope = calibration.slope;
        double intercept = calibration.intercept;
        fits_write_key(out.get(), TDOUBLE, "BSCALE", &slope, "value = BSCALE * stored + BZERO",
                       &status);
        fits_write_key(out.get(), TDOUBLE, "BZERO", &intercept, nullptr, &status);
        out.check_write(status);
    }
    if (!calibration.unit.empty()) {
        std::string unit = calibration.unit;
        fits_write_key(out.get(), TSTRING, "BUNIT", unit.data(), "unit of the values", &status);
        out.check_write(status);
    }
    if (const std::optional<std::string> unit = fits_unit(spacing.unit); spacing.known() && unit) {
        // A linear axis in the pixel size's unit (the reader takes |CDELT|; arcsec stays arcsec).
        for (const int axis : {1, 2}) {
            double step = axis == 1 ? spacing.x : spacing.y;
            std::string u = *unit;
            const std::string n = std::to_string(axis);
            fits_write_key(out.get(), TDOUBLE, ("CDELT" + n).c_str(), &step, "pixel size", &status);
            fits_write_key(out.get(), TSTRING, ("CUNIT" + n).c_str(), u.data(), nullptr, &status);
        }
        out.check_write(status);
    }
    // The samples are written as stored: the keywords describe them, CFITSIO must not apply
    // their inverse on the way in (the unsigned 16-bit convention's own offset stays on).
    if (plan.bitpix != USHORT_IMG) fits_set_bscale(out.get(), 1.0, 0.0, &status);
    out.check_write(status);
    switch (plan.datatype) {
        case TBYTE:
            write_planes<std::uint8_t>(out, image, plan.datatype);
            break;
        case TUSHORT:
            write_planes<std::uint16_t>(out, image, plan.datatype);
            break;
        case TINT:
            write_planes<int>(out, image, plan.datatype);
            break;
        case TSHORT:
            write_planes<std::int16_t>(out, image, plan.datatype);
            break;
        default:
            write_planes<float>(out, image, plan.datatype);
            break;
    }
    return out.bytes();
}

}  // namespace lacuna::io::detail
