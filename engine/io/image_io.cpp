#include <lacuna/io/image_io.hpp>

#include "calibration_tags.hpp"
#include "codec_output.hpp"
#include "codecs.hpp"
#include "header_probe.hpp"
#include "io_messages.hpp"
#include "metadata_io.hpp"
#include "scientific_io.hpp"

#include <lacuna/core/display.hpp>
#include <lacuna/io/opencv_plugin.hpp>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>  // flags only: the codecs are in the plugin
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <fstream>
#include <optional>
#include <sstream>
#include <cmath>
#include <unistd.h>
#include <zlib.h>

namespace lacuna::io {
namespace fs = std::filesystem;

std::string_view to_string(const ImageFormat format) {
    switch (format) {
        case ImageFormat::Png:
            return "PNG";
        case ImageFormat::Jpeg:
            return "JPEG";
        case ImageFormat::Tiff:
            return "TIFF";
        case ImageFormat::Webp:
            return "WebP";
        case ImageFormat::Bmp:
            return "BMP";
        case ImageFormat::Ppm:
            return "PPM";
        case ImageFormat::Pgm:
            return "PGM";
        case ImageFormat::Pfm:
            return "PFM";
        case ImageFormat::Dicom:
            return "DICOM";
        case ImageFormat::Fits:
            return "FITS";
        case ImageFormat::Gif:
            return "GIF";
    }
    return "?";
}

std::string supported_formats_text() {
    return "PNG, JPEG, TIFF, WebP, GIF, BMP, PPM, PGM, PFM, DICOM, FITS";
}

namespace {

using detail::in_quotes;
[[noreturn]] void fail(const ErrorCode code, const std::string_view name, const std::string& what) {
    detail::fail_read(code, name, what);
}

std::vector<std::uint8_t> read_file(const fs::path& path) {
    const std::string name = path.string();
    detail::check_is_file(path, name);
    std::ifstream in(path, std::ios::binary);
    if (!in) fail(ErrorCode::Unreadable, name, std::strerror(errno));
    // One read of the stated size (a byte-at-a-time iterator cost 30 ms on a 9-MB JPEG), then
    // whatever a file that grew meanwhile still holds.
    std::error_code ec;
    const std::uintmax_t stated = fs::file_size(path, ec);
    std::vector<std::uint8_t> bytes(ec ? 0 : static_cast<std::size_t>(stated));
    in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    bytes.resize(static_cast<std::size_t>(in.gcount()));
    if (!in.bad() && (ec || bytes.size() == stated))
        bytes.insert(bytes.end(), std::istreambuf_iterator<char>(in),
                     std::istreambuf_iterator<char>());
    if (in.bad()) fail(ErrorCode::Unreadable, name, "I/O error while reading");
    return bytes;
}

// The most a gzip-compressed file may inflate to: the largest image Lacuna opens, in 64-bit
// samples, and room for its headers. A deflate stream inflates at most ~1032-fold, so a small
// file (a fuzzer's) can never ask for much.
constexpr std::size_t kMaxInflated = std::size_t(kMaxImagePixels) * 8 + (std::size_t{1} << 20);

bool is_gzip(const std::vector<std::uint8_t>& bytes) {
    return bytes.size() >= 3 && bytes[0] == 0x1F && bytes[1] == 0x8B && bytes[2] == 8;
}

// A gzip-compressed file (.fits.gz: astronomers keep FITS so) inflated in memory. Only FITS is
// opened this way: other formats compress themselves, and a gzip of them is refused by name.
std::vector<std::uint8_t> inflate_gzip(const std::vector<std::uint8_t>& bytes,
                                       const std::string_view name) {
    z_stream z{};
    if (inflateInit2(&z, 15 + 32) != Z_OK) fail(ErrorCode::Corrupt, name, "zlib cannot start");
    std::vector<std::uint8_t> out(std::min<std::size_t>(kMaxInflated, bytes.size() * 4 + 65536));
    z.next_in = const_cast<Bytef*>(bytes.data());
    z.avail_in = static_cast<uInt>(std::min<std::size_t>(bytes.size(), UINT32_MAX));
    int status = Z_OK;
    std::size_t produced = 0;
    while (status == Z_OK) {
        if (produced == out.size()) {
            if (out.size() >= kMaxInflated) {
                inflateEnd(&z);
                fail(ErrorCode::TooLarge, name,
                     "the gzip-compressed file inflates beyond " + std::to_string(kMaxInflated) +
                         " bytes");
            }
            out.resize(std::min(kMaxInflated, out.size() * 2));
        }
        z.next_out = out.data() + produced;
        z.avail_out = static_cast<uInt>(std::min<std::size_t>(out.size() - produced, UINT32_MAX));
        status = inflate(&z, Z_NO_FLUSH);
        produced = out.size() - z.avail_out;
    }
    inflateEnd(&z);
    if (status != Z_STREAM_END) {
        fail(status == Z_BUF_ERROR ? ErrorCode::Truncated : ErrorCode::Corrupt, name,
             status == Z_BUF_ERROR ? "the gzip-compressed file is truncated"
                                   : "the gzip-compressed data is corrupt");
    }
    out.resize(produced);
    if (!detail::looks_like_fits(out)) {
        fail(ErrorCode::UnsupportedFormat, name,
             "gzip-compressed files are opened only when they hold FITS (.fits.gz)");
    }
    return out;
}

// Checks format, size limits and completeness from the header before any decoder runs.
ImageFormat check_header(const std::vector<std::uint8_t>& bytes, const std::string_view name) {
    if (bytes.empty()) fail(ErrorCode::Corrupt, name, "the file is empty");
    const detail::HeaderProbe probe = detail::probe_header(bytes);
    if (!probe.format) {
        if (!probe.unsupported_name.empty()) {
            fail(ErrorCode::UnsupportedFormat, name,
                 probe.unsupported_name +
                     " files are not supported (supported: " + supported_formats_text() + ")");
        }
        fail(ErrorCode::UnsupportedFormat, name,
             "not an image in a supported format (" + supported_formats_text() + ")");
    }
    if (probe.malformed) {
        fail(ErrorCode::Corrupt, name,
             "the " + std::string(to_string(*probe.format)) + " header gives no width and height");
    }
    if (probe.width && probe.height) {
        if (*probe.width <= 0 || *probe.height <= 0) {
            fail(ErrorCode::EmptyImage, name,
                 "the image has zero size (" + std::to_string(*probe.width) + "x" +
                     std::to_string(*probe.height) + ")");
        }
        if (*probe.width > kMaxImageSide || *probe.height > kMaxImageSide ||
            *probe.width * *probe.height > kMaxImagePixels) {
            fail(ErrorCode::TooLarge, name,
                 std::to_string(*probe.width) + "x" + std::to_string(*probe.height) +
                     " exceeds the limit of " + std::to_string(kMaxImageSide) +
                     " pixels per side and " + std::to_string(kMaxImagePixels) + " pixels");
        }
    }
    if (probe.truncated) {
        fail(ErrorCode::Truncated, name,
             "the " + std::string(to_string(*probe.format)) +
                 " file is truncated (it ends before its image data does)");
    }
    return *probe.format;
}

// OpenCV's messages may end in or hold line breaks; errors are one line.
std::string one_line(std::string text) {
    std::replace(text.begin(), text.end(), '\n', ' ');
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
    return text;
}

// " (the decoder says \"...\")" when the codec printed something, else nothing.
std::string decoder_says(const std::string& line) {
    return line.empty() ? std::string() : " (the decoder says \"" + line + "\")";
}

// BMP and the Netpbm formats through OpenCV, whose own readers print little; whatever reaches
// stderr is kept off it (CodecOutput) and becomes part of Lacuna's own error, or a notice when
// the image decoded anyway.
cv::Mat decode_with_opencv(const std::vector<std::uint8_t>& bytes, const int flags,
                           const std::string_view name, std::vector<std::string>& notices) {
    cv::Mat decoded;
    std::string said;
    {
        detail::CodecOutput codec_output;
        try {
            decoded = opencv_plugin().imdecode(cv::Mat(1, static_cast<int>(bytes.size()), CV_8U,
                                                       const_cast<std::uint8_t*>(bytes.data())),
                                               flags);
        } catch (const cv::Exception& e) {
            said = codec_output.first_line();
            fail(ErrorCode::Corrupt, name,
                 "the decoder failed (" + one_line(e.err) + ")" + decoder_says(said));
        }
        said = codec_output.first_line();
    }
    if (decoded.empty())
        fail(ErrorCode::Corrupt, name, "the file is corrupt or not decodable" + decoder_says(said));
    if (!said.empty()) notices.push_back("the decoder warned: " + said);
    check_image_size(decoded.cols, decoded.rows);
    return decoded;
}

// The pages of a file as stored (not yet upright), each with its TIFF orientation: PNG, JPEG,
// TIFF, WebP and GIF through their own libraries (codecs.hpp), the rest through OpenCV. Only TIFF
// and GIF have more than one page, and only when `all_pages`.
std::vector<detail::CodecPage> decode_pages(const std::vector<std::uint8_t>& bytes,
                                            const ImageFormat format, const std::string_view name,
                                            const bool all_pages,
                                            std::vector<std::string>& notices) {
    switch (format) {
        case ImageFormat::Png:
            return {{detail::decode_png(bytes, name, notices)}};
        case ImageFormat::Jpeg:
            return {{detail::decode_jpeg(bytes, name, notices)}};
        case ImageFormat::Webp:
            return {{detail::decode_webp(bytes, name)}};
        case ImageFormat::Pfm:
            return {{detail::decode_pfm(bytes, name)}};
        case ImageFormat::Tiff:
            return detail::decode_tiff(bytes, name, all_pages, notices);
        case ImageFormat::Gif: {
            std::vector<detail::CodecPage> pages;
            for (cv::Mat& frame : detail::decode_gif(bytes, name, all_pages, notices))
                pages.push_back({std::move(frame)});
            return pages;
        }
        default:
            return {{decode_with_opencv(bytes, cv::IMREAD_UNCHANGED, name, notices)}};
    }
}

FileInfo describe(const cv::Mat& m, const ImageFormat format, const std::size_t bytes) {
    FileInfo info;
    info.format = format;
    info.width = m.cols;
    info.height = m.rows;
    info.channels = m.channels();
    info.has_alpha = m.channels() == 4 || m.channels() == 2;
    info.bit_depth = m.depth() == CV_16U || m.depth() == CV_16S   ? 16
                     : m.depth() == CV_32F || m.depth() == CV_32S ? 32
                     : m.depth() == CV_64F                        ? 64
                                                                  : 8;
    info.file_bytes = bytes;
    return info;
}

// Any depth → 8 bits per channel, with a notice for anything that was not 8-bit already.
cv::Mat to_8bit(const cv::Mat& m, std::vector<std::string>& notices) {
    if (m.depth() == CV_8U) return m;
    cv::Mat out;
    if (m.depth() == CV_16U) {
        m.convertTo(out, CV_8U, 1.0 / 257.0);
        notices.emplace_back("16-bit input converted to 8 bits per channel");
        return out;
    }
    double lo = 0;
    double hi = 0;
    cv::minMaxLoc(m.reshape(1), &lo, &hi);
    const double scale = hi > lo ? 255.0 / (hi - lo) : 1.0;
    m.convertTo(out, CV_8U, scale, -lo * scale);
    notices.emplace_back("input of " + std::to_string(describe(m, ImageFormat::Tiff, 0).bit_depth) +
                         "-bit samples mapped from [" + std::to_string(lo) + ", " +
                         std::to_string(hi) + "] to 8 bits per channel");
    return out;
}

ImageRgba8 to_rgba(const cv::Mat& m8) {
    cv::Mat rgba;
    switch (m8.channels()) {
        case 1:
            cv::cvtColor(m8, rgba, cv::COLOR_GRAY2RGBA);
            break;
        case 2: {
            std::vector<cv::Mat> planes;
            cv::split(m8, planes);
            cv::merge(std::vector<cv::Mat>{planes[0], planes[0], planes[0], planes[1]}, rgba);
            break;
        }
        case 3:
            cv::cvtColor(m8, rgba, cv::COLOR_BGR2RGBA);
            break;
        default:
            cv::cvtColor(m8, rgba, cv::COLOR_BGRA2RGBA);
            break;
    }
    ImageRgba8 image(rgba.cols, rgba.rows);
    for (int y = 0; y < rgba.rows; ++y) {
        std::memcpy(image.row(y), rgba.ptr(y), static_cast<std::size_t>(rgba.cols) * 4);
    }
    return image;
}

}  // namespace

namespace {

// The EXIF orientation (2..8) undone: the stored rows and columns turned so the picture stands
// as the camera saw it (the same transforms as OpenCV's own for JPEG), into `out` (its own
// buffer where it already has the turned size and type).
void upright_into(const cv::Mat& m, const int orientation, cv::Mat& out) {
    switch (orientation) {
        case 2:
            cv::flip(m, out, 1);
            return;
        case 3:
            cv::flip(m, out, -1);
            return;
        case 4:
            cv::flip(m, out, 0);
            return;
        case 5:
            cv::transpose(m, out);
            return;
        case 6:
            cv::rotate(m, out, cv::ROTATE_90_CLOCKWISE);
            return;
        case 7:
            cv::transpose(m, out);
            cv::flip(out, out, -1);
            return;
        case 8:
            cv::rotate(m, out, cv::ROTATE_90_COUNTERCLOCKWISE);
            return;
        default:
            m.copyTo(out);
    }
}

cv::Mat upright(const cv::Mat& m, const int orientation) {
    if (orientation < 2 || orientation > 8) return m;
    cv::Mat out;
    upright_into(m, orientation, out);
    return out;
}

// Pixels as decoded and turned upright (every page of a stack, or the first), and the file's
// metadata.
struct Decoded {
    std::vector<cv::Mat> pages;
    Metadata metadata;
    std::vector<std::string> notices;
    const cv::Mat& pixels() const { return pages.front(); }
};

// Every file opens upright, so that saving can write Orientation 1 and no viewer turns the
// pixels twice. TIFF pages are turned by their own Orientation tag; JPEG, PNG and WebP from the
// orientation exiv2 read (none when exiv2 cannot parse the file). Alpha and 16-bit samples
// survive.
Decoded decode_as_stored(const std::vector<std::uint8_t>& bytes, const ImageFormat format,
                         const std::string_view name, const bool all_pages = false) {
    detail::MetadataRead read = detail::read_metadata(bytes, format);
    Decoded decoded{{}, std::move(read.metadata), std::move(read.notices)};
    bool turned = false;
    for (detail::CodecPage& page : decode_pages(bytes, format, name, all_pages, decoded.notices)) {
        const int orientation = format == ImageFormat::Tiff ? page.orientation
                                : read.parsed               ? read.orientation
                                                            : 1;
        turned = turned || orientation != 1;
        decoded.pages.push_back(upright(page.pixels, orientation));
    }
    decoded.metadata.orientation_applied = turned;
    return decoded;
}

LoadedImage to_loaded(Decoded decoded, const ImageFormat format, const std::size_t bytes) {
    LoadedImage loaded;
    loaded.info = describe(decoded.pixels(), format, bytes);
    loaded.notices = std::move(decoded.notices);
    loaded.image = to_rgba(to_8bit(decoded.pixels(), loaded.notices));
    loaded.metadata = std::move(decoded.metadata);
    return loaded;
}

}  // namespace

namespace {

bool is_scientific(const ImageFormat format) {
    return format == ImageFormat::Dicom || format == ImageFormat::Fits;
}

LoadedNative decode_scientific(const std::vector<std::uint8_t>& bytes, const ImageFormat format,
                               const std::string_view name) {
    LoadedNative loaded = format == ImageFormat::Dicom ? detail::read_dicom(bytes, name)
                                                       : detail::read_fits(bytes, name);
    loaded.info.file_bytes = bytes.size();
    return loaded;
}

SampleType sample_type_of(const int depth, std::vector<std::string>& notices) {
    switch (depth) {
        case CV_8U:
            return SampleType::U8;
        case CV_16U:
            return SampleType::U16;
        case CV_16S:
            return SampleType::I16;
        case CV_32F:
            return SampleType::F32;
        case CV_8S:
            notices.emplace_back("signed 8-bit samples read as signed 16-bit");
            return SampleType::I16;
        default:
            notices.emplace_back("samples read as 32-bit float");
            return SampleType::F32;
    }
}

int cv_depth(const SampleType type) {
    switch (type) {
        case SampleType::U8:
            return CV_8U;
        case SampleType::U16:
            return CV_16U;
        case SampleType::I16:
            return CV_16S;
        case SampleType::F32:
            return CV_32F;
    }
    return CV_8U;
}

// OpenCV's B, G, R(, A) (or grey + alpha) → a NativeImage in R, G, B(, A) of the same depth.
NativeImage to_native(const cv::Mat& decoded, std::vector<std::string>& notices) {
    const SampleType type = sample_type_of(decoded.depth(), notices);
    cv::Mat m = decoded;
    if (cv_depth(type) != m.depth()) decoded.convertTo(m, cv_depth(type));
    const int in_c = m.channels();
    const int out_c = in_c == 2 ? 4 : std::min(in_c, 4);
    cv::Mat ordered(m.rows, m.cols, CV_MAKETYPE(m.depth(), out_c));
    // from → to pairs: grey+alpha spreads grey over R, G, B; colour swaps B and R.
    std::vector<int> pairs;
    if (in_c == 1) pairs = {0, 0};
    if (in_c == 2) pairs = {0, 0, 0, 1, 0, 2, 1, 3};
    if (in_c == 3) pairs = {2, 0, 1, 1, 0, 2};
    if (in_c >= 4) pairs = {2, 0, 1, 1, 0, 2, 3, 3};
    cv::mixChannels(&m, 1, &ordered, 1, pairs.data(), pairs.size() / 2);
    NativeImage out(m.cols, m.rows, {type, out_c});
    for (int y = 0; y < m.rows; ++y) std::memcpy(out.row(y), ordered.ptr(y), out.row_bytes());
    return out;
}

// A NativeImage as OpenCV wants to encode it: B, G, R(, A).
cv::Mat to_mat(const NativeImage& image) {
    const int c = image.channels();
    cv::Mat rgb(image.height(), image.width(), CV_MAKETYPE(cv_depth(image.sample_type()), c));
    for (int y = 0; y < image.height(); ++y)
        std::memcpy(rgb.ptr(y), image.row(y), image.row_bytes());
    if (c == 1) return rgb;
    cv::Mat bgr(rgb.size(), rgb.type());
    const std::vector<int> pairs =
        c == 3 ? std::vector<int>{0, 2, 1, 1, 2, 0} : std::vector<int>{0, 2, 1, 1, 2, 0, 3, 3};
    cv::mixChannels(&rgb, 1, &bgr, 1, pairs.data(), pairs.size() / 2);
    return bgr;
}

LoadedNative native_from_mats(const std::vector<cv::Mat>& pages, const ImageFormat format,
                              const std::size_t bytes, Metadata metadata,
                              std::vector<std::string> notices) {
    LoadedNative loaded;
    loaded.metadata = std::move(metadata);
    loaded.notices = std::move(notices);
    for (const cv::Mat& page : pages) {
        if (!loaded.pages.empty() &&
            (page.size() != pages.front().size() || page.type() != pages.front().type())) {
            loaded.notices.push_back("page " + std::to_string(loaded.pages.size() + 1) +
                                     " and later differ in size or type from page 1: only the "
                                     "first " +
                                     std::to_string(loaded.pages.size()) + " page(s) opened");
            break;
        }
        loaded.pages.push_back(to_native(page, loaded.notices));
    }
    loaded.info = describe(pages.front(), format, bytes);
    loaded.info.sample = loaded.pages.front().sample_type();
    loaded.info.channels = loaded.pages.front().channels();
    loaded.info.pages = static_cast<int>(loaded.pages.size());
    return loaded;
}

// The 8-bit view read_image gives of a DICOM or FITS file: its own window, else auto-contrast.
LoadedImage scientific_as_rgba(LoadedNative native) {
    const NativeImage& page = native.pages.front();
    const ImageF32 values = measurement_plane(page, native.calibration);
    const auto [lo, hi] = native.window ? *native.window : auto_window(values.view());
    LoadedImage loaded;
    loaded.info = native.info;
    loaded.notices = std::move(native.notices);
    loaded.image = render_display(page, native.calibration, {lo, hi}, Lut::Grey);
    std::ostringstream text;
    text << std::string(to_string(native.info.format)) << " " << to_string(page.sample_type())
         << " samples shown as 8 bits through the window " << lo << " .. " << hi;
    if (!native.calibration.unit.empty()) text << " " << native.calibration.unit;
    loaded.notices.push_back(text.str());
    return loaded;
}

}  // namespace

namespace {

// A JPEG's rows straight from libjpeg-turbo into the caller's (R, G, B, A), with what
// decode_as_stored and to_loaded report: the metadata's orientation, info of the upright size.
StreamedPhoto stream_jpeg(const std::vector<std::uint8_t>& bytes, const std::string_view name,
                          const PhotoRows& rows) {
    detail::MetadataRead read = detail::read_metadata(bytes, ImageFormat::Jpeg);
    StreamedPhoto out{{}, std::move(read.metadata), std::move(read.notices)};
    const int orientation = read.parsed ? read.orientation : 1;
    const bool turns = orientation >= 5 && orientation <= 8;
    detail::decode_jpeg_rgba(
        bytes, name, out.notices,
        {[&](const int width, const int height, const bool grey) {
             out.info.format = ImageFormat::Jpeg;
             out.info.width = turns ? height : width;
             out.info.height = turns ? width : height;
             out.info.channels = grey ? 1 : 3;
             out.info.file_bytes = bytes.size();
             rows.begin(width, height, orientation);
         },
         [&](const int y) { return reinterpret_cast<std::uint8_t*>(rows.row(y)); }, rows.done});
    out.metadata.orientation_applied = orientation != 1;
    return out;
}

// An RGBA image turned upright (upright() on its pixels, written straight into the result).
ImageRgba8 upright_rgba(ImageRgba8 stored, const int orientation) {
    if (orientation < 2 || orientation > 8) return stored;
    const bool turns = orientation >= 5;
    ImageRgba8 out(turns ? stored.height() : stored.width(),
                   turns ? stored.width() : stored.height());
    const cv::Mat from(stored.height(), stored.width(), CV_8UC4, stored.row(0), stored.pitch());
    cv::Mat to(out.height(), out.width(), CV_8UC4, out.row(0), out.pitch());
    upright_into(from, orientation, to);
    return out;
}

// read_image's JPEG: decoded straight into the RGBA image (not B, G, R first, then converted
// and copied: two whole-image copies fewer), then turned upright. The same pixels.
LoadedImage decode_jpeg_image(const std::vector<std::uint8_t>& bytes, const std::string_view name) {
    ImageRgba8 stored;
    int orientation = 1;
    StreamedPhoto read = stream_jpeg(bytes, name,
                                     {[&](const int width, const int height, const int o) {
                                          stored = ImageRgba8(width, height);
                                          orientation = o;
                                      },
                                      [&](const int y) { return stored.row(y); },
                                      {}});
    LoadedImage loaded;
    loaded.image = upright_rgba(std::move(stored), orientation);
    loaded.info = read.info;
    loaded.metadata = std::move(read.metadata);
    loaded.notices = std::move(read.notices);
    return loaded;
}

}  // namespace

std::optional<StreamedPhoto> read_photo_rows(const fs::path& path, const PhotoRows& rows) {
    const std::string name = path.string();
    {
        // Only a JPEG is read here: the others are not read twice.
        std::ifstream in(path, std::ios::binary);
        unsigned char magic[3] = {};
        if (in && in.read(reinterpret_cast<char*>(magic), 3) &&
            !(magic[0] == 0xFF && magic[1] == 0xD8 && magic[2] == 0xFF))
            return std::nullopt;
    }
    const std::vector<std::uint8_t> bytes = read_file(path);
    if (check_header(bytes, name) != ImageFormat::Jpeg) return std::nullopt;
    return stream_jpeg(bytes, name, rows);
}

LoadedImage decode_image(const std::vector<std::uint8_t>& bytes, const std::string_view name) {
    if (is_gzip(bytes)) {
        LoadedImage loaded = decode_image(inflate_gzip(bytes, name), name);
        loaded.info.file_bytes = bytes.size();
        return loaded;
    }
    const ImageFormat format = check_header(bytes, name);
    if (is_scientific(format)) return scientific_as_rgba(decode_scientific(bytes, format, name));
    if (format == ImageFormat::Jpeg) return decode_jpeg_image(bytes, name);
    return to_loaded(decode_as_stored(bytes, format, name), format, bytes.size());
}

LoadedImage read_image(const fs::path& path) {
    return decode_image(read_file(path), path.string());
}

Mask read_mask(const fs::path& path) {
    return mask_from_image(read_image(path).image.view());
}

namespace {
// The calibration ImageJ (and Lacuna) write into a TIFF's description (calibration_tags.hpp),
// and ImageJ's frame interval.
LoadedNative with_tiff_calibration(LoadedNative loaded, const std::span<const std::uint8_t> bytes) {
    if (const std::optional<std::string> text = detail::tiff_description(bytes)) {
        if (const std::optional<Calibration> c = detail::calibration_from_imagej(*text))
            loaded.calibration = *c;
        // A time between pages means something only for a stack.
        if (loaded.pages.size() > 1)
            loaded.frame_interval = detail::frame_interval_from_imagej(*text);
    }
    loaded.spacing = detail::tiff_spacing(bytes);
    return loaded;
}
}  // namespace

LoadedNative decode_native(const std::vector<std::uint8_t>& bytes, const std::string_view name) {
    if (is_gzip(bytes)) {
        LoadedNative loaded = decode_native(inflate_gzip(bytes, name), name);
        loaded.info.file_bytes = bytes.size();
        return loaded;
    }
    const ImageFormat format = check_header(bytes, name);
    if (is_scientific(format)) return decode_scientific(bytes, format, name);
    // A TIFF or a GIF may hold a stack: every page, each turned upright.
    Decoded decoded = decode_as_stored(bytes, format, name, true);
    LoadedNative loaded = native_from_mats(decoded.pages, format, bytes.size(),
                                           std::move(decoded.metadata), std::move(decoded.notices));
    return format == ImageFormat::Tiff ? with_tiff_calibration(std::move(loaded), bytes) : loaded;
}

LoadedNative read_native(const fs::path& path) {
    return decode_native(read_file(path), path.string());
}

LoadedMeasurement read_measurement(const fs::path& path) {
    LoadedNative native = read_native(path);
    LoadedMeasurement loaded;
    loaded.info = native.info;
    loaded.notices = std::move(native.notices);
    loaded.calibration = native.calibration;
    // Colour measurement images are rare; luminance (Rec. 709) keeps one value per pixel.
    if (native.pages.front().channels() > 1)
        loaded.notices.emplace_back("colour input reduced to Rec. 709 luminance");
    if (native.pages.size() > 1)
        loaded.notices.push_back("page 1 of " + std::to_string(native.pages.size()) + " used");
    loaded.values = measurement_plane(native.pages.front(), native.calibration);
    return loaded;
}

ImageFormat format_for_path(const fs::path& path) {
    std::string ext = path.extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    if (ext == ".png") return ImageFormat::Png;
    if (ext == ".jpg" || ext == ".jpeg") return ImageFormat::Jpeg;
    if (ext == ".tif" || ext == ".tiff") return ImageFormat::Tiff;
    if (ext == ".webp") return ImageFormat::Webp;
    if (ext == ".bmp") return ImageFormat::Bmp;
    if (ext == ".ppm") return ImageFormat::Ppm;
    if (ext == ".pgm") return ImageFormat::Pgm;
    if (ext == ".pfm") return ImageFormat::Pfm;
    if (ext == ".fits" || ext == ".fit" || ext == ".fts") return ImageFormat::Fits;
    throw Error(ErrorCode::UnsupportedFormat,
                "cannot write " + in_quotes(path.string()) + ": unsupported file extension '" +
                    ext +
                    "' (supported: .png .jpg .jpeg .tif .tiff .webp .bmp .ppm .pgm .pfm .fits)");
}

namespace {
bool has_transparency(const ImageView<const Rgba8> image) {
    for (int y = 0; y < image.height; ++y) {
        const Rgba8* r = image.row(y);
        if (std::any_of(r, r + image.width, [](const Rgba8 p) { return p.a != 255; })) return true;
    }
    return false;
}

bool format_has_alpha(const ImageFormat f) {
    return f == ImageFormat::Png || f == ImageFormat::Tiff || f == ImageFormat::Webp;
}

std::string encoder_extension(const ImageFormat f) {
    switch (f) {
        case ImageFormat::Png:
            return ".png";
        case ImageFormat::Jpeg:
            return ".jpg";
        case ImageFormat::Tiff:
            return ".tiff";
        case ImageFormat::Webp:
            return ".webp";
        case ImageFormat::Bmp:
            return ".bmp";
        case ImageFormat::Ppm:
            return ".ppm";
        case ImageFormat::Pgm:
            return ".pgm";
        case ImageFormat::Pfm:
            return ".pfm";
        case ImageFormat::Dicom:
        case ImageFormat::Fits:
        case ImageFormat::Gif:
            break;  // read only: format_for_path never names them
    }
    return ".png";
}

// PNG, TIFF, JPEG and WebP through their libraries, PFM by our own writer (codecs.hpp); the rest
// through imencode, with its failures (false or an exception) turned into WriteFailed.
std::vector<std::uint8_t> encode_mat(const cv::Mat& samples, const ImageFormat format,
                                     std::vector<int> params = {},
                                     const PixelSpacing* spacing = nullptr) {
    if (format == ImageFormat::Png) return detail::encode_png(samples);
    if (format == ImageFormat::Tiff) return detail::encode_tiff(samples, spacing);
    if (format == ImageFormat::Pfm) return detail::encode_pfm(samples);
    if (format == ImageFormat::Jpeg) {
        int quality = 95;  // OpenCV's default, which callers without options had
        for (std::size_t i = 0; i + 1 < params.size(); i += 2)
            if (params[i] == cv::IMWRITE_JPEG_QUALITY) quality = params[i + 1];
        return detail::encode_jpeg(samples, quality);
    }
    if (format == ImageFormat::Webp) {
        bool lossless = false;  // quality 101: OpenCV's way of asking for lossless, kept
        for (std::size_t i = 0; i + 1 < params.size(); i += 2)
            if (params[i] == cv::IMWRITE_WEBP_QUALITY) lossless = params[i + 1] > 100;
        return detail::encode_webp(samples, lossless);
    }
    std::vector<std::uint8_t> bytes;
    bool ok = false;
    try {
        ok = opencv_plugin().imencode(encoder_extension(format), samples, bytes, params);
    } catch (const cv::Exception& e) {
        throw Error(ErrorCode::WriteFailed,
                    "cannot encode " + std::string(to_string(format)) + ": " + e.msg);
    }
    if (!ok) throw Error(ErrorCode::WriteFailed, "cannot encode " + std::string(to_string(format)));
    return bytes;
}

std::vector<std::uint8_t> encode(const ImageView<const Rgba8> image, const ImageFormat format,
                                 const WriteOptions& options, std::vector<std::string>& notices) {
    check_image_size(image.width, image.height);
    const cv::Mat rgba(image.height, image.width, CV_8UC4, const_cast<Rgba8*>(image.data),
                       image.pitch);
    const bool transparent = has_transparency(image);
    cv::Mat out;
    if (format == ImageFormat::Pgm) {
        cv::cvtColor(rgba, out, cv::COLOR_RGBA2GRAY);
    } else if (transparent && format_has_alpha(format)) {
        cv::cvtColor(rgba, out, cv::COLOR_RGBA2BGRA);
    } else {
        cv::cvtColor(rgba, out, cv::COLOR_RGBA2BGR);
    }
    if (transparent && !format_has_alpha(format)) {
        notices.emplace_back("transparency dropped: " + std::string(to_string(format)) +
                             " has no alpha channel");
    }
    std::vector<int> params;
    if (format == ImageFormat::Jpeg)
        params = {cv::IMWRITE_JPEG_QUALITY, std::clamp(options.jpeg_quality, 1, 100)};
    if (format == ImageFormat::Webp)
        params = {cv::IMWRITE_WEBP_QUALITY, options.webp_lossless ? 101 : 90};
    return encode_mat(out, format, params);
}

// Writes to a unique temporary file next to `path`, flushes it to disk, then renames it over
// `path`: readers see the old file or the new one, never a partial one.
void write_atomically(const fs::path& path, const std::string_view bytes) {
    const std::string name = path.string();
    const fs::path dir = path.parent_path().empty() ? fs::path(".") : path.parent_path();
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
        throw Error(ErrorCode::WriteFailed, "cannot write " + in_quotes(name) + ": directory " +
                                                in_quotes(dir.string()) + " does not exist");
    }
    if (fs::is_directory(path, ec)) {
        throw Error(ErrorCode::WriteFailed,
                    "cannot write " + in_quotes(name) + ": it is a directory");
    }
    // A hidden sibling, so the rename stays on one file system. (Built piecewise: GCC 12 warns
    // falsely with -Wrestrict on "." + std::string.)
    std::string temp_name(1, '.');
    temp_name += path.filename().string();
    temp_name += ".lacuna-XXXXXX";
    std::string temp = (dir / temp_name).string();
    const int fd = ::mkstemp(temp.data());
    if (fd < 0) {
        throw Error(ErrorCode::WriteFailed,
                    "cannot write " + in_quotes(name) + ": " + std::strerror(errno));
    }
    std::size_t written = 0;
    while (written < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        written += static_cast<std::size_t>(n);
    }
    const int saved_errno = errno;
    const bool complete = written == bytes.size() && ::fsync(fd) == 0;
    ::fchmod(fd, 0644);
    ::close(fd);
    if (!complete || std::rename(temp.c_str(), path.c_str()) != 0) {
        const int err = complete ? errno : saved_errno;
        ::unlink(temp.c_str());
        throw Error(ErrorCode::WriteFailed,
                    "cannot write " + in_quotes(name) + ": " + std::strerror(err));
    }
}
}  // namespace

