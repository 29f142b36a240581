#include <lacuna/core/error.hpp>
#include <lacuna/ops/inpaint_quality.hpp>

#include "chessboard_near.hpp"
#include "colour_bins.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace lacuna::ops {
namespace {

using Plane = std::vector<double>;

Plane luma_plane(const ImageView<const Rgba8> image) {
    Plane out(static_cast<std::size_t>(image.width) * image.height);
    for (int y = 0; y < image.height; ++y)
        for (int x = 0; x < image.width; ++x)
            out[static_cast<std::size_t>(y) * image.width + x] = luminance709(image.row(y)[x]);
    return out;
}

/// Central-difference gradient magnitude; 0 on the image border.
Plane gradient_magnitude(const Plane& l, const int w, const int h) {
    Plane g(l.size(), 0.0);
    for (int y = 1; y + 1 < h; ++y)
        for (int x = 1; x + 1 < w; ++x) {
            const std::size_t i = static_cast<std::size_t>(y) * w + x;
            const double gx = (l[i + 1] - l[i - 1]) / 2.0;
            const double gy = (l[i + w] - l[i - w]) / 2.0;
            g[i] = std::sqrt(gx * gx + gy * gy);
        }
    return g;
}

/// Mean of `values` where `select(x, y)`; NaN if nothing is selected.
template <class Select>
double mean_where(const Plane& values, const int w, const int h, Select&& select) {
    double sum = 0;
    long long n = 0;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            if (select(x, y)) {
                sum += values[static_cast<std::size_t>(y) * w + x];
                ++n;
            }
    return n > 0 ? sum / static_cast<double>(n) : std::numeric_limits<double>::quiet_NaN();
}

/// Mean SSIM over the hole with 7×7 uniform windows (edge windows clipped to the image).
double hole_ssim(const Plane& a, const Plane& b, const Mask& mask) {
    const int w = mask.width(), h = mask.height();
    constexpr double c1 = (0.01 * 255) * (0.01 * 255);
    constexpr double c2 = (0.03 * 255) * (0.03 * 255);
    double total = 0;
    long long n = 0;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            if (mask.at(x, y) == 0) continue;
            double sa = 0, sb = 0, saa = 0, sbb = 0, sab = 0;
            int count = 0;
            for (int yy = std::max(0, y - 3); yy <= std::min(h - 1, y + 3); ++yy)
                for (int xx = std::max(0, x - 3); xx <= std::min(w - 1, x + 3); ++xx) {
                    const std::size_t i = static_cast<std::size_t>(yy) * w + xx;
                    sa += a[i];
                    sb += b[i];
                    saa += a[i] * a[i];
                    sbb += b[i] * b[i];
                    sab += a[i] * b[i];
                    ++count;
                }
            const double ma = sa / count, mb = sb / count;
            const double va = saa / count - ma * ma, vb = sbb / count - mb * mb;
            const double cov = sab / count - ma * mb;
            total +=
                ((2 * ma * mb + c1) * (2 * cov + c2)) / ((ma * ma + mb * mb + c1) * (va + vb + c2));
            ++n;
        }
    return n > 0 ? total / static_cast<double>(n) : std::numeric_limits<double>::quiet_NaN();
}

double hole_psnr(const ImageView<const Rgba8> a, const ImageRgba8& b, const Mask& mask) {
    double sum = 0;
    long long n = 0;
    for (int y = 0; y < mask.height(); ++y)
        for (int x = 0; x < mask.width(); ++x) {
            if (mask.at(x, y) == 0) continue;
            const Rgba8 p = a.row(y)[x], q = b.at(x, y);
            for (const int d : {p.r - q.r, p.g - q.g, p.b - q.b}) sum += double(d) * d;
            n += 3;
        }
    if (n == 0) return std::numeric_limits<double>::quiet_NaN();
    if (sum == 0) return std::numeric_limits<double>::infinity();
    return 10.0 * std::log10(255.0 * 255.0 / (sum / static_cast<double>(n)));
}

