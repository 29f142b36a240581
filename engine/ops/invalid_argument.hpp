// Internal: the one way the ops' checks refuse a request.
#pragma once

#include <lacuna/core/error.hpp>

#include <string>

namespace lacuna::ops::detail {

/// Throws Error(InvalidArgument) with `text`, a sentence the user can act on.
[[noreturn]] inline void invalid(const std::string& text) {
    throw Error(ErrorCode::InvalidArgument, text);
}

}  // namespace lacuna::ops::detail
