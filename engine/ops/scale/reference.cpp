// The gold scaler: kernels written from their definitions, sums in double, and the B-spline
// coefficients from solving the interpolation condition (c[k−1] + 4 c[k] + c[k+1]) / 6 = s[k]
// with mirror boundaries directly (a tridiagonal system, Thomas' algorithm) — not the recursive
// filter the fast paths use, so the two check each other.
#include "../reference_border.hpp"
#include "scale_detail.hpp"

#include <lacuna/core/error.hpp>

#include <lacuna/ops/scale.hpp>

#include <cmath>
#include <vector>

namespace lacuna::ops {
namespace {

double keys(const double x) {  // cubic convolution, a = -0.5
    const double a = -0.5, t = std::abs(x);
    if (t < 1) return (a + 2) * t * t * t - (a + 3) * t * t + 1;
    if (t < 2) return a * t * t * t - 5 * a * t * t + 8 * a * t - 4 * a;
    return 0;
}

double bspline3(const double x) {
    const double t = std::abs(x);
    if (t < 1) return 2.0 / 3.0 - t * t + t * t * t / 2;
    if (t < 2) return (2 - t) * (2 - t) * (2 - t) / 6;
    return 0;
}

int clamped(const int i, const int n) {
    return std::min(std::max(i, 0), n - 1);
}

/// B-spline coefficients of one line: solves A c = s with A's rows (1 4 1)/6, and (4 2)/6,
/// (2 4)/6 at the mirrored ends.
std::vector<double> spline_coefficients(const std::vector<double>& s) {
    const std::size_t n = s.size();
    if (n == 1) return s;
    std::vector<double> lower(n, 1.0 / 6), diag(n, 4.0 / 6), upper(n, 1.0 / 6), c(s);
    upper[0] = 2.0 / 6;
    lower[n - 1] = 2.0 / 6;
    for (std::size_t k = 1; k < n; ++k) {  // forward elimination
        const double m = lower[k] / diag[k - 1];
        diag[k] -= m * upper[k - 1];
        c[k] -= m * c[k - 1];
    }
    c[n - 1] /= diag[n - 1];
    for (std::size_t k = n - 1; k-- > 0;) c[k] = (c[k] - upper[k] * c[k + 1]) / diag[k];
    return c;
}

}  // namespace

std::vector<std::vector<double>> detail::scale_reference_planes(
    std::vector<std::vector<double>> planes, const int sw, const int sh, const int width,
    const int height, const ScaleMethod method) {
    if (method == ScaleMethod::BSpline) {
        for (auto& plane : planes) {
            for (int y = 0; y < sh; ++y) {
                const std::vector<double> row(plane.begin() + std::ptrdiff_t(y) * sw,
                                              plane.begin() + std::ptrdiff_t(y + 1) * sw);
                const std::vector<double> c = spline_coefficients(row);
                std::copy(c.begin(), c.end(), plane.begin() + std::ptrdiff_t(y) * sw);
            }
            for (int x = 0; x < sw; ++x) {
                std::vector<double> column(sh);
                for (int y = 0; y < sh; ++y) column[y] = plane[std::size_t(y) * sw + x];
                const std::vector<double> c = spline_coefficients(column);
                for (int y = 0; y < sh; ++y) plane[std::size_t(y) * sw + x] = c[y];
            }
        }
    }
    const std::size_t n = planes.size();
    std::vector<std::vector<double>> out(n, std::vector<double>(std::size_t(width) * height));
    for (int y = 0; y < height; ++y) {
        const double v = (y + 0.5) * sh / height - 0.5;
        for (int x = 0; x < width; ++x) {
            const double u = (x + 0.5) * sw / width - 0.5;
            const std::size_t o = std::size_t(y) * width + x;
            if (method == ScaleMethod::Nearest) {
                // The nearest centre; a tie (exactly half-way) goes to the right / lower one.
                const int sx = clamped(int(std::floor(u + 0.5)), sw);
                const int sy = clamped(int(std::floor(v + 0.5)), sh);
                for (std::size_t c = 0; c < n; ++c)
                    out[c][o] = planes[c][std::size_t(sy) * sw + sx];
                continue;
            }
            const int reach = method == ScaleMethod::Bilinear ? 1 : 2;
            for (int j = int(std::floor(v)) - reach + 1; j <= int(std::floor(v)) + reach; ++j)
                for (int i = int(std::floor(u)) - reach + 1; i <= int(std::floor(u)) + reach; ++i) {
                    double w = 0;
                    switch (method) {
                        case ScaleMethod::Bilinear:
                            w = (1 - std::abs(u - i)) * (1 - std::abs(v - j));
                            break;
                        case ScaleMethod::Bicubic:
                            w = keys(u - i) * keys(v - j);
                            break;
                        default:
                            w = bspline3(u - i) * bspline3(v - j);
                            break;
                    }
                    // A tap of weight zero is not read: a NaN there must not blank the pixel.
                    if (w == 0) continue;
                    const bool spline = method == ScaleMethod::BSpline;
                    const int sx = spline ? detail::reference_reflect101(i, sw) : clamped(i, sw);
                    const int sy = spline ? detail::reference_reflect101(j, sh) : clamped(j, sh);
                    for (std::size_t c = 0; c < n; ++c)
                        out[c][o] += w * planes[c][std::size_t(sy) * sw + sx];
                }
        }
    }
    return out;
}

ImageRgba8 scale_reference(const ImageView<const Rgba8> src, const int width, const int height,
                           const ScaleMethod method) {
    check_scale(src.width, src.height, width, height);
    const int sw = src.width, sh = src.height;
    // Per channel, the samples the kernel weighs.
    std::vector<std::vector<double>> planes(4, std::vector<double>(std::size_t(sw) * sh));
    for (int y = 0; y < sh; ++y)
        for (int x = 0; x < sw; ++x) {
            const Rgba8 p = src.row(y)[x];
            const double v[4] = {double(p.r), double(p.g), double(p.b), double(p.a)};
            for (int c = 0; c < 4; ++c) planes[c][std::size_t(y) * sw + x] = v[c];
        }
    const std::vector<std::vector<double>> values =
        detail::scale_reference_planes(std::move(planes), sw, sh, width, height, method);
    const auto level = [](const double d) {
        return std::uint8_t(std::lround(std::min(255.0, std::max(0.0, d))));
    };
    ImageRgba8 out(width, height);
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            const std::size_t o = std::size_t(y) * width + x;
            out.at(x, y) = Rgba8{level(values[0][o]), level(values[1][o]), level(values[2][o]),
                                 level(values[3][o])};
        }
    return out;
}

}  // namespace lacuna::ops