namespace {

// The metadata goes into the encoded bytes, before anything reaches the disk.
std::vector<std::uint8_t> with_metadata(std::vector<std::uint8_t> encoded, const ImageFormat format,
                                        const WriteOptions& options, const int width,
                                        const int height, std::vector<std::string>& notices) {
    if (options.metadata == nullptr) return encoded;
    return detail::embed_metadata(std::move(encoded), format, *options.metadata, width, height,
                                  notices);
}

// A measurement's calibration goes into a TIFF as ImageJ writes it (calibration_tags.hpp), after
// the metadata, so that a description the source file carried does not replace it.
std::vector<std::uint8_t> with_calibration(std::vector<std::uint8_t> encoded,
                                           const ImageFormat format, const WriteOptions& options) {
    if (format != ImageFormat::Tiff) return encoded;
    const Calibration c = options.calibration ? *options.calibration : Calibration{};
    const PixelSpacing spacing = options.spacing ? *options.spacing : PixelSpacing{};
    if (c.identity() && c.unit.empty() && !spacing.known()) return encoded;
    return detail::tiff_with_description(encoded, detail::imagej_description(c, spacing));
}

void write_bytes(const fs::path& path, const std::vector<std::uint8_t>& bytes) {
    write_atomically(path, {reinterpret_cast<const char*>(bytes.data()), bytes.size()});
}

// FITS keeps every sample type and the calibration (options.calibration), not the metadata.
std::vector<std::string> write_fits(const fs::path& path, const NativeImage& image,
                                    const WriteOptions& options) {
    std::vector<std::string> notices;
    const Calibration identity;
    const Calibration& calibration =
        options.calibration != nullptr ? *options.calibration : identity;
    const PixelSpacing spacing = options.spacing ? *options.spacing : PixelSpacing{};
    if (spacing.known() && !detail::fits_unit(spacing.unit))
        notices.push_back("the pixel size's unit '" + spacing.unit +
                          "' is not a FITS unit (ASCII); CDELT/CUNIT left out");
    std::vector<std::uint8_t> bytes =
        detail::encode_fits(image, calibration, spacing, path.string());
    bytes = with_metadata(std::move(bytes), ImageFormat::Fits, options, image.width(),
                          image.height(), notices);
    write_bytes(path, bytes);
    return notices;
}

}  // namespace

