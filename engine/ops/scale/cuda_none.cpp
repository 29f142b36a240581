// Without CUDA the device scaler cannot be made.
#include <lacuna/core/error.hpp>
#include <lacuna/ops/scale.hpp>

namespace lacuna::ops {

namespace {
[[noreturn]] void unavailable() {
    throw Error(ErrorCode::CudaUnavailable,
                "the CUDA scaler needs a build with CUDA (this one is CPU-only)");
}
}  // namespace

struct CudaScaler::Impl {};

CudaScaler::CudaScaler(DeviceStream) {
    unavailable();
}
CudaScaler::~CudaScaler() = default;
void CudaScaler::run(ImageView<const Rgba8>, ImageView<Rgba8>, ScaleMethod) {
    unavailable();
}
void CudaScaler::run(const DeviceImage<Rgba8>&, DeviceImage<Rgba8>&, int, int, ScaleMethod) {
    unavailable();
}

}  // namespace lacuna::ops
