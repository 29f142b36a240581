// TIFF through libtiff (codecs.hpp), from and to memory. The samples are read raw (strips or
// tiles, chunky or planar) and converted here, because libtiff's RGBA interface premultiplies
// unassociated alpha and knows no 16-bit, signed or float samples; it is used only for what the
// raw path does not cover (YCbCr without JPEG, LogLuv, 1-4 bit tiles, old-style JPEG).
#include "calibration_tags.hpp"
#include "codecs.hpp"
#include "io_messages.hpp"

#include <lacuna/core/error.hpp>
#include <lacuna/core/image.hpp>

#include <tiffio.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <cstdarg>
#include <cstring>
#include <memory>

namespace lacuna::io::detail {
namespace {

// The bytes a TIFF is read from or written to, and what libtiff said meanwhile.
struct Stream {
    const std::uint8_t* data = nullptr;        // reading
    std::vector<std::uint8_t>* out = nullptr;  // writing
    std::uint64_t size = 0;
    std::uint64_t at = 0;
    std::string error;
    std::string warning;
};

tmsize_t read_proc(thandle_t h, void* buffer, const tmsize_t n) {
    auto& s = *static_cast<Stream*>(h);
    if (n < 0) return -1;
    const std::uint64_t available = s.at < s.size ? s.size - s.at : 0;
    const std::uint64_t count = std::min<std::uint64_t>(available, static_cast<std::uint64_t>(n));
    const std::uint8_t* from = s.out != nullptr ? s.out->data() : s.data;
    if (count > 0) std::memcpy(buffer, from + s.at, count);
    s.at += count;
    return static_cast<tmsize_t>(count);
}

tmsize_t write_proc(thandle_t h, void* buffer, const tmsize_t n) {
    auto& s = *static_cast<Stream*>(h);
    if (s.out == nullptr || n < 0) return -1;
    const auto count = static_cast<std::uint64_t>(n);
    if (s.at + count > s.out->size()) s.out->resize(s.at + count);
    std::memcpy(s.out->data() + s.at, buffer, count);
    s.at += count;
    s.size = s.out->size();
    return n;
}

toff_t seek_proc(thandle_t h, const toff_t offset, const int whence) {
    auto& s = *static_cast<Stream*>(h);
    const std::uint64_t base = whence == SEEK_CUR ? s.at : whence == SEEK_END ? s.size : 0;
    s.at = base + offset;
    if (s.out != nullptr && s.at > s.out->size()) {
        s.out->resize(s.at);
        s.size = s.at;
    }
    return s.at;
}

int close_proc(thandle_t) {
    return 0;
}
toff_t size_proc(thandle_t h) {
    return static_cast<Stream*>(h)->size;
}
int map_proc(thandle_t, void**, toff_t*) {
    return 0;
}
void unmap_proc(thandle_t, void*, toff_t) {}

int on_error(TIFF*, void* user, const char* module, const char* format, va_list args) {
    auto& s = *static_cast<Stream*>(user);
    if (s.error.empty()) {
        char text[512];
        std::vsnprintf(text, sizeof text, format, args);
        s.error = text;
        (void)module;
    }
    return 1;  // handled: nothing reaches stderr
}

int on_warning(TIFF*, void* user, const char*, const char* format, va_list args) {
    auto& s = *static_cast<Stream*>(user);
    if (s.warning.empty()) {
        char text[512];
        std::vsnprintf(text, sizeof text, format, args);
        s.warning = text;
    }
    return 1;
}

struct TiffCloser {
    void operator()(TIFF* t) const { TIFFClose(t); }
};
using TiffPtr = std::unique_ptr<TIFF, TiffCloser>;

TiffPtr open(Stream& stream, const char* mode) {
    TIFFOpenOptions* options = TIFFOpenOptionsAlloc();
    // No single allocation beyond what the largest page Lacuna opens needs (a crafted strip
    // byte count cannot ask for more).
    TIFFOpenOptionsSetMaxSingleMemAlloc(options, tmsize_t{kMaxImagePixels} * 8);
    TIFFOpenOptionsSetErrorHandlerExtR(options, on_error, &stream);
    TIFFOpenOptionsSetWarningHandlerExtR(options, on_warning, &stream);
    TIFF* tif = TIFFClientOpenExt("TIFF", mode, &stream, read_proc, write_proc, seek_proc,
                                  close_proc, size_proc, map_proc, unmap_proc, options);
    TIFFOpenOptionsFree(options);
    return TiffPtr(tif);
}

std::string libtiff_says(const Stream& s) {
    return s.error.empty() ? std::string() : " (libtiff says \"" + s.error + "\")";
}

[[noreturn]] void corrupt(const std::string_view name, const std::string& what, const Stream& s) {
    fail_read(ErrorCode::Corrupt, name, what + libtiff_says(s));
}

// What one directory holds, from its tags.
struct Layout {
    std::uint32_t width = 0, height = 0;
    std::uint16_t spp = 1, bits = 1, format = SAMPLEFORMAT_UINT,
                  photometric = PHOTOMETRIC_MINISBLACK;
    std::uint16_t planar = PLANARCONFIG_CONTIG, orientation = ORIENTATION_TOPLEFT;
    std::uint16_t compression = COMPRESSION_NONE;
    int colours = 1;                     // colour samples per pixel (CMYK: 4)
    std::uint16_t first_extra = 0xFFFF;  // ExtraSamples[0]; 0xFFFF: no ExtraSamples tag
    std::uint16_t extra_count = 0;
};

Layout layout_of(TIFF* tif, const std::string_view name, const Stream& s) {
    Layout l;
    if (TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &l.width) == 0 ||
        TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &l.height) == 0)
        corrupt(name, "the TIFF directory gives no width and height", s);
    if (l.width == 0 || l.height == 0)
        fail_read(ErrorCode::EmptyImage, name,
                  "the image has zero size (" + std::to_string(l.width) + "x" +
                      std::to_string(l.height) + ")");
    check_image_size(static_cast<int>(std::min<std::uint32_t>(l.width, 1u << 30)),
                     static_cast<int>(std::min<std::uint32_t>(l.height, 1u << 30)));
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &l.spp);
    TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &l.bits);
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLEFORMAT, &l.format);
    TIFFGetFieldDefaulted(tif, TIFFTAG_PLANARCONFIG, &l.planar);
    TIFFGetFieldDefaulted(tif, TIFFTAG_ORIENTATION, &l.orientation);
    TIFFGetFieldDefaulted(tif, TIFFTAG_COMPRESSION, &l.compression);
    if (TIFFGetField(tif, TIFFTAG_PHOTOMETRIC, &l.photometric) == 0)
        l.photometric = l.spp >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK;
    std::uint16_t* extras = nullptr;
    if (TIFFGetField(tif, TIFFTAG_EXTRASAMPLES, &l.extra_count, &extras) != 0 && l.extra_count > 0)
        l.first_extra = extras[0];
    switch (l.photometric) {
        case PHOTOMETRIC_RGB:
        case PHOTOMETRIC_YCBCR:
        case PHOTOMETRIC_CIELAB:
            l.colours = 3;
            break;
        case PHOTOMETRIC_SEPARATED:
            l.colours = l.spp - l.extra_count;
            break;
        default:
            l.colours = 1;
    }
    if (l.orientation < 1 || l.orientation > 8) l.orientation = 1;
    return l;
}

