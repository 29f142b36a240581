// ICC profiles in PNG and WebP containers, and the description inside a profile. exiv2 0.27
// writes a PNG iCCP chunk with an empty profile name, which libpng rejects ("iCCP: bad
// keyword"), and writes no ICCP chunk into a WebP that had none; both chunks are simple, so
// they are written here.
#include "metadata_io.hpp"

#include <lacuna/core/error.hpp>

#include <zlib.h>

#include <algorithm>
#include <array>
#include <cstring>

namespace lacuna::io {
namespace {

std::uint32_t read_be32(const std::span<const std::uint8_t> b, const std::size_t at) {
    return (std::uint32_t{b[at]} << 24) | (std::uint32_t{b[at + 1]} << 16) |
           (std::uint32_t{b[at + 2]} << 8) | std::uint32_t{b[at + 3]};
}

std::uint32_t read_le32(const std::span<const std::uint8_t> b, const std::size_t at) {
    return std::uint32_t{b[at]} | (std::uint32_t{b[at + 1]} << 8) |
           (std::uint32_t{b[at + 2]} << 16) | (std::uint32_t{b[at + 3]} << 24);
}

void append_be32(std::vector<std::uint8_t>& out, const std::uint32_t v) {
    for (const int shift : {24, 16, 8, 0}) out.push_back(static_cast<std::uint8_t>(v >> shift));
}

void append_le(std::vector<std::uint8_t>& out, const std::uint32_t v, const int bytes) {
    for (int i = 0; i < bytes; ++i) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}

void append(std::vector<std::uint8_t>& out, const std::span<const std::uint8_t> bytes) {
    out.insert(out.end(), bytes.begin(), bytes.end());
}

void append(std::vector<std::uint8_t>& out, const std::string_view text) {
    out.insert(out.end(), text.begin(), text.end());
}

[[noreturn]] void fail_embed(const std::string& what) {
    throw Error(ErrorCode::WriteFailed, "cannot embed the ICC profile: " + what);
}

// ---- PNG ----

constexpr std::array<std::uint8_t, 8> kPngSignature = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

std::vector<std::uint8_t> deflate(const std::span<const std::uint8_t> data) {
    uLongf size = compressBound(static_cast<uLong>(data.size()));
    std::vector<std::uint8_t> out(size);
    if (compress2(out.data(), &size, data.data(), static_cast<uLong>(data.size()),
                  Z_BEST_COMPRESSION) != Z_OK)
        fail_embed("zlib could not compress it");
    out.resize(size);
    return out;
}

std::vector<std::uint8_t> png_chunk(const std::string_view type,
                                    const std::span<const std::uint8_t> data) {
    std::vector<std::uint8_t> chunk;
    chunk.reserve(12 + data.size());  // (also keeps GCC 12 from a false -Wstringop-overflow)
    append_be32(chunk, static_cast<std::uint32_t>(data.size()));
    append(chunk, type);
    append(chunk, data);
    // The CRC covers the type and the data, not the length.
    const uLong crc = crc32(0, chunk.data() + 4, static_cast<uInt>(chunk.size() - 4));
    append_be32(chunk, static_cast<std::uint32_t>(crc));
    return chunk;
}

// ---- WebP (RIFF) ----

constexpr std::uint8_t kVp8xIccFlag = 0x20;
constexpr std::uint8_t kVp8xAlphaFlag = 0x10;

struct RiffChunk {
    std::string fourcc;
    std::size_t offset = 0;  ///< of the chunk header
    std::size_t size = 0;    ///< header + payload + padding
};

std::vector<RiffChunk> riff_chunks(const std::span<const std::uint8_t> webp) {
    if (webp.size() < 12 || std::memcmp(webp.data(), "RIFF", 4) != 0 ||
        std::memcmp(webp.data() + 8, "WEBP", 4) != 0)
        fail_embed("the encoded image is not a WebP file");
    std::vector<RiffChunk> chunks;
    for (std::size_t at = 12; at + 8 <= webp.size();) {
        const std::size_t payload = read_le32(webp, at + 4);
        const std::size_t size = 8 + payload + (payload & 1);
        if (at + size > webp.size()) fail_embed("the encoded WebP is truncated");
        chunks.push_back(
            {std::string(reinterpret_cast<const char*>(webp.data() + at), 4), at, size});
        at += size;
    }
    return chunks;
}

// The alpha flag a new VP8X header needs: a lossless (VP8L) bitstream says in its header
// whether it uses alpha; a simple lossy (VP8) file has none.
bool vp8l_uses_alpha(const std::span<const std::uint8_t> webp, const RiffChunk& chunk) {
    if (chunk.fourcc != "VP8L" || chunk.size < 8 + 5) return false;
    return ((read_le32(webp, chunk.offset + 9) >> 28) & 1U) != 0;
}

std::vector<std::uint8_t> vp8x_chunk(const std::uint8_t flags, const int width, const int height) {
    std::vector<std::uint8_t> chunk;
    chunk.reserve(18);
    append(chunk, std::string_view("VP8X"));
    append_le(chunk, 10, 4);
    chunk.push_back(flags);
    append_le(chunk, 0, 3);
    append_le(chunk, static_cast<std::uint32_t>(width - 1), 3);
    append_le(chunk, static_cast<std::uint32_t>(height - 1), 3);
    return chunk;
}

// ---- ICC ----

// UTF-16BE (mluc records) to UTF-8; unpaired surrogates become U+FFFD.
std::string utf16be_to_utf8(const std::span<const std::uint8_t> text) {
    std::string out;
    const auto put = [&out](const std::uint32_t c) {
        if (c < 0x80) {
            out.push_back(static_cast<char>(c));
        } else if (c < 0x800) {
            out.push_back(static_cast<char>(0xC0 | (c >> 6)));
            out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
        } else if (c < 0x10000) {
            out.push_back(static_cast<char>(0xE0 | (c >> 12)));
            out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
            out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
        } else {
            out.push_back(static_cast<char>(0xF0 | (c >> 18)));
            out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
            out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
            out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
        }
    };
    for (std::size_t i = 0; i + 1 < text.size(); i += 2) {
        const std::uint32_t u = (std::uint32_t{text[i]} << 8) | text[i + 1];
        if (u >= 0xD800 && u < 0xDC00 && i + 3 < text.size()) {
            const std::uint32_t low = (std::uint32_t{text[i + 2]} << 8) | text[i + 3];
            if (low >= 0xDC00 && low < 0xE000) {
                put(0x10000 + ((u - 0xD800) << 10) + (low - 0xDC00));
                i += 2;
                continue;
            }
        }
        if (u == 0) break;
        put(u >= 0xD800 && u < 0xE000 ? 0xFFFD : u);
    }
    return out;
}

}  // namespace

namespace detail {

std::vector<std::uint8_t> png_with_icc(const std::span<const std::uint8_t> png,
                                       const std::span<const std::uint8_t> icc) {
    constexpr std::size_t kIhdrEnd = 8 + 8 + 13 + 4;
    if (png.size() < kIhdrEnd ||
        !std::equal(kPngSignature.begin(), kPngSignature.end(), png.begin()) ||
        std::memcmp(png.data() + 12, "IHDR", 4) != 0)
        fail_embed("the encoded image is not a PNG file");
    // iCCP: a Latin-1 profile name, NUL, compression method 0 (zlib), the compressed profile.
    std::vector<std::uint8_t> data;
    data.reserve(13 + icc.size());
    append(data, std::string_view("ICC Profile"));
    data.push_back(0);
    data.push_back(0);
    append(data, deflate(icc));

    std::vector<std::uint8_t> out(png.begin(), png.begin() + kIhdrEnd);
    append(out, png_chunk("iCCP", data));
    for (std::size_t at = kIhdrEnd; at + 12 <= png.size();) {
        const std::size_t size = 12 + std::size_t{read_be32(png, at)};
        if (at + size > png.size()) fail_embed("the encoded PNG is truncated");
        // A second profile (or an sRGB claim next to it) would contradict the one written.
        const std::string_view type(reinterpret_cast<const char*>(png.data() + at + 4), 4);
        if (type != "iCCP" && type != "sRGB") append(out, png.subspan(at, size));
        at += size;
    }
    return out;
}

std::vector<std::uint8_t> webp_with_icc(const std::span<const std::uint8_t> webp,
                                        const std::span<const std::uint8_t> icc, const int width,
                                        const int height) {
    const std::vector<RiffChunk> chunks = riff_chunks(webp);
    if (chunks.empty()) fail_embed("the encoded WebP has no image data");
    std::vector<std::uint8_t> iccp;
    iccp.reserve(8 + icc.size() + 1);
    append(iccp, std::string_view("ICCP"));
    append_le(iccp, static_cast<std::uint32_t>(icc.size()), 4);
    append(iccp, icc);
    if (icc.size() % 2 != 0) iccp.push_back(0);

    // The container spec's order: VP8X, ICCP, then everything else (ANIM, image, EXIF, XMP).
    std::vector<std::uint8_t> body;
    body.reserve(webp.size() + iccp.size() + 18);
    if (chunks.front().fourcc == "VP8X") {
        std::vector<std::uint8_t> vp8x(
            webp.begin() + static_cast<std::ptrdiff_t>(chunks.front().offset),
            webp.begin() +
                static_cast<std::ptrdiff_t>(chunks.front().offset + chunks.front().size));
        if (vp8x.size() < 18) fail_embed("the encoded WebP has a short VP8X header");
        vp8x[8] |= kVp8xIccFlag;
        append(body, vp8x);
    } else {
        const std::uint8_t alpha = vp8l_uses_alpha(webp, chunks.front()) ? kVp8xAlphaFlag : 0;
        append(body, vp8x_chunk(kVp8xIccFlag | alpha, width, height));
    }
    append(body, iccp);
    for (const RiffChunk& c : chunks) {
        if (c.fourcc == "VP8X" || c.fourcc == "ICCP") continue;
        append(body, webp.subspan(c.offset, c.size));
    }
    std::vector<std::uint8_t> out(12 + body.size());
    const std::uint32_t riff_size = static_cast<std::uint32_t>(4 + body.size());
    std::memcpy(out.data(), "RIFF", 4);
    for (int i = 0; i < 4; ++i) out[4 + i] = static_cast<std::uint8_t>(riff_size >> (8 * i));
    std::memcpy(out.data() + 8, "WEBP", 4);
    std::copy(body.begin(), body.end(), out.begin() + 12);
    return out;
}

}  // namespace detail

std::optional<std::string> icc_description(const std::span<const std::uint8_t> profile) {
    // Header (128 bytes), then the tag count and 12-byte entries: signature, offset, size.
    if (profile.size() < 132) return std::nullopt;
    const std::uint32_t count = read_be32(profile, 128);
    if (count > (profile.size() - 132) / 12) return std::nullopt;
    for (std::uint32_t i = 0; i < count; ++i) {
        const std::size_t entry = 132 + std::size_t{i} * 12;
        if (std::memcmp(profile.data() + entry, "desc", 4) != 0) continue;
        const std::size_t offset = read_be32(profile, entry + 4);
        const std::size_t size = read_be32(profile, entry + 8);
        if (offset > profile.size() || size > profile.size() - offset || size < 12)
            return std::nullopt;
        const std::span<const std::uint8_t> tag = profile.subspan(offset, size);
        if (std::memcmp(tag.data(), "desc", 4) == 0) {
            // textDescriptionType (v2): an ASCII count (with its NUL), then the ASCII text.
            const std::size_t length = read_be32(tag, 8);
            if (length > size - 12) return std::nullopt;
            const auto* text = reinterpret_cast<const char*>(tag.data() + 12);
            return std::string(text, strnlen(text, length));
        }
        if (std::memcmp(tag.data(), "mluc", 4) == 0 && size >= 28) {
            // multiLocalizedUnicodeType (v4): records of language, country, length, offset.
            if (read_be32(tag, 8) == 0) return std::nullopt;
            const std::size_t length = read_be32(tag, 20);
            const std::size_t at = read_be32(tag, 24);
            if (at > size || length > size - at) return std::nullopt;
            return utf16be_to_utf8(tag.subspan(at, length));
        }
        return std::nullopt;
    }
    return std::nullopt;
}

}  // namespace lacuna::io
