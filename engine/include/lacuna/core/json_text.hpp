// A JSON string literal: the one escaping the CLI's reports and the regions file both write.
#pragma once

#include <string>
#include <string_view>

namespace lacuna {

/// `text` in double quotes with ", \ and control characters escaped (\n, \t, \r, else \u00XX);
/// other bytes, UTF-8 included, pass through.
[[nodiscard]] std::string json_quote(std::string_view text);

}  // namespace lacuna
