#include "options.hpp"

#include <lacuna/core/error.hpp>
#include <lacuna/ops/params.hpp>
#include <lacuna/ops/seam_carve.hpp>

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

std::int64_t parse_int64_param(const std::string& option, const std::string& text,
                               const ops::ParamSpec& spec) {
    char* end = nullptr;
    const long long v = std::strtoll(text.c_str(), &end, 10);
    if (text.empty() || end != text.c_str() + text.size())
        throw UsageError("--" + option + " needs a whole number, not '" + text + "'");
    try {
        ops::check_value(spec, static_cast<double>(v));
    } catch (const Error&) {
        throw UsageError(ops::value_error(spec, static_cast<double>(v), "--" + option));
    }
    return v;
}

int parse_int_param(const std::string& option, const std::string& text,
                    const ops::ParamSpec& spec) {
    const int v = parse_int(option, text);
    try {
        ops::check_value(spec, v);
    } catch (const Error&) {
        throw UsageError(ops::value_error(spec, v, "--" + option));
    }
    return v;
}

double parse_real_param(const std::string& option, const std::string& text,
                        const ops::ParamSpec& spec) {
    const double v = parse_number(option, text);
    try {
        ops::check_value(spec, v);
    } catch (const Error&) {
        throw UsageError(ops::value_error(spec, v, "--" + option));
    }
    return v;
}

int parse_choice_param(const std::string& option, const std::string& text,
                       const ops::ParamSpec& spec) {
    try {
        return ops::parse_choice(spec, text);
    } catch (const Error&) {
        throw UsageError(ops::choice_error(spec, text, "--" + option));
    }
}

std::string wrap_help(const std::string& text) {
    // help_text() prints option help from column 28 of a 100-column screen.
    constexpr std::size_t kColumn = 28, kWidth = 100 - kColumn;
    std::string out, line;
    std::size_t start = 0;
    while (start <= text.size()) {
        std::size_t end = text.find(' ', start);
        if (end == std::string::npos) end = text.size();
        const std::string word = text.substr(start, end - start);
        if (!line.empty() && line.size() + 1 + word.size() > kWidth) {
            out += line + "\n" + std::string(kColumn, ' ');
            line.clear();
        }
        line += (line.empty() ? "" : " ") + word;
        start = end + 1;
    }
    return out + line;
}

std::string param_help(const ops::ParamSpec& spec) {
    return wrap_help(std::string(spec.help) + "; " + ops::describe_range(spec));
}

double parse_param(const std::string& option, const std::string& text, const ops::ParamSpec& spec) {
    switch (spec.kind) {
        case ops::ParamKind::Int:
            // A 32-bit seed does not fit an int.
            return spec.max > 2147483647.0
                       ? static_cast<double>(parse_int64_param(option, text, spec))
                       : parse_int_param(option, text, spec);
        case ops::ParamKind::Real:
            return parse_real_param(option, text, spec);
        case ops::ParamKind::Choice:
            return parse_choice_param(option, text, spec);
        case ops::ParamKind::Bool:
            if (text == "on" || text == "1") return 1;
            if (text == "off" || text == "0") return 0;
            throw UsageError("--" + option + " takes on or off, not '" + text + "'");
    }
    throw UsageError("--" + option + " has no parser");  // every kind is handled above
}

OptionSpec param_option(const ops::ParamSpec& spec, const std::string& value_name,
                        const std::string& prefix) {
    return {std::string(spec.name), value_name,
            prefix.empty()
                ? param_help(spec)
                : wrap_help(prefix + std::string(spec.help) + "; " + ops::describe_range(spec))};
}

int parse_extent(const std::string& option, const std::string& text, const int original) {
    if (!text.empty() && text.back() == '%') {
        const double percent = parse_number(option, text.substr(0, text.size() - 1));
        const double pixels = std::round(original * percent / 100.0);
        // Beyond int the cast is undefined (fuzz_cli_args: "7777…75%" came back as a small size).
        if (!(pixels >= -2147483647.0 && pixels <= 2147483647.0))
            throw UsageError("--" + option + " of " + text + " is far beyond any image size");
        return static_cast<int>(pixels);
    }
    return parse_int(option, text);
}

}  // namespace lacuna::cli