Plane grad_plane(const ImageView<const Rgba8> image) {
    return gradient_magnitude(luma_plane(image), image.width, image.height);
}

TileTexture tile_texture_of(const Plane& result_grad, const Plane& truth_grad, const Mask& mask) {
    const int w = mask.width(), h = mask.height();
    constexpr int t = kTextureTile;
    constexpr int min_pixels = t * t / 4;
    TileTexture out;
    std::vector<double> abs_log2;
    for (int ty = 0; ty < h; ty += t)
        for (int tx = 0; tx < w; tx += t) {
            double r = 0, g = 0;
            int n = 0;
            for (int y = ty; y < std::min(h, ty + t); ++y)
                for (int x = tx; x < std::min(w, tx + t); ++x)
                    if (mask.at(x, y) != 0) {
                        const std::size_t i = static_cast<std::size_t>(y) * w + x;
                        r += result_grad[i];
                        g += truth_grad[i];
                        ++n;
                    }
            if (n < min_pixels) continue;
            const double ratio = (r / n + 1.0) / (g / n + 1.0);
            out.ratios.push_back(ratio);
            abs_log2.push_back(std::abs(std::log2(ratio)));
            if (ratio > 2.0 || ratio < 0.5) ++out.tiles_off_2x;
        }
    out.tiles = static_cast<int>(out.ratios.size());
    if (!abs_log2.empty()) {
        // Nearest rank: the smallest value with at least 95 % of the tiles at or below it.
        std::sort(abs_log2.begin(), abs_log2.end());
        const auto rank = static_cast<std::size_t>(std::ceil(0.95 * abs_log2.size()));
        out.p95_abs_log2 = abs_log2[std::max<std::size_t>(rank, 1) - 1];
    }
    return out;
}

/// One pass of [1 4 6 4 1]/16 along x then y, the border replicated.
Plane binomial_blur(const Plane& in, const int w, const int h) {
    static constexpr double k[5] = {1 / 16.0, 4 / 16.0, 6 / 16.0, 4 / 16.0, 1 / 16.0};
    Plane tmp(in.size()), out(in.size());
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            double s = 0;
            for (int j = -2; j <= 2; ++j)
                s += k[j + 2] * in[static_cast<std::size_t>(y) * w + std::clamp(x + j, 0, w - 1)];
            tmp[static_cast<std::size_t>(y) * w + x] = s;
        }
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            double s = 0;
            for (int j = -2; j <= 2; ++j)
                s += k[j + 2] * tmp[static_cast<std::size_t>(std::clamp(y + j, 0, h - 1)) * w + x];
            out[static_cast<std::size_t>(y) * w + x] = s;
        }
    return out;
}

/// Gaussian low-pass of one RGB channel set (3 planes), separable, border replicated.
std::vector<Plane> gaussian_rgb(const ImageView<const Rgba8> image, const double sigma) {
    const int w = image.width, h = image.height;
    const int radius = static_cast<int>(std::ceil(3 * sigma));
    std::vector<double> k(static_cast<std::size_t>(2 * radius + 1));
    double total = 0;
    for (int i = -radius; i <= radius; ++i)
        total += k[i + radius] = std::exp(-0.5 * i * i / (sigma * sigma));
    for (double& v : k) v /= total;
    std::vector<Plane> out(3, Plane(static_cast<std::size_t>(w) * h));
    Plane tmp(static_cast<std::size_t>(w) * h);
    for (int c = 0; c < 3; ++c) {
        const auto channel = [&](const int x, const int y) -> double {
            const Rgba8 p = image.row(y)[x];
            return c == 0 ? p.r : c == 1 ? p.g : p.b;
        };
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                double s = 0;
                for (int j = -radius; j <= radius; ++j)
                    s += k[j + radius] * channel(std::clamp(x + j, 0, w - 1), y);
                tmp[static_cast<std::size_t>(y) * w + x] = s;
            }
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                double s = 0;
                for (int j = -radius; j <= radius; ++j)
                    s += k[j + radius] *
                         tmp[static_cast<std::size_t>(std::clamp(y + j, 0, h - 1)) * w + x];
                out[c][static_cast<std::size_t>(y) * w + x] = s;
            }
    }
    return out;
}

