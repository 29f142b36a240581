// CUDA build: find a usable device, and when there is none say precisely why.
#include "cuda_probe.hpp"
#include "cuda_check.hpp"

#include <cuda_runtime.h>

#include <cstdlib>
#include <string>

namespace lacuna {

bool cuda_built() noexcept {
    return true;
}

int cuda_device_count() noexcept {
    int count = 0;
    return cudaGetDeviceCount(&count) == cudaSuccess ? count : 0;
}

void cuda_prefer_many_queues() noexcept {
    setenv("CUDA_DEVICE_MAX_CONNECTIONS", "32", 0);
}

bool cuda_prefer_blocking_sync() noexcept {
    return cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync) == cudaSuccess;
}

namespace detail {
namespace {

std::string version_text(const int v) {
    return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

CudaProbe failed(const CudaUnavailableReason reason, std::string text) {
    CudaProbe probe;
    probe.reason = reason;
    probe.detail = std::move(text);
    return probe;
}

CudaProbe classify(const cudaError_t error) {
    (void)cudaGetLastError();  // clear the sticky error so a later CPU fallback starts clean
    int driver = 0;
    int runtime = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    switch (error) {
        case cudaErrorNoDevice:
            return failed(CudaUnavailableReason::NoDevice, {});
        case cudaErrorInsufficientDriver:
            if (driver == 0) {
                return failed(CudaUnavailableReason::NoDevice, "no NVIDIA driver is installed");
            }
            return failed(CudaUnavailableReason::DriverTooOld,
                          "driver supports CUDA " + version_text(driver) + ", runtime needs " +
                              version_text(runtime));
        case cudaErrorMemoryAllocation:
            return failed(CudaUnavailableReason::OutOfMemory, cudaGetErrorString(error));
        default:
            return failed(CudaUnavailableReason::Other, cudaGetErrorString(error));
    }
}

CudaProbe run_probe() {
    int count = 0;
    if (const cudaError_t e = cudaGetDeviceCount(&count); e != cudaSuccess) return classify(e);
    if (count == 0) return failed(CudaUnavailableReason::NoDevice, {});
    const int device = 0;
    cudaDeviceProp prop{};
    if (const cudaError_t e = cudaGetDeviceProperties(&prop, device); e != cudaSuccess) {
        return classify(e);
    }
    if (const cudaError_t e = cudaSetDevice(device); e != cudaSuccess) return classify(e);
    // Creating the context and taking a little memory proves the device can actually work.
    constexpr std::size_t kProbeBytes = std::size_t{16} << 20;
    void* scratch = nullptr;
    if (const cudaError_t e = cudaMalloc(&scratch, kProbeBytes); e != cudaSuccess) {
        return classify(e);
    }
    cudaFree(scratch);
    CudaProbe probe;
    probe.reason = CudaUnavailableReason::None;
    probe.device_index = device;
    probe.device_name = prop.name;
    probe.compute_major = prop.major;
    probe.compute_minor = prop.minor;
    probe.device_memory_bytes = prop.totalGlobalMem;
    return probe;
}

}  // namespace

const CudaProbe& probe_cuda() {
    static const CudaProbe probe = run_probe();
    return probe;
}

}  // namespace detail
}  // namespace lacuna
