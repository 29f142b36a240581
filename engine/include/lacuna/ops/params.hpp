// Each operation's parameters, declared once: name, label, default, range, unit and one line of
// help (darktable's introspected params are the model). The CLI builds its --help text and its
// validation from these tables, and the editor's panels build their widgets from them, so no
// default or range is restated anywhere else. Each table binds its entries to the fields of the
// operation's params struct (ParamField), and params.cpp checks at compile time that every
// declared default is that struct's default (tests/engine/test_params.cpp checks again).
// docs/architecture.md says how to add a parameter.
#pragma once

#include <array>
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

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

/// `text` as a value of the spec: a choice's name, on/off (or 1/0) for Bool, a number otherwise;
/// checked with check_value. Throws Error(InvalidArgument) naming the label otherwise.
double parse_value(const ParamSpec& spec, std::string_view text);

// ---- parameters bound to the fields of a params struct ----
//
// A table of ParamField<P> declares each parameter of an operation once, next to the operation,
// and ties it to the member of P that holds it, so code that reads or writes settings by name
// (CLI options, panels, settings files) reaches the struct without restating names or defaults:
//
//     constexpr ParamField<BilateralParams> kBilateralFields[] = {
//         field<&BilateralParams::sigma_space>({.name = "sigma-space", ...}),
//     };
//
// Enum fields hold the enum's value; a Choice whose list is not in the enum's order binds with
// its own get and set functions instead (see the seam energy in params.cpp).

template <class P>
struct ParamField {
    ParamSpec spec;
    double (*get)(const P&);
    void (*set)(P&, double);
};

namespace detail {
template <class M>
struct MemberOf;
template <class C, class T>
struct MemberOf<T C::*> {
    using Owner = C;
    using Type = T;
};
template <auto Member>
using OwnerOf = typename MemberOf<decltype(Member)>::Owner;

template <auto Member>
constexpr double read_member(const OwnerOf<Member>& params) {
    using T = typename MemberOf<decltype(Member)>::Type;
    if constexpr (std::is_enum_v<T>)
        return static_cast<double>(static_cast<std::underlying_type_t<T>>(params.*Member));
    else if constexpr (std::is_same_v<T, bool>)
        return params.*Member ? 1.0 : 0.0;
    else
        return static_cast<double>(params.*Member);
}
template <auto Member>
constexpr void write_member(OwnerOf<Member>& params, const double value) {
    using T = typename MemberOf<decltype(Member)>::Type;
    if constexpr (std::is_enum_v<T>)
        params.*Member = static_cast<T>(static_cast<std::underlying_type_t<T>>(value));
    else if constexpr (std::is_same_v<T, bool>)
        params.*Member = value != 0;
    else
        params.*Member = static_cast<T>(value);
}
}  // namespace detail

/// `spec` bound to the member `Member` of its params struct (int, double, bool, an unsigned
/// seed, or an enum whose values are the choices' indices).
template <auto Member>
constexpr ParamField<detail::OwnerOf<Member>> field(const ParamSpec& spec) {
    return {spec, &detail::read_member<Member>, &detail::write_member<Member>};
}

/// The specs of a field table, for code that only describes parameters (help, widgets).
template <class P, std::size_t N>
constexpr std::array<ParamSpec, N> specs_of(const ParamField<P> (&fields)[N]) {
    std::array<ParamSpec, N> specs{};
    for (std::size_t i = 0; i < N; ++i) specs[i] = fields[i].spec;
    return specs;
}

/// True when every declared default is the value a default-constructed P holds: the table and
/// the struct cannot drift apart (each table static_asserts it).
template <class P>
constexpr bool defaults_agree(std::span<const ParamField<P>> fields) {
    const P defaults{};
    for (const ParamField<P>& f : fields) {
        if (f.get(defaults) != f.spec.default_value) return false;
    }
    return true;
}

[[noreturn]] void throw_no_param(std::string_view name);

