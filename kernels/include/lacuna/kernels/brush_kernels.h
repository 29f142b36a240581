// Launcher for the brush kernel (kernels/brush.cu): one launch paints a whole segment.
#pragma once

#include <lacuna/core/pixel.hpp>

#include <cuda_runtime_api.h>

#include <cstdint>

namespace lacuna::kernels {

struct BrushSegmentArgs {
    ImageView<std::uint8_t> mask;
    /// The union of the dabs' rectangles, clipped to the mask (non-empty): the pixels visited.
    int rect_x0 = 0, rect_y0 = 0, rect_width = 0, rect_height = 0;
    double x0 = 0, y0 = 0, x1 = 0, y1 = 0;  ///< dabs 1..steps, see brush_math::dab_centre
    int steps = 1;
    double radius = 0;
    double hardness = 0;
    bool erase = false;
};

/// Each pixel takes the strongest coverage of all the segment's dabs: max for paint, min with
/// 255 − coverage for the eraser; both are what sequential dabs give.
cudaError_t launch_brush_segment(const BrushSegmentArgs& args, cudaStream_t stream);

}  // namespace lacuna::kernels