// The raw path: whole bytes per sample, a colour model converted here, a few samples a pixel.
bool raw_readable(TIFF* tif, Layout& l) {
    if (l.compression == COMPRESSION_OJPEG) return false;
    if (l.photometric == PHOTOMETRIC_YCBCR) {
        if (l.compression != COMPRESSION_JPEG) return false;
        // libjpeg turns YCbCr into RGB; libtiff's sizes follow (tif_jpeg.c).
        TIFFSetField(tif, TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB);
        l.photometric = PHOTOMETRIC_RGB;
    }
    const bool model = l.photometric == PHOTOMETRIC_MINISBLACK ||
                       l.photometric == PHOTOMETRIC_MINISWHITE ||
                       l.photometric == PHOTOMETRIC_RGB || l.photometric == PHOTOMETRIC_PALETTE ||
                       (l.photometric == PHOTOMETRIC_SEPARATED && l.colours == 4);
    if (!model || l.spp < l.colours || l.spp > 8) return false;
    const bool whole = (l.bits == 8 || l.bits == 16) &&
                       (l.format == SAMPLEFORMAT_UINT || l.format == SAMPLEFORMAT_INT);
    const bool wide =
        (l.bits == 32 || l.bits == 64) &&
        (l.format == SAMPLEFORMAT_IEEEFP ||
         (l.bits == 32 && (l.format == SAMPLEFORMAT_UINT || l.format == SAMPLEFORMAT_INT)));
    // 1, 2 and 4 bits: one grey or palette sample in strips, unpacked here.
    const bool packed = (l.bits == 1 || l.bits == 2 || l.bits == 4) && l.spp == 1 &&
                        l.format == SAMPLEFORMAT_UINT && TIFFIsTiled(tif) == 0;
    if (l.photometric == PHOTOMETRIC_PALETTE && (l.format != SAMPLEFORMAT_UINT || l.bits > 16))
        return false;
    return whole || wide || packed;
}

