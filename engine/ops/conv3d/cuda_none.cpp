// Without CUDA the device convolution cannot be made.
#include <lacuna/core/error.hpp>
#include <lacuna/ops/conv3d.hpp>

namespace lacuna::ops {
namespace {
[[noreturn]] void conv3d_cuda_unavailable() {
    throw Error(ErrorCode::CudaUnavailable,
                "the CUDA 3-D convolution needs a build with CUDA (this one is CPU-only)");
}
}  // namespace

struct CudaConv3d::Impl {};
CudaConv3d::CudaConv3d(DeviceStream) {
    conv3d_cuda_unavailable();
}
CudaConv3d::~CudaConv3d() = default;
void CudaConv3d::upload(const Volume&, const Kernel3D&) {
    conv3d_cuda_unavailable();
}
void CudaConv3d::run(Conv3dAlgorithm) {
    conv3d_cuda_unavailable();
}
Volume CudaConv3d::download() const {
    conv3d_cuda_unavailable();
}
double CudaConv3d::time_ms(Conv3dAlgorithm, int) {
    conv3d_cuda_unavailable();
}
Volume conv3d_cuda(const Volume&, const Kernel3D&, Conv3dAlgorithm) {
    conv3d_cuda_unavailable();
}

}  // namespace lacuna::ops
