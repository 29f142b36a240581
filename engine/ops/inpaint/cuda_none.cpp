// CPU-only build: the CUDA filler cannot be created, and says why.
#include "factories.hpp"

#include <lacuna/core/error.hpp>

namespace lacuna::ops::detail {
std::unique_ptr<Inpainter> make_cuda_inpainter(InpaintProblem) {
    throw Error(ErrorCode::CudaUnavailable, "this build has no CUDA backend");
}
std::unique_ptr<Inpainter> make_patchmatch_cuda_inpainter(InpaintProblem) {
    throw Error(ErrorCode::CudaUnavailable, "this build has no CUDA backend");
}
std::unique_ptr<DeviceInpainter> make_deep_patchmatch_cuda_inpainter(InpaintProblem,
                                                                     Image<Rgba16>) {
    throw Error(ErrorCode::CudaUnavailable, "this build has no CUDA backend");
}
std::unique_ptr<DeviceInpainter> make_deep_patchmatch_cuda_inpainter(InpaintProblem,
                                                                     const DeviceImage<Rgba16>&) {
    throw Error(ErrorCode::CudaUnavailable, "this build has no CUDA backend");
}
}  // namespace lacuna::ops::detail

namespace lacuna::ops {
std::unique_ptr<DeviceInpainter> make_device_inpainter(const DeviceImage<Rgba8>&,
                                                       const DeviceImage<std::uint8_t>&,
                                                       InpaintProblem) {
    throw Error(ErrorCode::CudaUnavailable, "this build has no CUDA backend");
}
}  // namespace lacuna::ops
