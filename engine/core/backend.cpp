#include <lacuna/core/backend.hpp>
#include <lacuna/core/error.hpp>

#include "cuda_probe.hpp"

#include <string>

namespace lacuna {

std::optional<BackendRequest> parse_backend_request(const std::string_view text) {
    if (text == "auto") return BackendRequest::Auto;
    if (text == "cpu") return BackendRequest::Cpu;
    if (text == "cuda") return BackendRequest::Cuda;
    return std::nullopt;
}

std::string_view to_string(const Backend backend) {
    return backend == Backend::Cuda ? "cuda" : "cpu";
}

std::string_view to_string(const BackendRequest request) {
    switch (request) {
        case BackendRequest::Auto:
            return "auto";
        case BackendRequest::Cpu:
            return "cpu";
        case BackendRequest::Cuda:
            return "cuda";
    }
    return "auto";
}

std::string describe_reason(const CudaUnavailableReason reason, const std::string_view detail) {
    std::string text;
    switch (reason) {
        case CudaUnavailableReason::None:
            return {};
        case CudaUnavailableReason::NotRequested:
            text = "CPU backend requested";
            break;
        case CudaUnavailableReason::NotBuilt:
            text = "this build has no CUDA backend";
            break;
        case CudaUnavailableReason::NoDevice:
            text = "no CUDA device found";
            break;
        case CudaUnavailableReason::DriverTooOld:
            text = "the NVIDIA driver is too old for this build's CUDA runtime";
            break;
        case CudaUnavailableReason::OutOfMemory:
            text = "the CUDA device is out of memory";
            break;
        case CudaUnavailableReason::Other:
            text = "CUDA could not be initialised";
            break;
        case CudaUnavailableReason::SmallJob:
            text = "the job is small: the CPU finishes it before the GPU could start";
            break;
    }
    if (!detail.empty()) {
        text += " (";
        text += detail;
        text += ")";
    }
    return text;
}

std::string BackendInfo::describe() const {
    if (backend == Backend::Cuda) {
        return "CUDA: " + device_name + " (sm_" + std::to_string(compute_major) +
               std::to_string(compute_minor) + ")";
    }
    return "CPU (" + reason + ")";
}

BackendInfo select_backend(const BackendRequest request) {
    BackendInfo info;
    if (request == BackendRequest::Cpu) {
        info.cuda_reason = CudaUnavailableReason::NotRequested;
        info.reason = describe_reason(info.cuda_reason);
        return info;
    }
    const detail::CudaProbe& probe = detail::probe_cuda();
    if (probe.reason == CudaUnavailableReason::None) {
        info.backend = Backend::Cuda;
        info.cuda_reason = CudaUnavailableReason::None;
        info.device_index = probe.device_index;
        info.device_name = probe.device_name;
        info.compute_major = probe.compute_major;
        info.compute_minor = probe.compute_minor;
        info.device_memory_bytes = probe.device_memory_bytes;
        return info;
    }
    info.cuda_reason = probe.reason;
    info.reason = describe_reason(probe.reason, probe.detail);
    if (request == BackendRequest::Cuda) {
        throw Error(ErrorCode::CudaUnavailable, "CUDA backend requested but " + info.reason);
    }
    return info;
}

bool prefer_cpu_for(const double estimated_cpu_ms) noexcept {
    return estimated_cpu_ms < kDeviceStartMs;
}

bool is_device_failure(const Error& e) noexcept {
    return e.code() == ErrorCode::DeviceError || e.code() == ErrorCode::OutOfMemory ||
           e.code() == ErrorCode::CudaUnavailable;
}

bool falls_back_to_cpu(const BackendRequest request, const Error& e) noexcept {
    return request == BackendRequest::Auto && is_device_failure(e);
}

}  // namespace lacuna
