// Internal: what the line histogram's plan (line_histogram/plan.cpp) and the kymograph's
// (kymograph/plan.cpp) share: the sampling of one segment (positions and band normal), the checks
// of its points and band width, and how a point is written in an error. One definition, so a
// one-segment kymograph row keeps equalling the line histogram's mean profile.
#pragma once

#include "invalid_argument.hpp"

#include <lacuna/ops/line_histogram.hpp>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

namespace lacuna::ops::detail {

/// "(x, y)", as errors name a point.
inline std::string point_text(const Point2 p) {
    std::ostringstream s;
    s << '(' << p.x << ", " << p.y << ')';
    return s.str();
}

inline bool is_finite(const Point2 p) {
    return std::isfinite(p.x) && std::isfinite(p.y);
}

/// Within ±kMaxLineCoordinate on both axes: far-away ends cannot be clipped or sampled exactly
/// (plan_line explains).
inline bool within_line_bound(const Point2 p) {
    return std::abs(p.x) <= kMaxLineCoordinate && std::abs(p.y) <= kMaxLineCoordinate;
}

/// Throws unless `band_width` is 1..kMaxBandWidth samples.
inline void check_band_width(const int band_width) {
    if (band_width < 1 || band_width > kMaxBandWidth) {
        invalid("band width must be from 1 to " + std::to_string(kMaxBandWidth) + " samples, not " +
                std::to_string(band_width));
    }
}

/// How many positions the segment p0–p1 is sampled at (see segment_geometry), as a double so a
/// caller can bound a long path's total before anything overflows.
inline double segment_positions(const Point2 p0, const Point2 p1) {
    // At least both ends: a clipped segment shorter than 1.1e-16 (a line grazing the image's
    // edge) makes length + 1 round to 1, which gave one position and steps of 0 / 0 = NaN (found
    // by fuzz/fuzz_line_histogram.cpp; the editor divides by positions - 1 too).
    return std::max(2.0, std::ceil(std::hypot(p1.y - p0.y, p1.x - p0.x) + 1.0));
}

/// The samples of the segment p0–p1 (p0 != p1) with `band` samples across it, in the
/// scikit-image profile_line convention: ceil(length) + 1 points, both ends included.
inline LineGeometry segment_geometry(const Point2 p0, const Point2 p1, const int band) {
    const double d_row = p1.y - p0.y, d_col = p1.x - p0.x;
    const double theta = std::atan2(d_row, d_col);
    LineGeometry g;
    g.positions = static_cast<int>(segment_positions(p0, p1));
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

}  // namespace lacuna::ops::detail
