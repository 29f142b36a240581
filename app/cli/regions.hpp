// Named regions for profiles: a JSON list of lines, polylines and rectangles, read by
// `lacuna histogram IMG --regions FILE`, each profiled along its path (a rectangle: along its
// width, each position the mean over the rectangle's height, as ImageJ's rectangle profile).
#pragma once

#include <lacuna/ops/kymograph.hpp>

#include <string>
#include <vector>

namespace lacuna::cli {

struct Region {
    std::string name;
    std::string type;  ///< "line", "polyline" or "rectangle"
    /// The path profiled and its band: a rectangle x, y, w, h (pixel indices) becomes the line
    /// through its rows' middle from column x to x + w - 1 with a band of h samples (nearest
    /// sampling: every pixel of the rectangle once).
    ops::KymographParams params;
};

/// Parses the regions file's text:
///   [{"name": "axon", "type": "line", "points": [[10, 20], [200, 40]], "width": 5},
///    {"name": "path", "type": "polyline", "points": [[0, 0], [50, 10], [80, 60]]},
///    {"name": "box", "type": "rectangle", "x": 30, "y": 40, "width": 100, "height": 12}]
/// "width" of a line or polyline is its band (default 1); "sampling" may be "bilinear" (default
/// for lines and polylines) or "nearest". Throws Error(InvalidArgument) naming the file, the
/// region and what is wrong.
std::vector<Region> parse_regions(const std::string& text, const std::string& file);

/// Every region's profile on `plane` (mean across its band at each position, NaN off the image)
/// as one CSV: `header` ('#' lines) then region,type,position,x,y,distance,value. `json` gets the
/// regions' summary (name, type, positions, length, band_width) as a JSON array.
std::string region_profiles_csv(const std::vector<Region>& regions, ImageView<const float> plane,
                                const std::string& header, std::string& json);

}  // namespace lacuna::cli
