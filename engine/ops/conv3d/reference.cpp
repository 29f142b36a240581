// The gold 3-D convolution: each output value from its definition, one tap at a time, in double.
#include "../reference_border.hpp"

#include <lacuna/ops/conv3d.hpp>

namespace lacuna::ops {
namespace {}  // namespace

Volume conv3d_reference(const Volume& in, const Kernel3D& kernel) {
    check_conv3d(in.width, in.height, in.frames, kernel);
    const int k = kernel.size, r = k / 2;
    Volume out(in.width, in.height, in.frames - k + 1);
    for (int t = 0; t < out.frames; ++t)
        for (int y = 0; y < in.height; ++y)
            for (int x = 0; x < in.width; ++x) {
                double sum = 0;
                for (int dt = 0; dt < k; ++dt)
                    for (int dy = 0; dy < k; ++dy)
                        for (int dx = 0; dx < k; ++dx)
                            sum +=
                                double(kernel.weights[(std::size_t(dt) * k + dy) * k + dx]) *
                                in.at(detail::reference_reflect101(x + dx - r, in.width),
                                      detail::reference_reflect101(y + dy - r, in.height), t + dt);
                out.at(x, y, t) = float(sum);
            }
    return out;
}

}  // namespace lacuna::ops