Plane sobel_magnitude(const Plane& l, const int w, const int h) {
    Plane g(l.size());
    const auto at = [&](const int x, const int y) {
        return l[static_cast<std::size_t>(std::clamp(y, 0, h - 1)) * w + std::clamp(x, 0, w - 1)];
    };
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const double gx = (at(x + 1, y - 1) + 2 * at(x + 1, y) + at(x + 1, y + 1)) -
                              (at(x - 1, y - 1) + 2 * at(x - 1, y) + at(x - 1, y + 1));
            const double gy = (at(x - 1, y + 1) + 2 * at(x, y + 1) + at(x + 1, y + 1)) -
                              (at(x - 1, y - 1) + 2 * at(x, y - 1) + at(x + 1, y - 1));
            g[static_cast<std::size_t>(y) * w + x] = std::sqrt(gx * gx + gy * gy);
        }
    return g;
}

}  // namespace

Mask foreign_pixels(const ImageView<const Rgba8> image, const Mask& mask, const int ring) {
    const int w = image.width, h = image.height;
    check_mask_size(mask.view(), w, h, "the mask");
    const std::vector<std::uint8_t> near = detail::chessboard_near(mask, ring, 1);
    std::vector<std::uint8_t> seen(detail::kColourBins, 0);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            if (mask.at(x, y) == 0 && near[static_cast<std::size_t>(y) * w + x] != 0)
                seen[detail::colour_bin(image.row(y)[x])] = 1;
    Mask out(w, h, 0);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            if (mask.at(x, y) != 0 && seen[detail::colour_bin(image.row(y)[x])] == 0)
                out.at(x, y) = 255;
    return out;
}

double foreign_content(const ImageView<const Rgba8> image, const Mask& mask, const int ring) {
    const Mask foreign = foreign_pixels(image, mask, ring);
    std::int64_t n = 0, marked = 0;
    for (int y = 0; y < mask.height(); ++y)
        for (int x = 0; x < mask.width(); ++x)
            if (mask.at(x, y) != 0) {
                ++n;
                marked += foreign.at(x, y) != 0;
            }
    return n > 0 ? static_cast<double>(marked) / static_cast<double>(n)
                 : std::numeric_limits<double>::quiet_NaN();
}

double lowpass_psnr(const ImageView<const Rgba8> result, const ImageView<const Rgba8> truth,
                    const Mask& mask, const double sigma) {
    const int w = result.width, h = result.height;
    check_mask_size(mask.view(), w, h, "the mask");
    if (truth.width != w || truth.height != h)
        throw Error(ErrorCode::InvalidArgument, "the truth image has a different size");
    const std::vector<Plane> a = gaussian_rgb(result, sigma), b = gaussian_rgb(truth, sigma);
    double sum = 0;
    std::int64_t n = 0;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            if (mask.at(x, y) == 0) continue;
            const std::size_t i = static_cast<std::size_t>(y) * w + x;
            for (int c = 0; c < 3; ++c) sum += (a[c][i] - b[c][i]) * (a[c][i] - b[c][i]);
            n += 3;
        }
    if (n == 0) return std::numeric_limits<double>::quiet_NaN();
    if (sum == 0) return std::numeric_limits<double>::infinity();
    return 10.0 * std::log10(255.0 * 255.0 / (sum / static_cast<double>(n)));
}

double mean_sobel(const ImageView<const Rgba8> image, const Mask& mask) {
    const int w = image.width, h = image.height;
    check_mask_size(mask.view(), w, h, "the mask");
    const Plane g = sobel_magnitude(luma_plane(image), w, h);
    return mean_where(g, w, h, [&](const int x, const int y) { return mask.at(x, y) != 0; });
}

