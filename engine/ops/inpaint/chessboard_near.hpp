#pragma once
// Rings around a hole: which pixels lie within a chessboard distance of a mask's pixels.

#include <lacuna/core/mask.hpp>

#include <cstdint>
#include <vector>

namespace lacuna::ops::detail {

/// 1 where a pixel with (mask != 0) == `value` lies within `reach` (chessboard distance), row
/// major over the mask: a separable running maximum, so rings of any width cost the same.
std::vector<std::uint8_t> chessboard_near(const Mask& mask, int reach, int value);

}  // namespace lacuna::ops::detail
