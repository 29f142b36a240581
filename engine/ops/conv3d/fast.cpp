// The fast CPU 3-D convolution: each input frame mirrored into a padded copy once, then for each
// output row the kernel's taps in (t, y, x) order, each added to the whole row at once (the inner
// loop over x vectorises; every output value still sums its taps in the CUDA kernels' order).
#include <lacuna/core/parallel.hpp>
#include <lacuna/kernels/border.h>
#include <lacuna/ops/conv3d.hpp>

namespace lacuna::ops {

Volume conv3d_fast(const Volume& in, const Kernel3D& kernel) {
    check_conv3d(in.width, in.height, in.frames, kernel);
    const int k = kernel.size, r = k / 2, w = in.width, h = in.height;
    const int pw = w + 2 * r, ph = h + 2 * r;
    std::vector<float> padded(std::size_t(pw) * ph * in.frames);
    parallel_chunks(in.frames * ph, [&](const int l0, const int l1, int) {
        for (int l = l0; l < l1; ++l) {
            const int t = l / ph, py = l % ph;
            const int sy = border::reflect101(py - r, h);
            float* dst = padded.data() + std::size_t(l) * pw;
            for (int px = 0; px < pw; ++px) dst[px] = in.at(border::reflect101(px - r, w), sy, t);
        }
    });
    Volume out(w, h, in.frames - k + 1);
    parallel_chunks(out.frames * h, [&](const int l0, const int l1, int) {
        std::vector<float> acc(w);
        for (int l = l0; l < l1; ++l) {
            const int t = l / h, y = l % h;
            std::fill(acc.begin(), acc.end(), 0.0f);
            for (int dt = 0; dt < k; ++dt)
                for (int dy = 0; dy < k; ++dy) {
                    const float* row = padded.data() + (std::size_t(t + dt) * ph + (y + dy)) * pw;
                    const float* weights = kernel.weights.data() + (std::size_t(dt) * k + dy) * k;
                    for (int dx = 0; dx < k; ++dx) {
                        const float wgt = weights[dx];
                        const float* src = row + dx;
                        for (int x = 0; x < w; ++x) acc[x] = acc[x] + wgt * src[x];
                    }
                }
            std::copy(acc.begin(), acc.end(), out.data.begin() + std::ptrdiff_t(l) * w);
        }
    });
    return out;
}

}  // namespace lacuna::ops