TileTexture tile_texture(const ImageView<const Rgba8> result, const Mask& mask,
                         const ImageView<const Rgba8> truth) {
    check_mask_size(mask.view(), result.width, result.height, "the mask");
    if (truth.width != result.width || truth.height != result.height)
        throw Error(ErrorCode::InvalidArgument, "the truth image has a different size");
    return tile_texture_of(grad_plane(result), grad_plane(truth), mask);
}

Mask detect_edges(const ImageView<const Rgba8> image) {
    const int w = image.width, h = image.height;
    const Plane l = binomial_blur(luma_plane(image), w, h);
    // Sobel on the blurred luma (0 on the image border), then non-maximum suppression.
    std::vector<float> mag(l.size(), 0.0f);
    std::vector<std::uint8_t> dir(l.size(), 0);  // 0: along x, 1: 45°, 2: along y, 3: 135°
    for (int y = 1; y + 1 < h; ++y)
        for (int x = 1; x + 1 < w; ++x) {
            const std::size_t i = static_cast<std::size_t>(y) * w + x;
            const double gx = (l[i - w + 1] + 2 * l[i + 1] + l[i + w + 1]) -
                              (l[i - w - 1] + 2 * l[i - 1] + l[i + w - 1]);
            const double gy = (l[i + w - 1] + 2 * l[i + w] + l[i + w + 1]) -
                              (l[i - w - 1] + 2 * l[i - w] + l[i - w + 1]);
            mag[i] = static_cast<float>(std::sqrt(gx * gx + gy * gy));
            // tan(22.5°) ≈ 0.4142: quantise the gradient direction to four bins.
            const double ax = std::abs(gx), ay = std::abs(gy);
            if (ay <= 0.41421356 * ax)
                dir[i] = 0;
            else if (ax <= 0.41421356 * ay)
                dir[i] = 2;
            else
                dir[i] = (gx > 0) == (gy > 0) ? 1 : 3;
        }
    std::vector<std::uint8_t> state(l.size(), 0);  // 0 none, 1 weak, 2 strong
    std::vector<std::size_t> stack;
    for (int y = 1; y + 1 < h; ++y)
        for (int x = 1; x + 1 < w; ++x) {
            const std::size_t i = static_cast<std::size_t>(y) * w + x;
            const float m = mag[i];
            if (m < kEdgeLow) continue;
            std::ptrdiff_t step = 1;
            switch (dir[i]) {
                case 0:
                    step = 1;
                    break;
                case 1:
                    step = w + 1;
                    break;  // gx, gy same sign: along (1, 1)
                case 2:
                    step = w;
                    break;
                default:
                    step = w - 1;
                    break;  // along (-1, 1)
            }
            // Ties: keep the pixel on the lower-index side only, so a plateau gives one line.
            if (m <= mag[i - step] || m < mag[i + step]) continue;
            state[i] = m >= kEdgeHigh ? 2 : 1;
            if (state[i] == 2) stack.push_back(i);
        }
    Mask edges(w, h, std::uint8_t{0});
    while (!stack.empty()) {
        const std::size_t i = stack.back();
        stack.pop_back();
        const int x = static_cast<int>(i % w), y = static_cast<int>(i / w);
        if (edges.at(x, y) != 0) continue;
        edges.at(x, y) = 1;
        for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
                const int xx = x + dx, yy = y + dy;
                if (xx < 0 || yy < 0 || xx >= w || yy >= h) continue;
                const std::size_t j = static_cast<std::size_t>(yy) * w + xx;
                if (state[j] != 0 && edges.at(xx, yy) == 0) stack.push_back(j);
            }
    }
    return edges;
}

