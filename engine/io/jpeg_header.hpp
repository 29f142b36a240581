// Internal: a JPEG's frame size from libjpeg's own header parser (see jpeg_header.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace lacuna::io::detail {

/// (width, height) as libjpeg reads the header, or nullopt when libjpeg refuses the header.
std::optional<std::pair<std::int64_t, std::int64_t>> jpeg_frame_size(
    const std::vector<std::uint8_t>& bytes);

}  // namespace lacuna::io::detail