std::vector<std::uint8_t> encode_image(const ImageView<const Rgba8> image, const ImageFormat format,
                                       const WriteOptions& options) {
    std::vector<std::string> ignored;
    return with_metadata(encode(image, format, options, ignored), format, options, image.width,
                         image.height, ignored);
}

std::vector<std::string> write_image(const fs::path& path, const ImageView<const Rgba8> image,
                                     const WriteOptions& options) {
    const ImageFormat format = format_for_path(path);
    if (format == ImageFormat::Fits) {
        check_image_size(image.width, image.height);
        const NativeImage rgba = to_native(image);
        // An opaque photo has no alpha plane to keep: three planes, as FITS colour images have.
        if (has_transparency(image)) return write_fits(path, rgba, options);
        return write_fits(path, convert(rgba, {SampleType::U8, 3}), options);
    }
    std::vector<std::string> notices;
    const std::vector<std::uint8_t> bytes =
        with_metadata(encode(image, format, options, notices), format, options, image.width,
                      image.height, notices);
    write_bytes(path, bytes);
    return notices;
}

namespace {

// Formats whose OpenCV encoder writes one 8-bit grey channel as grey.
bool holds_grey8(const ImageFormat format) {
    return format == ImageFormat::Png || format == ImageFormat::Tiff ||
           format == ImageFormat::Jpeg || format == ImageFormat::Pgm || format == ImageFormat::Bmp;
}

// True if `format` stores samples of this depth and channel count without narrowing.
bool holds_natively(const ImageFormat format, const int depth, const int channels) {
    switch (format) {
        case ImageFormat::Png:
            return depth == CV_16U && (channels == 1 || channels == 3 || channels == 4);
        case ImageFormat::Tiff:
            return (depth == CV_16U || depth == CV_16S || depth == CV_32F) &&
                   (channels == 1 || channels == 3 || channels == 4);
        case ImageFormat::Pgm:
            return depth == CV_16U && channels == 1;
        case ImageFormat::Ppm:
            return depth == CV_16U && channels == 3;
        case ImageFormat::Pfm:
            return depth == CV_32F && (channels == 1 || channels == 3);
        default:
            return false;
    }
}

}  // namespace

