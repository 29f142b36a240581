#include "header_probe.hpp"
#include "scientific_io.hpp"

#include "jpeg_header.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>

namespace lacuna::io::detail {
namespace {

using Bytes = std::vector<std::uint8_t>;

bool starts_with(const Bytes& b, const std::size_t offset, const char* magic) {
    const std::size_t n = std::strlen(magic);
    return b.size() >= offset + n && std::memcmp(b.data() + offset, magic, n) == 0;
}

std::uint32_t be32(const Bytes& b, const std::size_t at) {
    return (std::uint32_t{b[at]} << 24) | (std::uint32_t{b[at + 1]} << 16) |
           (std::uint32_t{b[at + 2]} << 8) | b[at + 3];
}
std::uint16_t be16(const Bytes& b, const std::size_t at) {
    return static_cast<std::uint16_t>((b[at] << 8) | b[at + 1]);
}
std::uint32_t le32(const Bytes& b, const std::size_t at) {
    return std::uint32_t{b[at]} | (std::uint32_t{b[at + 1]} << 8) |
           (std::uint32_t{b[at + 2]} << 16) | (std::uint32_t{b[at + 3]} << 24);
}
std::uint32_t le24(const Bytes& b, const std::size_t at) {
    return std::uint32_t{b[at]} | (std::uint32_t{b[at + 1]} << 8) |
           (std::uint32_t{b[at + 2]} << 16);
}

void probe_png(const Bytes& b, HeaderProbe& p) {
    if (b.size() >= 24 && starts_with(b, 12, "IHDR")) {
        p.width = be32(b, 16);
        p.height = be32(b, 20);
    }
    // A complete PNG ends with the IEND chunk: length 0, "IEND", CRC.
    p.truncated = b.size() < 12 || std::memcmp(b.data() + b.size() - 8, "IEND", 4) != 0;
    // Every chunk before IEND must fit in the file. libpng allocates (and clears) a chunk's
    // declared length before reading it: a 442-byte file whose text chunk claimed 1 GB kept the
    // decoder busy for seconds and took a gigabyte (found by fuzz/fuzz_image_decode.cpp).
    for (std::size_t at = 8; !p.truncated && at + 8 <= b.size();) {
        const std::uint64_t length = be32(b, at);
        if (length > 0x7FFFFFFFu || at + 12 + length > b.size()) {
            p.truncated = true;
            break;
        }
        if (std::memcmp(b.data() + at + 4, "IEND", 4) == 0) break;
        at += static_cast<std::size_t>(12 + length);
    }
}

void probe_jpeg(const Bytes& b, HeaderProbe& p) {
    std::size_t at = 2;
    while (at + 9 < b.size()) {
        if (b[at] != 0xFF) {
            // libjpeg skips stray bytes up to the next marker ("extraneous bytes before marker")
            // and reads the frame size after them; so must the probe, or a 1 KB file declaring
            // 15628x60681 pixels gets decoded (fuzz_mask_load: a 2.8 GB allocation).
            while (at + 1 < b.size() && !(b[at] == 0xFF && b[at + 1] != 0x00 && b[at + 1] != 0xFF))
                ++at;
            continue;
        }
        const std::uint8_t marker = b[at + 1];
        if (marker == 0xFF) {  // fill byte
            ++at;
            continue;
        }
        if (marker == 0x00) {  // a stuffed zero is no marker: libjpeg scans on (fuzz_mask_load)
            ++at;
            continue;
        }
        const bool start_of_frame =
            marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC;
        if (start_of_frame) {
            p.height = be16(b, at + 5);
            p.width = be16(b, at + 7);
            break;
        }
        if (marker == 0xD8 || (marker >= 0xD0 && marker <= 0xD7)) {
            at += 2;
            continue;
        }
        at += 2 + be16(b, at + 2);
    }
    // The end-of-image marker closes a complete file. Encoders may pad after it, so look near
    // the end rather than at the last two bytes.
    const std::size_t tail = std::min<std::size_t>(b.size(), 4096);
    bool found_eoi = false;
    for (std::size_t i = b.size() - tail; i + 1 < b.size(); ++i) {
        if (b[i] == 0xFF && b[i + 1] == 0xD9) found_eoi = true;
    }
    p.truncated = !found_eoi;
}

void probe_bmp(const Bytes& b, HeaderProbe& p) {
    if (b.size() >= 26) {
        p.width = static_cast<std::int32_t>(le32(b, 18));
        const auto h = static_cast<std::int32_t>(le32(b, 22));
        p.height = h < 0 ? -std::int64_t{h} : h;  // negative height: top-down rows
    }
    if (b.size() >= 6) p.truncated = b.size() < le32(b, 2);
}

void probe_webp(const Bytes& b, HeaderProbe& p) {
    if (starts_with(b, 12, "VP8X") && b.size() >= 30) {
        p.width = std::int64_t{le24(b, 24)} + 1;
        p.height = std::int64_t{le24(b, 27)} + 1;
    } else if (starts_with(b, 12, "VP8L") && b.size() >= 25) {
        const std::uint32_t bits = le32(b, 21);
        p.width = std::int64_t{bits & 0x3FFF} + 1;
        p.height = std::int64_t{(bits >> 14) & 0x3FFF} + 1;
    } else if (starts_with(b, 12, "VP8 ") && b.size() >= 30) {
        p.width = b[26] | ((b[27] & 0x3F) << 8);
        p.height = b[28] | ((b[29] & 0x3F) << 8);
    } else if (b.size() >= 16 && !starts_with(b, 12, "VP8X") && !starts_with(b, 12, "VP8L") &&
               !starts_with(b, 12, "VP8 ")) {
        // A WebP's first chunk is VP8, VP8L or VP8X (the container's specification). OpenCV's
        // WebP reader does not take such a file, and it then went to the next reader whose
        // signature matched: a DICOM marker at 128 sent it to GDCM, which took seconds to refuse
        // it (found by fuzz/fuzz_mask_load.cpp).
        p.malformed = true;
    }
    if (b.size() >= 8) p.truncated = b.size() < std::size_t{le32(b, 4)} + 8;
}

// Netpbm: "P5 <w> <h> <max>" with whitespace and '#' comments between tokens.
void probe_pnm(const Bytes& b, HeaderProbe& p) {
    std::size_t at = 2;
    std::int64_t values[2] = {-1, -1};
    // Until both numbers are read the header is malformed: OpenCV's reader parses such headers
    // its own way (a PFM "611111\x10 8400276" became an allocation of 2.9 GB before any size
    // check; found by fuzz/fuzz_mask_load.cpp).
    p.malformed = true;
    for (std::int64_t& v : values) {
        while (at < b.size() && (std::isspace(b[at]) || b[at] == '#')) {
            if (b[at] == '#') {
                while (at < b.size() && b[at] != '\n') ++at;
            } else {
                ++at;
            }
        }
        if (at >= b.size() || !std::isdigit(b[at])) return;
        v = 0;
        while (at < b.size() && std::isdigit(b[at]) && v < (std::int64_t{1} << 40)) {
            v = v * 10 + (b[at++] - '0');
        }
        while (at < b.size() && std::isdigit(b[at])) ++at;  // beyond 2^40: too large anyway
    }
    // The numbers end at whitespace, a comment or the end of the file.
    if (at < b.size() && !std::isspace(b[at]) && b[at] != '#') return;
    p.malformed = false;
    p.width = values[0];
    p.height = values[1];
}

// TIFF (classic or BigTIFF): the first image directory gives the size, and where its strips
// (or tiles) lie; a file that ends before its directory or before the end of its last strip is
// truncated. (libtiff would report such a file only as undecodable.)
void probe_tiff(const Bytes& b, HeaderProbe& p, const bool big) {
    const bool le = b[0] == 'I';
    const auto u16 = [&](const std::size_t at) -> std::uint64_t {
        return le ? std::uint64_t{b[at]} | (std::uint64_t{b[at + 1]} << 8) : be16(b, at);
    };
    const auto u32 = [&](const std::size_t at) -> std::uint64_t {
        return le ? le32(b, at) : be32(b, at);
    };
    const auto u64 = [&](const std::size_t at) -> std::uint64_t {
        const std::uint64_t lo = u32(at + (le ? 0 : 4)), hi = u32(at + (le ? 4 : 0));
        return (hi << 32) | lo;
    };
    // BigTIFF: 8-byte offsets and counts, 20-byte entries (and LONG8 values, type 16).
    const std::size_t header = big ? 16 : 8, count_size = big ? 8 : 2, entry_size = big ? 20 : 12,
                      inline_size = big ? 8 : 4;
    const auto offset = [&](const std::size_t at) { return big ? u64(at) : u32(at); };
    if (b.size() < header) {
        p.truncated = true;
        return;
    }
    const std::uint64_t ifd = offset(big ? 8 : 4);
    if (ifd > b.size() || ifd + count_size > b.size()) {
        p.truncated = true;
        return;
    }
    const std::uint64_t entries = big ? u64(ifd) : u16(ifd);
    if (entries > b.size() || ifd + count_size + entries * entry_size > b.size()) {
        p.truncated = true;
        return;
    }
    // Offsets and byte counts: one value in the entry, or an array the entry points to.
    struct Array {
        std::uint64_t type = 0, count = 0, at = 0;
    };
    Array offsets, counts;
    const auto size_of = [](const std::uint64_t type) -> std::uint64_t {
        return type == 3 ? 2 : type == 16 ? 8 : 4;
    };
    const auto read = [&](const std::uint64_t type, const std::size_t at) -> std::uint64_t {
        return type == 3 ? u16(at) : type == 16 ? u64(at) : u32(at);
    };
    for (std::uint64_t k = 0; k < entries; ++k) {
        const std::size_t e = static_cast<std::size_t>(ifd + count_size + k * entry_size);
        const std::uint64_t tag = u16(e), type = u16(e + 2);
        const std::uint64_t count = big ? u64(e + 4) : u32(e + 4);
        const std::size_t field = e + (big ? 12 : 8);
        const std::uint64_t at = count <= inline_size / size_of(type) ? field : offset(field);
        if (tag == 256) p.width = static_cast<std::int64_t>(read(type, field));
        if (tag == 257) p.height = static_cast<std::int64_t>(read(type, field));
        if (tag == 273 || tag == 324) offsets = {type, count, at};
        if (tag == 279 || tag == 325) counts = {type, count, at};
    }
    if (offsets.count == 0 || offsets.count != counts.count) return;  // let the decoder judge
    const auto value = [&](const Array& a, const std::uint64_t i) -> std::uint64_t {
        if (i > b.size() || a.at > b.size()) return ~std::uint64_t{0};
        const std::uint64_t at = a.at + i * size_of(a.type);
        if (at + size_of(a.type) > b.size()) return ~std::uint64_t{0};
        return read(a.type, static_cast<std::size_t>(at));
    };
    for (std::uint64_t i = 0; i < offsets.count && i < (1u << 20); ++i) {
        const std::uint64_t start = value(offsets, i), length = value(counts, i);
        if (start == ~std::uint64_t{0} || length == ~std::uint64_t{0} || start > b.size() ||
            length > b.size() - start) {
            p.truncated = true;
            return;
        }
    }
}

// PFM: "PF" (colour) or "Pf" (grey), width, height, a scale whose sign gives the byte order, one
// whitespace byte, then width × height × channels 32-bit floats.
void probe_pfm(const Bytes& b, HeaderProbe& p) {
    probe_pnm(b, p);
    if (!p.width || !p.height || *p.width <= 0 || *p.height <= 0) return;
    std::size_t at = 2;
    int tokens = 0;
    while (at < b.size() && tokens < 3) {
        while (at < b.size() && std::isspace(b[at])) ++at;
        if (at >= b.size()) break;
        while (at < b.size() && !std::isspace(b[at])) ++at;
        ++tokens;
    }
    if (tokens < 3 || at >= b.size()) {
        p.truncated = true;
        return;
    }
    ++at;  // the single whitespace byte that ends the header
    // Sizes beyond the limits are refused from the probe's width and height; the product below
    // overflowed int64 for a header claiming 8888888888888 × 8888888888888 (found by
    // fuzz/fuzz_image_decode.cpp), so it is only computed within them.
    if (*p.width > kMaxImageSide || *p.height > kMaxImageSide) return;
    const std::int64_t channels = b[1] == 'F' ? 3 : 1;
    const std::int64_t need = *p.width * *p.height * channels * 4;
    if (static_cast<std::int64_t>(b.size() - at) < need) p.truncated = true;
}

}  // namespace

HeaderProbe probe_header(const Bytes& b) {
    HeaderProbe p;
    // DICOM first: its 128-byte preamble is free for other uses, and PS3.10 7.5 lets it hold a
    // TIFF header (pydicom's CT_small.dcm and MR_small.dcm start with "II*"), so a DICM marker
    // at 128 decides before any signature at 0 is looked at.
    if (b.size() >= 132 && starts_with(b, 128, "DICM")) {
        p.format = ImageFormat::Dicom;
    } else if (starts_with(b, 0, "\x89PNG\r\n\x1a\n")) {
        p.format = ImageFormat::Png;
        probe_png(b, p);
    } else if (b.size() >= 3 && b[0] == 0xFF && b[1] == 0xD8 && b[2] == 0xFF) {
        p.format = ImageFormat::Jpeg;
        probe_jpeg(b, p);
        // The size the decoder will use is libjpeg's: take it from libjpeg (jpeg_header.cpp).
        if (const auto size = jpeg_frame_size(b)) {
            p.width = size->first;
            p.height = size->second;
        }
    } else if (b.size() >= 4 && ((b[0] == 'I' && b[1] == 'I' && b[2] == 43 && b[3] == 0) ||
                                 (b[0] == 'M' && b[1] == 'M' && b[2] == 0 && b[3] == 43))) {
        p.format = ImageFormat::Tiff;  // BigTIFF: version 43
        probe_tiff(b, p, true);
    } else if (starts_with(b, 0, "II*") || starts_with(b, 0, "MM")) {
        if (b.size() >= 4 &&
            ((b[0] == 'I' && b[3] == 0) || (b[0] == 'M' && b[2] == 0 && b[3] == 42))) {
            p.format = ImageFormat::Tiff;
            probe_tiff(b, p, false);
        }
    } else if (starts_with(b, 0, "RIFF") && starts_with(b, 8, "WEBP")) {
        p.format = ImageFormat::Webp;
        probe_webp(b, p);
    } else if (starts_with(b, 0, "BM")) {
        p.format = ImageFormat::Bmp;
        probe_bmp(b, p);
    } else if (b.size() >= 3 && b[0] == 'P' && (b[1] == '2' || b[1] == '5') && std::isspace(b[2])) {
        // The magic number ends at whitespace, as OpenCV's reader requires: "P55" is not a PGM
        // (OpenCV passed such a file, which held a DICOM marker at 128, to GDCM, which aborts on
        // a malformed file; found by fuzz/fuzz_image_decode.cpp).
        p.format = ImageFormat::Pgm;
        probe_pnm(b, p);
    } else if (b.size() >= 3 && b[0] == 'P' && (b[1] == '3' || b[1] == '6') && std::isspace(b[2])) {
        p.format = ImageFormat::Ppm;
        probe_pnm(b, p);
    } else if (b.size() >= 3 && b[0] == 'P' && (b[1] == 'F' || b[1] == 'f') && std::isspace(b[2])) {
        p.format = ImageFormat::Pfm;
        probe_pfm(b, p);
    } else if (starts_with(b, 0, "SIMPLE  =")) {
        p.format = ImageFormat::Fits;
    } else if (looks_like_headless_dicom(b)) {
        p.format = ImageFormat::Dicom;
    } else if (starts_with(b, 0, "GIF87a") || starts_with(b, 0, "GIF89a")) {
        p.format = ImageFormat::Gif;
        // The logical screen: every frame is composed on it.
        if (b.size() >= 10) {
            p.width = b[6] | (b[7] << 8);
            p.height = b[8] | (b[9] << 8);
        } else {
            p.truncated = true;
        }
    } else if (starts_with(b, 0, "%PDF")) {
        p.unsupported_name = "PDF";
    } else if (starts_with(b, 4, "ftypheic") || starts_with(b, 4, "ftypheix") ||
               starts_with(b, 4, "ftypmif1") || starts_with(b, 4, "ftypavif")) {
        p.unsupported_name = "HEIF/AVIF";
    } else if (starts_with(b, 0, "8BPS")) {
        p.unsupported_name = "Photoshop PSD";
    }
    return p;
}

}  // namespace lacuna::io::detail
