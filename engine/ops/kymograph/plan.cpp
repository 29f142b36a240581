// Kymograph parameters → the positions along the path, with every check a user can trip over.
#include "../line_sampling.hpp"

#include <lacuna/core/error.hpp>
#include <lacuna/ops/kymograph.hpp>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

namespace lacuna::ops {
namespace {

using detail::invalid;
using detail::point_text;

}  // namespace

Point2 KymographPlan::point(const int position) const {
    const LineGeometry& g = segments[static_cast<std::size_t>(segment_of[position])];
    const int i = index_of[position];
    return {linspace_at(g.x0, g.x1, g.step_x, i, g.positions),
            linspace_at(g.y0, g.y1, g.step_y, i, g.positions)};
}

KymographPlan plan_kymograph(const int width, const int height, const KymographParams& params) {
    check_image_size(width, height);
    const std::vector<Point2>& path = params.path;
    if (path.size() < 2) {
        invalid("a kymograph path needs at least two points, not " + std::to_string(path.size()));
    }
    for (const Point2 p : path) {
        if (!detail::is_finite(p)) invalid("path points must be finite numbers");
        if (!detail::within_line_bound(p)) {
            std::ostringstream s;
            s << "path points must lie within " << kMaxLineCoordinate
              << " pixels of the image, not " << point_text(p);
            invalid(s.str());
        }
    }
    detail::check_band_width(params.band_width);
    // The positions are counted before any is stored: a path of 1e9 pixels (within the bound
    // above) would otherwise allocate billions of entries before the size check refused it.
    double total = 1;
    for (std::size_t s = 0; s + 1 < path.size(); ++s)
        total += detail::segment_positions(path[s], path[s + 1]) - 1;
    if (total > static_cast<double>(kMaxKymographPositions)) {
        std::ostringstream s;
        s << "the path is " << total << " positions long; at most " << kMaxKymographPositions
          << " are allowed";
        invalid(s.str());
    }
    KymographPlan plan;
    plan.width = width;
    plan.height = height;
    plan.sampling = params.sampling;
    double start = 0;  // arc length at the current segment's first point
    for (std::size_t s = 0; s + 1 < path.size(); ++s) {
        const Point2 a = path[s], b = path[s + 1];
        if (a.x == b.x && a.y == b.y) {
            invalid("segment " + std::to_string(s + 1) +
                    " of the path has zero length: both ends are at " + point_text(a));
        }
        const LineGeometry g = detail::segment_geometry(a, b, params.band_width);
        const double step = std::hypot(g.step_x, g.step_y);
        const double length = std::hypot(b.x - a.x, b.y - a.y);
        for (int i = s == 0 ? 0 : 1; i < g.positions; ++i) {
            plan.segment_of.push_back(static_cast<int>(s));
            plan.index_of.push_back(i);
            plan.distance.push_back(i == g.positions - 1 ? start + length : start + i * step);
        }
        plan.segments.push_back(g);
        start += length;
    }
    return plan;
}

std::vector<double> kymograph_distances(const KymographPlan& plan, const PixelSpacing& spacing) {
    if (!spacing.known()) return plan.distance;
    // Within a segment the positions are evenly spaced, so the physical distance grows with the
    // index at the segment's physical length per step; each segment starts where the last ended.
    std::vector<double> start(plan.segments.size() + 1, 0.0);
    for (std::size_t s = 0; s < plan.segments.size(); ++s) {
        const LineGeometry& g = plan.segments[s];
        start[s + 1] = start[s] + spacing.length(g.x1 - g.x0, g.y1 - g.y0);
    }
    std::vector<double> out(static_cast<std::size_t>(plan.positions()));
    for (int p = 0; p < plan.positions(); ++p) {
        const auto s = static_cast<std::size_t>(plan.segment_of[static_cast<std::size_t>(p)]);
        const LineGeometry& g = plan.segments[s];
        const int i = plan.index_of[static_cast<std::size_t>(p)];
        out[static_cast<std::size_t>(p)] =
            i == g.positions - 1 ? start[s + 1]
                                 : start[s] + (start[s + 1] - start[s]) * i / (g.positions - 1);
    }
    return out;
}

}  // namespace lacuna::ops