bool format_holds(const ImageFormat format, const SampleType sample, const int channels) {
    if (format == ImageFormat::Fits) return detail::fits_supported();
    if (sample == SampleType::U8) return format != ImageFormat::Pfm;
    return holds_natively(format, cv_depth(sample), channels);
}

bool format_keeps_calibration(const ImageFormat format) {
    return (format == ImageFormat::Fits && detail::fits_supported()) || format == ImageFormat::Tiff;
}

namespace {

// What an opaque alpha holds at a depth: the top of its sample type's range (1 for float).
double opaque_alpha(const int depth) {
    for (const SampleType type : {SampleType::U16, SampleType::I16, SampleType::F32})
        if (cv_depth(type) == depth) return type_range(type).second;
    return type_range(SampleType::U8).second;
}

// B, G, R, A samples deeper than 8 bits for a format that holds them as B, G, R but has no
// alpha: the alpha is dropped (with the notice 8-bit images get when it was not opaque) and the
// colour keeps its depth, where narrowing the whole picture to 8 bits lost precision for the
// sake of a channel the file cannot keep anyway. Empty when that does not apply.
std::optional<cv::Mat> deep_colour_without_alpha(const cv::Mat& bgra, const ImageFormat format,
                                                 std::vector<std::string>& notices) {
    if (bgra.channels() != 4 || bgra.depth() == CV_8U || !holds_natively(format, bgra.depth(), 3))
        return std::nullopt;
    cv::Mat alpha;
    cv::extractChannel(bgra, alpha, 3);
    double lowest = 0;
    cv::minMaxLoc(alpha, &lowest);
    if (lowest < opaque_alpha(bgra.depth()))
        notices.push_back("transparency dropped: " + std::string(to_string(format)) +
                          " has no alpha channel");
    cv::Mat bgr;
    cv::cvtColor(bgra, bgr, cv::COLOR_BGRA2BGR);
    return bgr;
}

}  // namespace

