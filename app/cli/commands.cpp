#include "commands.hpp"

#include "json.hpp"

#include <lacuna/core/error.hpp>
#include <lacuna/io/image_io.hpp>
#include <lacuna/version.hpp>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <new>
#include <optional>

namespace lacuna::cli {

void Context::note(const std::string& text) const {
    err << "lacuna: note: " << text << "\n";
}

BackendInfo Context::select_backend() const {
    BackendInfo info = lacuna::select_backend(backend);
    if (backend == BackendRequest::Auto && info.backend == Backend::Cpu && cuda_built()) {
        note("running on the CPU: " + info.reason);
    }
    return info;
}

namespace {

std::string version_line() {
    return std::string("lacuna ") + kVersion +
           (cuda_built() ? " (CUDA backend built)" : " (CPU-only build)");
}

std::string main_help() {
    std::string text =
        "Usage: lacuna [--version] [--help] COMMAND [options] [arguments]\n\n"
        "Lacuna: content-aware image editing (seam carving, line histograms, object removal)\n"
        "on the GPU with a CPU fallback.\n\nCommands:\n";
    for (const Command& c : commands()) {
        std::string name = "  " + c.spec.name;
        name.resize(14, ' ');
        text += name + c.spec.summary + "\n";
    }
    text +=
        "\nRun 'lacuna COMMAND --help' for a command's options.\n"
        "Image formats: " +
        io::supported_formats_text() + ".\n";
    return text;
}

JsonObject info_json(const std::string& path, const io::LoadedImage& loaded) {
    return JsonObject()
        .add("file", path)
        .add("format", io::to_string(loaded.info.format))
        .add("width", loaded.info.width)
        .add("height", loaded.info.height)
        .add("channels", loaded.info.channels)
        .add("bit_depth", loaded.info.bit_depth)
        .add("alpha", loaded.info.has_alpha)
        .add("file_bytes", static_cast<std::uint64_t>(loaded.info.file_bytes))
        .add("notices", loaded.notices);
}

// The stored values' finite range and NaN count of a single-channel 16-bit or float file (a
// measurement): what a user of such data checks first.
struct ValueRange {
    float lo = 0, hi = 0;
    std::int64_t nan = 0;
};
std::optional<ValueRange> measurement_range(const std::string& path, const io::FileInfo& info) {
    if (info.bit_depth == 8 || info.channels != 1) return std::nullopt;
    const io::LoadedMeasurement m = io::read_measurement(path);
    ValueRange r{std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity()};
    for (int y = 0; y < m.values.height(); ++y)
        for (int x = 0; x < m.values.width(); ++x) {
            const float v = m.values.at(x, y);
            if (!std::isfinite(v)) {
                ++r.nan;
                continue;
            }
            r.lo = std::min(r.lo, v);
            r.hi = std::max(r.hi, v);
        }
    if (r.lo > r.hi) r.lo = r.hi = std::numeric_limits<float>::quiet_NaN();
    return r;
}

int run_info(Context& ctx) {
    std::vector<JsonObject> reports;
    int status = kExitOk;
    for (const std::string& path : ctx.args.positionals) {
        try {
            const io::LoadedImage loaded = io::read_image(path);
            for (const std::string& n : loaded.notices) ctx.note(path + ": " + n);
            const std::optional<ValueRange> range = measurement_range(path, loaded.info);
            if (ctx.json) {
                JsonObject report = info_json(path, loaded);
                if (range)
                    report.add("value_min", double(range->lo))
                        .add("value_max", double(range->hi))
                        .add("non_finite", static_cast<std::uint64_t>(range->nan));
                reports.push_back(std::move(report));
            } else {
                const io::FileInfo& i = loaded.info;
                ctx.out << path << ": " << io::to_string(i.format) << ' ' << i.width << 'x'
                        << i.height << ", " << i.channels
                        << (i.channels == 1 ? " channel" : " channels") << ", " << i.bit_depth
                        << "-bit, " << (i.has_alpha ? "alpha" : "no alpha") << ", " << i.file_bytes
                        << " bytes";
                if (range) {
                    ctx.out << ", values " << range->lo << " to " << range->hi;
                    if (range->nan > 0) ctx.out << " (" << range->nan << " not finite)";
                }
                ctx.out << "\n";
            }
        } catch (const Error& e) {
            ctx.err << "lacuna: error: " << e.what() << "\n";
            status = kExitFailure;
        }
    }
    if (ctx.json) ctx.out << json_array(reports) << "\n";
    return status;
}

int run_convert(Context& ctx) {
    const std::string& in = ctx.args.positionals[0];
    const std::string& out = ctx.args.positionals[1];
    io::WriteOptions options;
    if (const auto q = ctx.args.get("quality")) {
        try {
            options.jpeg_quality = std::stoi(*q);
        } catch (const std::exception&) {
            throw UsageError("--quality needs a number from 1 to 100, not '" + *q + "'");
        }
        if (options.jpeg_quality < 1 || options.jpeg_quality > 100) {
            throw UsageError("--quality must be from 1 to 100, not " + *q);
        }
    }
    io::format_for_path(out);  // reject an unsupported output before reading anything
    if (io::same_file(in, out) && !ctx.args.has("overwrite")) {
        throw Error(ErrorCode::InvalidArgument, "refusing to overwrite the input '" + in +
                                                    "' (pass --overwrite to replace it)");
    }
    // 16-bit and float samples survive where the output format holds them.
    const io::ConvertResult converted = io::convert_image(in, out, options);
    for (const std::string& n : converted.notices) ctx.note(n);
    if (ctx.json) {
        ctx.out << JsonObject()
                       .add("input", in)
                       .add("output", out)
                       .add("width", converted.width)
                       .add("height", converted.height)
                       .add("bit_depth", converted.bit_depth)
                       .str()
                << "\n";
    }
    return kExitOk;
}

int run_backend(Context& ctx) {
    const BackendInfo info = lacuna::select_backend(ctx.backend);
    if (ctx.json) {
        JsonObject o;
        o.add("backend", to_string(info.backend))
            .add("requested", to_string(ctx.backend))
            .add("cuda_built", cuda_built())
            .add("reason", info.reason);
        if (info.backend == Backend::Cuda) {
            o.add("device", info.device_name)
                .add("device_index", info.device_index)
                .add("compute_capability",
                     std::to_string(info.compute_major) + "." + std::to_string(info.compute_minor))
                .add("device_memory_bytes", static_cast<std::uint64_t>(info.device_memory_bytes));
        }
        ctx.out << o.str() << "\n";
    } else {
        ctx.out << "backend: " << to_string(info.backend) << "\n" << info.describe() << "\n";
    }
    return kExitOk;
}

}  // namespace

const std::vector<Command>& commands() {
    static const std::vector<Command> table = {
        {{"info",
          "describe image files (format, size, channels, depth, alpha)",
          "FILE... [options]",
          {"FILE"},
          1,
          1000,
          {},
          ""},
         run_info},
        {{"convert",
          "read an image and write it in the format of OUT's extension",
          "IN OUT [options]",
          {"IN", "OUT"},
          2,
          2,
          {{"quality", "Q", "JPEG quality, 1..100 (default 95)"},
           {"overwrite", "", "allow OUT to be the same file as IN"}},
          "The output is written to a temporary file and renamed, so a failed write never leaves "
          "a\n"
          "partial file. The input is never replaced unless --overwrite is given."},
         run_convert},
        {{"backend",
          "report which device runs the operations, and why",
          "[options]",
          {},
          0,
          0,
          {},
          "With --backend cuda, exits with status 1 and the reason when CUDA cannot be used."},
         run_backend},
        retarget_command(),
        inpaint_command(),
        histogram_command(),
        bench_command(),
    };
    return table;
}

int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
    try {
        if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
            if (args.size() >= 2 && args[0] == "help") return run({args[1], "--help"}, out, err);
            out << main_help();
            return args.empty() ? kExitUsage : kExitOk;
        }
        if (args[0] == "--version" || args[0] == "-V") {
            out << version_line() << "\n";
            return kExitOk;
        }
        const auto& table = commands();
        const auto it = std::find_if(table.begin(), table.end(),
                                     [&](const Command& c) { return c.spec.name == args[0]; });
        if (it == table.end()) {
            throw UsageError("unknown command '" + args[0] +
                             "' (run 'lacuna --help' for the list)");
        }
        Context ctx{parse_args(it->spec, {args.begin() + 1, args.end()}), false,
                    BackendRequest::Auto, out, err};
        if (ctx.args.has("help")) {
            out << help_text(it->spec);
            return kExitOk;
        }
        ctx.json = ctx.args.has("json");
        if (const auto b = ctx.args.get("backend")) {
            const auto request = parse_backend_request(*b);
            if (!request) throw UsageError("--backend must be auto, cpu or cuda, not '" + *b + "'");
            ctx.backend = *request;
        }
        return it->run(ctx);
    } catch (const UsageError& e) {
        err << "lacuna: usage error: " << e.what() << "\n";
        return kExitUsage;
    } catch (const Error& e) {
        err << "lacuna: error: " << e.what() << "\n";
        return kExitFailure;
    } catch (const std::bad_alloc&) {
        err << "lacuna: error: out of host memory\n";
        return kExitFailure;
    } catch (const std::exception& e) {
        err << "lacuna: error: " << e.what() << "\n";
        return kExitFailure;
    }
}

}  // namespace lacuna::cli
