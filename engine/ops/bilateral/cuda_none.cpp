// Without CUDA the device filter cannot be made; the host entry point refuses it with a sentence.
#include <lacuna/core/error.hpp>
#include <lacuna/ops/bilateral.hpp>

namespace lacuna::ops {

struct CudaBilateral::Impl {};

CudaBilateral::CudaBilateral(DeviceStream) {
    throw Error(ErrorCode::CudaUnavailable,
                "the CUDA bilateral filter needs a build with CUDA (this one is CPU-only)");
}

CudaBilateral::~CudaBilateral() = default;

void CudaBilateral::run(const DeviceImage<Rgba8>&, const DeviceImage<Rgba8>*, DeviceImage<Rgba8>&,
                        const BilateralParams&) {
    throw Error(ErrorCode::CudaUnavailable,
                "the CUDA bilateral filter needs a build with CUDA (this one is CPU-only)");
}

void CudaBilateral::run(ImageView<const Rgba8>, ImageView<const Rgba8>, ImageView<Rgba8>,
                        const BilateralParams&) {
    throw Error(ErrorCode::CudaUnavailable,
                "the CUDA bilateral filter needs a build with CUDA (this one is CPU-only)");
}

}  // namespace lacuna::ops
