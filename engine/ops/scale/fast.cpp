// The fast CPU scaler: the samples as float planes (RGBA interleaved), the B-spline prefilter
// along rows then columns, and the 4 × 4 (or fewer) weighted sum per output pixel with taps
// computed once per output row and column. Arithmetic and its order are scale_math's, as in the
// CUDA kernels, so both give identical pixels.
#include "scale_detail.hpp"

#include <lacuna/core/parallel.hpp>
#include <lacuna/kernels/scale_math.h>
#include <lacuna/ops/scale.hpp>

#include <algorithm>
#include <vector>

namespace lacuna::ops {

void detail::bspline_prefilter(std::vector<float>& values, const int sw, const int sh,
                               const int nc) {
    // Rows, then columns; each a causal pass into `causal` and an anticausal one back, chunk by
    // chunk as the CUDA kernels do.
    std::vector<float> causal(values.size());
    const auto pass = [&](const int lines, const int n, const std::size_t line_step,
                          const int stride) {
        if (n == 1) return;
        const int chunks = scale_math::chunks_of(n);
        const auto line_of = [&](float* base, const int l) {
            return scale_math::Strided{base + std::size_t(l / nc) * line_step + l % nc, stride};
        };
        parallel_chunks(lines * chunks, [&](const int i0, const int i1, int) {
            for (int i = i0; i < i1; ++i) {
                const int l = i / chunks, a = (i % chunks) * scale_math::kChunk;
                scale_math::causal_chunk(line_of(values.data(), l), line_of(causal.data(), l), n, a,
                                         std::min(n, a + scale_math::kChunk));
            }
        });
        parallel_chunks(lines * chunks, [&](const int i0, const int i1, int) {
            for (int i = i0; i < i1; ++i) {
                const int l = i / chunks, a = (i % chunks) * scale_math::kChunk;
                scale_math::anticausal_chunk(line_of(causal.data(), l), line_of(values.data(), l),
                                             n, a, std::min(n, a + scale_math::kChunk));
            }
        });
    };
    pass(sh * nc, sw, std::size_t(sw) * nc, nc);  // rows: line = row × nc + channel
    pass(sw * nc, sh, nc, sw * nc);               // columns: line = column × nc + channel
}

ImageRgba8 scale_fast(const ImageView<const Rgba8> src, const int width, const int height,
                      const ScaleMethod method) {
    check_scale(src.width, src.height, width, height);
    const int sw = src.width, sh = src.height;
    const int m = detail::kernel_method(method);
    std::vector<float> values(std::size_t(sw) * sh * 4);
    parallel_chunks(sh, [&](const int y0, const int y1, int) {
        for (int y = y0; y < y1; ++y)
            for (int x = 0; x < sw; ++x) {
                const Rgba8 p = src.row(y)[x];
                float* v = values.data() + (std::size_t(y) * sw + x) * 4;
                v[0] = p.r;
                v[1] = p.g;
                v[2] = p.b;
                v[3] = p.a;
            }
    });
    if (method == ScaleMethod::BSpline) detail::bspline_prefilter(values, sw, sh, 4);
    std::vector<scale_math::Taps> columns(width);
    for (int x = 0; x < width; ++x) columns[x] = scale_math::axis_taps(x, sw, width, m);
    ImageRgba8 out(width, height);
    parallel_chunks(height, [&](const int y0, const int y1, int) {
        for (int y = y0; y < y1; ++y) {
            const scale_math::Taps ty = scale_math::axis_taps(y, sh, height, m);
            for (int x = 0; x < width; ++x)
                out.at(x, y) = scale_math::resample(values.data(), sw, sh, columns[x], ty, m);
        }
    });
    return out;
}

}  // namespace lacuna::ops
