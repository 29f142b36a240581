// Internal: turns CUDA runtime errors into lacuna::Error with a sentence a user can act on.
#pragma once

#include <lacuna/core/device_image.hpp>
#include <lacuna/core/error.hpp>
#include <lacuna/core/fault_injection.hpp>
#include <lacuna/kernels/timing_kernels.h>

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

/// cuda_check for a kernel launch's status; a launch armed to fail (LACUNA_CUDA_FAULT) reports
/// cudaErrorLaunchOutOfResources, an error that leaves the context usable, as a real one can.
inline void cuda_check_launch(const cudaError_t status, const char* what) {
    cuda_check(cuda_fault_due(FaultSite::Launch) ? cudaErrorLaunchOutOfResources : status, what);
}

/// Calls `allocate` (a CUDA allocation returning its status) unless this allocation is armed to
/// fail (LACUNA_CUDA_FAULT): then nothing is allocated and cudaErrorMemoryAllocation is returned.
template <class Allocate>
cudaError_t checked_allocation(Allocate&& allocate) {
    return cuda_fault_due(FaultSite::Allocation) ? cudaErrorMemoryAllocation : allocate();
}

/// One CUDA stream, owned: the engine's one owned-stream class, OwnedStream (non-blocking, so
/// work on it does not wait on the legacy default stream), under the name the CUDA paths use.
using Stream = ::lacuna::OwnedStream;

/// One CUDA event, owned (RAII).
class Event {
  public:
    Event() { cuda_check(cudaEventCreate(&e_), "creating a CUDA event"); }
    ~Event() { cudaEventDestroy(e_); }
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;
    void record(const cudaStream_t stream) {
        cuda_check(cudaEventRecord(e_, stream), "recording a CUDA event");
    }
    void wait() const { cuda_check(cudaEventSynchronize(e_), "waiting for the device"); }
    /// Milliseconds from `start` to this event (both complete).
    [[nodiscard]] double since(const Event& start) const {
        float ms = 0;
        cuda_check(cudaEventElapsedTime(&ms, start.e_, e_), "reading a CUDA event");
        return ms;
    }

  private:
    cudaEvent_t e_ = nullptr;
};

/// A CUDA event without timing, owned (RAII), created at the first record: orders work between
/// streams on the device (a filler's default-stream kernels and a caller's stream), with no wait
/// on the host; a filler with nothing to do makes no CUDA call.
class OrderingEvent {
  public:
    OrderingEvent() = default;
    ~OrderingEvent() {
        if (e_ != nullptr) cudaEventDestroy(e_);
    }
    OrderingEvent(const OrderingEvent&) = delete;
    OrderingEvent& operator=(const OrderingEvent&) = delete;

    /// Marks everything enqueued on `stream` so far.
    void record(const cudaStream_t stream) {
        if (e_ == nullptr)
            cuda_check(cudaEventCreateWithFlags(&e_, cudaEventDisableTiming),
                       "creating a CUDA event");
        cuda_check(cudaEventRecord(e_, stream), "recording a CUDA event");
    }
    /// Later work on `stream` waits for the mark (nothing to wait for if never recorded).
    void order_before(const cudaStream_t stream) const {
        if (e_ != nullptr) cuda_check(cudaStreamWaitEvent(stream, e_, 0), "ordering CUDA streams");
    }
    /// Waits on the host for the mark (nothing if never recorded); errors cannot be acted on.
    void wait() const noexcept {
        if (e_ != nullptr) cudaEventSynchronize(e_);
    }

  private:
    cudaEvent_t e_ = nullptr;
};

/// "W x H" for messages.
inline std::string size_text(const int width, const int height) {
    return std::to_string(width) + "x" + std::to_string(height);
}

/// Median device time in ms of `repeats` runs of `launch` (kernels on `stream`), measured with
/// CUDA events after one warm-up run. Each run is enqueued behind 200 µs of busy waiting, so the
/// interval covers the kernels' execution and not the host's launch latency (which an idle
/// stream would add: timing_kernels.h).
template <class Launch>
double median_event_ms(const int repeats, const cudaStream_t stream, Launch&& launch) {
    Event start, stop;
    launch();
    cuda_check(cudaStreamSynchronize(stream), "warm-up run");
    std::vector<float> times;
    for (int r = 0; r < std::max(repeats, 1); ++r) {
        cuda_check_launch(kernels::launch_busy_wait(200'000, stream), "busy-wait kernel");
        start.record(stream);
        launch();
        stop.record(stream);
        stop.wait();
        times.push_back(static_cast<float>(stop.since(start)));
    }
    std::nth_element(times.begin(), times.begin() + static_cast<std::ptrdiff_t>(times.size() / 2),
                     times.end());
    return times[times.size() / 2];
}

}  // namespace lacuna::detail
