// Internal: turns CUDA runtime errors into lacuna::Error with a sentence a user can act on.
#pragma once

#include <lacuna/core/error.hpp>

#include <cuda_runtime.h>

#include <string>

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

}  // namespace lacuna::detail
