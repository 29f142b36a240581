// Without CUDA the device convolution cannot be made.
#include <lacuna/core/error.hpp>
#include <lacuna/ops/conv3d.hpp>

namespace lacuna::ops {
namespace {
[[noreturn]] void unavailable() {
    throw Error(ErrorCode::CudaUnavailable,
                "the CUDA 3-D convolution needs a build with CUDA (this one is CPU-only)");
}
}  // namespace

struct CudaConv3d::Impl {};
CudaConv3d::CudaConv3d(DeviceStream) {
    unavailable();
}
CudaConv3d::~CudaConv3d() = default;
void CudaConv3d::upload(const Volume&, const Kernel3D&) {
    unavailable();
}
void CudaConv3d::run(Conv3dAlgorithm) {
    unavailable();
}
Volume CudaConv3d::download() const {
    unavailable();
}
double CudaConv3d::time_ms(Conv3dAlgorithm, int) {
    unavailable();
}
Volume conv3d_cuda(const Volume&, const Kernel3D&, Conv3dAlgorithm) {
    unavailable();
}

}  // namespace lacuna::ops