int cv_depth_of(const Layout& l) {
    if (l.format == SAMPLEFORMAT_IEEEFP) return l.bits == 64 ? CV_64F : CV_32F;
    if (l.bits == 32) return CV_32S;  // uint32 is converted below
    if (l.bits == 16) return l.format == SAMPLEFORMAT_INT ? CV_16S : CV_16U;
    return l.format == SAMPLEFORMAT_INT ? CV_8S : CV_8U;
}

// Every sample of the page, chunky (all samples of a pixel together), as stored.
cv::Mat read_samples(TIFF* tif, const Layout& l, const std::string_view name, Stream& s) {
    const int bytes_per_sample = std::max(1, l.bits / 8);
    const bool packed = l.bits < 8;
    const int stored_type = packed ? CV_8UC1 : CV_MAKETYPE(cv_depth_of(l), l.spp);
    const int h = static_cast<int>(l.height), w = static_cast<int>(l.width);
    cv::Mat samples = l.bits == 32 && l.format == SAMPLEFORMAT_UINT
                          ? cv::Mat(h, w, CV_MAKETYPE(CV_32S, l.spp))  // same bytes, read below
                          : cv::Mat(h, w, stored_type);
    const std::size_t pixel_bytes = static_cast<std::size_t>(bytes_per_sample) * l.spp;
    const bool separate = l.planar == PLANARCONFIG_SEPARATE && l.spp > 1;
    const int planes = separate ? l.spp : 1;
    const std::size_t in_pixel = separate ? bytes_per_sample : pixel_bytes;
    if (TIFFIsTiled(tif) != 0) {
        std::uint32_t tw = 0, th = 0;
        TIFFGetField(tif, TIFFTAG_TILEWIDTH, &tw);
        TIFFGetField(tif, TIFFTAG_TILELENGTH, &th);
        const tmsize_t tile_bytes = TIFFTileSize(tif);
        const tmsize_t tile_row = TIFFTileRowSize(tif);
        if (tw == 0 || th == 0 || tile_bytes <= 0 ||
            static_cast<std::uint64_t>(tile_row) < std::uint64_t{tw} * in_pixel)
            corrupt(name, "the TIFF's tile size is invalid", s);
        // A tile far larger than the whole image is a broken header: reading it would ask for
        // gigabytes before the first pixel (found by fuzz_mask_load).
        constexpr std::uint64_t kAnyTileBytes = std::uint64_t{64} << 20;
        const std::uint64_t image_bytes = std::uint64_t{l.width} * l.height * pixel_bytes;
        if (static_cast<std::uint64_t>(tile_bytes) > std::max(4 * image_bytes, kAnyTileBytes))
            corrupt(name,
                    "the TIFF's tiles (" + std::to_string(tw) + "x" + std::to_string(th) +
                        ") are far larger than its image",
                    s);
        std::vector<std::uint8_t> tile(static_cast<std::size_t>(tile_bytes));
        for (int p = 0; p < planes; ++p)
            for (std::uint32_t ty = 0; ty < l.height; ty += th)
                for (std::uint32_t tx = 0; tx < l.width; tx += tw) {
                    if (TIFFReadTile(tif, tile.data(), tx, ty, 0, static_cast<std::uint16_t>(p)) <
                        0)
                        corrupt(name, "a tile cannot be decoded", s);
                    const std::uint32_t rows = std::min(th, l.height - ty);
                    const std::uint32_t cols = std::min(tw, l.width - tx);
                    for (std::uint32_t r = 0; r < rows; ++r) {
                        const std::uint8_t* from = tile.data() + std::size_t{r} * tile_row;
                        std::uint8_t* to = samples.ptr(static_cast<int>(ty + r)) + tx * pixel_bytes;
                        if (!separate) {
                            std::memcpy(to, from, cols * pixel_bytes);
                            continue;
                        }
                        for (std::uint32_t c = 0; c < cols; ++c)
                            std::memcpy(to + c * pixel_bytes + p * bytes_per_sample,
                                        from + c * bytes_per_sample, bytes_per_sample);
                    }
                }
        return samples;
    }
    const tmsize_t line_bytes = TIFFScanlineSize(tif);
    const std::size_t need = packed ? (std::size_t{l.width} * l.bits + 7) / 8 : l.width * in_pixel;
    if (line_bytes <= 0 || static_cast<std::size_t>(line_bytes) < need)
        corrupt(name, "the TIFF's row size is invalid", s);
    std::vector<std::uint8_t> line(static_cast<std::size_t>(line_bytes));
    for (int p = 0; p < planes; ++p)
        for (int y = 0; y < h; ++y) {
            if (TIFFReadScanline(tif, line.data(), static_cast<std::uint32_t>(y),
                                 static_cast<std::uint16_t>(p)) < 0)
                corrupt(name, "row " + std::to_string(y) + " cannot be decoded", s);
            std::uint8_t* to = samples.ptr(y);
            if (packed) {
                const int mask = (1 << l.bits) - 1;
                for (int x = 0; x < w; ++x) {
                    const std::size_t bit = std::size_t(x) * l.bits;
                    to[x] = static_cast<std::uint8_t>(
                        (line[bit / 8] >> (8 - l.bits - int(bit % 8))) & mask);
                }
            } else if (!separate) {
                std::memcpy(to, line.data(), need);
            } else {
                for (int x = 0; x < w; ++x)
                    std::memcpy(to + x * pixel_bytes + p * bytes_per_sample,
                                line.data() + x * bytes_per_sample, bytes_per_sample);
            }
        }
    return samples;
}

