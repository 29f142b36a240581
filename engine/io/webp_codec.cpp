// WebP through libwebp (codecs.hpp): decoded into B, G, R(, A) — with alpha only when the file
// has it — and encoded lossy or lossless. libwebp prints nothing; its status codes are named.
#include "codecs.hpp"
#include "io_messages.hpp"

#include <lacuna/core/error.hpp>
#include <lacuna/core/image.hpp>

#include <webp/decode.h>
#include <webp/encode.h>

#include <algorithm>

namespace lacuna::io::detail {
namespace {

std::string status_text(const VP8StatusCode status) {
    switch (status) {
        case VP8_STATUS_OUT_OF_MEMORY:
            return "out of memory";
        case VP8_STATUS_INVALID_PARAM:
            return "invalid parameter";
        case VP8_STATUS_BITSTREAM_ERROR:
            return "bitstream error";
        case VP8_STATUS_UNSUPPORTED_FEATURE:
            return "unsupported feature";
        case VP8_STATUS_SUSPENDED:
            return "suspended";
        case VP8_STATUS_USER_ABORT:
            return "aborted";
        case VP8_STATUS_NOT_ENOUGH_DATA:
            return "not enough data";
        default:
            return "status " + std::to_string(static_cast<int>(status));
    }
}

}  // namespace

cv::Mat decode_webp(const std::vector<std::uint8_t>& bytes, const std::string_view name) {
    WebPBitstreamFeatures features{};
    const VP8StatusCode status = WebPGetFeatures(bytes.data(), bytes.size(), &features);
    if (status == VP8_STATUS_NOT_ENOUGH_DATA)
        fail_read(ErrorCode::Truncated, name,
                  "the WebP file is truncated (it ends before its image data does)");
    if (status != VP8_STATUS_OK)
        fail_read(
            ErrorCode::Corrupt, name,
            "the file is corrupt or not decodable (libwebp says \"" + status_text(status) + "\")");
    if (features.has_animation != 0)
        fail_read(ErrorCode::UnsupportedFormat, name, "animated WebP is not supported");
    check_image_size(features.width, features.height);
    const int channels = features.has_alpha != 0 ? 4 : 3;
    cv::Mat out(features.height, features.width, CV_8UC(channels));
    const std::size_t size = out.step[0] * static_cast<std::size_t>(out.rows);
    const int stride = static_cast<int>(out.step[0]);
    const std::uint8_t* done =
        channels == 4 ? WebPDecodeBGRAInto(bytes.data(), bytes.size(), out.data, size, stride)
                      : WebPDecodeBGRInto(bytes.data(), bytes.size(), out.data, size, stride);
    if (done == nullptr)
        fail_read(ErrorCode::Corrupt, name, "the file is corrupt or not decodable (libwebp)");
    return out;
}

std::vector<std::uint8_t> encode_webp(const cv::Mat& pixels, const bool lossless) {
    cv::Mat bgr = pixels;
    if (pixels.channels() == 1) cv::merge(std::vector<cv::Mat>{pixels, pixels, pixels}, bgr);
    const int stride = static_cast<int>(bgr.step[0]);
    std::uint8_t* encoded = nullptr;
    std::size_t size = 0;
    constexpr float kQuality = 90;  // as OpenCV's default, which Lacuna used before
    if (bgr.channels() == 4)
        size = lossless ? WebPEncodeLosslessBGRA(bgr.data, bgr.cols, bgr.rows, stride, &encoded)
                        : WebPEncodeBGRA(bgr.data, bgr.cols, bgr.rows, stride, kQuality, &encoded);
    else
        size = lossless ? WebPEncodeLosslessBGR(bgr.data, bgr.cols, bgr.rows, stride, &encoded)
                        : WebPEncodeBGR(bgr.data, bgr.cols, bgr.rows, stride, kQuality, &encoded);
    if (size == 0 || encoded == nullptr) {
        WebPFree(encoded);
        throw Error(ErrorCode::WriteFailed, "cannot encode WebP (libwebp refused the image)");
    }
    std::vector<std::uint8_t> out(encoded, encoded + size);
    WebPFree(encoded);
    return out;
}

}  // namespace lacuna::io::detail
