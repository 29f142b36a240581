// Without CUDA the device scaler cannot be made.
#include <lacuna/core/error.hpp>
#include <lacuna/ops/scale.hpp>

namespace lacuna::ops {

namespace {
[[noreturn]] void scale_cuda_unavailable() {
    throw Error(ErrorCode::CudaUnavailable,
                "the CUDA scaler needs a build with CUDA (this one is CPU-only)");
}
}  // namespace

struct CudaScaler::Impl {};

CudaScaler::CudaScaler(DeviceStream) {
    scale_cuda_unavailable();
}
CudaScaler::~CudaScaler() = default;
void CudaScaler::run(ImageView<const Rgba8>, ImageView<Rgba8>, ScaleMethod) {
    scale_cuda_unavailable();
}
void CudaScaler::run(const DeviceImage<Rgba8>&, DeviceImage<Rgba8>&, int, int, ScaleMethod) {
    scale_cuda_unavailable();
}

}  // namespace lacuna::ops