// R, G, B(, A) ↔ B, G, R(, A) for any depth (cvtColor knows no signed or 64-bit samples).
cv::Mat swap_red_blue(const cv::Mat& m) {
    cv::Mat out(m.size(), m.type());
    const int pairs[] = {0, 2, 1, 1, 2, 0, 3, 3};
    cv::mixChannels(&m, 1, &out, 1, pairs, m.channels() == 4 ? 4 : 3);
    return out;
}

// Palette indices → 8-bit B, G, R. TIFF colour maps are 16-bit; old writers stored 8-bit
// values in them, recognised as libtiff does (no entry above 255).
cv::Mat expand_palette(TIFF* tif, const cv::Mat& index, const Layout& l,
                       const std::string_view name, const Stream& s) {
    std::uint16_t *r = nullptr, *g = nullptr, *b = nullptr;
    if (TIFFGetField(tif, TIFFTAG_COLORMAP, &r, &g, &b) == 0)
        corrupt(name, "the palette TIFF has no colour map", s);
    const std::size_t entries = std::size_t{1} << l.bits;
    bool sixteen = false;
    for (std::size_t i = 0; i < entries && !sixteen; ++i)
        sixteen = r[i] > 255 || g[i] > 255 || b[i] > 255;
    const auto byte = [&](const std::uint16_t v) {
        return static_cast<std::uint8_t>(sixteen ? v >> 8 : v);
    };
    cv::Mat out(index.rows, index.cols, CV_8UC3);
    for (int y = 0; y < index.rows; ++y)
        for (int x = 0; x < index.cols; ++x) {
            const std::size_t i = index.depth() == CV_16U ? index.at<std::uint16_t>(y, x)
                                                          : index.at<std::uint8_t>(y, x);
            out.at<cv::Vec3b>(y, x) = {byte(b[i]), byte(g[i]), byte(r[i])};
        }
    return out;
}

// CMYK → R, G, B as Pillow's cmyk2rgb (libImaging/Convert.c) for 8 bits; the same formula
// at 16 bits.
template <typename T>
cv::Mat cmyk_to_bgr(const cv::Mat& cmyk) {
    constexpr int max = std::numeric_limits<T>::max();
    cv::Mat out(cmyk.rows, cmyk.cols, CV_MAKETYPE(cv::DataType<T>::depth, 3));
    for (int y = 0; y < cmyk.rows; ++y) {
        const T* in = cmyk.ptr<T>(y);
        T* o = out.ptr<T>(y);
        for (int x = 0; x < cmyk.cols; ++x, in += 4, o += 3) {
            const std::int64_t not_black = max - in[3];
            for (int c = 0; c < 3; ++c) {
                std::int64_t v = 0;
                if constexpr (max == 255) {
                    const std::int64_t t = in[c] * not_black + 128;
                    v = not_black - (((t >> 8) + t) >> 8);
                } else {
                    v = not_black - (in[c] * not_black + max / 2) / max;
                }
                o[2 - c] = static_cast<T>(std::clamp<std::int64_t>(v, 0, max));
            }
        }
    }
    return out;
}