EdgeMatch match_edges(const Mask& result_edges, const Mask& truth_edges, const Mask& mask,
                      const int tolerance) {
    const int w = mask.width(), h = mask.height();
    check_mask_size(result_edges.view(), w, h, "the result's edges");
    check_mask_size(truth_edges.view(), w, h, "the truth's edges");
    const std::vector<std::uint8_t> near_truth = detail::chessboard_near(truth_edges, tolerance, 1);
    const std::vector<std::uint8_t> near_result =
        detail::chessboard_near(result_edges, tolerance, 1);
    EdgeMatch out;
    std::int64_t matched_result = 0, matched_truth = 0;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            if (mask.at(x, y) == 0) continue;
            const std::size_t i = static_cast<std::size_t>(y) * w + x;
            if (result_edges.at(x, y) != 0) {
                ++out.result_edges;
                matched_result += near_truth[i] != 0;
            }
            if (truth_edges.at(x, y) != 0) {
                ++out.truth_edges;
                matched_truth += near_result[i] != 0;
            }
        }
    if (out.result_edges > 0)
        out.precision = static_cast<double>(matched_result) / static_cast<double>(out.result_edges);
    if (out.truth_edges > 0)
        out.recall = static_cast<double>(matched_truth) / static_cast<double>(out.truth_edges);
    return out;
}

LineContinuation match_lines(const Mask& result_edges, const Mask& truth_edges,
                             const std::vector<QualityLine>& lines, const Mask& mask,
                             const int tolerance) {
    const int w = mask.width(), h = mask.height();
    check_mask_size(result_edges.view(), w, h, "the result's edges");
    check_mask_size(truth_edges.view(), w, h, "the truth's edges");
    const std::vector<std::uint8_t> near_truth = detail::chessboard_near(truth_edges, tolerance, 1);
    const std::vector<std::uint8_t> near_result =
        detail::chessboard_near(result_edges, tolerance, 1);
    const auto inside = [&](const int x, const int y) {
        return x >= 0 && y >= 0 && x < w && y < h;
    };
    LineContinuation out;
    for (const QualityLine& line : lines) {
        const auto x0 = static_cast<int>(std::lround(line.x0));
        const auto y0 = static_cast<int>(std::lround(line.y0));
        const auto x1 = static_cast<int>(std::lround(line.x1));
        const auto y1 = static_cast<int>(std::lround(line.y1));
        // Both ends outside the hole (and in the picture): the line enters and leaves it.
        if (!inside(x0, y0) || !inside(x1, y1) || mask.at(x0, y0) != 0 || mask.at(x1, y1) != 0)
            continue;
        const double length = std::hypot(line.x1 - line.x0, line.y1 - line.y0);
        const int steps = std::max(1, static_cast<int>(std::ceil(length)));
        int in_hole = 0, truth_near = 0, result_near = 0;
        for (int k = 0; k <= steps; ++k) {
            const double t = static_cast<double>(k) / steps;
            const auto x = static_cast<int>(std::lround(line.x0 + t * (line.x1 - line.x0)));
            const auto y = static_cast<int>(std::lround(line.y0 + t * (line.y1 - line.y0)));
            if (!inside(x, y) || mask.at(x, y) == 0) continue;
            const std::size_t i = static_cast<std::size_t>(y) * w + x;
            ++in_hole;
            truth_near += near_truth[i] != 0;
            result_near += near_result[i] != 0;
        }
        if (in_hole < kLineMinInside || truth_near < kLineContinued * in_hole) continue;
        ++out.crossing;
        out.continued += result_near >= kLineContinued * in_hole;
    }
    return out;
}

