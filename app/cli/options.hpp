// Parsing helpers for option values shared by the subcommands; each throws UsageError with the
// option's name and what was expected.
#pragma once

#include "args.hpp"

#include <string>
#include <utility>

namespace lacuna::cli {

double parse_number(const std::string& option, const std::string& text);
int parse_int(const std::string& option, const std::string& text);
/// "x,y" → two numbers.
std::pair<double, double> parse_pair(const std::string& option, const std::string& text);
/// "WxH" → two positive integers.
std::pair<int, int> parse_size(const std::string& option, const std::string& text);

}  // namespace lacuna::cli
