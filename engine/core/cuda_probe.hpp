// Internal: the one-time CUDA probe behind select_backend (CUDA and CPU-only builds differ).
#pragma once

#include <lacuna/core/backend.hpp>

#include <cstddef>
#include <string>

namespace lacuna::detail {

struct CudaProbe {
    CudaUnavailableReason reason = CudaUnavailableReason::NotBuilt;
    std::string detail;
    int device_index = -1;
    std::string device_name;
    int compute_major = 0;
    int compute_minor = 0;
    std::size_t device_memory_bytes = 0;
};

/// Runs once per process; later calls return the cached result.
const CudaProbe& probe_cuda();

}  // namespace lacuna::detail
