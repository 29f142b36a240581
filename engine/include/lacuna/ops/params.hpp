// Each operation's parameters, declared once: name, label, default, range, unit and one line of
// help (darktable's introspected params are the model). The CLI builds its --help text and its
// validation from these tables, and the editor's panels can build their widgets from them, so no
// default or range is restated anywhere else. Defaults are taken from the operations' params
// structs (InpaintParams{}, LineHistogramParams{}, RetargetParams{}, BrushSettings{}) and checked
// against them at compile time (params.cpp) and in tests/engine/test_params.cpp.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace lacuna::ops {

enum class ParamKind {
    Int,     ///< whole numbers min, min + step, … up to max (step 2 from an odd min: odd sizes)
    Real,    ///< any finite number in min..max; step is only the widgets' increment
    Bool,    ///< 0 (off) or 1 (on)
    Choice,  ///< an index into choices; the value is the choice's position
};

struct ParamSpec {
    std::string_view name = {};   ///< CLI option and settings key, e.g. "patch"
    std::string_view label = {};  ///< panel label, e.g. "Patch size"; lower-cased in error messages
    ParamKind kind = ParamKind::Real;
    double default_value = 0;
    double min = 0;
    double max = 0;  ///< may be +infinity ("min or more")
    double step = 1;
    std::string_view unit = {};  ///< e.g. "pixels"; empty for plain numbers
    std::string_view help = {};  ///< one lower-case phrase, no full stop: --help text and tooltips
    std::span<const std::string_view> choices = {};  ///< Choice only, in index order
};

/// The parameter called `name`; throws Error(InvalidArgument) if the table has none.
const ParamSpec& param(std::span<const ParamSpec> specs, std::string_view name);

/// The value as the user would write it: "9", "0.5", "on", "forward".
std::string format_value(const ParamSpec& spec, double value);

/// Accepted values and the default, e.g. "3..31 pixels, odd (default 9)", "0 or more (default
/// 0.5)", "forward, l1, prewitt or sobel (default forward)", "on or off (default on)".
std::string describe_range(const ParamSpec& spec);

/// The sentence check_value throws for `value`: "<subject> must be odd and from 3 to 31 pixels,
/// not 8". `subject` defaults to the label in lower case (the CLI passes "--patch").
std::string value_error(const ParamSpec& spec, double value, std::string_view subject = {});

/// Throws Error(InvalidArgument) with value_error() unless `value` is allowed: within min..max,
/// finite, whole and on the step grid for Int, 0 or 1 for Bool, a valid index for Choice.
void check_value(const ParamSpec& spec, double value);

/// The sentence parse_choice throws: "<subject> must be forward, l1, prewitt or sobel, not 'x'".
std::string choice_error(const ParamSpec& spec, std::string_view text,
                         std::string_view subject = {});

/// The index of `text` among spec.choices (exact match); throws Error(InvalidArgument) with
/// choice_error() otherwise, or if spec is not a Choice.
int parse_choice(const ParamSpec& spec, std::string_view text);

// ---- the tables ----

/// patch (Int), window (Real: the search window factor α), coherence (Bool).
std::span<const ParamSpec> inpaint_param_specs();
/// band (Int: samples across the line), bins (Int).
std::span<const ParamSpec> line_histogram_param_specs();
/// energy (Choice: forward, l1, prewitt, sobel — the names of to_string(SeamEnergy)).
std::span<const ParamSpec> seam_param_specs();
/// Retargeting's mix and importance: amount (Real 0..100 %), auto (Bool), and per importance
/// term a switch and a weight: faces / face-weight, saliency / saliency-weight, lines /
/// line-weight, skin / skin-weight (Bool; Int 0..63 levels). Defaults: RetargetParams{},
/// ImportanceParams{}.
std::span<const ParamSpec> retarget_mix_param_specs();
/// radius (Real, image pixels), hardness (Real 0..1).
std::span<const ParamSpec> brush_param_specs();
/// sigma-space, sigma-range (Real), radius (Int, 0: from sigma-space).
std::span<const ParamSpec> bilateral_param_specs();

}  // namespace lacuna::ops
