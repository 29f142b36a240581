// DICOM through GDCM (every frame a page). GDCM parses the file and decodes the pixel data
// (including the compressed transfer syntaxes its build supports); Lacuna turns the decoded samples
// into a NativeImage and the rescale/window attributes into a Calibration and a display window.
//
// GDCM asserts (aborts the process) on some malformed input, e.g. a file cut inside its file
// meta information. So before GDCM sees a file, a small walker checks its element structure
// against the file's length: every truncation becomes Error(Truncated), every structure that
// cannot be DICOM becomes Error(Corrupt), every element whose VR or length contradicts GDCM's
// dictionary (GDCM's image layer asserts on those) becomes Error(Corrupt) too, and the pixel
// module is validated from the walker's record of the top-level elements.
#include "codec_output.hpp"
#include "scientific_io.hpp"

#include <gdcmDictEntry.h>
#include <gdcmDicts.h>
#include <gdcmGlobal.h>
#include <gdcmImage.h>
#include <gdcmImageReader.h>
#include <gdcmJPEG2000Codec.h>
#include <gdcmJPEGCodec.h>
#include <gdcmJPEGLSCodec.h>
#include <gdcmRLECodec.h>
#include <gdcmTrace.h>
#include <gdcmTransferSyntax.h>
#include <gdcmVR.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <unistd.h>
#include <zlib.h>

namespace lacuna::io::detail {
namespace {

using Bytes = std::vector<std::uint8_t>;

constexpr std::size_t kMetaStart = 132;  // 128-byte preamble, then "DICM"
constexpr std::uint32_t kUndefinedLength = 0xFFFFFFFF;
constexpr int kMaxSequenceDepth = 32;  // deeper nesting is not found in images; stops recursion

constexpr std::uint32_t tag(const std::uint16_t group, const std::uint16_t element) {
    return (std::uint32_t{group} << 16) | element;
}
constexpr std::uint32_t kItem = tag(0xFFFE, 0xE000);
constexpr std::uint32_t kItemEnd = tag(0xFFFE, 0xE00D);
constexpr std::uint32_t kSequenceEnd = tag(0xFFFE, 0xE0DD);
constexpr std::uint32_t kTransferSyntax = tag(0x0002, 0x0010);
constexpr std::uint32_t kMediaStorageSopClass = tag(0x0002, 0x0002);
constexpr std::uint32_t kSopClass = tag(0x0008, 0x0016);
constexpr std::uint32_t kModality = tag(0x0008, 0x0060);
constexpr std::uint32_t kDoseUnits = tag(0x3004, 0x0002);
constexpr std::uint32_t kSamplesPerPixel = tag(0x0028, 0x0002);
constexpr std::uint32_t kPhotometric = tag(0x0028, 0x0004);
constexpr std::uint32_t kPlanarConfiguration = tag(0x0028, 0x0006);
constexpr std::uint32_t kNumberOfFrames = tag(0x0028, 0x0008);
constexpr std::uint32_t kRows = tag(0x0028, 0x0010);
constexpr std::uint32_t kColumns = tag(0x0028, 0x0011);
constexpr std::uint32_t kBitsAllocated = tag(0x0028, 0x0100);
constexpr std::uint32_t kBitsStored = tag(0x0028, 0x0101);
constexpr std::uint32_t kHighBit = tag(0x0028, 0x0102);
constexpr std::uint32_t kPixelRepresentation = tag(0x0028, 0x0103);
constexpr std::uint32_t kWindowCenter = tag(0x0028, 0x1050);
constexpr std::uint32_t kWindowWidth = tag(0x0028, 0x1051);
constexpr std::uint32_t kRescaleIntercept = tag(0x0028, 0x1052);
constexpr std::uint32_t kRescaleSlope = tag(0x0028, 0x1053);
constexpr std::uint32_t kRescaleType = tag(0x0028, 0x1054);
constexpr std::uint32_t kPixelData = tag(0x7FE0, 0x0010);
constexpr std::uint32_t kPixelSpacing = tag(0x0028, 0x0030);
constexpr std::uint32_t kImagerPixelSpacing = tag(0x0018, 0x1164);
constexpr std::uint32_t kFrameTime = tag(0x0018, 0x1063);        // DS, ms
constexpr std::uint32_t kFrameTimeVector = tag(0x0018, 0x1065);  // DS per frame, ms

enum class Encoding { ExplicitLittle, ImplicitLittle, ExplicitBig };

// Where a top-level element's value lies in the file.
struct Span {
    std::size_t offset = 0;
    std::size_t length = 0;
};

// What the walker learnt: the data set's encoding, where each top-level element is, and how
// much of the file GDCM should parse.
struct Layout {
    Encoding encoding = Encoding::ExplicitLittle;
    std::string transfer_syntax;
    std::string sop_class;  ///< from the file meta information
    std::map<std::uint32_t, Span> elements;
    bool encapsulated_pixels = false;  ///< compressed: pixel data is a sequence of fragments
    std::size_t end = 0;               ///< GDCM reads bytes [0, end)
    std::vector<std::string> notices;
};

// A text value without the spaces and NULs DICOM pads values with.
std::string trim_padding(std::string text) {
    const auto keep = [](const char c) { return c != ' ' && c != '\0'; };
    text.erase(std::find_if(text.rbegin(), text.rend(), keep).base(), text.end());
    text.erase(text.begin(), std::find_if(text.begin(), text.end(), keep));
    return text;
}

bool valid_vr(const char a, const char b) {
    static constexpr std::string_view kVrs[] = {
        "AE", "AS", "AT", "CS", "DA", "DS", "DT", "FL", "FD", "IS", "LO", "LT",
        "OB", "OD", "OF", "OL", "OV", "OW", "PN", "SH", "SL", "SQ", "SS", "ST",
        "SV", "TM", "UC", "UI", "UL", "UN", "UR", "US", "UT", "UV"};
    const char vr[2] = {a, b};
    return std::any_of(std::begin(kVrs), std::end(kVrs), [&](const std::string_view known) {
        return known == std::string_view(vr, 2);
    });
}

// VRs whose explicit encoding has two reserved bytes and a 32-bit length (PS3.5 7.1.2).
bool long_length_vr(const std::string_view vr) {
    static constexpr std::string_view kLong[] = {"OB", "OD", "OF", "OL", "OV", "OW", "SQ",
                                                 "SV", "UC", "UN", "UR", "UT", "UV"};
    return std::find(std::begin(kLong), std::end(kLong), vr) != std::end(kLong);
}

// The size of one value of a binary VR, 0 for the others (text, and byte/word streams).
std::uint32_t binary_value_size(const gdcm::VR::VRType vr) {
    switch (vr) {
        case gdcm::VR::US:
        case gdcm::VR::SS:
        case gdcm::VR::US_SS:
            return 2;
        case gdcm::VR::UL:
        case gdcm::VR::SL:
        case gdcm::VR::FL:
        case gdcm::VR::AT:
            return 4;
        case gdcm::VR::FD:
        case gdcm::VR::SV:
        case gdcm::VR::UV:
            return 8;
        default:
            return 0;
    }
}

class Walker {
  public:
    Walker(const Bytes& bytes, const std::string_view name) : bytes_(bytes), name_(name) {}

