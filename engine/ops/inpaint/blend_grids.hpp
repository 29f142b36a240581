// Internal: the blend's multigrid shapes, the same on the host and the device.
#pragma once

#include <lacuna/kernels/blend_terms.h>
#include <lacuna/ops/inpaint.hpp>

#include <vector>

namespace lacuna::ops::detail {

/// The grids over the hole's box: the box itself, then its 2 × 2 blocks, until a grid has at
/// most blend_terms::kCoarsestNodes nodes. Arrays are not set.
inline std::vector<blend_terms::BlendGrid> blend_grid_shapes(const SearchRect& box) {
    std::vector<blend_terms::BlendGrid> grids;
    int x0 = box.x0, y0 = box.y0, x1 = box.x1, y1 = box.y1;
    for (;;) {
        blend_terms::BlendGrid g;
        g.x0 = x0;
        g.y0 = y0;
        g.width = x1 - x0 + 1;
        g.height = y1 - y0 + 1;
        grids.push_back(g);
        if (g.size() <= blend_terms::kCoarsestNodes) break;
        x0 >>= 1, y0 >>= 1, x1 >>= 1, y1 >>= 1;
    }
    return grids;
}

}  // namespace lacuna::ops::detail
