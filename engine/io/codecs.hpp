// Internal: PNG, TIFF, JPEG, WebP and GIF read and written with their reference libraries used
// directly (libpng, libtiff, libjpeg-turbo, libwebp, giflib) rather than through OpenCV's
// imgcodecs, which premultiplied unassociated alpha, dropped a grey PNG's tRNS, wrote no signed
// 16-bit TIFF and let the codecs print (docs/notes/real-files.md has the comparison with
// OpenImageIO).
//
// Pixels travel as cv::Mat in OpenCV's channel order (B, G, R(, A); grey(, alpha)), of the depth
// the file stores, so the rest of image_io.cpp treats every decoder alike. Every failure is a
// lacuna::Error naming the file; what a library says is caught by its own message callbacks and
// quoted in Lacuna's one line, or turned into a notice when the image decoded anyway.
#pragma once

#include <lacuna/core/native_image.hpp>

#include <opencv2/core.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace lacuna::io::detail {

/// One decoded page, as stored (not yet turned upright).
struct CodecPage {
    cv::Mat pixels;
    int orientation = 1;  ///< TIFF's own Orientation tag, 1..8 (1 for the other formats)
};

/// A PNG: 8 or 16 bits, grey, grey+alpha, colour or colour+alpha; palette and tRNS expanded
/// into colour and alpha. A palette index beyond the palette is refused (the specification
/// makes it an error, and readers disagree on the colour).
cv::Mat decode_png(const std::vector<std::uint8_t>& bytes, std::string_view name,
                   std::vector<std::string>& notices);

/// A JPEG: grey stays one channel, CMYK/YCCK become RGB as Pillow converts them. A file that
/// ends early is refused as truncated.
cv::Mat decode_jpeg(const std::vector<std::uint8_t>& bytes, std::string_view name,
                    std::vector<std::string>& notices);

/// Where decode_jpeg_rows puts a JPEG's rows. `begin` is called once with the stored size before
/// any row; `row(y)` gives where stored row y goes (width × 4 bytes: R, G, B, A = 255), complete
/// when `row` is next called or the decode returns.
struct JpegRgbaSink {
    /// `grey`: the file is one channel (decode_jpeg would give one).
    std::function<void(int width, int height, bool grey)> begin;
    std::function<std::uint8_t*(int y)> row;
    std::function<void(int y)> done;  ///< row y is complete (may be empty)
};

/// The same pixels as decode_jpeg turned to R, G, B, A (grey spread over R, G, B; CMYK/YCCK as
/// decode_jpeg converts it), decoded straight into the caller's rows: no whole-image copy, and
/// the caller may keep of each row only what it needs. The same errors as decode_jpeg.
void decode_jpeg_rgba(const std::vector<std::uint8_t>& bytes, std::string_view name,
                      std::vector<std::string>& notices, const JpegRgbaSink& sink);

/// The pages of a TIFF (all of them, or only the first): strips or tiles, chunky or planar,
/// classic or BigTIFF; 8/16-bit unsigned or signed, 32/64-bit float; unassociated alpha kept
/// as stored, associated alpha divided out; CMYK as Pillow converts it.
std::vector<CodecPage> decode_tiff(const std::vector<std::uint8_t>& bytes, std::string_view name,
                                   bool all_pages, std::vector<std::string>& notices);

/// The frames of a GIF, each the full logical screen as a viewer composes it (frame rectangle,
/// transparent index, disposal), 8-bit B, G, R, A (alpha 0 where no frame painted).
std::vector<cv::Mat> decode_gif(const std::vector<std::uint8_t>& bytes, std::string_view name,
                                bool all_pages, std::vector<std::string>& notices);

/// A still WebP (lossy or lossless): B, G, R, plus A when the file has alpha. Animated WebP is
/// refused by name.
cv::Mat decode_webp(const std::vector<std::uint8_t>& bytes, std::string_view name);

/// A PFM (Debevec's portable float map): grey or B, G, R 32-bit floats, top row first, times
/// 1 / |scale| as OpenCV read them. The header's tokens are separated by any whitespace, as
/// header_probe.cpp reads them.
cv::Mat decode_pfm(const std::vector<std::uint8_t>& bytes, std::string_view name);
/// Grey or B, G, R samples of any depth as a little-endian PFM (scale -1), the bytes OpenCV's
/// encoder wrote. Other channel counts: Error(WriteFailed).
std::vector<std::uint8_t> encode_pfm(const cv::Mat& pixels);

/// Encoders; each throws lacuna::Error(WriteFailed) when the library refuses.
/// WebP: lossless, or lossy at quality 90; grey is written as colour (WebP has no grey).
std::vector<std::uint8_t> encode_webp(const cv::Mat& pixels, bool lossless);
std::vector<std::uint8_t> encode_png(const cv::Mat& pixels);
std::vector<std::uint8_t> encode_jpeg(const cv::Mat& pixels, int quality);
/// 8/16-bit unsigned, signed 16-bit, 32-bit float; 1, 3 or 4 channels (the 4th as unassociated
/// alpha); LZW-compressed (lossless) with the matching predictor.
/// `spacing` (when known) goes into XResolution/YResolution: pixels per centimetre for lengths
/// (ResolutionUnit centimetre), else pixels per unit with ResolutionUnit none.
std::vector<std::uint8_t> encode_tiff(const cv::Mat& pixels, const PixelSpacing* spacing = nullptr);

}  // namespace lacuna::io::detail