/// The field called `name`; throws Error(InvalidArgument) if the table has none.
template <class P>
const ParamField<P>& field_named(std::span<const ParamField<P>> fields, std::string_view name) {
    for (const ParamField<P>& f : fields) {
        if (f.spec.name == name) return f;
    }
    throw_no_param(name);
}

/// Sets the named field after check_value; throws Error(InvalidArgument) on a bad name or value.
template <class P>
void set_field(std::span<const ParamField<P>> fields, P& params, std::string_view name,
               double value) {
    const ParamField<P>& f = field_named(fields, name);
    check_value(f.spec, value);
    f.set(params, value);
}

// ---- settings as versioned name=value text ----
//
// A settings text is "version=N" and then one "name=value" line per parameter, values as
// format_value writes them ("9", "0.5", "on", "forward"). Reading accepts any older version:
// renames map a name used before `until_version` to today's; names the table no longer has are
// skipped with a notice, and parameters the text lacks keep their defaults (darktable's
// legacy_params in spirit: an old file always loads).

struct ParamRename {
    int until_version;  ///< texts of versions below this use old_name
    std::string_view old_name;
    std::string_view new_name;
};

/// The current version of every settings text written by write_settings.
inline constexpr int kSettingsVersion = 1;

/// The value as a settings text keeps it: a choice's name, on/off, or the shortest decimal that
/// reads back as exactly the same double.
std::string settings_value(const ParamSpec& spec, double value);

/// One line of a settings text.
struct SettingsLine {
    std::string name;
    std::string value;
};

/// Splits a settings text into its lines, skipping blank lines and '#' comments, and takes out
/// "version=N" (0 when the text has none). Throws Error(InvalidArgument) for a line without '='
/// or a version newer than kSettingsVersion.
std::vector<SettingsLine> split_settings(std::string_view text, int& version);

/// Appends "<prefix><name>=<value>\n" for every field (prefix e.g. "fill." where one text holds
/// several tables).
template <class P>
void append_settings(std::string& out, std::string_view prefix, const P& params,
                     std::span<const ParamField<P>> fields) {
    for (const ParamField<P>& f : fields) {
        out.append(prefix);
        out.append(f.spec.name);
        out += '=';
        out += settings_value(f.spec, f.get(params));
        out += '\n';
    }
}

/// Sets the field called `name` from its text (parse_value) and returns true; false when the
/// table has no such field. Throws Error(InvalidArgument) for a value the field refuses.
template <class P>
bool apply_setting(std::span<const ParamField<P>> fields, P& params, std::string_view name,
                   std::string_view value) {
    for (const ParamField<P>& f : fields) {
        if (f.spec.name != name) continue;
        f.set(params, parse_value(f.spec, value));
        return true;
    }
    return false;
}

/// "version=kSettingsVersion", then one "name=value" per parameter.
template <class P>
std::string write_settings(const P& params, std::span<const ParamField<P>> fields) {
    std::string out = "version=" + std::to_string(kSettingsVersion) + "\n";
    append_settings(out, {}, params, fields);
    return out;
}

/// The parameters a settings text gives, over `params` (which keeps what the text lacks). Returns
/// notices for names it skipped; throws Error(InvalidArgument) for a malformed line, a value the
/// table refuses, or a version newer than this build's, and then leaves `params` unchanged.
template <class P>
std::vector<std::string> read_settings(std::string_view text, std::span<const ParamField<P>> fields,
                                       P& params, std::span<const ParamRename> renames = {}) {
    int version = 0;
    std::vector<std::string> notices;
    P result = params;
    for (SettingsLine& line : split_settings(text, version)) {
        for (const ParamRename& r : renames)
            if (version < r.until_version && line.name == r.old_name) line.name = r.new_name;
        if (!apply_setting(fields, result, line.name, line.value))
            notices.push_back("skipped the setting '" + line.name +
                              "', which this version no longer has");
    }
    params = result;
    return notices;
}

// ---- the tables ----

