#include <lacuna/core/error.hpp>
#include <lacuna/ops/bilateral.hpp>
#include <lacuna/ops/brush.hpp>
#include <lacuna/ops/inpaint.hpp>
#include <lacuna/ops/line_histogram.hpp>
#include <lacuna/ops/params.hpp>
#include <lacuna/ops/seam_carve.hpp>

#include <cmath>
#include <iomanip>
#include <limits>
#include <sstream>

namespace lacuna::ops {
namespace {

constexpr double kUnbounded = std::numeric_limits<double>::infinity();

// ---- the tables: defaults come from the params structs, limits from the operations' headers ----

constexpr InpaintParams kInpaintDefaults{};
// In the order of InpaintMethod, so a choice's index is the enum's value.
constexpr std::string_view kInpaintMethodNames[] = {"criminisi", "patchmatch"};
static_assert(static_cast<int>(InpaintMethod::Criminisi) == 0 &&
                  static_cast<int>(InpaintMethod::PatchMatch) == 1,
              "kInpaintMethodNames follows InpaintMethod");
constexpr ParamSpec kInpaintSpecs[] = {
    {.name = "patch",
     .label = "Patch size",
     .kind = ParamKind::Int,
     .default_value = kInpaintDefaults.patch,
     .min = kMinPatch,
     .max = kMaxPatch,
     .step = 2,
     .unit = "pixels",
     .help = "side of the square patches copied into the hole"},
    {.name = "window",
     .label = "Search window",
     .kind = ParamKind::Real,
     .default_value = kInpaintDefaults.window_factor,
     .min = 0,
     .max = kUnbounded,  // prepare_inpaint and `--search window:A` accept any A >= 0
     .step = 0.1,
     .help = "how far beyond the hole source patches are looked for, in multiples of its size"},
    {.name = "coherence",
     .label = "Coherence",
     .kind = ParamKind::Bool,
     .default_value = kInpaintDefaults.coherence ? 1.0 : 0.0,
     .min = 0,
     .max = 1,
     .step = 1,
     .help = "also try the sources of already-filled neighbours, shifted to line up"},
    {.name = "method",
     .label = "Method",
     .kind = ParamKind::Choice,
     .default_value = static_cast<double>(kInpaintDefaults.method),
     .min = 0,
     .max = std::size(kInpaintMethodNames) - 1,
     .step = 1,
     .help = "criminisi fills patch by patch from the border; patchmatch refines the whole hole "
             "coarse to fine",
     .choices = kInpaintMethodNames},
    {.name = "seed",
     .label = "Seed",
     .kind = ParamKind::Int,
     .default_value = static_cast<double>(kInpaintDefaults.seed),
     .min = 0,
     .max = 4294967295.0,
     .step = 1,
     .help = "patchmatch: the random search's seed; another seed gives another result"},
    // Not a fill setting but what is done to the mask before the fill (grow_mask).
    {.name = "grow",
     .label = "Grow mask",
     .kind = ParamKind::Int,
     .default_value = 0,
     .min = -kMaxMaskGrow,
     .max = kMaxMaskGrow,
     .step = 1,
     .unit = "pixels",
     .help = "grow the mask by this many pixels before filling (negative: shrink it), so it "
             "takes the object's soft edge and shadow too"},
};

constexpr LineHistogramParams kLineDefaults{};
constexpr ParamSpec kLineHistogramSpecs[] = {
    {.name = "band",
     .label = "Band width",
     .kind = ParamKind::Int,
     .default_value = kLineDefaults.band_width,
     .min = 1,
     .max = kMaxBandWidth,
     .step = 1,
     .unit = "samples",
     .help = "band width: samples across the line"},
    {.name = "bins",
     .label = "Bins",
     .kind = ParamKind::Int,
     .default_value = kLineDefaults.bins,
     .min = 1,
     .max = kMaxHistogramBins,
     .step = 1,
     .help = "histogram bins"},
};
static_assert(kLineDefaults.bins == kDefaultHistogramBins &&
                  DirectionHistogramParams{}.bins == kDefaultHistogramBins,
              "line and direction histograms share the bins default");

// The names of to_string(SeamEnergy) / parse_seam_energy (tests/engine/test_params.cpp checks
// that they round-trip); the default first.
constexpr std::string_view kEnergyNames[] = {"forward", "l1", "prewitt", "sobel"};
constexpr int kDefaultEnergy = 0;
static_assert(RetargetParams{}.energy == SeamEnergy::Forward &&
                  CarveInput{}.energy == SeamEnergy::Forward &&
                  kEnergyNames[kDefaultEnergy] == "forward",
              "the energy default is RetargetParams{}.energy");
constexpr ParamSpec kSeamSpecs[] = {
    {.name = "energy",
     .label = "Energy",
     .kind = ParamKind::Choice,
     .default_value = kDefaultEnergy,
     .min = 0,
     .max = std::size(kEnergyNames) - 1,
     .step = 1,
     .help = "how the cost of carving a pixel is measured",
     .choices = kEnergyNames},
};

constexpr BrushSettings kBrushDefaults{};
constexpr ParamSpec kBrushSpecs[] = {
    {.name = "radius",
     .label = "Radius",
     .kind = ParamKind::Real,
     .default_value = kBrushDefaults.radius,
     .min = 1,
     .max = 500,
     .step = 1,
     .unit = "pixels",
     .help = "brush radius in image pixels"},
    {.name = "hardness",
     .label = "Hardness",
     .kind = ParamKind::Real,
     .default_value = kBrushDefaults.hardness,
     .min = 0,
     .max = 1,
     .step = 0.01,
     .help = "1 paints full coverage to the edge, 0 fades out from the centre"},
};

constexpr BilateralParams kBilateralDefaults{};
constexpr ParamSpec kBilateralSpecs[] = {
    {.name = "sigma-space",
     .label = "Spatial sigma",
     .kind = ParamKind::Real,
     .default_value = kBilateralDefaults.sigma_space,
     .min = 0.1,
     .max = kMaxBilateralSigma,
     .step = 0.5,
     .unit = "pixels",
     .help = "how far neighbours count: the spatial Gaussian's standard deviation"},
    {.name = "sigma-range",
     .label = "Range sigma",
     .kind = ParamKind::Real,
     .default_value = kBilateralDefaults.sigma_range,
     .min = 0.1,
     .max = kMaxBilateralSigma,
     .step = 1,
     .unit = "levels",
     .help = "how different a colour (|dR|+|dG|+|dB| of the guide) may be and still count"},
    {.name = "radius",
     .label = "Radius",
     .kind = ParamKind::Int,
     .default_value = kBilateralDefaults.radius,
     .min = 0,
     .max = kMaxBilateralRadius,
     .step = 1,
     .unit = "pixels",
     .help = "neighbours within this distance; 0 takes 1.5 times the spatial sigma"},
};

// ---- checking ----

constexpr bool whole(const double v) {
    return v >= -9.0e15 && v <= 9.0e15 && static_cast<double>(static_cast<long long>(v)) == v;
}

/// The rule check_value applies, usable at compile time on the tables.
constexpr bool allowed(const ParamSpec& spec, const double v) {
    if (!(v >= spec.min && v <= spec.max) || v == kUnbounded) return false;  // NaN fails here
    switch (spec.kind) {
        case ParamKind::Int:
            return whole(v) && whole(spec.step) && spec.step >= 1 &&
                   static_cast<long long>(v - spec.min) % static_cast<long long>(spec.step) == 0;
        case ParamKind::Real:
            return true;
        case ParamKind::Bool:
            return v == 0 || v == 1;
        case ParamKind::Choice:
            return whole(v) && v < static_cast<double>(spec.choices.size());
    }
    return false;
}

constexpr bool defaults_allowed(std::span<const ParamSpec> specs) {
    for (const ParamSpec& s : specs) {
        if (!allowed(s, s.default_value)) return false;
        if (s.kind == ParamKind::Choice && s.max + 1 != static_cast<double>(s.choices.size()))
            return false;
    }
    return true;
}
static_assert(defaults_allowed(kInpaintSpecs) && defaults_allowed(kLineHistogramSpecs) &&
                  defaults_allowed(kSeamSpecs) && defaults_allowed(kBrushSpecs) &&
                  defaults_allowed(kBilateralSpecs),
              "every default lies in its parameter's range");
static_assert(kInpaintSpecs[0].name == "patch" && kInpaintSpecs[0].step == 2 && kMinPatch % 2 == 1,
              "patch sizes are odd: step 2 from an odd minimum");

std::string number(const double v) {
    if (whole(v)) return std::to_string(static_cast<long long>(v));
    std::ostringstream out;
    out << std::setprecision(6) << v;
    return out.str();
}

std::string lower_label(const ParamSpec& spec) {
    std::string s(spec.label);
    for (char& c : s) {
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    return s;
}

std::string subject_or_label(const ParamSpec& spec, const std::string_view subject) {
    return subject.empty() ? lower_label(spec) : std::string(subject);
}

/// "forward, l1, prewitt or sobel"
std::string choice_list(const ParamSpec& spec) {
    std::string out;
    for (std::size_t i = 0; i < spec.choices.size(); ++i) {
        if (i > 0) out += i + 1 == spec.choices.size() ? " or " : ", ";
        out += spec.choices[i];
    }
    return out;
}

std::string with_unit(const ParamSpec& spec) {
    std::string out;
    if (!spec.unit.empty()) {
        out.reserve(spec.unit.size() + 1);
        out.push_back(' ');
        out.append(spec.unit);
    }
    return out;
}

/// ", odd", ", even", ", in steps of 4" or nothing.
std::string step_rule(const ParamSpec& spec) {
    if (spec.kind != ParamKind::Int || spec.step == 1) return {};
    if (spec.step == 2) return whole(spec.min / 2) ? ", even" : ", odd";
    return ", in steps of " + number(spec.step) + " from " + number(spec.min);
}

}  // namespace

const ParamSpec& param(const std::span<const ParamSpec> specs, const std::string_view name) {
    for (const ParamSpec& s : specs) {
        if (s.name == name) return s;
    }
    throw Error(ErrorCode::InvalidArgument, "no parameter called '" + std::string(name) + "'");
}

std::string format_value(const ParamSpec& spec, const double value) {
    if (spec.kind == ParamKind::Bool && (value == 0 || value == 1))
        return value == 1 ? "on" : "off";
    if (spec.kind == ParamKind::Choice && whole(value) && value >= 0 &&
        value < static_cast<double>(spec.choices.size()))
        return std::string(spec.choices[static_cast<std::size_t>(value)]);
    return number(value);
}

std::string describe_range(const ParamSpec& spec) {
    std::string range;
    switch (spec.kind) {
        case ParamKind::Int:
        case ParamKind::Real:
            range = spec.max == kUnbounded ? number(spec.min) + " or more"
                                           : number(spec.min) + ".." + number(spec.max);
            range += with_unit(spec) + step_rule(spec);
            break;
        case ParamKind::Bool:
            range = "on or off";
            break;
        case ParamKind::Choice:
            range = choice_list(spec);
            break;
    }
    return range + " (default " + format_value(spec, spec.default_value) + ")";
}

std::string value_error(const ParamSpec& spec, const double value, const std::string_view subject) {
    std::string rule;
    switch (spec.kind) {
        case ParamKind::Int:
        case ParamKind::Real: {
            const std::string step = step_rule(spec);
            const bool parity = step == ", odd" || step == ", even";  // "odd and from 3 to 31"
            if (parity) rule = step.substr(2) + " and ";
            rule += spec.max == kUnbounded ? number(spec.min) + " or more"
                                           : "from " + number(spec.min) + " to " + number(spec.max);
            rule += with_unit(spec);
            if (!parity) rule += step;
            break;
        }
        case ParamKind::Bool:
            rule = "on or off (1 or 0)";
            break;
        case ParamKind::Choice:
            rule = "a choice from 0 to " + std::to_string(spec.choices.size() - 1) + " (" +
                   choice_list(spec) + ")";
            break;
    }
    return subject_or_label(spec, subject) + " must be " + rule + ", not " + number(value);
}

void check_value(const ParamSpec& spec, const double value) {
    if (!allowed(spec, value)) throw Error(ErrorCode::InvalidArgument, value_error(spec, value));
}

std::string choice_error(const ParamSpec& spec, const std::string_view text,
                         const std::string_view subject) {
    return subject_or_label(spec, subject) + " must be " + choice_list(spec) + ", not '" +
           std::string(text) + "'";
}

int parse_choice(const ParamSpec& spec, const std::string_view text) {
    if (spec.kind != ParamKind::Choice)
        throw Error(ErrorCode::InvalidArgument, lower_label(spec) + " is not a choice");
    for (std::size_t i = 0; i < spec.choices.size(); ++i) {
        if (spec.choices[i] == text) return static_cast<int>(i);
    }
    throw Error(ErrorCode::InvalidArgument, choice_error(spec, text));
}

std::span<const ParamSpec> inpaint_param_specs() {
    return kInpaintSpecs;
}
std::span<const ParamSpec> line_histogram_param_specs() {
    return kLineHistogramSpecs;
}
std::span<const ParamSpec> seam_param_specs() {
    return kSeamSpecs;
}
std::span<const ParamSpec> brush_param_specs() {
    return kBrushSpecs;
}

std::span<const ParamSpec> bilateral_param_specs() {
    return kBilateralSpecs;
}

}  // namespace lacuna::ops