FillQuality measure_fill(const ImageView<const Rgba8> result, const Mask& mask,
                         const ImageRgba8* truth, const int ring_width) {
    const int w = result.width, h = result.height;
    check_mask_size(mask.view(), w, h, "the mask");
    if (truth != nullptr && (truth->width() != w || truth->height() != h))
        throw Error(ErrorCode::InvalidArgument, "the truth image has a different size");
    const auto in_mask = [&](const int x, const int y) {
        return x >= 0 && y >= 0 && x < w && y < h && mask.at(x, y) != 0;
    };
    const std::vector<std::uint8_t> mask_near = detail::chessboard_near(mask, ring_width, 1);
    const std::vector<std::uint8_t> mask_touching = detail::chessboard_near(mask, 1, 1);
    const std::vector<std::uint8_t> outside_touching = detail::chessboard_near(mask, 1, 0);
    const auto at = [&](const std::vector<std::uint8_t>& plane, const int x, const int y) {
        return plane[static_cast<std::size_t>(y) * w + x] != 0;
    };
    const auto hole = [&](const int x, const int y) { return in_mask(x, y); };
    const auto ring = [&](const int x, const int y) {
        return !in_mask(x, y) && at(mask_near, x, y);
    };
    // The band either side of the border: pixels with both a mask and a non-mask pixel in their
    // 3×3 neighbourhood.
    const auto band = [&](const int x, const int y) {
        return at(mask_touching, x, y) && at(outside_touching, x, y);
    };

    const Plane luma = luma_plane(result);
    const Plane grad = gradient_magnitude(luma, w, h);
    FillQuality q;
    const double hole_grad = mean_where(grad, w, h, hole);
    const double band_grad = mean_where(grad, w, h, band);
    if (truth != nullptr) {
        const Plane truth_luma = luma_plane(truth->view());
        const Plane truth_grad = gradient_magnitude(truth_luma, w, h);
        q.psnr_db = hole_psnr(result, *truth, mask);
        q.ssim = hole_ssim(luma, truth_luma, mask);
        q.texture_ratio = hole_grad / mean_where(truth_grad, w, h, hole);
        q.seam_score = band_grad / mean_where(truth_grad, w, h, band);
        q.tiles = tile_texture_of(grad, truth_grad, mask);
        q.edges = match_edges(detect_edges(result), detect_edges(truth->view()), mask);
        q.lowpass_psnr_db = lowpass_psnr(result, truth->view(), mask);
        q.truth_sobel = mean_sobel(truth->view(), mask);
        q.detail_ratio = mean_sobel(result, mask) / q.truth_sobel;
        q.truth_foreign = foreign_content(truth->view(), mask);
    } else {
        const double ring_grad = mean_where(grad, w, h, ring);
        q.psnr_db = std::numeric_limits<double>::quiet_NaN();
        q.ssim = std::numeric_limits<double>::quiet_NaN();
        q.texture_ratio = hole_grad / ring_grad;
        q.seam_score = band_grad / ring_grad;
    }
    q.foreign = foreign_content(result, mask);
    return q;
}

namespace detail {

SearchRect hole_box(const Mask& hole) {
    SearchRect box{hole.width(), hole.height(), -1, -1};
    for (int y = 0; y < hole.height(); ++y) {
        const std::uint8_t* row = hole.row(y);
        for (int x = 0; x < hole.width(); ++x)
            if (row[x] != 0)
                box = {std::min(box.x0, x), std::min(box.y0, y), std::max(box.x1, x),
                       std::max(box.y1, y)};
    }
    return box;
}

std::vector<std::uint8_t> chessboard_near(const Mask& mask, const int reach, const int value) {
    const int w = mask.width(), h = mask.height();
    std::vector<std::uint8_t> rows(static_cast<std::size_t>(w) * h), out(rows.size());
    for (int y = 0; y < h; ++y) {
        int last = -1000000;  // last x with the wanted value
        std::vector<int> next(static_cast<std::size_t>(w) + 1, 1000000);
        for (int x = w - 1; x >= 0; --x)
            next[x] = ((mask.at(x, y) != 0) == (value != 0)) ? x : next[x + 1];
        for (int x = 0; x < w; ++x) {
            if ((mask.at(x, y) != 0) == (value != 0)) last = x;
            rows[static_cast<std::size_t>(y) * w + x] = (x - last <= reach || next[x] - x <= reach);
        }
    }
    for (int x = 0; x < w; ++x) {
        int last = -1000000;
        std::vector<int> next(static_cast<std::size_t>(h) + 1, 1000000);
        for (int y = h - 1; y >= 0; --y)
            next[y] = rows[static_cast<std::size_t>(y) * w + x] ? y : next[y + 1];
        for (int y = 0; y < h; ++y) {
            if (rows[static_cast<std::size_t>(y) * w + x]) last = y;
            out[static_cast<std::size_t>(y) * w + x] = (y - last <= reach || next[y] - y <= reach);
        }
    }
    return out;
}

}  // namespace detail

}  // namespace lacuna::ops
