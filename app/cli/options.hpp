// Parsing helpers for option values shared by the subcommands; each throws UsageError with the
// option's name and what was expected.
#pragma once

#include <cstdint>

#include "args.hpp"

#include <lacuna/kernels/seam_energy.h>
#include <lacuna/ops/params.hpp>
#include <lacuna/ops/video_retarget.hpp>

#include <span>
#include <string>
#include <utility>

namespace lacuna::cli {

double parse_number(const std::string& option, const std::string& text);
int parse_int(const std::string& option, const std::string& text);
/// "x,y" → two numbers.
std::pair<double, double> parse_pair(const std::string& option, const std::string& text);
/// "WxH" → two positive integers.
std::pair<int, int> parse_size(const std::string& option, const std::string& text);
/// A target extent: "640" (pixels) or "50%" (of `original`, rounded).
int parse_extent(const std::string& option, const std::string& text, int original);

// Options declared by the engine's parameter tables (lacuna/ops/params.hpp).

/// A whole number checked against the spec; a value it refuses is a usage error in the spec's
/// words, naming the option: "--patch must be odd and from 3 to 31 pixels, not 8".
int parse_int_param(const std::string& option, const std::string& text, const ops::ParamSpec& spec);
/// A real number checked against the spec, refused in the spec's words like parse_int_param.
double parse_real_param(const std::string& option, const std::string& text,
                        const ops::ParamSpec& spec);
/// The same for values beyond int (a 32-bit seed).
std::int64_t parse_int64_param(const std::string& option, const std::string& text,
                               const ops::ParamSpec& spec);
/// The index of one of the spec's choices; anything else is a usage error:
/// "--energy must be forward, l1, prewitt or sobel, not 'magic'".
int parse_choice_param(const std::string& option, const std::string& text,
                       const ops::ParamSpec& spec);
/// The option's --help text: the spec's help and its range with the default, wrapped to the help
/// column, e.g. "histogram bins; 1..65536 (default 256)".
std::string param_help(const ops::ParamSpec& spec);
/// Wraps text to fit beside the option names of --help (continuation lines indented to match).
std::string wrap_help(const std::string& text);
/// Any declared value given as `--option TEXT`: a whole number, a real, or a choice's name,
/// checked against the spec (the kind picks parse_int_param, parse_int64_param for values beyond
/// int, parse_real_param or parse_choice_param).
double parse_param(const std::string& option, const std::string& text, const ops::ParamSpec& spec);

/// The --help line of a declared parameter: its name, `value_name` and param_help(spec), after
/// `prefix` (e.g. "retarget: " where one command serves several operations).
OptionSpec param_option(const ops::ParamSpec& spec, const std::string& value_name,
                        const std::string& prefix = {});

/// Every declared parameter the command line gives, written into `params` through its field:
/// `--NAME VALUE` for numbers and choices, `--no-NAME` for a Bool (its default is on). A value
/// the declaration refuses is a usage error naming the option. Returns how many were given.
template <class P>
int parse_params(const ParsedArgs& args, std::span<const ops::ParamField<P>> fields, P& params) {
    int given = 0;
    for (const ops::ParamField<P>& f : fields) {
        const std::string name(f.spec.name);
        if (f.spec.kind == ops::ParamKind::Bool) {
            if (args.has("no-" + name)) {
                f.set(params, 0);
                ++given;
            } else if (args.has(name)) {  // a switch that is off by default (--source-colours)
                f.set(params, 1);
                ++given;
            }
        } else if (const auto text = args.get(name)) {
            f.set(params, parse_param(name, *text, f.spec));
            ++given;
        }
    }
    return given;
}

}  // namespace lacuna::cli
