// Harness: the command line as the `lacuna` tool reads it, without running any command. Input:
// one byte choosing the command, then the arguments separated by NUL bytes. Each is parsed with
// the command's spec (cli::parse_args) and its --help text is built; every option value goes
// through each option-value parser (numbers, pairs, sizes, extents, the engine's parameter
// tables, --backend, --channel, --energy), and every positional through the video-path
// functions. A UsageError or lacuna::Error is the documented answer to a bad command line.
#include "fuzz_input.hpp"

#include "args.hpp"
#include "commands.hpp"
#include "options.hpp"

#include <lacuna/core/backend.hpp>
#include <lacuna/core/error.hpp>
#include <lacuna/io/video_io.hpp>
#include <lacuna/ops/kymograph.hpp>
#include <lacuna/ops/inpaint.hpp>
#include <lacuna/ops/line_histogram.hpp>
#include <lacuna/ops/params.hpp>
#include <lacuna/ops/regions.hpp>
#include <lacuna/ops/seam_carve.hpp>

#include <climits>
#include <cmath>
#include <functional>

namespace {

using lacuna::cli::UsageError;

/// Runs `parse`; a UsageError or lacuna::Error is an accepted outcome.
template <class Parse>
void attempt(Parse&& parse) {
    try {
        std::forward<Parse>(parse)();
    } catch (const UsageError&) {
    } catch (const lacuna::Error&) {
    }
}

/// parse_extent must return what the text asks for or refuse it: a percentage of `original`
/// beyond the int range may not wrap around into a plausible size.
void check_extent(const std::string& text, const int original) {
    int got = 0;
    try {
        got = lacuna::cli::parse_extent("width", text, original);
    } catch (const UsageError&) {
        return;
    }
    if (text.empty() || text.back() != '%') return;
    const double percent = std::strtod(text.c_str(), nullptr);
    const long double wanted = std::roundl(static_cast<long double>(original) * percent / 100.0L);
    if (!(fabsl(wanted - static_cast<long double>(got)) <= 1.0L))
        lacuna::fuzz::violated("parse_extent returned a size the percentage did not ask for");
}

void parse_value(const std::string& value, const int original) {
    namespace cli = lacuna::cli;
    namespace ops = lacuna::ops;
    // The regions file's JSON reader, and the paths it gives planned (not profiled: a valid
    // band of 2048 along a million positions is slow, not wrong); what it reads, the writer
    // writes so that it reads back the same.
    attempt([&] {
        const std::vector<ops::ProfileRegion> regions =
            ops::parse_regions(value, "fuzz.json", true);
        if (ops::parse_regions(ops::regions_json(regions), "again.json", true) != regions)
            lacuna::fuzz::violated("regions_json did not read back as the regions written");
        for (const ops::ProfileRegion& r : regions) (void)ops::plan_kymograph(16, 16, r.params());
    });
    attempt([&] { (void)cli::parse_number("n", value); });
    attempt([&] { (void)cli::parse_int("n", value); });
    attempt([&] { (void)cli::parse_pair("from", value); });
    attempt([&] {
        const auto [w, h] = cli::parse_size("size", value);
        if (w <= 0 || h <= 0) lacuna::fuzz::violated("parse_size accepted a size below 1");
    });
    check_extent(value, original);
    for (const auto table :
         {ops::inpaint_param_specs(), ops::line_histogram_param_specs(), ops::seam_param_specs(),
          ops::brush_param_specs(), ops::bilateral_param_specs(), ops::scale_param_specs(),
          ops::video_retarget_param_specs(), ops::temporal_param_specs(),
          ops::retarget_mix_param_specs()}) {
        for (const ops::ParamSpec& spec : table) {
            // The generic parsers: a value either parses to one the declaration allows, or is
            // refused with an error.
            attempt([&] {
                const double v = cli::parse_param(std::string(spec.name), value, spec);
                ops::check_value(spec, v);
            });
            attempt([&] {
                const double v = ops::parse_value(spec, value);
                ops::check_value(spec, v);
                // A settings text keeps the value exactly.
                if (ops::parse_value(spec, ops::settings_value(spec, v)) != v)
                    lacuna::fuzz::violated("a settings value did not read back exactly");
            });
            switch (spec.kind) {
                case ops::ParamKind::Int:
                    attempt(
                        [&] { (void)cli::parse_int_param(std::string(spec.name), value, spec); });
                    attempt(
                        [&] { (void)cli::parse_int64_param(std::string(spec.name), value, spec); });
                    break;
                case ops::ParamKind::Choice:
                    attempt([&] {
                        (void)cli::parse_choice_param(std::string(spec.name), value, spec);
                    });
                    break;
                case ops::ParamKind::Real:
                case ops::ParamKind::Bool:
                    attempt([&] {
                        const double v = cli::parse_number(std::string(spec.name), value);
                        (void)ops::format_value(spec, v);
                        (void)ops::value_error(spec, v, "--" + std::string(spec.name));
                        ops::check_value(spec, v);
                    });
                    if (spec.kind == ops::ParamKind::Real)
                        attempt([&] {
                            (void)cli::parse_real_param(std::string(spec.name), value, spec);
                        });
                    break;
            }
        }
    }
    // The value as a whole settings text: refused, or read all-or-nothing.
    attempt([&] {
        ops::InpaintParams fill;
        (void)ops::read_settings(value, ops::inpaint_param_fields(), fill);
        ops::check_value(ops::param(ops::inpaint_param_specs(), "patch"), fill.patch);
    });
    (void)lacuna::parse_backend_request(value);
    (void)ops::parse_histogram_channel(value);
    (void)ops::parse_seam_energy(value);
    (void)cli::wrap_help(value);
}

void check_path(const std::string& path) {
    (void)lacuna::io::is_video_path(path);
    if (lacuna::io::is_image_sequence_pattern(path)) {
        for (const int index : {0, 7, 99999, INT_MAX}) {
            attempt([&] { (void)lacuna::io::sequence_frame_path(path, index); });
        }
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, const std::size_t size) {
    namespace cli = lacuna::cli;
    lacuna::fuzz::Input in(data, size);
    const auto& table = cli::commands();
    const cli::Command& command = table[in.byte() % table.size()];
    const int original = in.in_range(1, 40000);
    std::vector<std::string> args;
    std::string current;
    for (const std::uint8_t c : in.rest()) {
        if (c == 0) {
            args.push_back(current);
            current.clear();
        } else {
            current.push_back(static_cast<char>(c));
        }
    }
    if (!current.empty()) args.push_back(current);
    if (args.size() > 64) return 0;  // nothing new past this many, only slower inputs
    (void)cli::help_text(command.spec);
    try {
        const cli::ParsedArgs parsed = cli::parse_args(command.spec, args);
        if (!parsed.has("help") && (parsed.positionals.size() < command.spec.min_positionals ||
                                    parsed.positionals.size() > command.spec.max_positionals))
            lacuna::fuzz::violated("parse_args accepted a wrong number of arguments");
        for (const auto& [name, value] : parsed.values) {
            (void)parsed.get(name);
            parse_value(value, original);
        }
        for (const std::string& positional : parsed.positionals) check_path(positional);
    } catch (const UsageError&) {
    }
    // Every argument as an option value and as a path too, whether or not the spec took it so.
    for (const std::string& arg : args) {
        parse_value(arg, original);
        check_path(arg);
    }
    return 0;
}