// Colour divided by alpha, as Pillow's unpackRGBa reads associated alpha: 0 where alpha is 0.
void unpremultiply(cv::Mat& bgra) {
    const int c = bgra.channels();
    for (int y = 0; y < bgra.rows; ++y)
        for (int x = 0; x < bgra.cols; ++x) {
            const auto divide = [&](auto* p, const double max) {
                const double a = p[c - 1];
                for (int k = 0; k < c - 1; ++k) {
                    if (a == 0) {
                        p[k] = 0;
                    } else if (a != max) {
                        using V = std::remove_reference_t<decltype(p[k])>;
                        const double v = std::is_floating_point_v<V> ? p[k] * max / a
                                                                     : std::floor(p[k] * max / a);
                        p[k] = static_cast<V>(std::is_floating_point_v<V> ? v : std::min(v, max));
                    }
                }
            };
            switch (bgra.depth()) {
                case CV_8U:
                    divide(bgra.ptr<std::uint8_t>(y) + x * c, 255.0);
                    break;
                case CV_16U:
                    divide(bgra.ptr<std::uint16_t>(y) + x * c, 65535.0);
                    break;
                case CV_32F:
                    divide(bgra.ptr<float>(y) + x * c, 1.0);
                    break;
                default:
                    break;  // signed or 64-bit associated alpha: kept as stored
            }
        }
}

// The stored samples as Lacuna's cv::Mat: grey(, alpha) or B, G, R(, A).
cv::Mat to_pixels(TIFF* tif, cv::Mat samples, const Layout& l, const std::string_view name,
                  const Stream& s, std::vector<std::string>& notices) {
    if (l.bits == 32 && l.format == SAMPLEFORMAT_UINT) {
        // No unsigned 32-bit type in Lacuna: float keeps every value below 2^24 exactly.
        cv::Mat as_float(samples.size(), CV_MAKETYPE(CV_32F, samples.channels()));
        for (int y = 0; y < samples.rows; ++y) {
            const auto* in = samples.ptr<std::uint32_t>(y);
            auto* out = as_float.ptr<float>(y);
            for (int i = 0; i < samples.cols * samples.channels(); ++i) out[i] = float(in[i]);
        }
        samples = as_float;
    }
    if (l.bits < 8) {
        if (l.photometric == PHOTOMETRIC_PALETTE) return expand_palette(tif, samples, l, name, s);
        const int levels = (1 << l.bits) - 1;
        // Grey levels spread over 0..255 (1-bit: 0 and 255), as Pillow unpacks them.
        samples.convertTo(samples, CV_8U, 255.0 / levels);
    }
    // The common cases need no splitting: grey, or colour, with nothing after the colours.
    if (samples.channels() == l.colours && l.photometric == PHOTOMETRIC_MINISBLACK) return samples;
    const bool straight_alpha =
        samples.channels() == 4 &&
        (l.first_extra == EXTRASAMPLE_UNASSALPHA || l.first_extra == 0xFFFF);
    if ((samples.channels() == 3 || straight_alpha) && l.colours == 3 &&
        l.photometric == PHOTOMETRIC_RGB)
        return swap_red_blue(samples);
    std::vector<cv::Mat> planes;
    cv::split(samples, planes);
    // The extra sample after the colours: alpha unless ExtraSamples says "unspecified" (Pillow
    // reads that as RGBX: padding); with no ExtraSamples tag at all, alpha (as Pillow).
    const bool has_extra = static_cast<int>(planes.size()) > l.colours;
    const bool alpha = has_extra && l.first_extra != EXTRASAMPLE_UNSPECIFIED;
    const bool associated = alpha && l.first_extra == EXTRASAMPLE_ASSOCALPHA;
    if (static_cast<int>(planes.size()) > l.colours + (alpha ? 1 : 0))
        notices.push_back(std::to_string(planes.size() - l.colours - (alpha ? 1 : 0)) +
                          " extra sample(s) per pixel of unspecified meaning left out");
    cv::Mat colour;
    const std::vector<cv::Mat> colour_planes(planes.begin(), planes.begin() + l.colours);
    cv::merge(colour_planes, colour);
    if (l.photometric == PHOTOMETRIC_PALETTE) {
        colour = expand_palette(tif, colour, l, name, s);
    } else if (l.photometric == PHOTOMETRIC_SEPARATED) {
        if (colour.depth() == CV_8U)
            colour = cmyk_to_bgr<std::uint8_t>(colour);
        else if (colour.depth() == CV_16U)
            colour = cmyk_to_bgr<std::uint16_t>(colour);
        else
            fail_read(ErrorCode::UnsupportedFormat, name,
                      "CMYK TIFF with signed or floating-point samples is not supported");
    } else if (l.photometric == PHOTOMETRIC_RGB) {
        colour = swap_red_blue(colour);
    } else if (l.photometric == PHOTOMETRIC_MINISWHITE) {
        if (colour.depth() == CV_8U || colour.depth() == CV_16U)
            cv::bitwise_not(colour, colour);
        else
            notices.emplace_back(
                "white-is-zero samples that are signed or floating-point are "
                "shown as stored (not inverted)");
    }
    if (!alpha) return colour;
    cv::Mat a = planes[static_cast<std::size_t>(l.colours)];
    if (a.depth() != colour.depth()) a.convertTo(a, colour.depth(), 1.0 / 257.0);  // palette
    std::vector<cv::Mat> out_planes;
    cv::split(colour, out_planes);
    out_planes.push_back(a);
    cv::Mat out;
    cv::merge(out_planes, out);
    if (associated) unpremultiply(out);
    return out;
}

