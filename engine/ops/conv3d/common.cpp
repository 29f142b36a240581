// Kernels, checks and names of the 3-D convolution.
#include <lacuna/core/error.hpp>
#include <lacuna/ops/conv3d.hpp>

#include <cmath>
#include <string>

namespace lacuna::ops {
namespace {

void check_size(const int k) {
    if (k < 1 || k > kMaxConv3dSize || k % 2 == 0)
        throw Error(ErrorCode::InvalidArgument, "the kernel size must be odd and from 1 to " +
                                                    std::to_string(kMaxConv3dSize) + ", not " +
                                                    std::to_string(k));
}

std::vector<double> gaussian_1d(const int k, const double sigma) {
    std::vector<double> g(k);
    const int r = k / 2;
    for (int i = 0; i < k; ++i) g[i] = std::exp(-double((i - r) * (i - r)) / (2 * sigma * sigma));
    return g;
}

}  // namespace

std::string_view to_string(const Conv3dAlgorithm algorithm) {
    switch (algorithm) {
        case Conv3dAlgorithm::Baseline:
            return "baseline";
        case Conv3dAlgorithm::Shared:
            return "shared";
        case Conv3dAlgorithm::Streaming:
            return "streaming";
        case Conv3dAlgorithm::HybridFft:
            return "hybrid fft";
    }
    return "?";
}

Kernel3D box_kernel(const int k) {
    check_size(k);
    return {k, std::vector<float>(std::size_t(k) * k * k, float(1.0 / (double(k) * k * k)))};
}

Kernel3D gaussian_kernel(const int k, const double sigma_space, const double sigma_time) {
    check_size(k);
    for (const double s : {sigma_space, sigma_time})
        if (!(std::isfinite(s) && s > 0))
            throw Error(ErrorCode::InvalidArgument,
                        "a Gaussian's sigma must be greater than 0, not " + std::to_string(s));
    const std::vector<double> gs = gaussian_1d(k, sigma_space), gt = gaussian_1d(k, sigma_time);
    std::vector<double> w(std::size_t(k) * k * k);
    double sum = 0;
    for (int t = 0; t < k; ++t)
        for (int y = 0; y < k; ++y)
            for (int x = 0; x < k; ++x)
                sum += w[(std::size_t(t) * k + y) * k + x] = gt[t] * gs[y] * gs[x];
    Kernel3D kernel{k, std::vector<float>(w.size())};
    for (std::size_t i = 0; i < w.size(); ++i) kernel.weights[i] = float(w[i] / sum);
    return kernel;
}

Kernel3D kernel_from_values(const int k, std::vector<float> weights) {
    check_size(k);
    Kernel3D kernel{k, std::move(weights)};
    check_conv3d(1, 1, k, kernel);
    return kernel;
}

void check_conv3d(const int width, const int height, const int frames, const Kernel3D& kernel) {
    check_size(kernel.size);
    const std::size_t count = std::size_t(kernel.size) * kernel.size * kernel.size;
    if (kernel.weights.size() != count)
        throw Error(ErrorCode::InvalidArgument,
                    "a " + std::to_string(kernel.size) + "×" + std::to_string(kernel.size) + "×" +
                        std::to_string(kernel.size) + " kernel needs " + std::to_string(count) +
                        " weights, not " + std::to_string(kernel.weights.size()));
    for (const float w : kernel.weights)
        if (!std::isfinite(w))
            throw Error(ErrorCode::InvalidArgument, "every kernel weight must be a finite number");
    check_image_size(width, height);
    if (frames < kernel.size)
        throw Error(ErrorCode::InvalidArgument,
                    "a kernel " + std::to_string(kernel.size) + " frames deep needs at least " +
                        std::to_string(kernel.size) + " frames, not " + std::to_string(frames));
}

}  // namespace lacuna::ops
