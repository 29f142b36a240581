// Without CUDA the device kymograph cannot be made; it says so in a sentence.
#include <lacuna/core/error.hpp>
#include <lacuna/ops/kymograph.hpp>

namespace lacuna::ops {

namespace {
[[noreturn]] void unavailable() {
    throw Error(ErrorCode::CudaUnavailable,
                "the CUDA kymograph needs a build with CUDA (this one is CPU-only)");
}
}  // namespace

struct CudaKymograph::Impl {};

CudaKymograph::CudaKymograph(KymographPlan, DeviceStream) {
    unavailable();
}
CudaKymograph::~CudaKymograph() = default;
const KymographPlan& CudaKymograph::plan() const {
    unavailable();
}
void CudaKymograph::rows(ImageView<const float>, int, ImageView<float>) {
    unavailable();
}
void CudaKymograph::row(ImageView<const float>, float*) {
    unavailable();
}
ImageF32 CudaKymograph::stack(const std::vector<ImageF32>&) {
    unavailable();
}

ImageF32 kymograph_cuda(const std::vector<ImageF32>&, const KymographParams&, DeviceStream) {
    unavailable();
}

}  // namespace lacuna::ops