// What the raw path does not read, through libtiff's RGBA interface (8-bit; it premultiplies
// unassociated alpha, which is divided out again).
cv::Mat read_rgba(TIFF* tif, const Layout& l, const std::string_view name, Stream& s) {
    char why[1024] = {};
    if (TIFFRGBAImageOK(tif, why) == 0)
        fail_read(ErrorCode::UnsupportedFormat, name,
                  std::string("this kind of TIFF is not supported (libtiff says \"") + why + "\")");
    std::vector<std::uint32_t> raster(std::size_t{l.width} * l.height);
    if (TIFFReadRGBAImageOriented(tif, l.width, l.height, raster.data(), ORIENTATION_TOPLEFT, 1) ==
        0)
        corrupt(name, "the TIFF image cannot be decoded", s);
    const bool grey =
        l.photometric == PHOTOMETRIC_MINISBLACK || l.photometric == PHOTOMETRIC_MINISWHITE;
    const bool alpha = l.spp > l.colours && l.first_extra != EXTRASAMPLE_UNSPECIFIED;
    const int channels = grey ? (alpha ? 2 : 1) : (alpha ? 4 : 3);
    cv::Mat out(static_cast<int>(l.height), static_cast<int>(l.width), CV_8UC(channels));
    for (int y = 0; y < out.rows; ++y)
        for (int x = 0; x < out.cols; ++x) {
            const std::uint32_t p = raster[std::size_t(y) * l.width + x];
            std::uint8_t* o = out.ptr<std::uint8_t>(y) + x * channels;
            const std::uint8_t rgba[4] = {std::uint8_t(TIFFGetR(p)), std::uint8_t(TIFFGetG(p)),
                                          std::uint8_t(TIFFGetB(p)), std::uint8_t(TIFFGetA(p))};
            if (grey) {
                o[0] = rgba[0];
                if (alpha) o[1] = rgba[3];
            } else {
                o[0] = rgba[2];
                o[1] = rgba[1];
                o[2] = rgba[0];
                if (alpha) o[3] = rgba[3];
            }
        }
    if (alpha) unpremultiply(out);
    return out;
}

}  // namespace