ConvertResult convert_image(const fs::path& in, const fs::path& out, const WriteOptions& options) {
    const ImageFormat out_format = format_for_path(out);
    const std::string name = in.string();
    const std::vector<std::uint8_t> bytes = read_file(in);
    const ImageFormat in_format = check_header(bytes, name);
    Decoded decoded = decode_as_stored(bytes, in_format, name);
    const cv::Mat pixels = decoded.pixels();
    const Metadata metadata = decoded.metadata;
    WriteOptions with_source = options;
    with_source.metadata = &metadata;
    ConvertResult result;
    result.width = pixels.cols;
    result.height = pixels.rows;
    if (pixels.depth() != CV_8U && holds_natively(out_format, pixels.depth(), pixels.channels())) {
        result.notices = std::move(decoded.notices);
        write_bytes(out, with_metadata(encode_mat(pixels, out_format), out_format, with_source,
                                       pixels.cols, pixels.rows, result.notices));
        result.bit_depth = describe(pixels, in_format, 0).bit_depth;
        return result;
    }
    // Deep colour with an alpha the format cannot keep; the decoder's notices are only added to.
    if (const std::optional<cv::Mat> bgr =
            deep_colour_without_alpha(pixels, out_format, decoded.notices)) {
        result.notices = std::move(decoded.notices);
        write_bytes(out, with_metadata(encode_mat(*bgr, out_format), out_format, with_source,
                                       bgr->cols, bgr->rows, result.notices));
        result.bit_depth = describe(*bgr, in_format, 0).bit_depth;
        return result;
    }
    LoadedImage loaded = to_loaded(std::move(decoded), in_format, bytes.size());
    result.notices = std::move(loaded.notices);
    if (loaded.info.bit_depth != 8)
        result.notices.push_back(std::string(to_string(out_format)) + " cannot hold " +
                                 std::to_string(loaded.info.bit_depth) + "-bit " +
                                 (loaded.info.channels == 1 ? "grey" : "colour") +
                                 " samples here: written with 8 bits per channel");
    for (std::string& n : write_image(out, loaded.image.view(), with_source))
        result.notices.push_back(std::move(n));
    return result;
}

