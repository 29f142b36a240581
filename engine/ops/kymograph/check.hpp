// Internal: the checks every kymograph implementation makes on its frames, with one wording.
#pragma once

#include <lacuna/core/image.hpp>

#include <vector>

namespace lacuna::ops::detail {

/// At least one frame, all of one size (Error(InvalidArgument) naming the first that differs).
void check_kymograph_frames(const std::vector<ImageF32>& frames);

}  // namespace lacuna::ops::detail
