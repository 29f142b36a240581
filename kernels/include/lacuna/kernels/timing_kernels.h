// Launcher for the busy-wait kernel (kernels/timing.cu) that event timings put ahead of the work
// they time.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace lacuna::kernels {

/// Keeps `stream` busy for about `nanoseconds` of device time (one thread reading the global
/// timer). Work enqueued behind it starts the moment it ends, so a start event recorded after it
/// marks when the device is ready for the timed kernels, not when the host's launch of them
/// reaches the device: a 10 µs kernel timed on an idle stream reads 25–30 µs, most of it launch
/// latency.
cudaError_t launch_busy_wait(std::uint64_t nanoseconds, cudaStream_t stream);

}  // namespace lacuna::kernels
