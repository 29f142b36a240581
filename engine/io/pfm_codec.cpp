// PFM read and written without OpenCV (codecs.hpp). OpenCV's PFM codec cannot use memory, so
// imdecode copied every file to a temporary file in /tmp and left it there when the header's
// size was refused (a height of 0 throws between the copy and its removal); its header parser
// also read "1\f 5" as width 1, height 0 where header_probe.cpp reads 1 × 5. This reader takes
// the header as the probe does and returns what OpenCV's returned for every file both accept:
// B, G, R (or grey) 32-bit floats, top row first, times 1 / |scale|. Its encoder went through a
// temporary file too, so writing a PFM failed with an assertion's text when the temporary folder
// was not writable; the writer below gives the same bytes from memory.
#include "codecs.hpp"
#include "io_messages.hpp"

#include <lacuna/core/error.hpp>
#include <lacuna/core/image.hpp>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstring>
#include <optional>
#include <string>

namespace lacuna::io::detail {
namespace {

struct PfmHeader {
    int channels = 1;
    int width = 0;
    int height = 0;
    float scale = 0;
    std::size_t data_offset = 0;
};

bool is_space(const std::uint8_t c) { return std::isspace(c) != 0; }

/// The next whitespace-separated token from `at` (leading whitespace skipped); empty at the end.
std::string next_token(const std::vector<std::uint8_t>& bytes, std::size_t& at) {
    while (at < bytes.size() && is_space(bytes[at])) ++at;
    std::string token;
    while (at < bytes.size() && !is_space(bytes[at]) && token.size() < 64)
        token.push_back(static_cast<char>(bytes[at++]));
    return token;
}

bool printable(const std::string& text) {
    return std::all_of(text.begin(), text.end(), [](const char c) { return c >= 0x20 && c < 0x7f; });
}

std::optional<int> positive_int(const std::string& token) {
    if (token.empty() || token.size() > 9) return std::nullopt;
    int v = 0;
    for (const char c : token) {
        if (c < '0' || c > '9') return std::nullopt;
        v = v * 10 + (c - '0');
    }
    return v > 0 ? std::optional<int>(v) : std::nullopt;
}

PfmHeader read_header(const std::vector<std::uint8_t>& bytes, const std::string_view name) {
    if (bytes.size() < 3 || bytes[0] != 'P' || (bytes[1] != 'F' && bytes[1] != 'f'))
        fail_read(ErrorCode::Corrupt, name, "not a PFM file (it must start with PF or Pf)");
    PfmHeader h;
    h.channels = bytes[1] == 'F' ? 3 : 1;
    std::size_t at = 2;
    const std::optional<int> width = positive_int(next_token(bytes, at));
    const std::optional<int> height = positive_int(next_token(bytes, at));
    if (!width || !height)
        fail_read(ErrorCode::Corrupt, name, "the PFM header gives no positive width and height");
    h.width = *width;
    h.height = *height;
    const std::string scale = next_token(bytes, at);
    char* end = nullptr;
    h.scale = std::strtof(scale.c_str(), &end);
    if (scale.empty() || end != scale.c_str() + scale.size() || !std::isfinite(h.scale) ||
        h.scale == 0.0f)
        fail_read(ErrorCode::Corrupt, name,
                  "the PFM scale is not a non-zero number" +
                      (printable(scale) ? " ('" + scale + "')" : std::string()));
    // One whitespace byte ends the header; the samples follow.
    if (at >= bytes.size())
        fail_read(ErrorCode::Truncated, name, "the PFM file ends after its header");
    h.data_offset = at + 1;
    return h;
}

}  // namespace

cv::Mat decode_pfm(const std::vector<std::uint8_t>& bytes, const std::string_view name) {
    const PfmHeader h = read_header(bytes, name);
    check_image_size(h.width, h.height);
    const std::size_t row_floats = static_cast<std::size_t>(h.width) * h.channels;
    const std::size_t row_bytes = row_floats * sizeof(float);
    if (bytes.size() - h.data_offset < row_bytes * static_cast<std::size_t>(h.height))
        fail_read(ErrorCode::Truncated, name,
                  "the PFM file is truncated (it ends before its image data does)");
    // A negative scale means little-endian samples, a positive one big-endian.
    const bool little = h.scale < 0;
    const bool swap = little != (std::endian::native == std::endian::little);
    // OpenCV multiplied by the reciprocal; kept, so files read as before to the bit.
    const float factor = 1.0f / std::fabs(h.scale);
    cv::Mat out(h.height, h.width, h.channels == 3 ? CV_32FC3 : CV_32FC1);
    for (int y = 0; y < h.height; ++y) {
        // Rows are stored bottom first.
        const std::uint8_t* src =
            bytes.data() + h.data_offset + row_bytes * static_cast<std::size_t>(h.height - 1 - y);
        float* dst = out.ptr<float>(y);
        for (std::size_t i = 0; i < row_floats; ++i) {
            std::uint32_t word = 0;
            std::memcpy(&word, src + i * sizeof(float), sizeof word);
            if (swap) word = __builtin_bswap32(word);
            dst[i] = std::bit_cast<float>(word) * factor;
        }
        if (h.channels == 3)  // stored R, G, B; OpenCV's order is B, G, R
            for (int x = 0; x < h.width; ++x) std::swap(dst[3 * x], dst[3 * x + 2]);
    }
    return out;
}

std::vector<std::uint8_t> encode_pfm(const cv::Mat& pixels) {
    if (pixels.channels() != 1 && pixels.channels() != 3)
        throw Error(ErrorCode::WriteFailed, "cannot encode PFM: it holds grey or RGB, not " +
                                                std::to_string(pixels.channels()) + " channels");
    cv::Mat samples;
    pixels.convertTo(samples, CV_MAKETYPE(CV_32F, pixels.channels()));
    // The header OpenCV's encoder wrote, so files stay byte for byte as before: a negative scale
    // for little-endian samples.
    static_assert(std::endian::native == std::endian::little, "PFM is written little-endian");
    const std::string header = std::string(pixels.channels() == 3 ? "PF" : "Pf") + "\n" +
                               std::to_string(samples.cols) + " " + std::to_string(samples.rows) +
                               "\n-1\n";
    const std::size_t row_floats = static_cast<std::size_t>(samples.cols) * samples.channels();
    std::vector<std::uint8_t> out(header.begin(), header.end());
    out.reserve(out.size() + row_floats * sizeof(float) * static_cast<std::size_t>(samples.rows));
    std::vector<float> row(row_floats);
    for (int y = samples.rows - 1; y >= 0; --y) {  // bottom row first
        const float* src = samples.ptr<float>(y);
        std::copy(src, src + row_floats, row.begin());
        if (samples.channels() == 3)  // OpenCV's B, G, R to the file's R, G, B
            for (int x = 0; x < samples.cols; ++x) std::swap(row[3 * x], row[3 * x + 2]);
        const auto* bytes = reinterpret_cast<const std::uint8_t*>(row.data());
        out.insert(out.end(), bytes, bytes + row_floats * sizeof(float));
    }
    return out;
}

}  // namespace lacuna::io::detail
