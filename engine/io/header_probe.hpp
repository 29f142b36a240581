// Internal: recognises a file's format from its first bytes and reads its dimensions from the
// header, so sizes are checked before a decoder allocates anything.
#pragma once

#include <lacuna/io/image_io.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace lacuna::io::detail {

struct HeaderProbe {
    std::optional<ImageFormat> format;  ///< empty: not a format we read
    std::string unsupported_name;       ///< e.g. "GIF" when recognised but not supported
    std::optional<std::int64_t> width;  ///< from the header, when the format makes it cheap
    std::optional<std::int64_t> height;
    bool truncated = false;  ///< the file visibly ends before its end marker
    /// The header cannot be read (a PGM, PPM or PFM header without a width and a height, a WebP
    /// whose first chunk is not VP8, VP8L or VP8X): the file is refused before a decoder could
    /// take its own reading of it.
    bool malformed = false;
};

HeaderProbe probe_header(const std::vector<std::uint8_t>& bytes);

}  // namespace lacuna::io::detail
