// Internal: reading a file's metadata on open and embedding it into encoded bytes on save. Both
// work on bytes in memory, so that a save embeds the metadata before the temporary file is
// written and renamed: no file under the user's name ever lacks it or holds half of it.
#pragma once

#include <lacuna/io/image_io.hpp>
#include <lacuna/io/metadata.hpp>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace lacuna::io::detail {

struct MetadataRead {
    Metadata metadata;
    bool parsed = false;  ///< exiv2 read the file's metadata (there may be none)
    int orientation = 1;  ///< Exif.Image.Orientation, 1..8 (1 when absent or invalid)
    std::vector<std::string> notices;
};

/// True for the formats whose metadata is read and written: JPEG, PNG, TIFF, WebP.
bool holds_metadata(ImageFormat format);

/// Reads ICC, EXIF, XMP, IPTC and comment from an encoded file. Never throws: metadata that
/// exiv2 cannot parse is dropped with a notice, and the image still opens.
MetadataRead read_metadata(std::span<const std::uint8_t> bytes, ImageFormat format);

/// `encoded` (a file of `format`, `width` x `height` pixels as written) with `metadata`
/// embedded: EXIF orientation 1 when it was applied on opening, the pixel dimensions set to
/// `width` x `height`, the EXIF thumbnail left out. What the format cannot hold, or what fails to
/// embed, is left out with a notice; the image itself is always kept.
std::vector<std::uint8_t> embed_metadata(std::vector<std::uint8_t> encoded, ImageFormat format,
                                         const Metadata& metadata, int width, int height,
                                         std::vector<std::string>& notices);

/// A PNG with an iCCP chunk holding `icc` right after IHDR (any iCCP or sRGB chunk removed).
/// Throws lacuna::Error (WriteFailed) if `png` is not a PNG.
std::vector<std::uint8_t> png_with_icc(std::span<const std::uint8_t> png,
                                       std::span<const std::uint8_t> icc);

/// A WebP with an ICCP chunk holding `icc` (the extended VP8X header added or its ICC flag set).
/// Throws lacuna::Error (WriteFailed) if `webp` is not a WebP.
std::vector<std::uint8_t> webp_with_icc(std::span<const std::uint8_t> webp,
                                        std::span<const std::uint8_t> icc, int width, int height);

}  // namespace lacuna::io::detail