    Layout walk() {
        if (looks_like_dicom(bytes_)) {
            pos_ = kMetaStart;
            walk_meta_information();
        } else if (u16(0, false) == 0x0002) {
            pos_ = 0;  // file meta information without the preamble
            walk_meta_information();
        } else {
            pos_ = 0;
            guess_encoding();
        }
        walk_data_set();
        return std::move(layout_);
    }

  private:
    struct Header {
        std::uint32_t tag = 0;
        char vr[2] = {0, 0};
        bool has_vr = false;
        std::uint32_t length = 0;
        std::size_t value_at = 0;
        [[nodiscard]] std::string_view vr_text() const { return {vr, has_vr ? 2u : 0u}; }
    };

    [[noreturn]] void truncated(const std::string& where) const {
        fail_reading(ErrorCode::Truncated, name_,
                     "the DICOM file is truncated (it ends inside its " + where + ")");
    }
    [[noreturn]] void corrupt(const std::string& what) const {
        fail_reading(ErrorCode::Corrupt, name_, "the DICOM file is corrupt (" + what + ")");
    }

    [[nodiscard]] std::size_t left() const { return bytes_.size() - pos_; }

    [[nodiscard]] std::uint16_t u16(const std::size_t at, const bool big) const {
        return big ? static_cast<std::uint16_t>((bytes_[at] << 8) | bytes_[at + 1])
                   : static_cast<std::uint16_t>(bytes_[at] | (bytes_[at + 1] << 8));
    }
    [[nodiscard]] std::uint32_t u32(const std::size_t at, const bool big) const {
        const std::uint32_t lo = u16(at + (big ? 2 : 0), big);
        const std::uint32_t hi = u16(at + (big ? 0 : 2), big);
        return (hi << 16) | lo;
    }

    // Reads a tag and its length (and VR when explicit); leaves pos_ at the value.
    Header read_header(const bool explicit_vr, const bool big, const std::string& where) {
        if (left() < 8) truncated(where);
        Header h;
        h.tag = (std::uint32_t{u16(pos_, big)} << 16) | u16(pos_ + 2, big);
        pos_ += 4;
        // Items and delimiters carry no VR in any encoding.
        if (explicit_vr && (h.tag >> 16) != 0xFFFE) {
            h.vr[0] = static_cast<char>(bytes_[pos_]);
            h.vr[1] = static_cast<char>(bytes_[pos_ + 1]);
            h.has_vr = true;
            if (!valid_vr(h.vr[0], h.vr[1])) {
                corrupt("the element " + hex(h.tag) + " has an invalid value representation");
            }
            if (long_length_vr(h.vr_text())) {
                if (left() < 8) truncated(where);
                h.length = u32(pos_ + 4, big);
                pos_ += 8;
            } else {
                h.length = u16(pos_ + 2, big);
                pos_ += 4;
            }
        } else {
            h.length = u32(pos_, big);
            pos_ += 4;
        }
        h.value_at = pos_;
        check_against_dictionary(h);
        return h;
    }

    // GDCM's image layer asserts (aborts) when an element it reads has a VR its dictionary does
    // not allow, or a binary value of a length that is no multiple of the value size. Such an
    // element can only come from damage, so it makes the file corrupt here.
    void check_against_dictionary(const Header& h) const {
        if ((h.tag >> 16) == 0xFFFE || (h.tag & 0xFFFF) == 0) return;  // items, group lengths
        const gdcm::Tag gdcm_tag(static_cast<std::uint16_t>(h.tag >> 16),
                                 static_cast<std::uint16_t>(h.tag & 0xFFFF));
        const gdcm::VR expected =
            gdcm::Global::GetInstance().GetDicts().GetDictEntry(gdcm_tag).GetVR();
        gdcm::VR vr = expected;
        if (h.has_vr) {
            const char text[3] = {h.vr[0], h.vr[1], '\0'};
            vr = gdcm::VR(gdcm::VR::GetVRType(text));
            const bool known = expected != gdcm::VR::INVALID && expected != gdcm::VR::UN;
            if (known && vr != gdcm::VR::UN && !expected.Compatible(vr)) {
                corrupt("the element " + hex(h.tag) + " has the value representation " +
                        std::string(h.vr_text()) + ", which DICOM does not allow");
            }
        }
        const std::uint32_t size = binary_value_size(static_cast<gdcm::VR::VRType>(vr));
        if (size != 0 && h.length != kUndefinedLength && h.length % size != 0) {
            corrupt("the element " + hex(h.tag) + " has a value of " + std::to_string(h.length) +
                    " bytes");
        }
    }

    void skip_value(const Header& h, const std::string& where) {
        if (h.length > left()) truncated(where);
        pos_ += h.length;
    }

    static std::string hex(const std::uint32_t t) {
        char text[16];
        std::snprintf(text, sizeof text, "(%04X,%04X)", t >> 16, t & 0xFFFF);
        return text;
    }

    // The file meta information (group 0002): always explicit VR little endian.
    void walk_meta_information() {
        if (left() < 8 || u16(pos_, false) != 0x0002) {
            if (left() < 8) truncated("header");
            corrupt("no file meta information follows the DICM marker");
        }
        while (left() >= 2 && u16(pos_, false) == 0x0002) {
            const Header h = read_header(true, false, "header");
            if (h.length == kUndefinedLength) corrupt("a file meta element has no length");
            skip_value(h, "header");
            if (h.tag == kTransferSyntax) layout_.transfer_syntax = trimmed(h.value_at, h.length);
            if (h.tag == kMediaStorageSopClass) layout_.sop_class = trimmed(h.value_at, h.length);
        }
        const std::string& ts = layout_.transfer_syntax;
        if (ts.empty()) corrupt("its file meta information names no transfer syntax");
        if (ts == "1.2.840.10008.1.2.1.99") {
            fail_reading(ErrorCode::UnsupportedFormat, name_,
                         "deflated DICOM files are not supported");
        }
        if (ts == "1.2.840.10008.1.2") {
            layout_.encoding = Encoding::ImplicitLittle;
        } else if (ts == "1.2.840.10008.1.2.2") {
            layout_.encoding = Encoding::ExplicitBig;
        }
    }

