// CPU-only build: device masks cannot be painted, and the brush says why.
#include <lacuna/core/error.hpp>
#include <lacuna/ops/brush.hpp>

namespace lacuna::ops {
namespace {
[[noreturn]] void no_cuda() {
    throw Error(ErrorCode::CudaUnavailable, "this build has no CUDA backend");
}
}  // namespace

PixelRect paint_dab(DeviceImage<std::uint8_t>&, double, double, const BrushSettings&) {
    no_cuda();
}

PixelRect paint_segment(DeviceImage<std::uint8_t>&, double, double, double, double,
                        const BrushSettings&) {
    no_cuda();
}

}  // namespace lacuna::ops
