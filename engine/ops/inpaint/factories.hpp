// Internal: one constructor per implementation, each taking a prepared problem.
#pragma once

#include <lacuna/ops/inpaint.hpp>

#include <memory>

namespace lacuna::ops::detail {
std::unique_ptr<Inpainter> make_reference_inpainter(InpaintProblem problem);
std::unique_ptr<Inpainter> make_fast_inpainter(InpaintProblem problem);
/// Throws Error(CudaUnavailable) without a CUDA build or device.
std::unique_ptr<Inpainter> make_cuda_inpainter(InpaintProblem problem);
/// PatchMatch completion (patchmatch.cpp, patchmatch_cuda.cpp); the CUDA ones throw
/// Error(CudaUnavailable) without a CUDA build or device.
std::unique_ptr<Inpainter> make_patchmatch_inpainter(InpaintProblem problem);
std::unique_ptr<Inpainter> make_patchmatch_cuda_inpainter(InpaintProblem problem);
/// At 16 bits (see make_deep_patchmatch_inpainter).
std::unique_ptr<Inpainter> make_deep_patchmatch_cpu_inpainter(InpaintProblem problem,
                                                              Image<Rgba16> decision);
std::unique_ptr<DeviceInpainter> make_deep_patchmatch_cuda_inpainter(InpaintProblem problem,
                                                                     Image<Rgba16> decision);
std::unique_ptr<DeviceInpainter> make_deep_patchmatch_cuda_inpainter(
    InpaintProblem problem, const DeviceImage<Rgba16>& decision);
std::unique_ptr<DeviceInpainter> make_patchmatch_device_inpainter(
    const DeviceImage<Rgba8>& pixels, const DeviceImage<std::uint8_t>& coverage,
    InpaintProblem problem);
}  // namespace lacuna::ops::detail
