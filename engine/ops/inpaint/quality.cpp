#include <lacuna/core/error.hpp>
#include <lacuna/ops/inpaint_quality.hpp>

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

/// 1 where a pixel with (mask != 0) == `value` lies within `reach` (chessboard distance): a
/// separable running maximum, so rings of any width cost the same.
std::vector<std::uint8_t> dilate(const Mask& mask, const int reach, const int value) {
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

}  // namespace

FillQuality measure_fill(const ImageView<const Rgba8> result, const Mask& mask,
                         const ImageRgba8* truth, const int ring_width) {
    const int w = result.width, h = result.height;
    check_mask_size(mask.view(), w, h, "the mask");
    if (truth != nullptr && (truth->width() != w || truth->height() != h))
        throw Error(ErrorCode::InvalidArgument, "the truth image has a different size");
    const auto in_mask = [&](const int x, const int y) {
        return x >= 0 && y >= 0 && x < w && y < h && mask.at(x, y) != 0;
    };
    const std::vector<std::uint8_t> mask_near = dilate(mask, ring_width, 1);
    const std::vector<std::uint8_t> mask_touching = dilate(mask, 1, 1);
    const std::vector<std::uint8_t> outside_touching = dilate(mask, 1, 0);
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
    } else {
        const double ring_grad = mean_where(grad, w, h, ring);
        q.psnr_db = std::numeric_limits<double>::quiet_NaN();
        q.ssim = std::numeric_limits<double>::quiet_NaN();
        q.texture_ratio = hole_grad / ring_grad;
        q.seam_score = band_grad / ring_grad;
    }
    return q;
}

}  // namespace lacuna::ops
