// Internal: turns CUDA runtime errors into lacuna::Error with a sentence a user can act on.
#pragma once

#include <lacuna/core/error.hpp>

#include <cuda_runtime.h>

#include <algorithm>
#include <string>
#include <vector>

namespace lacuna::detail {

inline void cuda_check(const cudaError_t status, const char* what) {
    if (status == cudaSuccess) return;
    (void)cudaGetLastError();  // clear non-sticky errors so the caller can fall back and retry
    const ErrorCode code =
        status == cudaErrorMemoryAllocation ? ErrorCode::OutOfMemory : ErrorCode::DeviceError;
    const std::string prefix =
        code == ErrorCode::OutOfMemory ? "out of device memory: " : "CUDA error: ";
    throw Error(code, prefix + what + " failed (" + cudaGetErrorString(status) + ")");
}

/// Median device time in ms of `repeats` runs of `launch` (kernels on the default stream),
/// measured with CUDA events after one warm-up run.
template <class Launch>
double median_event_ms(const int repeats, Launch&& launch) {
    cudaEvent_t start = nullptr, stop = nullptr;
    cuda_check(cudaEventCreate(&start), "creating a CUDA event");
    cuda_check(cudaEventCreate(&stop), "creating a CUDA event");
    launch();
    cuda_check(cudaDeviceSynchronize(), "warm-up run");
    std::vector<float> times;
    for (int r = 0; r < std::max(repeats, 1); ++r) {
        cudaEventRecord(start);
        launch();
        cudaEventRecord(stop);
        cudaEventSynchronize(stop);
        float ms = 0;
        cudaEventElapsedTime(&ms, start, stop);
        times.push_back(ms);
    }
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    std::nth_element(times.begin(), times.begin() + static_cast<std::ptrdiff_t>(times.size() / 2),
                     times.end());
    return times[times.size() / 2];
}

}  // namespace lacuna::detail