/// patch (Int), window (Real: the search window factor α), coherence (Bool).
std::span<const ParamSpec> inpaint_param_specs();
/// band (Int: samples across the line), bins (Int).
std::span<const ParamSpec> line_histogram_param_specs();
/// energy (Choice: forward, l1, prewitt, sobel, transversal — the names of to_string(SeamEnergy)).
std::span<const ParamSpec> seam_param_specs();
/// Retargeting's mix and importance: amount (Real 0..100 %), auto (Bool), and per importance
/// term a switch and a weight: faces / face-weight, saliency / saliency-weight, lines /
/// line-weight, skin / skin-weight (Bool; Int 0..63 levels). Defaults: RetargetMix{} (which are
/// RetargetParams{}' and ImportanceParams{}').
std::span<const ParamSpec> retarget_mix_param_specs();
/// radius (Real, image pixels), hardness (Real 0..1).
std::span<const ParamSpec> brush_param_specs();
/// sigma-space, sigma-range (Real), radius (Int, 0: from sigma-space).
std::span<const ParamSpec> bilateral_param_specs();
/// The same for measurements (ops::bilateral_native): sigma-range in the data's calibrated unit,
/// above 0 without an upper limit; sigma-space and radius as bilateral_param_specs.
std::span<const ParamSpec> bilateral_measurement_param_specs();
/// method (Choice: nearest, bilinear, bicubic, bspline).
std::span<const ParamSpec> scale_param_specs();
/// temporal (Real weight), temporal-term (Choice: seam, removed), cut-threshold (Real).
std::span<const ParamSpec> video_retarget_param_specs();
/// size (Int, odd), sigma-space and sigma-time (Real): temporal smoothing's Gaussian.
std::span<const ParamSpec> temporal_param_specs();
/// grabcut (Bool), track-band, track-core (Int pixels), grabcut-iterations (Int): masks carried
/// from key frames along the flow and refined by GrabCut (lacuna/video/track_masks.hpp).
std::span<const ParamSpec> mask_track_param_specs();
/// temporal-fill (Choice: patchmatch3d, image), volume-patch, volume-frames (Int, odd),
/// volume-iterations (Int): how a video fill synthesises what no frame shows
/// (lacuna/video/inpaint_video.hpp).
std::span<const ParamSpec> temporal_fill_param_specs();

// The same tables bound to their params structs' fields.
struct InpaintParams;
struct LineHistogramParams;
struct RetargetParams;
struct BrushSettings;
struct BilateralParams;
struct ScaleParams;
struct VideoRetargetParams;
struct TemporalSmoothParams;
struct RetargetMix;
}  // namespace lacuna::ops
namespace lacuna::video {
struct MaskTrackParams;
struct TemporalFillParams;
}  // namespace lacuna::video
namespace lacuna::ops {
std::span<const ParamField<InpaintParams>> inpaint_param_fields();
/// retarget_mix_param_specs bound to RetargetMix (amount, automatic, importance's terms).
std::span<const ParamField<RetargetMix>> retarget_mix_param_fields();
std::span<const ParamField<LineHistogramParams>> line_histogram_param_fields();
/// RetargetParams::energy (the choices' order is not SeamEnergy's: the field maps them).
std::span<const ParamField<RetargetParams>> seam_param_fields();
std::span<const ParamField<BrushSettings>> brush_param_fields();
std::span<const ParamField<BilateralParams>> bilateral_param_fields();
std::span<const ParamField<BilateralParams>> bilateral_measurement_param_fields();
std::span<const ParamField<ScaleParams>> scale_param_fields();
std::span<const ParamField<VideoRetargetParams>> video_retarget_param_fields();
std::span<const ParamField<TemporalSmoothParams>> temporal_param_fields();
std::span<const ParamField<video::MaskTrackParams>> mask_track_param_fields();
std::span<const ParamField<video::TemporalFillParams>> temporal_fill_param_fields();

}  // namespace lacuna::ops
