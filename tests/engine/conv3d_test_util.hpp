// Random volumes and signed kernels for the 3-D convolution tests (CPU and CUDA).
#pragma once

#include <lacuna/ops/conv3d.hpp>

#include <random>
#include <vector>

namespace lacuna::test {

/// Values uniform in 0..255.
inline ops::Volume random_volume(const int w, const int h, const int n, const unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> value(0.0f, 255.0f);
    ops::Volume v(w, h, n);
    for (float& x : v.data) x = value(rng);
    return v;
}

/// Weights uniform in ±1/k², so sums stay near the values' scale and both signs occur.
inline ops::Kernel3D random_kernel(const int k, const unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> w(-1.0f, 1.0f);
    std::vector<float> weights(std::size_t(k) * k * k);
    for (float& x : weights) x = w(rng) / float(k * k);
    return ops::kernel_from_values(k, std::move(weights));
}

}  // namespace lacuna::test
