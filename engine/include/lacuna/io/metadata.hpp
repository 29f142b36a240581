// A file's metadata as Lacuna carries it from open to save: the ICC colour profile, EXIF, XMP,
// IPTC and the comment, each kept as the bytes a file holds, so that nothing is lost or
// reinterpreted in between. Read and written by exiv2 inside lacuna_io; this header is plain data
// so that the session and the CLI need no exiv2.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace lacuna::io {

struct Metadata {
    std::vector<std::uint8_t> icc;   ///< the ICC profile, byte for byte as embedded
    std::vector<std::uint8_t> exif;  ///< EXIF as a TIFF-structured block ("II*\0" or "MM\0*")
    std::string xmp;                 ///< the XMP packet (XML text)
    std::vector<std::uint8_t> iptc;  ///< IPTC-IIM records (as in Photoshop's 8BIM 0x0404)
    std::string comment;             ///< JPEG COM or PNG comment text
    /// True when the pixels this record came with were turned upright by the EXIF orientation
    /// on opening: saving then writes Orientation 1, so no viewer turns them a second time.
    bool orientation_applied = false;

    bool empty() const {
        return icc.empty() && exif.empty() && xmp.empty() && iptc.empty() && comment.empty();
    }
};

/// What `lacuna info` shows of a file's metadata.
struct MetadataSummary {
    std::size_t icc_bytes = 0;
    std::string icc_description;  ///< the profile's 'desc' tag; empty if it has none we can read
    std::size_t exif_entries = 0;
    /// Key tags present, in this order: Make, Model, DateTimeOriginal, Orientation,
    /// PixelXDimension, PixelYDimension (short names, values as exiv2 prints them).
    std::vector<std::pair<std::string, std::string>> exif_tags;
    std::size_t xmp_entries = 0;  ///< properties in the XMP packet
    std::size_t iptc_entries = 0;
    std::string comment;
};

/// Parses the record (with exiv2) for display. A part that does not parse counts as present
/// with no entries; never throws.
MetadataSummary summarize(const Metadata& metadata);

/// The text of an ICC profile's description tag ('desc': textDescriptionType in v2 profiles,
/// multiLocalizedUnicodeType in v4, first record, as UTF-8), or nothing if the profile has none
/// or is malformed.
std::optional<std::string> icc_description(std::span<const std::uint8_t> profile);

}  // namespace lacuna::io
