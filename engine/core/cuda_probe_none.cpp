// CPU-only build: CUDA is never available, and the reason says so.
#include "cuda_probe.hpp"

namespace lacuna {

bool cuda_built() noexcept {
    return false;
}

int cuda_device_count() noexcept {
    return 0;
}

bool cuda_prefer_blocking_sync() noexcept {
    return false;
}

void cuda_prefer_many_queues() noexcept {}

namespace detail {
const CudaProbe& probe_cuda() {
    static const CudaProbe probe{};
    return probe;
}
}  // namespace detail

}  // namespace lacuna
