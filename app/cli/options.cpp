#include "options.hpp"

#include <cmath>
#include <cstdlib>

namespace lacuna::cli {

double parse_number(const std::string& option, const std::string& text) {
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(v)) {
        throw UsageError("--" + option + " needs a number, not '" + text + "'");
    }
    return v;
}

int parse_int(const std::string& option, const std::string& text) {
    char* end = nullptr;
    const long v = std::strtol(text.c_str(), &end, 10);
    if (text.empty() || end != text.c_str() + text.size() || v < -2147483647L || v > 2147483647L) {
        throw UsageError("--" + option + " needs a whole number, not '" + text + "'");
    }
    return static_cast<int>(v);
}

std::pair<double, double> parse_pair(const std::string& option, const std::string& text) {
    const auto comma = text.find(',');
    if (comma == std::string::npos) {
        throw UsageError("--" + option +
                         " needs two numbers separated by a comma, like 10,20.5, not '" + text +
                         "'");
    }
    return {parse_number(option, text.substr(0, comma)),
            parse_number(option, text.substr(comma + 1))};
}

std::pair<int, int> parse_size(const std::string& option, const std::string& text) {
    const auto x = text.find('x');
    if (x == std::string::npos)
        throw UsageError("--" + option + " needs WIDTHxHEIGHT, like 3840x2160, not '" + text + "'");
    const int w = parse_int(option, text.substr(0, x));
    const int h = parse_int(option, text.substr(x + 1));
    if (w <= 0 || h <= 0)
        throw UsageError("--" + option + " needs positive sizes, not '" + text + "'");
    return {w, h};
}

}  // namespace lacuna::cli
