// Without CUDA the device 3-D PatchMatch cannot be made.
#include "common.hpp"

#include <lacuna/core/error.hpp>

namespace lacuna::ops::pm3 {

std::unique_ptr<Backend> make_cuda_backend(const Problem&) {
    throw Error(ErrorCode::CudaUnavailable,
                "the CUDA 3-D PatchMatch needs a build with CUDA (this one is CPU-only)");
}

}  // namespace lacuna::ops::pm3
