// Parsing helpers for option values shared by the subcommands; each throws UsageError with the
// option's name and what was expected.
#pragma once

#include <cstdint>

#include "args.hpp"

#include <lacuna/kernels/seam_energy.h>
#include <lacuna/ops/video_retarget.hpp>

#include <string>
#include <utility>

namespace lacuna::ops {
struct ParamSpec;
}

namespace lacuna::cli {

double parse_number(const std::string& option, const std::string& text);
int parse_int(const std::string& option, const std::string& text);
/// "x,y" → two numbers.
std::pair<double, double> parse_pair(const std::string& option, const std::string& text);
/// "WxH" → two positive integers.
std::pair<int, int> parse_size(const std::string& option, const std::string& text);
/// A target extent: "640" (pixels) or "50%" (of `original`, rounded).
int parse_extent(const std::string& option, const std::string& text, int original);
/// --energy: one of the seam carver's declared choices (a usage error names them otherwise).
SeamEnergy parse_energy_option(const std::string& text);
/// --temporal-term: seam or removed (a usage error otherwise).
ops::TemporalTerm parse_temporal_term_option(const std::string& text);

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

}  // namespace lacuna::cli
