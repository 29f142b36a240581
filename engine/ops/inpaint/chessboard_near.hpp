#pragma once
// Rings around a hole: which pixels lie within a chessboard distance of a mask's pixels; the
// box of a hole's pixels.

#include <lacuna/core/mask.hpp>
#include <lacuna/ops/inpaint.hpp>

#include <cstdint>
#include <vector>

namespace lacuna::ops::detail {

/// 1 where a pixel with (mask != 0) == `value` lies within `reach` (chessboard distance), row
/// major over the mask: a separable running maximum, so rings of any width cost the same.
std::vector<std::uint8_t> chessboard_near(const Mask& mask, int reach, int value);

/// The box of the hole's (non-zero) pixels; empty (x1 < x0) when it has none.
SearchRect hole_box(const Mask& hole);

}  // namespace lacuna::ops::detail
