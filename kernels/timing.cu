// A kernel that only waits: see timing_kernels.h.
#include <lacuna/kernels/timing_kernels.h>

namespace lacuna::kernels {
namespace {

__device__ std::uint64_t global_time_ns() {
    std::uint64_t t = 0;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__global__ void busy_wait_kernel(const std::uint64_t nanoseconds) {
    const std::uint64_t start = global_time_ns();
    while (global_time_ns() - start < nanoseconds) __nanosleep(1000);
}

}  // namespace

cudaError_t launch_busy_wait(const std::uint64_t nanoseconds, const cudaStream_t stream) {
    busy_wait_kernel<<<1, 1, 0, stream>>>(nanoseconds);
    return cudaGetLastError();
}

}  // namespace lacuna::kernels
