#include <lacuna/io/image_io.hpp>

#include "header_probe.hpp"

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <fstream>
#include <unistd.h>

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
    }
    return "?";
}

std::string supported_formats_text() {
    return "PNG, JPEG, TIFF, WebP, BMP, PPM, PGM";
}

namespace {

std::string in_quotes(const std::string_view name) {
    // Appended piecewise: GCC 12 warns falsely (-Wrestrict) on "'" + std::string(...).
    std::string text(1, '\'');
    text.append(name);
    text.push_back('\'');
    return text;
}

[[noreturn]] void fail(const ErrorCode code, const std::string_view name, const std::string& what) {
    throw Error(code, "cannot read " + in_quotes(name) + ": " + what);
}

std::vector<std::uint8_t> read_file(const fs::path& path) {
    const std::string name = path.string();
    std::error_code ec;
    const fs::file_status status = fs::status(path, ec);
    if (!fs::exists(status)) fail(ErrorCode::NotFound, name, "no such file");
    if (fs::is_directory(status)) fail(ErrorCode::Unreadable, name, "it is a directory");
    std::ifstream in(path, std::ios::binary);
    if (!in) fail(ErrorCode::Unreadable, name, std::strerror(errno));
    std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                    std::istreambuf_iterator<char>());
    if (in.bad()) fail(ErrorCode::Unreadable, name, "I/O error while reading");
    return bytes;
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

cv::Mat decode(const std::vector<std::uint8_t>& bytes, const int flags,
               const std::string_view name) {
    cv::Mat decoded;
    try {
        decoded = cv::imdecode(cv::Mat(1, static_cast<int>(bytes.size()), CV_8U,
                                       const_cast<std::uint8_t*>(bytes.data())),
                               flags);
    } catch (const cv::Exception& e) {
        fail(ErrorCode::Corrupt, name, "the decoder failed (" + e.msg + ")");
    }
    if (decoded.empty()) fail(ErrorCode::Corrupt, name, "the file is corrupt or not decodable");
    check_image_size(decoded.cols, decoded.rows);
    return decoded;
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

// JPEGs (phone photos) carry their orientation in EXIF: IMREAD_COLOR applies it. Other formats
// are read unchanged so that alpha and 16-bit samples survive.
cv::Mat decode_as_stored(const std::vector<std::uint8_t>& bytes, const ImageFormat format,
                         const std::string_view name) {
    return decode(bytes, format == ImageFormat::Jpeg ? cv::IMREAD_COLOR : cv::IMREAD_UNCHANGED,
                  name);
}

LoadedImage to_loaded(const cv::Mat& decoded, const ImageFormat format, const std::size_t bytes) {
    LoadedImage loaded;
    loaded.info = describe(decoded, format, bytes);
    loaded.image = to_rgba(to_8bit(decoded, loaded.notices));
    return loaded;
}

}  // namespace

LoadedImage decode_image(const std::vector<std::uint8_t>& bytes, const std::string_view name) {
    const ImageFormat format = check_header(bytes, name);
    return to_loaded(decode_as_stored(bytes, format, name), format, bytes.size());
}

LoadedImage read_image(const fs::path& path) {
    return decode_image(read_file(path), path.string());
}

LoadedMeasurement read_measurement(const fs::path& path) {
    const std::string name = path.string();
    const std::vector<std::uint8_t> bytes = read_file(path);
    const ImageFormat format = check_header(bytes, name);
    const cv::Mat decoded = decode(bytes, cv::IMREAD_UNCHANGED | cv::IMREAD_ANYDEPTH, name);
    LoadedMeasurement loaded;
    loaded.info = describe(decoded, format, bytes.size());
    cv::Mat values;
    decoded.convertTo(values, CV_32F);
    if (values.channels() > 1) {
        // Colour measurement images are rare; luminance (Rec. 709) keeps one value per pixel.
        std::vector<cv::Mat> planes;
        cv::split(values, planes);  // B, G, R[, A]
        values = 0.0722f * planes[0] + 0.7152f * planes[1] + 0.2126f * planes[2];
        loaded.notices.emplace_back("colour input reduced to Rec. 709 luminance");
    }
    loaded.values = ImageF32(values.cols, values.rows);
    for (int y = 0; y < values.rows; ++y) {
        std::memcpy(loaded.values.row(y), values.ptr<float>(y),
                    static_cast<std::size_t>(values.cols) * 4);
    }
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
    throw Error(ErrorCode::UnsupportedFormat,
                "cannot write " + in_quotes(path.string()) + ": unsupported file extension '" +
                    ext + "' (supported: .png .jpg .jpeg .tif .tiff .webp .bmp .ppm .pgm)");
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
    }
    return ".png";
}

