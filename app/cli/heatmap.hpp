// Renders a bins × positions count matrix as a heat map (log count scale, inferno colours) with
// the profile curves drawn over it: what `lacuna histogram --png` writes.
#pragma once

#include <lacuna/ops/line_histogram.hpp>

namespace lacuna::cli {

ImageRgba8 render_heatmap(const ops::LineHistogram& histogram);
ImageRgba8 render_heatmap(const ops::DirectionHistogram& histogram);

}  // namespace lacuna::cli
