#include "commands.hpp"

#include <lacuna/core/fault_injection.hpp>

#include "json.hpp"
#include "measurement.hpp"

#include <lacuna/core/error.hpp>
#include <lacuna/io/image_io.hpp>
#include <lacuna/version.hpp>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <new>
#include <cstdio>
#include <optional>

namespace lacuna::cli {

void Context::note(const std::string& text) const {
    err << "lacuna: note: " << text << "\n";
}

BackendInfo Context::select_backend(const double estimated_cpu_ms) const {
    if (backend != BackendRequest::Auto || !cuda_built() || testing::cuda_faults_armed() ||
        !prefer_cpu_for(estimated_cpu_ms))
        return select_backend();
    BackendInfo info;
    info.cuda_reason = CudaUnavailableReason::SmallJob;
    char estimate[96];
    std::snprintf(estimate, sizeof estimate, "about %.0f ms on the CPU against %.0f ms to start it",
                  estimated_cpu_ms, kDeviceStartMs);
    info.reason = describe_reason(info.cuda_reason, estimate);
    return info;
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

// Fields every file gets; the measurement fields are added by the caller.
JsonObject info_json(const std::string& path, const io::LoadedNative& file) {
    const io::FileInfo& i = file.info;
    const Calibration& c = file.calibration;
    JsonObject o;
    o.add("file", path)
        .add("format", io::to_string(i.format))
        .add("width", i.width)
        .add("height", i.height)
        .add("channels", i.channels)
        .add("bit_depth", i.bit_depth)
        .add("alpha", i.has_alpha)
        .add("file_bytes", static_cast<std::uint64_t>(i.file_bytes))
        .add("notices", file.notices)
        .add("sample_type", sample_type_code(i.sample))
        .add("pages", i.pages)
        .add("calibration_slope", c.slope)
        .add("calibration_intercept", c.intercept)
        .add("unit", c.unit);
    if (file.window) o.add("window_lo", file.window->first).add("window_hi", file.window->second);
    return o;
}

// The metadata fields: sizes and counts always (0 when absent), the key EXIF tags by name.
void add_metadata_json(JsonObject& o, const io::Metadata& metadata) {
    const io::MetadataSummary m = io::summarize(metadata);
    JsonObject exif;
    for (const auto& [name, value] : m.exif_tags) exif.add(name, value);
    o.add("icc_bytes", static_cast<std::uint64_t>(m.icc_bytes))
        .add("icc_description", m.icc_description)
        .add("exif_entries", static_cast<std::uint64_t>(m.exif_entries))
        .add("exif", exif)
        .add("orientation_applied", metadata.orientation_applied)
        .add("xmp_entries", static_cast<std::uint64_t>(m.xmp_entries))
        .add("iptc_entries", static_cast<std::uint64_t>(m.iptc_entries))
        .add("comment", m.comment);
}

std::string plural(const std::size_t n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

// What the file carries besides pixels; nothing for formats that hold none.
void print_metadata(std::ostream& out, const io::ImageFormat format, const io::Metadata& metadata) {
    if (metadata.empty()) {
        if (format == io::ImageFormat::Jpeg || format == io::ImageFormat::Png ||
            format == io::ImageFormat::Tiff || format == io::ImageFormat::Webp)
            out << "  metadata: none (no ICC profile, EXIF, XMP or IPTC)\n";
        return;
    }
    const io::MetadataSummary m = io::summarize(metadata);
    if (m.icc_bytes > 0) {
        out << "  ICC profile: " << m.icc_bytes << " bytes";
        if (!m.icc_description.empty()) out << ", \"" << m.icc_description << '"';
        out << "\n";
    }
    if (!metadata.exif.empty()) {
        out << "  EXIF: " << plural(m.exif_entries, "tag", "tags") << "\n";
        for (const auto& [name, value] : m.exif_tags) {
            out << "    " << name << ": " << value;
            if (name == "Orientation" && metadata.orientation_applied)
                out << " (applied on opening: saved copies get 1)";
            out << "\n";
        }
    }
    if (!metadata.xmp.empty())
        out << "  XMP: " << plural(m.xmp_entries, "property", "properties") << "\n";
    if (!metadata.iptc.empty())
        out << "  IPTC: " << plural(m.iptc_entries, "dataset", "datasets") << "\n";
    if (!m.comment.empty()) out << "  comment: " << m.comment << "\n";
}

void add_value_stats(JsonObject& o, const ValueStats& stats) {
    // No finite value at all: null rather than a made-up 0.
    const double none = std::numeric_limits<double>::quiet_NaN();
    o.add("value_min", stats.finite > 0 ? stats.min : none)
        .add("value_max", stats.finite > 0 ? stats.max : none)
        .add("non_finite", static_cast<std::uint64_t>(stats.non_finite));
}

// One line as before (format, size, channels, depth, alpha, bytes), then what the samples are,
// their range in calibrated units, the calibration and the file's display window.
void print_info(std::ostream& out, const std::string& path, const io::LoadedNative& file,
                const std::optional<ValueStats>& stats) {
    const io::FileInfo& i = file.info;
    const std::string unit = unit_suffix(file.calibration);
    out << path << ": " << io::to_string(i.format) << ' ' << i.width << 'x' << i.height << ", "
        << i.channels << (i.channels == 1 ? " channel" : " channels") << ", " << i.bit_depth
        << "-bit, " << (i.has_alpha ? "alpha" : "no alpha") << ", " << i.file_bytes << " bytes\n";
    out << "  " << describe(file.pages.front().format());
    if (i.pages > 1) out << ", " << i.pages << " pages";
    if (stats) {
        if (stats->finite > 0)
            out << ", values " << stats->min << " to " << stats->max << unit;
        else
            out << ", no finite values";
        if (i.pages > 1) out << " (all pages)";
        out << ", " << stats->non_finite << " not finite";
    }
    out << "\n  calibration: " << file.calibration.describe() << "\n";
    if (file.spacing.known()) out << "  pixel spacing: " << file.spacing.describe() << "\n";
    if (file.window)
        out << "  display window: " << file.window->first << " to " << file.window->second << unit
            << "\n";
    print_metadata(out, i.format, file.metadata);
}

// read_native, not read_image: info describes the file as stored and converts nothing.
int run_info(Context& ctx) {
    std::vector<JsonObject> reports;
    int status = kExitOk;
    for (const std::string& path : ctx.args.positionals) {
        try {
            const io::LoadedNative file = io::read_native(path);
            for (const std::string& n : file.notices) ctx.note(path + ": " + n);
            std::optional<ValueStats> stats;
            if (is_measurement(file)) stats = stack_value_stats(file);
            if (ctx.json) {
                JsonObject report = info_json(path, file);
                if (stats) add_value_stats(report, *stats);
                if (file.spacing.known())
                    report.add("pixel_spacing_x", file.spacing.x)
                        .add("pixel_spacing_y", file.spacing.y)
                        .add("spacing_unit", file.spacing.unit);
                add_metadata_json(report, file.metadata);
                reports.push_back(std::move(report));
            } else {
                print_info(ctx.out, path, file, stats);
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
    // Reject an unsupported output before reading anything.
    (void)io::format_for_path(out);
    if (io::same_file(in, out) && !ctx.args.has("overwrite")) {
        throw Error(ErrorCode::InvalidArgument, "refusing to overwrite the input '" + in +
                                                    "' (pass --overwrite to replace it)");
    }
    const io::LoadedNative file = io::read_native(in);
    for (const std::string& n : file.notices) ctx.note(n);
    // Every output format holds one image: a stack gives one of its pages.
    const std::size_t page = selected_page(ctx, file, in, "written");
    const PixelFormat written =
        write_measurement(ctx, out, file.pages[page], file, file.spacing, options);
    if (ctx.json) {
        JsonObject o;
        o.add("input", in)
            .add("output", out)
            .add("width", file.pages[page].width())
            .add("height", file.pages[page].height())
            .add("bit_depth", bit_depth(written.sample))
            .add("sample_type", sample_type_code(written.sample));
        if (file.pages.size() > 1) o.add("page", static_cast<int>(page + 1));
        ctx.out << o.str() << "\n";
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
          "describe image files (format, size, samples, value range, calibration)",
          "FILE... [options]",
          {"FILE"},
          1,
          1000,
          {},
          "Nothing is converted: the sample type is the file's own (8-bit, 16-bit, signed 16-bit,\n"
          "32-bit float). For measurement files (single-channel data deeper than 8 bits, DICOM,\n"
          "FITS) the finite value range and the count of NaN and infinite samples are printed in\n"
          "calibrated units (DICOM rescale, FITS BSCALE/BZERO/BUNIT), with the calibration and\n"
          "the file's own display window where it has one (DICOM window centre/width).\n"
          "JPEG, PNG, TIFF and WebP files list their metadata: the ICC profile (size and\n"
          "description), the key EXIF tags (Make, Model, DateTimeOriginal, Orientation,\n"
          "PixelXDimension, PixelYDimension), and how many XMP properties and IPTC datasets."},
         run_info},
        {{"convert",
          "read an image and write it in the format of OUT's extension",
          "IN OUT [options]",
          {"IN", "OUT"},
          2,
          2,
          {{"quality", "Q", "JPEG quality, 1..100 (default 95)"},
           {"page", "N",
            "the page of a stack (multi-page TIFF, multi-frame DICOM, FITS cube) to write (default "
            "1)"},
           {"overwrite", "", "allow OUT to be the same file as IN"}},
          "The stored samples are kept where OUT's format holds them: 16-bit in PNG,\n"
          "TIFF, PGM and PPM, 32-bit float in TIFF and PFM, every sample type in FITS\n"
          "(with the calibration as BSCALE/BZERO/BUNIT). Signed 16-bit samples (DICOM)\n"
          "are written as unsigned 16-bit when none is negative, else as float in TIFF or\n"
          "PFM. Otherwise 8 bits are written and a note says so. A calibration (DICOM\n"
          "rescale, FITS BSCALE/BZERO) is written to FITS only; other formats hold the\n"
          "samples. A stack (multi-page TIFF, multi-frame DICOM, FITS cube) gives one page\n"
          "(--page). The ICC profile, EXIF, XMP and IPTC go along\n"
          "where OUT's format holds them. The output is written to a temporary file and\n"
          "renamed, so a failed write never leaves a partial file. The input is never\n"
          "replaced unless --overwrite is given."},
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
        batch_command(),
        histogram_command(),
        kymograph_command(),
        filter_command(),
        scale_command(),
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
