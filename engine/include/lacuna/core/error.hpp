// Errors the engine reports. Every failure a user can cause carries one clear sentence; the CLI
// prints it on one line and the editor shows it in a dialog.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace lacuna {

enum class ErrorCode {
    InvalidArgument,    ///< a parameter out of range or inconsistent (sizes, options)
    NotFound,           ///< the file does not exist
    Unreadable,         ///< exists but cannot be read (permissions, a directory, I/O error)
    Corrupt,            ///< not decodable as the format its content claims
    Truncated,          ///< the file ends before the image data does
    UnsupportedFormat,  ///< a format Lacuna does not read or write
    TooLarge,           ///< dimensions beyond the documented limits
    EmptyImage,         ///< zero width or height
    WriteFailed,        ///< the output could not be written; nothing was replaced
    CudaUnavailable,    ///< CUDA was asked for but cannot be used (reason in the message)
    OutOfMemory,        ///< host or device allocation failed
    DeviceError,        ///< any other CUDA runtime failure
    Cancelled,          ///< the user stopped a long operation
};

std::string_view to_string(ErrorCode code);

class Error : public std::runtime_error {
  public:
    Error(const ErrorCode code, const std::string& message)
        : std::runtime_error(message), code_(code) {}
    [[nodiscard]] ErrorCode code() const noexcept { return code_; }

  private:
    ErrorCode code_;
};

}  // namespace lacuna
