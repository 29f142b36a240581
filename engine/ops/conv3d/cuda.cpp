// The CUDA 3-D convolution, host side: grow-only device buffers for the volumes (rows padded to
// 128 bytes, so every row starts aligned and the kernels read pitched memory) and the weights,
// one launch per run, CUDA events for the benchmark's device times.
#include "cuda_check.hpp"

#include <lacuna/core/device_buffer.hpp>
#include <lacuna/kernels/conv3d_kernels.h>
#include <lacuna/ops/conv3d.hpp>

#include <algorithm>

namespace lacuna::ops {

struct CudaConv3d::Impl {
    DeviceStream stream = nullptr;
    DeviceBuffer<float> in, out, weights;
    DeviceBuffer<float> spectra;  ///< the hybrid Fourier algorithm's scratch (grow-only)
    int width = 0, height = 0, frames = 0, k = 0;
    int pitch = 0;  ///< floats per device row: the width rounded up to 32
};

namespace {

/// The volume's rows `pitch` floats apart (the padding zero).
std::vector<float> pitched_rows(const Volume& v, const int pitch) {
    std::vector<float> rows(std::size_t(pitch) * v.height * v.frames, 0.0f);
    for (std::size_t r = 0; r < std::size_t(v.height) * v.frames; ++r)
        std::copy_n(v.data.begin() + std::ptrdiff_t(r * v.width), v.width,
                    rows.begin() + std::ptrdiff_t(r * pitch));
    return rows;
}

}  // namespace

CudaConv3d::CudaConv3d(const DeviceStream stream) : impl_(std::make_unique<Impl>()) {
    impl_->stream = stream;
}

CudaConv3d::~CudaConv3d() = default;

void CudaConv3d::upload(const Volume& in, const Kernel3D& kernel) {
    check_conv3d(in.width, in.height, in.frames, kernel);
    Impl& m = *impl_;
    m.pitch = (in.width + 31) / 32 * 32;
    const std::vector<float> rows = pitched_rows(in, m.pitch);
    m.in.upload(rows.data(), rows.size(), m.stream);
    m.weights.upload(kernel.weights.data(), kernel.weights.size(), m.stream);
    m.out.reserve(std::size_t(m.pitch) * in.height * (in.frames - kernel.size + 1));
    m.width = in.width;
    m.height = in.height;
    m.frames = in.frames;
    m.k = kernel.size;
}

void CudaConv3d::run(const Conv3dAlgorithm algorithm) {
    const Impl& m = *impl_;
    if (m.k == 0) throw Error(ErrorCode::InvalidArgument, "upload a volume before convolving it");
    kernels::Conv3dArgs a;
    a.in = m.in.data();
    a.out = impl_->out.data();
    a.weights = m.weights.data();
    a.width = m.width;
    a.height = m.height;
    a.in_frames = m.frames;
    a.k = m.k;
    a.pitch = m.pitch;
    if (algorithm == Conv3dAlgorithm::HybridFft) {
        impl_->spectra.reserve(
            kernels::conv3d_fft_scratch_floats(m.width, m.height, m.k, m.frames));
        lacuna::detail::cuda_check_launch(
            kernels::launch_conv3d_fft(a, impl_->spectra.data(), m.stream),
            "3-D convolution (hybrid Fourier)");
        return;
    }
    lacuna::detail::cuda_check_launch(
        kernels::launch_conv3d(a, static_cast<int>(algorithm), m.stream), "3-D convolution");
}

Volume CudaConv3d::download() const {
    const Impl& m = *impl_;
    Volume out(m.width, m.height, m.frames - m.k + 1);
    std::vector<float> rows(std::size_t(m.pitch) * m.height * out.frames);
    m.out.download(rows.data(), rows.size(), m.stream);
    for (std::size_t r = 0; r < std::size_t(m.height) * out.frames; ++r)
        std::copy_n(rows.begin() + std::ptrdiff_t(r * m.pitch), m.width,
                    out.data.begin() + std::ptrdiff_t(r * m.width));
    return out;
}

double CudaConv3d::time_ms(const Conv3dAlgorithm algorithm, const int repeats) {
    std::vector<double> times;
    lacuna::detail::Event start, end;
    run(algorithm);  // warm-up
    for (int i = 0; i < std::max(1, repeats); ++i) {
        start.record(impl_->stream);
        run(algorithm);
        end.record(impl_->stream);
        end.wait();
        times.push_back(end.since(start));
    }
    std::nth_element(times.begin(), times.begin() + std::ptrdiff_t(times.size() / 2), times.end());
    return times[times.size() / 2];
}

Volume conv3d_cuda(const Volume& in, const Kernel3D& kernel, const Conv3dAlgorithm algorithm) {
    check_conv3d(in.width, in.height, in.frames, kernel);
    OwnedStream stream;
    CudaConv3d conv(stream.get());
    conv.upload(in, kernel);
    conv.run(algorithm);
    return conv.download();
}

}  // namespace lacuna::ops