namespace {

// Samples narrowed to 8 bits for a format that cannot hold them: 16-bit ÷ 257 (signed shifted by
// 32768 first), float with its finite min..max mapped to 0..255. The notice says which.
ImageRgba8 narrow_to_rgba8(const NativeImage& image, const ImageFormat format,
                           std::vector<std::string>& notices) {
    // 8-bit colour is written as it is (only the channel layout changes); 16-bit ÷ 257.
    double lo = 0, scale = image.sample_type() == SampleType::U8 ? 1.0 : 1.0 / 257.0;
    std::ostringstream how;
    if (image.sample_type() == SampleType::I16) lo = -32768;
    if (image.sample_type() == SampleType::F32) {
        const ValueStats stats = value_stats(measurement_plane(image).view());
        lo = stats.min;
        scale = stats.max > stats.min ? 255.0 / (stats.max - stats.min) : 1.0;
        how << " (values " << stats.min << " .. " << stats.max << " mapped to 0 .. 255)";
    }
    if (image.sample_type() != SampleType::U8)
        notices.push_back(std::string(to_string(format)) + " cannot hold " +
                          describe(image.format()) + " samples: written with 8 bits per channel" +
                          how.str());
    const bool grey = image.channels() == 1;
    ImageRgba8 out(image.width(), image.height());
    const double alpha_scale = image.sample_type() == SampleType::F32
                                   ? 255.0
                                   : 255.0 / type_range(image.sample_type()).second;
    for (int y = 0; y < image.height(); ++y) {
        for (int x = 0; x < image.width(); ++x) {
            std::uint8_t c[3];
            for (int k = 0; k < 3; ++k) {
                const double v = (image.sample(x, y, grey ? 0 : k) - lo) * scale;
                c[k] = static_cast<std::uint8_t>(
                    std::isnan(v) ? 0 : std::lround(std::clamp(v, 0.0, 255.0)));
            }
            const double a = image.channels() == 4 ? image.sample(x, y, 3) * alpha_scale : 255.0;
            out.at(x, y) = {c[0], c[1], c[2],
                            static_cast<std::uint8_t>(std::lround(std::clamp(a, 0.0, 255.0)))};
        }
    }
    return out;
}

}  // namespace