std::vector<CodecPage> decode_tiff(const std::vector<std::uint8_t>& bytes,
                                   const std::string_view name, const bool all_pages,
                                   std::vector<std::string>& notices) {
    Stream stream;
    stream.data = bytes.data();
    stream.size = bytes.size();
    const TiffPtr tif = open(stream, "rm");
    if (!tif) corrupt(name, "the TIFF header cannot be read", stream);
    std::vector<CodecPage> pages;
    std::int64_t total_pixels = 0;
    do {
        Layout l = layout_of(tif.get(), name, stream);
        // A stack is at most as large as the largest single image Lacuna opens.
        total_pixels += std::int64_t{l.width} * l.height;
        if (!pages.empty() && total_pixels > kMaxImagePixels) {
            notices.push_back("pages " + std::to_string(pages.size() + 1) +
                              " and later left out: the stack would exceed " +
                              std::to_string(kMaxImagePixels) + " pixels");
            break;
        }
        CodecPage page;
        page.orientation = l.orientation;
        if (raw_readable(tif.get(), l)) {
            page.pixels = to_pixels(tif.get(), read_samples(tif.get(), l, name, stream), l, name,
                                    stream, notices);
        } else {
            page.pixels = read_rgba(tif.get(), l, name, stream);
            page.orientation = 1;  // the RGBA interface turned it
        }
        pages.push_back(std::move(page));
    } while (all_pages && TIFFReadDirectory(tif.get()) != 0);
    if (!stream.warning.empty()) notices.push_back("the decoder warned: " + stream.warning);
    return pages;
}

std::vector<std::uint8_t> encode_tiff(const cv::Mat& pixels, const PixelSpacing* spacing) {
    std::vector<std::uint8_t> out;
    Stream stream;
    stream.out = &out;
    {
        const TiffPtr tif = open(stream, "w");
        if (!tif) throw Error(ErrorCode::WriteFailed, "cannot encode TIFF: " + stream.error);
        const int c = pixels.channels();
        const int depth = pixels.depth();
        const std::uint16_t bits = depth == CV_8U ? 8 : depth == CV_32F ? 32 : 16;
        const std::uint16_t format = depth == CV_32F   ? SAMPLEFORMAT_IEEEFP
                                     : depth == CV_16S ? SAMPLEFORMAT_INT
                                                       : SAMPLEFORMAT_UINT;
        TIFF* t = tif.get();
        TIFFSetField(t, TIFFTAG_IMAGEWIDTH, static_cast<std::uint32_t>(pixels.cols));
        TIFFSetField(t, TIFFTAG_IMAGELENGTH, static_cast<std::uint32_t>(pixels.rows));
        TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, static_cast<std::uint16_t>(c));
        TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, bits);
        TIFFSetField(t, TIFFTAG_SAMPLEFORMAT, format);
        TIFFSetField(t, TIFFTAG_PHOTOMETRIC, c >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK);
        TIFFSetField(t, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
        if (c == 2 || c == 4) {
            // Lacuna's alpha is straight: unassociated, as the file says.
            const std::uint16_t extra[1] = {EXTRASAMPLE_UNASSALPHA};
            TIFFSetField(t, TIFFTAG_EXTRASAMPLES, 1, extra);
        }
        TIFFSetField(t, TIFFTAG_COMPRESSION, COMPRESSION_LZW);
        TIFFSetField(t, TIFFTAG_PREDICTOR,
                     depth == CV_32F ? PREDICTOR_FLOATINGPOINT : PREDICTOR_HORIZONTAL);
        TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, TIFFDefaultStripSize(t, 0));
        if (spacing != nullptr && spacing->known()) {
            // The standard tags, so Pillow, ImageJ and other readers see the scale (Lacuna's
            // description keys keep it exactly; a rational holds about 7 digits).
            const std::optional<double> cm = centimetres_per(spacing->unit);
            const double per = cm ? *cm : 1.0;
            TIFFSetField(t, TIFFTAG_XRESOLUTION, static_cast<float>(1.0 / (spacing->x * per)));
            TIFFSetField(t, TIFFTAG_YRESOLUTION, static_cast<float>(1.0 / (spacing->y * per)));
            TIFFSetField(t, TIFFTAG_RESOLUTIONUNIT,
                         static_cast<std::uint16_t>(cm ? RESUNIT_CENTIMETER : RESUNIT_NONE));
        }
        cv::Mat row;
        for (int y = 0; y < pixels.rows; ++y) {
            row = c >= 3 ? swap_red_blue(pixels.row(y)) : pixels.row(y).clone();
            if (TIFFWriteScanline(t, row.ptr(), static_cast<std::uint32_t>(y), 0) < 0)
                throw Error(ErrorCode::WriteFailed, "cannot encode TIFF: " + stream.error);
        }
        if (TIFFWriteDirectory(t) == 0)
            throw Error(ErrorCode::WriteFailed, "cannot encode TIFF: " + stream.error);
    }  // TIFFClose flushes
    return out;
}

}  // namespace lacuna::io::detail
