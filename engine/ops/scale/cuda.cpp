// The CUDA scaler, host side: one grow-only float buffer for the samples (or spline
// coefficients); unpack, prefilter (B-spline only) and resample are enqueued on the stream and
// nothing waits.
#include "scale_detail.hpp"

#include "cuda_check.hpp"

#include <lacuna/core/device_buffer.hpp>
#include <lacuna/kernels/scale_kernels.h>
#include <lacuna/ops/scale.hpp>

namespace lacuna::ops {

struct CudaScaler::Impl {
    DeviceStream stream = nullptr;
    DeviceBuffer<float> values;
    DeviceBuffer<float> causal;  ///< the prefilter's scratch
};

CudaScaler::CudaScaler(const DeviceStream stream) : impl_(std::make_unique<Impl>()) {
    impl_->stream = stream;
}

CudaScaler::~CudaScaler() = default;

void CudaScaler::run(const ImageView<const Rgba8> src, const ImageView<Rgba8> dst,
                     const ScaleMethod method) {
    check_scale(src.width, src.height, dst.width, dst.height);
    const int m = detail::kernel_method(method);
    impl_->values.reserve(std::size_t(src.width) * src.height * 4);
    float* values = impl_->values.data();
    using lacuna::detail::cuda_check_launch;
    cuda_check_launch(kernels::launch_scale_unpack(src, values, impl_->stream), "scale: unpack");
    if (method == ScaleMethod::BSpline) {
        impl_->causal.reserve(std::size_t(src.width) * src.height * 4);
        cuda_check_launch(kernels::launch_scale_prefilter(values, impl_->causal.data(), src.width,
                                                          src.height, impl_->stream),
                          "scale: B-spline prefilter");
    }
    cuda_check_launch(
        kernels::launch_scale_resample(values, src.width, src.height, dst, m, impl_->stream),
        "scale: resample");
}

void CudaScaler::run(const DeviceImage<Rgba8>& src, DeviceImage<Rgba8>& dst, const int width,
                     const int height, const ScaleMethod method) {
    if (&src == &dst) throw Error(ErrorCode::InvalidArgument, "cannot scale an image into itself");
    check_scale(src.width(), src.height(), width, height);
    dst.resize(width, height);
    run(src.device_view(), dst.device_view(), method);
}

}  // namespace lacuna::ops