std::vector<std::string> write_native(const fs::path& path, const NativeImage& image,
                                      const WriteOptions& options) {
    const ImageFormat format = format_for_path(path);
    if (image.empty())
        throw Error(ErrorCode::EmptyImage,
                    "cannot write " + in_quotes(path.string()) + ": the image is empty");
    if (format == ImageFormat::Fits) return write_fits(path, image, options);
    if (image.sample_type() == SampleType::U8 && image.channels() == 1 && holds_grey8(format)) {
        // 8-bit grey stays one channel where the format has grey (it was written as RGB).
        std::vector<std::string> notices;
        std::vector<int> params;
        if (format == ImageFormat::Jpeg)
            params = {cv::IMWRITE_JPEG_QUALITY, std::clamp(options.jpeg_quality, 1, 100)};
        write_bytes(path,
                    with_calibration(
                        with_metadata(encode_mat(to_mat(image), format, params, options.spacing),
                                      format, options, image.width(), image.height(), notices),
                        format, options));
        return notices;
    }
    if (image.sample_type() != SampleType::U8 &&
        holds_natively(format, cv_depth(image.sample_type()), image.channels())) {
        std::vector<std::string> notices;
        write_bytes(
            path,
            with_calibration(with_metadata(encode_mat(to_mat(image), format, {}, options.spacing),
                                           format, options, image.width(), image.height(), notices),
                             format, options));
        return notices;
    }
    std::vector<std::string> notices;
    if (const std::optional<cv::Mat> bgr =
            deep_colour_without_alpha(to_mat(image), format, notices)) {
        write_bytes(path, with_calibration(
                              with_metadata(encode_mat(*bgr, format, {}, options.spacing), format,
                                            options, image.width(), image.height(), notices),
                              format, options));
        return notices;
    }
    const ImageRgba8 narrowed = narrow_to_rgba8(image, format, notices);
    for (std::string& n : write_image(path, narrowed.view(), options))
        notices.push_back(std::move(n));
    return notices;
}

void write_file_atomically(const fs::path& path, const std::string_view bytes) {
    write_atomically(path, bytes);
}

bool same_file(const fs::path& a, const fs::path& b) {
    std::error_code ec;
    return fs::exists(a, ec) && fs::exists(b, ec) && fs::equivalent(a, b, ec);
}

}  // namespace lacuna::io
