// Sampling along a line and across the whole image in one direction: shared by the CPU reference,
// the fast CPU path and the CUDA kernels, so all three visit the same points, read the same values
// and pick the same bins. Coordinates follow scikit-image's profile_line: (0, 0) is the centre of
// the top-left pixel; x grows right, y down. Kernels are built with --fmad=false and host code with
// -ffp-contract=off, so these double expressions round identically on both sides.
#pragma once

#include <lacuna/core/pixel.hpp>

#include <math.h>

namespace lacuna {

/// A segment sampled at `positions` points (endpoints included) with `band` samples across it.
/// The band at each point runs from (x - half_x, y - half_y) to (x + half_x, y + half_y).
struct LineGeometry {
    double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    double step_x = 0, step_y = 0;  ///< (x1 - x0) / (positions - 1), as numpy.linspace computes it
    double half_x = 0,
           half_y = 0;  ///< (band - 1) * sin(-theta) / 2 and (band - 1) * cos(theta) / 2
    int positions = 0;
    int band = 1;
};

/// numpy.linspace(start, stop, n)[i]: i * step + start, with the last point exactly `stop`.
LACUNA_HD double linspace_at(const double start, const double stop, const double step, const int i,
                             const int n) {
    return i == n - 1 ? stop : static_cast<double>(i) * step + start;
}

/// The j-th band sample at position i.
LACUNA_HD void line_sample_point(const LineGeometry& g, const int i, const int j, double& x,
                                 double& y) {
    const double cx = linspace_at(g.x0, g.x1, g.step_x, i, g.positions);
    const double cy = linspace_at(g.y0, g.y1, g.step_y, i, g.positions);
    if (g.band == 1) {
        x = cx;
        y = cy;
        return;
    }
    const double sx = cx - g.half_x, ex = cx + g.half_x;
    const double sy = cy - g.half_y, ey = cy + g.half_y;
    const double div = static_cast<double>(g.band - 1);
    x = linspace_at(sx, ex, (ex - sx) / div, j, g.band);
    y = linspace_at(sy, ey, (ey - sy) / div, j, g.band);
}

enum class Sampling { Nearest = 0, Bilinear = 1 };

/// Nearest pixel (scipy's order 0: floor(x + 0.5)). False when the pixel is outside the image.
LACUNA_HD bool sample_nearest(const ImageView<const float>& plane, const double x, const double y,
                              float& value) {
    const double sx = x + 0.5;
    const double sy = y + 0.5;
    // Once non-negative, truncation is floor: no libm call on CPUs without SSE4.1's roundsd.
    if (!(sx >= 0.0 && sy >= 0.0 && sx < plane.width && sy < plane.height)) return false;
    value = plane.row(static_cast<int>(sy))[static_cast<int>(sx)];
    return true;
}

/// Bilinear between the four surrounding pixel centres. False outside [0, w-1] × [0, h-1]: samples
/// are excluded there, never clamped or padded.
LACUNA_HD bool sample_bilinear(const ImageView<const float>& plane, const double x, const double y,
                               float& value) {
    if (!(x >= 0.0 && y >= 0.0 && x <= plane.width - 1 && y <= plane.height - 1)) return false;
    const int ix = static_cast<int>(x);  // x, y >= 0 here, so truncation is floor
    const int iy = static_cast<int>(y);
    const int ix1 = ix + 1 < plane.width ? ix + 1 : ix;
    const int iy1 = iy + 1 < plane.height ? iy + 1 : iy;
    const double fx = x - ix;
    const double fy = y - iy;
    const float* r0 = plane.row(iy);
    const float* r1 = plane.row(iy1);
    // A neighbour of weight zero is not read: 0 · NaN is NaN, and one missing measurement must
    // not blank the samples at its neighbours' centres. For finite values this changes nothing
    // (x · 1 + 0 · y == x exactly).
    const double top = fx == 0.0 ? r0[ix] : (1.0 - fx) * r0[ix] + fx * r0[ix1];
    if (fy == 0.0) {
        value = static_cast<float>(top);
        return true;
    }
    const double bottom = fx == 0.0 ? r1[ix] : (1.0 - fx) * r1[ix] + fx * r1[ix1];
    value = static_cast<float>((1.0 - fy) * top + fy * bottom);
    return true;
}

LACUNA_HD bool sample_plane(const ImageView<const float>& plane, const Sampling sampling,
                            const double x, const double y, float& value) {
    return sampling == Sampling::Nearest ? sample_nearest(plane, x, y, value)
                                         : sample_bilinear(plane, x, y, value);
}

/// Equal-width bins over [lo, hi]; hi itself falls in the last bin.
struct BinMapping {
    float lo = 0;
    float hi = 255;
    double scale = 256.0 / 255.0;  ///< bins / (hi - lo), computed once on the host
    int bins = 256;
};

/// The bin of `value`, or -1 when it is outside [lo, hi] or NaN.
LACUNA_HD int value_to_bin(const BinMapping& m, const float value) {
    if (!(value >= m.lo && value <= m.hi)) return -1;
    const int b =
        static_cast<int>((static_cast<double>(value) - static_cast<double>(m.lo)) * m.scale);
    return b >= m.bins ? m.bins - 1 : b;
}

/// Whole-direction mode: the lines parallel to direction d = (cos θ, sin θ), one per column of a
/// square of side `extent` (the image diagonal) centred on the image centre and rotated by θ —
/// Liu's padded, rotated image, sampled in place. Column k is offset s = k - half along the
/// normal n = (-sin θ, cos θ); row r runs t = r - half along d.
struct DirectionGeometry {
    double cx = 0, cy = 0;  ///< image centre in pixel-centre coordinates: ((w-1)/2, (h-1)/2)
    double dx = 1, dy = 0;  ///< direction of the lines
    double nx = 0, ny = 1;  ///< normal: across the lines, the order of the columns
    double half = 0;        ///< (extent - 1) / 2
    int extent = 0;         ///< columns and samples per column
};

LACUNA_HD void direction_sample_point(const DirectionGeometry& g, const int column, const int row,
                                      double& x, double& y) {
    const double s = static_cast<double>(column) - g.half;
    const double t = static_cast<double>(row) - g.half;
    x = (g.cx + s * g.nx) + t * g.dx;
    y = (g.cy + s * g.ny) + t * g.dy;
}

/// Rows of `column` whose samples can fall inside a w × h image (a superset: every sample is
/// still bounds-checked), so no work is spent on the padding Liu's version materialised.
LACUNA_HD void direction_row_range(const DirectionGeometry& g, const int column, const int width,
                                   const int height, int& first, int& last) {
    const double s = static_cast<double>(column) - g.half;
    const double bx = g.cx + s * g.nx;
    const double by = g.cy + s * g.ny;
    double lo = -1e300, hi = 1e300;
    // Keep x in [-1, width] and y in [-1, height]: one pixel of margin beyond any valid sample.
    const double bounds[2][3] = {{bx, g.dx, static_cast<double>(width)},
                                 {by, g.dy, static_cast<double>(height)}};
    for (int a = 0; a < 2; ++a) {
        const double base = bounds[a][0], dir = bounds[a][1], size = bounds[a][2];
        if (fabs(dir) < 1e-12) {
            if (base < -1.0 || base > size) {
                first = 1;
                last = 0;
                return;
            }
            continue;
        }
        double t0 = (-1.0 - base) / dir;
        double t1 = (size - base) / dir;
        if (t0 > t1) {
            const double tmp = t0;
            t0 = t1;
            t1 = tmp;
        }
        lo = t0 > lo ? t0 : lo;
        hi = t1 < hi ? t1 : hi;
    }
    const double r0 = floor(lo + g.half) - 1.0;
    const double r1 = ceil(hi + g.half) + 1.0;
    // Clamped on both sides before converting: for a direction a hair off an axis (3e-8 degrees)
    // the minor axis's bounds divide by ~1e-10 and can land billions of rows beyond either end,
    // where the cast to int is undefined (x86 gave INT_MIN: two billion rows per column). Found
    // by fuzz/fuzz_line_histogram.cpp. first > last is an empty range.
    first = r0 < 0.0 ? 0 : r0 > g.extent ? g.extent : static_cast<int>(r0);
    last = r1 > g.extent - 1 ? g.extent - 1 : r1 < -1.0 ? -1 : static_cast<int>(r1);
}

}  // namespace lacuna