    // A data set without file meta information names no transfer syntax: the first element
    // tells the byte order (group 0008 read either way) and whether a VR follows the tag.
    void guess_encoding() {
        const bool big = u16(0, false) != 0x0008;
        const bool explicit_vr =
            valid_vr(static_cast<char>(bytes_[4]), static_cast<char>(bytes_[5]));
        if (big && !explicit_vr) corrupt("its first element is neither little- nor big-endian");
        layout_.encoding = big           ? Encoding::ExplicitBig
                           : explicit_vr ? Encoding::ExplicitLittle
                                         : Encoding::ImplicitLittle;
        layout_.transfer_syntax = big           ? "1.2.840.10008.1.2.2"
                                  : explicit_vr ? "1.2.840.10008.1.2.1"
                                                : "1.2.840.10008.1.2";
        layout_.notices.push_back(
            std::string("the DICOM file has no preamble or file meta information: read as ") +
            (big           ? "explicit VR big endian"
             : explicit_vr ? "explicit VR little endian"
                           : "implicit VR little endian"));
    }

    // Top-level elements: strictly ascending tags, every value inside the file.
    void walk_data_set() {
        const bool explicit_vr = layout_.encoding != Encoding::ImplicitLittle;
        const bool big = layout_.encoding == Encoding::ExplicitBig;
        std::uint32_t previous = 0;
        std::optional<std::size_t> pixels_end;
        while (left() > 0) {
            try {
                const Header h = read_header(explicit_vr, big, "header");
                if (h.tag <= previous || (h.tag >> 16) == 0xFFFE) {
                    corrupt("its data elements are out of order at " + hex(h.tag));
                }
                previous = h.tag;
                const std::string where = h.tag == kPixelData ? "pixel data" : "header";
                if (h.length == kUndefinedLength) {
                    walk_undefined_length(h, explicit_vr, big);
                } else {
                    skip_value(h, where);
                }
                layout_.elements[h.tag] = Span{h.value_at, pos_ - h.value_at};
                if (h.tag == kPixelData) pixels_end = pos_;
            } catch (const Error&) {
                // Trailing bytes after complete pixel data do not hide the image: GDCM gets the
                // file up to the pixel data's end, and the user a notice.
                if (!pixels_end) throw;
                layout_.notices.push_back("ignored " + std::to_string(bytes_.size() - *pixels_end) +
                                          " bytes after the pixel data that are not valid DICOM");
                layout_.end = *pixels_end;
                return;
            }
        }
        layout_.end = bytes_.size();
    }

    void walk_undefined_length(const Header& h, const bool explicit_vr, const bool big) {
        if (h.tag == kPixelData) {
            layout_.encapsulated_pixels = true;
            walk_fragments(big);
        } else if (!h.has_vr || h.vr_text() == "SQ") {
            walk_sequence(explicit_vr, big, 1);
        } else if (h.vr_text() == "UN") {
            // PS3.5 6.2.2: an undefined-length UN element is a sequence in implicit VR.
            walk_sequence(false, big, 1);
        } else {
            corrupt("the element " + hex(h.tag) + " has an undefined length");
        }
    }

    // Items until the sequence delimiter; an undefined-length item holds a data set that ends
    // at an item delimiter.
    void walk_sequence(const bool explicit_vr, const bool big, const int depth) {
        if (depth > kMaxSequenceDepth) corrupt("its sequences are nested too deeply");
        for (;;) {
            const Header item = read_header(explicit_vr, big, "header");
            if (item.tag == kSequenceEnd) return;
            if (item.tag != kItem) corrupt("a sequence holds " + hex(item.tag) + ", not an item");
            if (item.length != kUndefinedLength) {
                skip_value(item, "header");
                continue;
            }
            for (;;) {
                const Header h = read_header(explicit_vr, big, "header");
                if (h.tag == kItemEnd) break;
                if (h.tag == kItem || h.tag == kSequenceEnd)
                    corrupt("a sequence item is not closed");
                if (h.length == kUndefinedLength) {
                    const bool nested_explicit = explicit_vr && h.vr_text() != "UN";
                    walk_sequence(nested_explicit, big, depth + 1);
                } else {
                    skip_value(h, "header");
                }
            }
        }
    }

    // Encapsulated (compressed) pixel data: an offset table item, then one item per fragment.
    void walk_fragments(const bool big) {
        for (;;) {
            const Header item = read_header(false, big, "pixel data");
            if (item.tag == kSequenceEnd) return;
            if (item.tag != kItem || item.length == kUndefinedLength) {
                corrupt("its compressed pixel data is not a sequence of fragments");
            }
            skip_value(item, "pixel data");
        }
    }

    [[nodiscard]] std::string trimmed(const std::size_t at, const std::size_t length) const {
        return trim_padding(std::string(reinterpret_cast<const char*>(bytes_.data() + at), length));
    }

    const Bytes& bytes_;
    std::string_view name_;
    std::size_t pos_ = 0;
    Layout layout_;
};

// Values of the top-level elements the walker found, decoded in the data set's byte order.
class Attributes {
  public:
    Attributes(const Bytes& bytes, const Layout& layout) : bytes_(bytes), layout_(layout) {}

    [[nodiscard]] bool has(const std::uint32_t t) const { return layout_.elements.count(t) != 0; }

    [[nodiscard]] std::optional<unsigned> us(const std::uint32_t t) const {
        const auto it = layout_.elements.find(t);
        if (it == layout_.elements.end() || it->second.length < 2) return std::nullopt;
        const std::uint8_t* p = bytes_.data() + it->second.offset;
        return layout_.encoding == Encoding::ExplicitBig ? (p[0] << 8) | p[1] : p[0] | (p[1] << 8);
    }

    [[nodiscard]] std::string text(const std::uint32_t t) const {
        const auto it = layout_.elements.find(t);
        if (it == layout_.elements.end()) return {};
        return trim_padding(std::string(
            reinterpret_cast<const char*>(bytes_.data() + it->second.offset), it->second.length));
    }

