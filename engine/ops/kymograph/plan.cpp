// Kymograph parameters → the positions along the path, with every check a user can trip over.
#include <lacuna/core/error.hpp>
#include <lacuna/ops/kymograph.hpp>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

namespace lacuna::ops {
namespace {

[[noreturn]] void invalid(const std::string& text) {
    throw Error(ErrorCode::InvalidArgument, text);
}

std::string point_text(const Point2 p) {
    std::ostringstream s;
    s << '(' << p.x << ", " << p.y << ')';
    return s.str();
}

// One segment, sampled exactly as plan_line samples an unclipped line (the same expressions, so
// a one-segment kymograph row equals the line histogram's mean profile).
LineGeometry segment_geometry(const Point2 p0, const Point2 p1, const int band) {
    const double d_row = p1.y - p0.y, d_col = p1.x - p0.x;
    const double theta = std::atan2(d_row, d_col);
    LineGeometry g;
    g.positions = std::max(2, static_cast<int>(std::ceil(std::hypot(d_row, d_col) + 1.0)));
    g.band = band;
    g.x0 = p0.x;
    g.y0 = p0.y;
    g.x1 = p1.x;
    g.y1 = p1.y;
    g.step_x = (p1.x - p0.x) / static_cast<double>(g.positions - 1);
    g.step_y = (p1.y - p0.y) / static_cast<double>(g.positions - 1);
    g.half_x = static_cast<double>(g.band - 1) * std::sin(-theta) / 2.0;
    g.half_y = static_cast<double>(g.band - 1) * std::cos(theta) / 2.0;
    return g;
}

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
        if (!std::isfinite(p.x) || !std::isfinite(p.y))
            invalid("path points must be finite numbers");
        if (std::abs(p.x) > kMaxLineCoordinate || std::abs(p.y) > kMaxLineCoordinate) {
            std::ostringstream s;
            s << "path points must lie within " << kMaxLineCoordinate
              << " pixels of the image, not " << point_text(p);
            invalid(s.str());
        }
    }
    if (params.band_width < 1 || params.band_width > kMaxBandWidth) {
        invalid("band width must be from 1 to " + std::to_string(kMaxBandWidth) + " samples, not " +
                std::to_string(params.band_width));
    }
    // The positions are counted before any is stored: a path of 1e9 pixels (within the bound
    // above) would otherwise allocate billions of entries before the size check refused it.
    double total = 1;
    for (std::size_t s = 0; s + 1 < path.size(); ++s)
        total +=
            std::max(
                2.0,
                std::ceil(std::hypot(path[s + 1].y - path[s].y, path[s + 1].x - path[s].x) + 1.0)) -
            1;
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
        const LineGeometry g = segment_geometry(a, b, params.band_width);
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

}  // namespace lacuna::ops
