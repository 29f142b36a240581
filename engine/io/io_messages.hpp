// Internal: the sentences every reader fails with, so images and videos word their errors alike
// ("cannot read 'NAME': why").
#pragma once

#include <lacuna/core/error.hpp>

#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>

namespace lacuna::io::detail {

inline std::string in_quotes(const std::string_view name) {
    // Appended piecewise: GCC 12 warns falsely (-Wrestrict) on "'" + std::string(...).
    std::string text(1, '\'');
    text.append(name);
    text.push_back('\'');
    return text;
}

[[noreturn]] inline void fail_read(const ErrorCode code, const std::string_view name,
                                   const std::string& what) {
    throw Error(code, "cannot read " + in_quotes(name) + ": " + what);
}

/// NotFound for a missing path, Unreadable for a directory.
inline void check_is_file(const std::filesystem::path& path, const std::string_view name) {
    std::error_code ec;
    const std::filesystem::file_status status = std::filesystem::status(path, ec);
    if (!std::filesystem::exists(status)) fail_read(ErrorCode::NotFound, name, "no such file");
    if (std::filesystem::is_directory(status))
        fail_read(ErrorCode::Unreadable, name, "it is a directory");
}

}  // namespace lacuna::io::detail