// imencode with its failures (false or an exception) turned into WriteFailed.
std::vector<std::uint8_t> encode_mat(const cv::Mat& samples, const ImageFormat format,
                                     const std::vector<int>& params = {}) {
    std::vector<std::uint8_t> bytes;
    bool ok = false;
    try {
        ok = cv::imencode(encoder_extension(format), samples, bytes, params);
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

std::vector<std::uint8_t> encode_image(const ImageView<const Rgba8> image, const ImageFormat format,
                                       const WriteOptions& options) {
    std::vector<std::string> ignored;
    return encode(image, format, options, ignored);
}

std::vector<std::string> write_image(const fs::path& path, const ImageView<const Rgba8> image,
                                     const WriteOptions& options) {
    const ImageFormat format = format_for_path(path);
    std::vector<std::string> notices;
    const std::vector<std::uint8_t> bytes = encode(image, format, options, notices);
    write_atomically(path, {reinterpret_cast<const char*>(bytes.data()), bytes.size()});
    return notices;
}

namespace {

// True if `format` stores samples of this depth and channel count without narrowing.
bool holds_natively(const ImageFormat format, const int depth, const int channels) {
    switch (format) {
        case ImageFormat::Png:
            return depth == CV_16U && (channels == 1 || channels == 3 || channels == 4);
        case ImageFormat::Tiff:
            return (depth == CV_16U || depth == CV_32F) &&
                   (channels == 1 || channels == 3 || channels == 4);
        case ImageFormat::Pgm:
            return depth == CV_16U && channels == 1;
        case ImageFormat::Ppm:
            return depth == CV_16U && channels == 3;
        default:
            return false;
    }
}

}  // namespace

ConvertResult convert_image(const fs::path& in, const fs::path& out, const WriteOptions& options) {
    const ImageFormat out_format = format_for_path(out);
    const std::string name = in.string();
    const std::vector<std::uint8_t> bytes = read_file(in);
    const ImageFormat in_format = check_header(bytes, name);
    const cv::Mat decoded = decode_as_stored(bytes, in_format, name);
    ConvertResult result;
    result.width = decoded.cols;
    result.height = decoded.rows;
    if (decoded.depth() != CV_8U &&
        holds_natively(out_format, decoded.depth(), decoded.channels())) {
        const std::vector<std::uint8_t> encoded = encode_mat(decoded, out_format);
        write_atomically(out, {reinterpret_cast<const char*>(encoded.data()), encoded.size()});
        result.bit_depth = describe(decoded, in_format, 0).bit_depth;
        return result;
    }
    LoadedImage loaded = to_loaded(decoded, in_format, bytes.size());
    result.notices = std::move(loaded.notices);
    if (loaded.info.bit_depth != 8)
        result.notices.push_back(std::string(to_string(out_format)) + " cannot hold " +
                                 std::to_string(loaded.info.bit_depth) + "-bit " +
                                 (loaded.info.channels == 1 ? "grey" : "colour") +
                                 " samples here: written with 8 bits per channel");
    for (std::string& n : write_image(out, loaded.image.view(), options))
        result.notices.push_back(std::move(n));
    return result;
}

void write_file_atomically(const fs::path& path, const std::string_view bytes) {
    write_atomically(path, bytes);
}

bool same_file(const fs::path& a, const fs::path& b) {
    std::error_code ec;
    return fs::exists(a, ec) && fs::exists(b, ec) && fs::equivalent(a, b, ec);
}

}  // namespace lacuna::io