    /// The first value of a decimal (DS/IS) element; multi-valued ones are separated by '\'.
    [[nodiscard]] std::optional<double> number(const std::uint32_t t) const {
        const std::string value = text(t);
        const std::string first = value.substr(0, value.find('\\'));
        std::size_t begin = first.find_first_not_of(' ');
        if (begin == std::string::npos) return std::nullopt;
        if (first[begin] == '+') ++begin;  // from_chars rejects an explicit plus sign
        double result = 0;
        const char* end = first.data() + first.size();
        while (end > first.data() + begin && end[-1] == ' ') --end;
        const auto [stop, error] = std::from_chars(first.data() + begin, end, result);
        // The whole value must be the number: "1A" is not 1.
        if (error != std::errc{} || stop != end || !std::isfinite(result)) return std::nullopt;
        return result;
    }

  private:
    const Bytes& bytes_;
    const Layout& layout_;
};

// The image pixel module, checked before GDCM builds an image from it.
struct PixelModule {
    int width = 0;
    int height = 0;
    int samples = 1;  ///< per pixel: 1 grey, 3 RGB
    int frames = 1;   ///< Number of Frames: each becomes a page
    int bits_allocated = 16;
    int bits_stored = 16;
    int high_bit = 15;
    bool is_signed = false;
    std::string photometric;
};

[[noreturn]] void unsupported(const std::string_view name, const std::string& what) {
    fail_reading(ErrorCode::UnsupportedFormat, name, what);
}
[[noreturn]] void corrupt(const std::string_view name, const std::string& what) {
    fail_reading(ErrorCode::Corrupt, name, "the DICOM file is corrupt (" + what + ")");
}

constexpr std::string_view kRtDoseStorage = "1.2.840.10008.5.1.4.1.1.481.2";

// Files GDCM 3.0 reads wrongly or stops the process on, refused before it sees them. Each was
// found by the real-file tier (tests/realfiles) against pydicom.
void refuse_what_gdcm_misreads(const Attributes& a, const Layout& layout, const PixelModule& m,
                               const std::string_view name) {
    // GDCM asserts (aborts) reading the spacing of an RT Dose without Number of Frames.
    const bool rt_dose = layout.sop_class == kRtDoseStorage || a.text(kSopClass) == kRtDoseStorage;
    if (rt_dose && !a.has(kNumberOfFrames)) {
        unsupported(name, "RT Dose files without a Number of Frames are not supported");
    }
    // Its RLE decoder shifts the bytes of multi-byte colour samples, and its big-endian
    // 32-bit samples come out swapped wrongly: the values would be wrong.
    if (layout.transfer_syntax == "1.2.840.10008.1.2.5" && m.samples > 1 && m.bits_allocated > 8) {
        unsupported(name, "RLE-compressed colour DICOM with " + std::to_string(m.bits_allocated) +
                              "-bit samples is not supported");
    }
    if (layout.encoding == Encoding::ExplicitBig && m.bits_allocated == 32) {
        unsupported(name, "big-endian DICOM with 32-bit samples is not supported");
    }
}

PixelModule read_pixel_module(const Attributes& a, const std::string_view name) {
    if (!a.has(kPixelData)) {
        // An image pixel module without pixel data: the file was cut between elements.
        if (a.has(kRows) && a.has(kColumns)) {
            fail_reading(ErrorCode::Truncated, name,
                         "the DICOM file is truncated (it ends before its pixel data)");
        }
        unsupported(name, "the DICOM file holds no image (it has no pixel data)");
    }
    PixelModule m;
    const std::optional<unsigned> rows = a.us(kRows), columns = a.us(kColumns);
    if (!rows || !columns) corrupt(name, "it has pixel data but no rows or columns");
    m.width = static_cast<int>(*columns);
    m.height = static_cast<int>(*rows);
    try {
        check_image_size(m.width, m.height);
    } catch (const Error& e) {
        fail_reading(e.code(), name, e.what());
    }
    // Every frame is a page: together they get the budget of one image.
    const std::optional<double> frames = a.number(kNumberOfFrames);
    if (a.has(kNumberOfFrames) && !a.text(kNumberOfFrames).empty() && !frames) {
        corrupt(name, "its Number of Frames '" + a.text(kNumberOfFrames) + "' is not a number");
    }
    if (frames && *frames > 1) {
        const double pixels = *frames * m.width * m.height;
        if (*frames != std::floor(*frames) || pixels > double(kMaxImagePixels)) {
            fail_reading(ErrorCode::TooLarge, name,
                         std::to_string(static_cast<long long>(std::min(*frames, 1e12))) +
                             " frames of " + std::to_string(m.width) + "x" +
                             std::to_string(m.height) + " exceed the limit of " +
                             std::to_string(kMaxImagePixels) + " pixels");
        }
        m.frames = static_cast<int>(*frames);
    }
    m.samples = static_cast<int>(a.us(kSamplesPerPixel).value_or(1));
    m.bits_allocated = static_cast<int>(a.us(kBitsAllocated).value_or(0));
    m.bits_stored = static_cast<int>(a.us(kBitsStored).value_or(m.bits_allocated));
    m.high_bit = static_cast<int>(a.us(kHighBit).value_or(m.bits_stored - 1));
    const unsigned representation = a.us(kPixelRepresentation).value_or(0);
    m.is_signed = representation == 1;
    m.photometric = a.text(kPhotometric);
    if (m.photometric.empty()) m.photometric = m.samples == 3 ? "RGB" : "MONOCHROME2";

    if (m.samples != 1 && m.samples != 3) {
        unsupported(name, "DICOM images with " + std::to_string(m.samples) +
                              " samples per pixel are not supported (grey or RGB only)");
    }
    if (m.bits_allocated != 8 && m.bits_allocated != 16 && m.bits_allocated != 32) {
        unsupported(name, "DICOM images with " + std::to_string(m.bits_allocated) +
                              " bits allocated per sample are not supported (8, 16 or 32 only)");
    }
    if (m.bits_stored < 1 || m.bits_stored > m.bits_allocated || m.high_bit < m.bits_stored - 1 ||
        m.high_bit >= m.bits_allocated || representation > 1) {
        corrupt(name, "its bits stored, high bit or pixel representation are inconsistent");
    }
    if (a.us(kPlanarConfiguration).value_or(0) > 1)
        corrupt(name, "its planar configuration is invalid");
    // GDCM 3.0 takes a missing or empty slope beside an intercept for a slope of 0 and stops the
    // whole process on an assertion (found by fuzz_image_decode); DICOM requires both or neither.
    if (a.has(kRescaleIntercept) && trim_padding(a.text(kRescaleSlope)).empty())
        corrupt(name, "it has a rescale intercept but no rescale slope");
    const bool grey = m.photometric == "MONOCHROME1" || m.photometric == "MONOCHROME2";
    const bool ybr = m.photometric == "YBR_FULL" || m.photometric == "YBR_FULL_422";
    if ((m.samples == 1 && !grey) || (m.samples == 3 && m.photometric != "RGB" && !ybr)) {
        unsupported(name, "DICOM images in the " + m.photometric +
                              " photometric interpretation are not supported (MONOCHROME1, "
                              "MONOCHROME2, RGB, YBR_FULL or YBR_FULL_422 only)");
    }
    if (ybr && (m.bits_allocated != 8 || m.is_signed)) {
        unsupported(name, m.photometric + " DICOM images with " + std::to_string(m.bits_allocated) +
                              "-bit samples are not supported (8-bit unsigned only)");
    }
    return m;
}

// GDCM writes warnings (and errors it then reports through return values) to stderr. Lacuna
// reports problems as Error and notices, so GDCM's own chatter would only confuse CLI users.
void silence_gdcm() {
    static std::once_flag once;
    std::call_once(once, [] {
        gdcm::Trace::WarningOff();
        gdcm::Trace::ErrorOff();
        gdcm::Trace::DebugOff();
    });
}

// GDCM's codecs (its copies of libjpeg, OpenJPEG and CharLS) print their warnings and errors
// straight to the process's stderr, past gdcm::Trace: "Unsupported JPEG data precision 12" twice
// on a file that then decodes with the 12-bit codec, five lines of OpenJPEG on a damaged JPEG
// 2000 stream. CodecOutput (codec_output.hpp) keeps them off stderr while GDCM decodes.

// A stored sample (already in host byte order) to its value: the sample's bits sit at
// [high_bit - bits_stored + 1, high_bit]; the rest of the cell may hold overlays or garbage, and
// GDCM's uncompressed fast path copies the cells as they are.
// 64-bit arithmetic: 32 bits stored would overflow the shifts and the unsigned range of int32.
std::int64_t stored_value(const std::uint32_t cell, const PixelModule& m) {
    const int shift = m.high_bit + 1 - m.bits_stored;
    const std::uint64_t mask = (std::uint64_t{1} << m.bits_stored) - 1;
    const std::uint64_t bits = (std::uint64_t{cell} >> shift) & mask;
    if (m.is_signed && (bits >> (m.bits_stored - 1)) != 0) {
        return static_cast<std::int64_t>(bits) - (std::int64_t{1} << m.bits_stored);
    }
    return static_cast<std::int64_t>(bits);
}

// Copies the decoded cells into `image`. Colour comes interleaved (R, G, B per pixel) or, with
// planar configuration 1, as three planes (all R, then all G, then all B); GDCM passes the
// file's arrangement through.
template <class S, class Cell>
void fill_samples(NativeImage& image, const char* frame, const PixelModule& m, const bool planar) {
    const std::size_t pixels = static_cast<std::size_t>(m.width) * m.height;
    const auto cell_index = [&](const std::size_t pixel, const int channel) {
        return planar ? channel * pixels + pixel : pixel * m.samples + channel;
    };
    for (int y = 0; y < m.height; ++y) {
        S* out = image.samples<S>(y);
        for (int x = 0; x < m.width; ++x) {
            const std::size_t pixel = static_cast<std::size_t>(y) * m.width + x;
            for (int c = 0; c < m.samples; ++c) {
                Cell cell;
                std::memcpy(&cell, frame + cell_index(pixel, c) * sizeof(Cell), sizeof(Cell));
                out[x * m.samples + c] = static_cast<S>(stored_value(cell, m));
            }
        }
    }
}

// 32-bit samples (RT dose grids) become float: exact up to 2^24, which read_dicom checks.
SampleType sample_type(const PixelModule& m) {
    if (m.bits_allocated == 32) return SampleType::F32;
    if (m.is_signed) return SampleType::I16;  // signed 8-bit is widened: there is no I8 type
    return m.bits_allocated == 8 ? SampleType::U8 : SampleType::U16;
}

std::size_t frame_bytes(const PixelModule& m) {
    return std::size_t(m.width) * m.height * m.samples * (m.bits_allocated / 8);
}

// Frame `index` (from 0) of the decoded buffer, which holds the frames one after another.
NativeImage to_native(const std::vector<char>& buffer, const PixelModule& m, const bool planar,
                      const int index) {
    NativeImage image(m.width, m.height, PixelFormat{sample_type(m), m.samples});
    const char* frame = buffer.data() + frame_bytes(m) * static_cast<std::size_t>(index);
    if (m.bits_allocated == 8) {
        if (m.is_signed) {
            fill_samples<std::int16_t, std::uint8_t>(image, frame, m, planar);
        } else {
            fill_samples<std::uint8_t, std::uint8_t>(image, frame, m, planar);
        }
    } else if (m.bits_allocated == 32) {
        fill_samples<float, std::uint32_t>(image, frame, m, planar);
    } else if (m.is_signed) {
        fill_samples<std::int16_t, std::uint16_t>(image, frame, m, planar);
    } else {
        fill_samples<std::uint16_t, std::uint16_t>(image, frame, m, planar);
    }
    return image;
}

struct Decoded {
    std::vector<char> buffer;  ///< the samples as stored, host byte order
    bool planar = false;       ///< colour as three planes rather than interleaved
    double slope = 1.0;        ///< GDCM's reading of Rescale Slope / Intercept
    double intercept = 0.0;
    bool ybr = false;  ///< still Y, Cb, Cr after decoding (a JPEG decoder may have made it RGB)
};

// Y1 Y2 Cb Cr (two pixels sharing their chroma) → Y1 Cb Cr Y2 Cb Cr, as pydicom's
// expand_ybr422 does; `out_bytes` is the expanded size.
std::vector<char> expand_ybr_422(const char* raw, const std::size_t out_bytes) {
    std::vector<char> out(out_bytes);
    for (std::size_t pair = 0; pair < out_bytes / 6; ++pair) {
        const char* in = raw + pair * 4;
        char* o = out.data() + pair * 6;
        o[0] = in[0];
        o[1] = in[2];
        o[2] = in[3];
        o[3] = in[1];
        o[4] = in[2];
        o[5] = in[3];
    }
    return out;
}

// True if this build's GDCM has a codec for the transfer syntax: a decoding failure then means
// damaged data, not a missing codec.
bool can_decode(const gdcm::TransferSyntax& ts) {
    return gdcm::JPEGCodec().CanDecode(ts) || gdcm::JPEGLSCodec().CanDecode(ts) ||
           gdcm::JPEG2000Codec().CanDecode(ts) || gdcm::RLECodec().CanDecode(ts);
}

// Decodes the pixel data with GDCM (uncompressed, or any compression its build supports).
Decoded decode_pixels(const Bytes& bytes, const Layout& layout, const PixelModule& m,
                      const std::string_view name, std::vector<std::string>& notices) {
    std::istringstream stream(std::string(reinterpret_cast<const char*>(bytes.data()), layout.end));
    gdcm::ImageReader reader;
    reader.SetStream(stream);
    CodecOutput codec_output;
    if (!reader.Read()) {
        fail_reading(ErrorCode::Corrupt, name,
                     "the DICOM file is corrupt (GDCM cannot read it as an image)");
    }
    const gdcm::Image& image = reader.GetImage();
    const unsigned gdcm_frames = image.GetNumberOfDimensions() > 2 ? image.GetDimension(2) : 1;
    const std::size_t expected = frame_bytes(m) * static_cast<std::size_t>(m.frames);
    if (image.GetColumns() != unsigned(m.width) || image.GetRows() != unsigned(m.height) ||
        gdcm_frames != unsigned(m.frames) || image.GetBufferLength() != expected) {
        fail_reading(ErrorCode::Corrupt, name,
                     "the DICOM file is corrupt (its image attributes are inconsistent)");
    }
    // Uncompressed YBR_FULL_422 stores two bytes per pixel (Y1 Y2 Cb Cr per pair), which
    // GDCM 3.0 does not expand: Lacuna expands it from the stored bytes.
    const bool stored_422 = !layout.encapsulated_pixels && m.photometric == "YBR_FULL_422";
    const std::size_t stored = stored_422 ? expected / 3 * 2 : expected;
    if (stored_422 && m.width % 2 != 0) {
        corrupt(name, "its YBR_FULL_422 rows have an odd number of pixels");
    }
    if (!layout.encapsulated_pixels && layout.elements.at(kPixelData).length < stored) {
        fail_reading(ErrorCode::Corrupt, name,
                     "the DICOM file is corrupt (its pixel data holds " +
                         std::to_string(layout.elements.at(kPixelData).length) +
                         " bytes; the image needs " + std::to_string(stored) + ")");
    }
    if (stored_422) {
        const auto* raw =
            reinterpret_cast<const char*>(bytes.data()) + layout.elements.at(kPixelData).offset;
        return Decoded{expand_ybr_422(raw, expected), false, image.GetSlope(), image.GetIntercept(),
                       true};
    }
    std::vector<char> buffer(expected);
    if (!image.GetBuffer(buffer.data())) {
        const std::string said = codec_output.first_line();
        const std::string because = said.empty() ? "" : ": the decoder says \"" + said + "\"";
        if (layout.encapsulated_pixels && !can_decode(image.GetTransferSyntax())) {
            fail_reading(ErrorCode::UnsupportedFormat, name,
                         "its compressed pixel data (transfer syntax " + layout.transfer_syntax +
                             ") cannot be decoded by this build");
        }
        fail_reading(ErrorCode::Corrupt, name,
                     "the DICOM file is corrupt (its " +
                         std::string(layout.encapsulated_pixels ? "compressed " : "") +
                         "pixel data cannot be decoded" + because + ")");
    }
    if (image.GetTransferSyntax().IsLossy()) {
        notices.push_back(
            "the DICOM pixel data was stored with lossy compression (transfer syntax " +
            layout.transfer_syntax + ")");
    }
    const bool planar = m.samples == 3 && image.GetPlanarConfiguration() == 1;
    // GDCM's JPEG codec turns YBR_FULL(_422) into RGB and says so; uncompressed and RLE data,
    // and GDCM's expansion of 4:2:2 subsampling, stay Y, Cb, Cr.
    const auto pi = image.GetPhotometricInterpretation();
    const bool ybr = pi == gdcm::PhotometricInterpretation::YBR_FULL ||
                     pi == gdcm::PhotometricInterpretation::YBR_FULL_422;
    return Decoded{std::move(buffer), planar, image.GetSlope(), image.GetIntercept(), ybr};
}

// Y, Cb, Cr (full range) to R, G, B as PS3.3 C.7.6.3.1.2 defines it and pydicom computes it:
// in double precision, rounded half to even, clipped to 0..255.
void ybr_full_to_rgb(NativeImage& image) {
    constexpr double kCbToG = -0.114 * 1.772 / 0.587;
    constexpr double kCrToG = -0.299 * 1.402 / 0.587;
    const auto to_byte = [](const double v) {
        return static_cast<std::uint8_t>(std::clamp(std::nearbyint(v), 0.0, 255.0));
    };
    for (int y = 0; y < image.height(); ++y) {
        std::uint8_t* row = image.samples<std::uint8_t>(y);
        for (int x = 0; x < image.width(); ++x) {
            std::uint8_t* p = row + 3 * x;
            const double luma = p[0], cb = p[1] - 128.0, cr = p[2] - 128.0;
            p[0] = to_byte(luma + 1.402 * cr);
            p[1] = to_byte(luma + kCbToG * cb + kCrToG * cr);
            p[2] = to_byte(luma + 1.772 * cb);
        }
    }
}

// 32-bit integers are read as float, which holds every integer up to 2^24 exactly; the notice
// says so, and says when larger values were rounded.
void note_32_bit(const std::vector<NativeImage>& pages, const PixelModule& m,
                 std::vector<std::string>& notices) {
    constexpr double kExact = 16777216.0;  // 2^24
    std::int64_t rounded = 0;
    for (const NativeImage& page : pages)
        for (int y = 0; y < page.height(); ++y)
            for (int x = 0; x < page.width(); ++x)
                for (int c = 0; c < page.channels(); ++c)
                    rounded += std::abs(page.sample(x, y, c)) > kExact;
    std::string text = std::string("32-bit ") + (m.is_signed ? "signed" : "unsigned") +
                       " integer DICOM samples read as 32-bit float";
    if (rounded > 0)
        text += " (" + std::to_string(rounded) + " samples beyond 2^24 rounded to float)";
    notices.push_back(text);
}

// value = slope · stored + intercept (the modality LUT), in the unit Rescale Type names. CT
// values are Hounsfield units by definition, even where Rescale Type is absent; "US" is
// DICOM's "unspecified".
Calibration calibration(const Attributes& a, const Decoded& decoded,
                        std::vector<std::string>& notices) {
    Calibration c;
    if (std::isfinite(decoded.slope) && decoded.slope != 0.0 && std::isfinite(decoded.intercept)) {
        c.slope = decoded.slope;
        c.intercept = decoded.intercept;
    } else {
        notices.push_back("ignored an invalid DICOM rescale slope or intercept");
    }
    const std::string type = a.text(kRescaleType);
    if (!type.empty() && type != "US") {
        c.unit = type;
    } else if (a.text(kModality) == "CT") {
        c.unit = "HU";
    } else if (const std::string dose = a.text(kDoseUnits); !dose.empty()) {
        c.unit = dose == "GY" ? "Gy" : dose;  // RT Dose: GDCM's slope is Dose Grid Scaling
    }
    return c;
}

// The pixel size in mm: Pixel Spacing, else Imager Pixel Spacing (projection
// radiography, at the detector). Both are "row spacing\column spacing": the distance between
// rows (y) first. Anything but two positive numbers is no spacing.
PixelSpacing pixel_spacing(const Attributes& a) {
    for (const std::uint32_t t : {kPixelSpacing, kImagerPixelSpacing}) {
        const std::string value = a.text(t);
        const std::size_t slash = value.find('\\');
        if (slash == std::string::npos) continue;
        double v[2] = {0, 0};
        const std::string parts[2] = {trim_padding(value.substr(0, slash)),
                                      trim_padding(value.substr(slash + 1))};
        bool ok = true;
        for (int i = 0; i < 2; ++i) {
            const char* end = parts[i].data() + parts[i].size();
            const auto [stop, error] = std::from_chars(parts[i].data(), end, v[i]);
            ok = ok && error == std::errc() && stop == end && std::isfinite(v[i]) && v[i] > 0;
        }
        if (ok) return {v[1], v[0], "mm"};
    }
    return {};
}

// Every value of a multi-valued decimal string ("0\\40\\40"), or nothing if one is not a number.
std::optional<std::vector<double>> decimals(const std::string& text) {
    std::vector<double> values;
    std::size_t start = 0;
    while (start <= text.size()) {
        std::size_t end = text.find('\\', start);
        if (end == std::string::npos) end = text.size();
        std::string part = trim_padding(text.substr(start, end - start));
        if (!part.empty() && part[0] == '+') part.erase(0, 1);
        double v = 0;
        const char* stop_at = part.data() + part.size();
        const auto [stop, error] = std::from_chars(part.data(), stop_at, v);
        if (part.empty() || error != std::errc() || stop != stop_at || !std::isfinite(v))
            return std::nullopt;
        values.push_back(v);
        start = end + 1;
    }
    return values;
}

std::string ms_text(const double ms) {
    char text[48];
    std::snprintf(text, sizeof text, "%.9g ms", ms);
    return text;
}

// The time between frames of a multi-frame image: Frame Time (0018,1063), else the Frame Time
// Vector (0018,1065: the first entry 0, then each frame's time since the one before). A vector
// whose increments differ gives their mean, and a notice says so. Top-level elements only: an
// enhanced multi-frame image keeps its timing in per-frame functional groups, not read here.
std::optional<FrameInterval> frame_interval(const Attributes& a, const int frames,
                                            std::vector<std::string>& notices) {
    if (frames < 2) return std::nullopt;
    if (const std::optional<double> ms = a.number(kFrameTime)) {
        if (*ms > 0 && std::isfinite(*ms))
            return FrameInterval{*ms / 1000.0, "DICOM Frame Time " + ms_text(*ms)};
        notices.push_back("ignored a Frame Time (0018,1063) that is not a positive number");
        return std::nullopt;
    }
    if (!a.has(kFrameTimeVector)) return std::nullopt;
    const std::optional<std::vector<double>> v = decimals(a.text(kFrameTimeVector));
    if (!v || v->size() != static_cast<std::size_t>(frames) ||
        std::any_of(v->begin() + 1, v->end(), [](const double d) { return !(d > 0); })) {
        notices.push_back(
            "ignored a Frame Time Vector (0018,1065) that does not give one positive "
            "time per frame");
        return std::nullopt;
    }
    const auto [lo, hi] = std::minmax_element(v->begin() + 1, v->end());
    double sum = 0;
    for (auto it = v->begin() + 1; it != v->end(); ++it) sum += *it;
    const double mean = sum / static_cast<double>(v->size() - 1);
    if (*hi - *lo > 1e-9 * *hi) {
        notices.push_back("the Frame Time Vector's intervals vary from " + ms_text(*lo) + " to " +
                          ms_text(*hi) + "; the time axis uses their mean, " + ms_text(mean));
        return FrameInterval{mean / 1000.0, "DICOM Frame Time Vector, mean " + ms_text(mean)};
    }
    return FrameInterval{mean / 1000.0, "DICOM Frame Time Vector " + ms_text(mean)};
}

// The file's suggested display window (the first, where several are given) as [low, high] in
// calibrated units: Window Center/Width apply to rescaled values.
std::optional<std::pair<double, double>> display_window(const Attributes& a) {
    const std::optional<double> center = a.number(kWindowCenter);
    const std::optional<double> width = a.number(kWindowWidth);
    if (!center || !width || *width <= 0) return std::nullopt;
    return std::pair{*center - *width / 2, *center + *width / 2};
}

}  // namespace

bool dicom_supported() {
    return true;
}

namespace {

// Deflated explicit VR little endian (PS3.5 A.5): everything after the file meta information is
// one raw deflate stream. It is inflated here and the meta information made to name explicit VR
// little endian, so that the walker and GDCM read the result as any uncompressed file (GDCM 3.0
// does not inflate it). Empty when the file is not deflated.
std::vector<std::uint8_t> inflated_dicom(const std::vector<std::uint8_t>& b,
                                         const std::string_view name) {
    if (!looks_like_dicom(b)) return {};
    const auto u16 = [&](const std::size_t at) { return std::uint32_t(b[at] | (b[at + 1] << 8)); };
    const auto u32 = [&](const std::size_t at) { return u16(at) | (u16(at + 2) << 16); };
    std::size_t at = 132, ts_at = 0, ts_length = 0, group_length_at = 0;
    while (at + 8 <= b.size() && u16(at) == 0x0002) {
        const char v0 = static_cast<char>(b[at + 4]), v1 = static_cast<char>(b[at + 5]);
        const bool long_form = (v0 == 'O' && std::strchr("BWFDLV", v1) != nullptr) ||
                               (v0 == 'U' && std::strchr("NTCR", v1) != nullptr) ||
                               (v0 == 'S' && v1 == 'Q');
        const std::size_t header = long_form ? 12 : 8;
        if (at + header > b.size()) return {};
        const std::uint32_t length = long_form ? u32(at + 8) : u16(at + 6);
        if (length > b.size() - at - header) return {};
        if (u16(at + 2) == 0x0000 && length == 4) group_length_at = at + header;
        if (u16(at + 2) == 0x0010 && !long_form) {
            ts_at = at + header;
            ts_length = length;
        }
        at += header + length;
    }
    std::string ts(reinterpret_cast<const char*>(b.data() + ts_at), ts_length);
    while (!ts.empty() && (ts.back() == '\0' || ts.back() == ' ')) ts.pop_back();
    if (ts_at == 0 || ts != "1.2.840.10008.1.2.1.99") return {};

    // The most an inflated data set may hold: the largest image Lacuna opens, in 64-bit
    // samples, and room for its other elements.
    const std::size_t limit = std::size_t(kMaxImagePixels) * 8 + (std::size_t{1} << 20);
    std::vector<std::uint8_t> data(std::min<std::size_t>(limit, (b.size() - at) * 4 + 65536));
    z_stream z{};
    if (inflateInit2(&z, -15) != Z_OK) fail_reading(ErrorCode::Corrupt, name, "zlib cannot start");
    z.next_in = const_cast<Bytef*>(b.data() + at);
    z.avail_in = static_cast<uInt>(std::min<std::size_t>(b.size() - at, UINT32_MAX));
    int status = Z_OK;
    std::size_t produced = 0;
    while (status == Z_OK) {
        if (produced == data.size()) {
            if (data.size() >= limit) break;
            data.resize(std::min(limit, data.size() * 2));
        }
        z.next_out = data.data() + produced;
        z.avail_out = static_cast<uInt>(std::min<std::size_t>(data.size() - produced, UINT32_MAX));
        status = inflate(&z, Z_NO_FLUSH);
        produced = data.size() - z.avail_out;
    }
    inflateEnd(&z);
    if (status == Z_OK)
        fail_reading(
            ErrorCode::TooLarge, name,
            "the deflated DICOM data set inflates beyond " + std::to_string(limit) + " bytes");
    if (status != Z_STREAM_END)
        fail_reading(status == Z_BUF_ERROR ? ErrorCode::Truncated : ErrorCode::Corrupt, name,
                     status == Z_BUF_ERROR ? "the deflated DICOM data set is truncated"
                                           : "the deflated DICOM data set is corrupt");
    data.resize(produced);

    static const std::string kExplicitLittle("1.2.840.10008.1.2.1\0", 20);
    std::vector<std::uint8_t> out(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(ts_at));
    out.insert(out.end(), kExplicitLittle.begin(), kExplicitLittle.end());
    out.insert(out.end(), b.begin() + static_cast<std::ptrdiff_t>(ts_at + ts_length),
               b.begin() + static_cast<std::ptrdiff_t>(at));
    out[ts_at - 2] = std::uint8_t(kExplicitLittle.size());
    out[ts_at - 1] = 0;
    if (group_length_at != 0 && group_length_at < ts_at) {
        const std::uint32_t length =
            u32(group_length_at) + std::uint32_t(kExplicitLittle.size()) - std::uint32_t(ts_length);
        for (int k = 0; k < 4; ++k) out[group_length_at + k] = std::uint8_t(length >> (8 * k));
    }
    out.insert(out.end(), data.begin(), data.end());
    return out;
}

}  // namespace

LoadedNative read_dicom(const std::vector<std::uint8_t>& stored, const std::string_view name) {
    silence_gdcm();
    const std::vector<std::uint8_t> inflated = inflated_dicom(stored, name);
    const std::vector<std::uint8_t>& bytes = inflated.empty() ? stored : inflated;
    if (!looks_like_dicom(bytes) && !looks_like_headless_dicom(bytes)) {
        fail_reading(ErrorCode::Corrupt, name,
                     "not a DICOM file (no DICM marker after a 128-byte preamble, and no data "
                     "element at its start)");
    }
    Layout layout = Walker(bytes, name).walk();
    const Attributes attributes(bytes, layout);
    const PixelModule module = read_pixel_module(attributes, name);
    refuse_what_gdcm_misreads(attributes, layout, module, name);

    LoadedNative loaded;
    loaded.notices = std::move(layout.notices);
    const Decoded decoded = decode_pixels(bytes, layout, module, name, loaded.notices);
    for (int frame = 0; frame < module.frames; ++frame) {
        loaded.pages.push_back(to_native(decoded.buffer, module, decoded.planar, frame));
        if (decoded.ybr) ybr_full_to_rgb(loaded.pages.back());
    }
    if (module.photometric != "RGB" && module.samples == 3)
        loaded.notices.push_back(module.photometric + " colour converted to RGB");
    loaded.calibration = calibration(attributes, decoded, loaded.notices);
    loaded.window = display_window(attributes);
    loaded.spacing = pixel_spacing(attributes);
    loaded.frame_interval = frame_interval(attributes, module.frames, loaded.notices);
    if (module.photometric == "MONOCHROME1") {
        loaded.notices.push_back(
            "MONOCHROME1: other viewers display this image inverted; Lacuna shows the stored "
            "values");
    }
    if (module.bits_allocated == 32) note_32_bit(loaded.pages, module, loaded.notices);
    if (module.bits_allocated == 8 && module.is_signed) {
        loaded.notices.push_back("signed 8-bit DICOM samples widened to signed 16-bit");
    }

    FileInfo& info = loaded.info;
    info.format = ImageFormat::Dicom;
    info.width = module.width;
    info.height = module.height;
    info.channels = module.samples;
    info.bit_depth = module.bits_allocated;
    info.pages = module.frames;
    info.sample = loaded.pages.front().sample_type();
    info.has_alpha = false;
    info.file_bytes = bytes.size();
    return loaded;
}

}  // namespace lacuna::io::detail
