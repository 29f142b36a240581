#include <lacuna/core/error.hpp>

namespace lacuna {

std::string_view to_string(const ErrorCode code) {
    switch (code) {
        case ErrorCode::InvalidArgument:
            return "invalid argument";
        case ErrorCode::NotFound:
            return "not found";
        case ErrorCode::Unreadable:
            return "unreadable";
        case ErrorCode::Corrupt:
            return "corrupt";
        case ErrorCode::Truncated:
            return "truncated";
        case ErrorCode::UnsupportedFormat:
            return "unsupported format";
        case ErrorCode::TooLarge:
            return "too large";
        case ErrorCode::EmptyImage:
            return "empty image";
        case ErrorCode::WriteFailed:
            return "write failed";
        case ErrorCode::CudaUnavailable:
            return "CUDA unavailable";
        case ErrorCode::OutOfMemory:
            return "out of memory";
        case ErrorCode::DeviceError:
            return "device error";
        case ErrorCode::Cancelled:
            return "cancelled";
    }
    return "unknown error";
}

}  // namespace lacuna
