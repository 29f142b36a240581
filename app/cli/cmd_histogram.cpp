// lacuna histogram: the bins × positions histogram along a drawn line, or of every line in one
// direction, as CSV, a PNG heat map and a JSON summary.
#include "commands.hpp"
#include "heatmap.hpp"
#include "json.hpp"
#include "measurement.hpp"
#include "options.hpp"
#include "timing.hpp"

#include <lacuna/core/error.hpp>
#include <lacuna/io/image_io.hpp>
#include <lacuna/ops/line_histogram.hpp>
#include <lacuna/ops/params.hpp>
#include <lacuna/ops/regions.hpp>

#include <chrono>
#include <fstream>
#include <cmath>
#include <cstdint>
#include <iomanip>
#include <memory>
#include <optional>
#include <vector>
#include <limits>
#include <sstream>

namespace lacuna::cli {
namespace {

// What is histogrammed: the values, and what they mean (for the CSV comments and the JSON).
struct Loaded {
    std::unique_ptr<ops::HistogramSource> source;
    Calibration calibration;  ///< applied to the values (identity for photos)
    PixelSpacing spacing;     ///< the file's pixel size: distances in its unit where known
    std::size_t page = 0;     ///< 0-based
    std::size_t pages = 1;
};

// 16-bit colour as read_image shows it: each sample ÷ 257 (rounded), the photo's 8-bit levels.
ImageRgba8 rgba_from_u16(const NativeImage& image) {
    ImageRgba8 out(image.width(), image.height());
    const auto level = [](const double v) {
        return static_cast<std::uint8_t>(std::lround(v / 257));
    };
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x) {
            const double a = image.channels() == 4 ? image.sample(x, y, 3) : 65535.0;
            out.at(x, y) = {level(image.sample(x, y, 0)), level(image.sample(x, y, 1)),
                            level(image.sample(x, y, 2)), level(a)};
        }
    return out;
}

// The planes a photo needs for --channel (luminance by default): a float plane is 4 bytes a
// pixel, so one instead of four. A channel that does not parse gets all four (its usage error
// comes later, as it always did).
std::vector<ops::HistogramChannel> photo_channels(const Context& ctx) {
    const auto text = ctx.args.get("channel");
    if (!text) return {ops::HistogramChannel::Luminance};
    if (const auto channel = ops::parse_histogram_channel(*text)) return {*channel};
    return {ops::HistogramChannel::Luminance, ops::HistogramChannel::Rgb};
}

// The line of a plain --from/--to run, parsed as run_histogram parses it; std::nullopt for the
// other modes and for anything run_histogram refuses (it says why, later, as it always did).
std::optional<ops::LineHistogramParams> line_of(const Context& ctx) {
    if (ctx.args.has("direction") || ctx.args.has("regions") || !ctx.args.has("from") ||
        !ctx.args.has("to"))
        return std::nullopt;
    try {
        ops::LineHistogramParams p;
        const auto [x0, y0] = parse_pair("from", *ctx.args.get("from"));
        const auto [x1, y1] = parse_pair("to", *ctx.args.get("to"));
        p.from = {x0, y0};
        p.to = {x1, y1};
        if (const auto w = ctx.args.get("width")) p.band_width = parse_int("width", *w);
        if (const auto s = ctx.args.get("sampling")) {
            if (*s == "nearest")
                p.sampling = Sampling::Nearest;
            else if (*s != "bilinear")
                return std::nullopt;
        }
        return p;
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

// A JPEG (a camera's photo) streamed from the decoder into the planes it needs, the EXIF
// orientation applied as the rows are written: neither the decoded RGBA image nor the planes of
// other channels are ever held, and for one line only the pixels its band reads are written
// (docs/notes/large-images.md). Any other file: std::nullopt.
std::optional<Loaded> stream_photo(const std::string& path, const Context& ctx) {
    const std::vector<ops::HistogramChannel> channels = photo_channels(ctx);
    const std::optional<ops::LineHistogramParams> line = line_of(ctx);
    std::optional<ops::PhotoPlanesBuilder> planes;
    std::vector<Rgba8> row;
    const std::optional<io::StreamedPhoto> photo =
        io::read_photo_rows(path, {[&](const int width, const int height, const int orientation) {
                                       planes.emplace(width, height, orientation, channels);
                                       if (line) planes->only_line(*line);
                                       row.resize(static_cast<std::size_t>(width));
                                   },
                                   [&](int) { return row.data(); },
                                   [&](const int y) { planes->add_row(y, row.data()); }});
    if (!photo) return std::nullopt;
    for (const std::string& n : photo->notices) ctx.note(n);
    Loaded loaded;
    loaded.source = std::make_unique<ops::HistogramSource>(std::move(*planes).finish());
    return loaded;
}

// A measurement (see is_measurement) gives its calibrated values: --range and the bins are in
// its unit. An 8- or 16-bit photo gives its 8-bit R, G, B and luminance. Signed or float colour
// has no photo levels, so it is measured as Rec. 709 luminance.
Loaded load_source(const std::string& path, const Context& ctx) {
    // A JPEG has one page: --page goes the general way, which says so.
    if (!ctx.args.has("page"))
        if (std::optional<Loaded> photo = stream_photo(path, ctx)) return std::move(*photo);
    io::LoadedNative file = io::read_native(path);
    for (const std::string& n : file.notices) ctx.note(n);
    Loaded loaded;
    loaded.spacing = file.spacing;
    loaded.pages = file.pages.size();
    loaded.page = selected_page(ctx, file, path, "used");
    const NativeImage& image = file.pages[loaded.page];
    const SampleType type = image.sample_type();
    if (is_measurement(file) || type == SampleType::I16 || type == SampleType::F32) {
        loaded.calibration = file.calibration;
        std::string what = "reading " + describe(image.format()) + " values as measurements";
        if (image.channels() > 1) what += " (Rec. 709 luminance)";
        if (!file.calibration.identity())
            what += ", calibrated: " + file.calibration.describe();
        else if (!file.calibration.unit.empty())
            what += ", in " + file.calibration.unit;
        ctx.note(what);
        const ImageF32 values = measurement_plane(image, file.calibration);
        loaded.source = std::make_unique<ops::HistogramSource>(values.view());
        return loaded;
    }
    const ImageRgba8 rgba = type == SampleType::U16 ? rgba_from_u16(image)
                            : image.channels() == 4 ? to_rgba8(image)
                                                    : to_rgba8(convert(image, {SampleType::U8, 4}));
    if (type == SampleType::U16) ctx.note("16-bit colour histogrammed as 8-bit levels (÷ 257)");
    loaded.source = std::make_unique<ops::HistogramSource>(rgba.view(), photo_channels(ctx));
    return loaded;
}

// The CSV's first lines, '#' comments (pandas: comment='#'): what the values are, in which unit,
// and the bins' lower edges, as the editor's histogram export writes them.
std::string csv_comments(const Loaded& loaded, const int bins, const float lo, const float hi) {
    const Calibration& c = loaded.calibration;
    const std::string unit = unit_suffix(c);
    std::ostringstream text;
    text << std::setprecision(9) << "# lacuna histogram: ";
    if (!loaded.source->is_measurement())
        text << "8-bit levels";
    else if (!has_calibration(c))
        text << "values as stored (no calibration)";
    else
        text << "values" << (c.unit.empty() ? "" : " in " + c.unit)
             << (c.identity() ? "" : " (" + c.describe() + ")");
    if (loaded.pages > 1) text << "; page " << loaded.page + 1 << " of " << loaded.pages;
    text << "; " << bins << " bins over [" << lo << ", " << hi << "]" << unit << "\n";
    text << "# bin lower edges" << (c.unit.empty() ? "" : " (" + c.unit + ")") << ": ";
    const double width = (static_cast<double>(hi) - lo) / bins;
    for (int b = 0; b < bins; ++b) text << (b ? "," : "") << lo + b * width;
    text << "\n";
    if (loaded.spacing.known())
        text << "# pixel spacing: " << loaded.spacing.describe() << " (distance_"
             << loaded.spacing.unit << ": along the line, in " << loaded.spacing.unit << ")\n";
    return text.str();
}

void add_calibration(JsonObject& o, const Loaded& loaded) {
    if (loaded.spacing.known())
        o.add("pixel_spacing_x", loaded.spacing.x)
            .add("pixel_spacing_y", loaded.spacing.y)
            .add("spacing_unit", loaded.spacing.unit);
    o.add("unit", loaded.calibration.unit)
        .add("calibration_slope", loaded.calibration.slope)
        .add("calibration_intercept", loaded.calibration.intercept)
        .add("page", static_cast<int>(loaded.page + 1))
        .add("pages", static_cast<int>(loaded.pages));
}

void write_text(const std::string& path, const std::string& text) {
    io::write_file_atomically(path, text);
}

std::string matrix_csv(const Loaded& loaded, const std::vector<ops::HistogramChannel>& channels,
                       const std::vector<const std::vector<std::uint32_t>*>& counts, const int bins,
                       const int positions, const float lo, const float hi) {
    std::ostringstream csv;
    csv << csv_comments(loaded, bins, lo, hi);
    csv << std::setprecision(9) << "channel,bin,bin_lo,bin_hi";
    for (int p = 0; p < positions; ++p) csv << ",p" << p;
    csv << "\n";
    const double width = (static_cast<double>(hi) - lo) / bins;
    for (std::size_t c = 0; c < channels.size(); ++c) {
        for (int b = 0; b < bins; ++b) {
            csv << ops::to_string(channels[c]) << ',' << b << ',' << lo + b * width << ','
                << lo + (b + 1) * width;
            for (int p = 0; p < positions; ++p)
                csv << ',' << (*counts[c])[static_cast<std::size_t>(p) * bins + b];
            csv << "\n";
        }
    }
    return csv.str();
}

std::string profile_csv(const Loaded& loaded, const ops::LineHistogram& h) {
    std::ostringstream csv;
    csv << csv_comments(loaded, h.bins, h.range_lo, h.range_hi);
    // Distances in pixels, and in the file's unit where it states a pixel size: measured in
    // physical space, so a diagonal of an anisotropic image is not its pixel count × one size.
    const PixelSpacing& sp = loaded.spacing;
    csv << std::setprecision(9) << "position,x,y,distance,";
    if (sp.known()) csv << "distance_" << sp.unit << ",";
    csv << "channel,mean,median,min,max,samples\n";
    const double step = std::hypot(h.geometry.step_x, h.geometry.step_y);
    const double physical_step = sp.length(h.geometry.step_x, h.geometry.step_y);
    for (const ops::ChannelHistogram& ch : h.channels) {
        for (int i = 0; i < h.positions; ++i) {
            const double x =
                linspace_at(h.geometry.x0, h.geometry.x1, h.geometry.step_x, i, h.positions);
            const double y =
                linspace_at(h.geometry.y0, h.geometry.y1, h.geometry.step_y, i, h.positions);
            csv << i << ',' << x << ',' << y << ',' << i * step << ',';
            if (sp.known()) csv << i * physical_step << ',';
            csv << ops::to_string(ch.channel) << ',' << ch.mean[i] << ',' << ch.median[i] << ','
                << ch.min[i] << ',' << ch.max[i] << ',' << ch.samples[i] << "\n";
        }
    }
    return csv.str();
}

template <class Params>
void read_common(const Context& ctx, Params& p, const ops::HistogramSource& source) {
    if (const auto b = ctx.args.get("bins")) {
        p.bins = parse_int("bins", *b);
        ops::check_value(ops::param(ops::line_histogram_param_specs(), "bins"), p.bins);
    }
    if (const auto r = ctx.args.get("range")) {
        const auto [lo, hi] = parse_pair("range", *r);
        p.range = std::pair{static_cast<float>(lo), static_cast<float>(hi)};
    }
    if (const auto c = ctx.args.get("channel")) {
        const auto channel = ops::parse_histogram_channel(*c);
        if (!channel)
            throw UsageError("--channel must be lum, r, g, b, rgb or value, not '" + *c + "'");
        p.channel = *channel;
    } else if (source.is_measurement()) {
        p.channel = ops::HistogramChannel::Value;
    }
    if (const auto s = ctx.args.get("sampling")) {
        if (*s == "nearest")
            p.sampling = Sampling::Nearest;
        else if (*s == "bilinear")
            p.sampling = Sampling::Bilinear;
        else
            throw UsageError("--sampling must be nearest or bilinear, not '" + *s + "'");
    }
}

int run_direction(Context& ctx, const Loaded& loaded) {
    const ops::HistogramSource& source = *loaded.source;
    ops::DirectionHistogramParams p;
    p.angle_degrees = parse_number("direction", *ctx.args.get("direction"));
    read_common(ctx, p, source);
    (void)ops::plan_direction(source, p);  // refuse bad parameters before anything else is said
    Backend used = ctx.select_backend().backend;
    const auto start = Clock::now();
    const ops::DirectionHistogram h = ctx.with_cpu_fallback(used, [&](const Backend b) {
        used = b;
        return ops::direction_histogram(source, p, b);
    });
    const double compute_ms = ms_since(start);
    std::optional<ops::DirectionColumn> column;
    if (ctx.args.has("from") && ctx.args.has("to")) {
        const auto [x0, y0] = parse_pair("from", *ctx.args.get("from"));
        const auto [x1, y1] = parse_pair("to", *ctx.args.get("to"));
        column = ops::direction_column_of(source.width(), source.height(), {x0, y0}, {x1, y1});
        if (std::abs(std::remainder(column->angle_degrees - p.angle_degrees, 360.0)) > 1e-6) {
            ctx.note("the line's own direction is " + std::to_string(column->angle_degrees) +
                     " degrees, not --direction; its column refers to its own direction");
        } else {
            ctx.note("the line lies in column " + std::to_string(column->column));
        }
    }
    const auto write_start = Clock::now();
    if (const auto csv = ctx.args.get("csv")) {
        std::vector<const std::vector<std::uint32_t>*> counts;
        for (const auto& c : h.counts) counts.push_back(&c);
        write_text(*csv, matrix_csv(loaded, h.channels, counts, h.bins, h.positions, h.range_lo,
                                    h.range_hi));
    }
    if (const auto png = ctx.args.get("png")) io::write_image(*png, render_heatmap(h).view());
    if (ctx.json) {
        JsonObject o;
        o.add("mode", "direction")
            .add("angle_degrees", p.angle_degrees)
            .add("bins", h.bins)
            .add("positions", h.positions)
            .add("range_lo", double(h.range_lo))
            .add("range_hi", double(h.range_hi))
            .add("samples_outside", h.samples_outside)
            .add("samples_out_of_range", h.samples_out_of_range);
        add_calibration(o, loaded);
        o.add("backend", to_string(used))
            .add("compute_ms", compute_ms)
            .add("write_ms", ms_since(write_start));
        if (column)
            o.add("line_column", column->column)
                .add("line_row_from", column->row_from)
                .add("line_row_to", column->row_to);
        ctx.out << o.str() << "\n";
    }
    return kExitOk;
}

// --regions FILE: every region's profile in one CSV (regions.hpp), on the plane --channel picks.
int run_regions(Context& ctx, const Loaded& loaded) {
    const std::string path = *ctx.args.get("regions");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(ErrorCode::NotFound, "cannot read the regions file '" + path + "'");
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::vector<ops::ProfileRegion> regions = ops::parse_regions(text, path);
    ops::HistogramChannel channel = loaded.source->is_measurement()
                                        ? ops::HistogramChannel::Value
                                        : ops::HistogramChannel::Luminance;
    if (const auto c = ctx.args.get("channel")) {
        const auto parsed = ops::parse_histogram_channel(*c);
        if (!parsed || *parsed == ops::HistogramChannel::Rgb)
            throw UsageError("--channel with --regions must be lum, r, g, b or value, not '" + *c +
                             "'");
        channel = *parsed;
    }
    const std::vector<ops::HistogramChannel> planes = loaded.source->planes_for(channel);
    std::string header = csv_comments(loaded, 1, loaded.source->natural_range().first,
                                      loaded.source->natural_range().second);
    header = header.substr(0, header.find('\n') + 1);  // what the values are, not the bins
    header.replace(header.find("; 1 bins over"), std::string::npos,
                   "; " + std::to_string(regions.size()) + " regions from " + path + ", channel " +
                       ops::to_string(planes[0]) + "\n");
    std::vector<ops::RegionProfile> profiles;
    std::vector<JsonObject> summary;
    for (const ops::ProfileRegion& region : regions) {
        profiles.push_back(ops::profile_region(region, loaded.source->plane(planes[0]).view()));
        const ops::KymographPlan& plan = profiles.back().plan;
        summary.push_back(JsonObject()
                              .add("name", region.name)
                              .add("type", ops::to_string(region.shape))
                              .add("positions", plan.positions())
                              .add("length", plan.length())
                              .add("band_width", plan.band()));
        if (loaded.spacing.known())
            summary.back()
                .add("length_in_unit", ops::kymograph_distances(plan, loaded.spacing).back())
                .add("spacing_unit", loaded.spacing.unit);
    }
    if (const auto out = ctx.args.get("csv"))
        write_text(*out, ops::region_profiles_csv(regions, profiles, header, loaded.spacing));
    if (ctx.json) {
        JsonObject o;
        o.add("mode", "regions").add_raw("regions", json_array(summary));
        add_calibration(o, loaded);
        ctx.out << o.str() << "\n";
    }
    return kExitOk;
}

int run_histogram(Context& ctx) {
    if (!ctx.args.has("csv") && !ctx.args.has("png") && !ctx.args.has("json")) {
        throw UsageError("say where the result goes: --csv FILE, --png FILE and/or --json");
    }
    if (!ctx.args.has("direction") && !ctx.args.has("regions") &&
        (!ctx.args.has("from") || !ctx.args.has("to"))) {
        throw UsageError(
            "give the line with --from x0,y0 --to x1,y1 (or a whole direction with --direction "
            "DEG)");
    }
    for (const char* out : {"csv", "png", "profile-csv"}) {
        if (const auto path = ctx.args.get(out);
            path && io::same_file(ctx.args.positionals[0], *path)) {
            throw Error(
                ErrorCode::InvalidArgument,
                "refusing to overwrite the input '" + ctx.args.positionals[0] + "' with --" + out);
        }
    }
    if (const auto png = ctx.args.get("png")) io::format_for_path(*png);
    const auto load_start = Clock::now();
    const Loaded loaded = load_source(ctx.args.positionals[0], ctx);
    const ops::HistogramSource* source = loaded.source.get();
    const double load_ms = ms_since(load_start);
    if (ctx.args.has("regions")) return run_regions(ctx, loaded);
    if (ctx.args.has("direction")) return run_direction(ctx, loaded);

    ops::LineHistogramParams p;
    const auto [x0, y0] = parse_pair("from", *ctx.args.get("from"));
    const auto [x1, y1] = parse_pair("to", *ctx.args.get("to"));
    p.from = {x0, y0};
    p.to = {x1, y1};
    if (const auto w = ctx.args.get("width")) {
        p.band_width = parse_int("width", *w);
        ops::check_value(ops::param(ops::line_histogram_param_specs(), "band"), p.band_width);
    }
    read_common(ctx, p, *source);
    (void)ops::plan_line(*source, p);  // refuse bad parameters before anything else is said
    Backend used = ctx.select_backend().backend;
    const auto start = Clock::now();
    const ops::LineHistogram h = ctx.with_cpu_fallback(used, [&](const Backend b) {
        used = b;
        return ops::line_histogram(*source, p, b);
    });
    const double compute_ms = ms_since(start);
    std::ostringstream where;
    where << std::setprecision(6) << '(' << h.geometry.x0 << ", " << h.geometry.y0 << ")–("
          << h.geometry.x1 << ", " << h.geometry.y1 << ')';
    if (h.clipped) ctx.note("the line reaches outside the image; clipped to " + where.str());
    if (h.samples_outside > 0) {
        ctx.note(std::to_string(h.samples_outside) +
                 " band samples fell outside the image and were excluded");
    }
    const auto write_start = Clock::now();
    if (const auto csv = ctx.args.get("csv")) {
        std::vector<ops::HistogramChannel> channels;
        std::vector<const std::vector<std::uint32_t>*> counts;
        for (const auto& c : h.channels) {
            channels.push_back(c.channel);
            counts.push_back(&c.counts);
        }
        write_text(*csv, matrix_csv(loaded, channels, counts, h.bins, h.positions, h.range_lo,
                                    h.range_hi));
    }
    if (const auto csv = ctx.args.get("profile-csv")) write_text(*csv, profile_csv(loaded, h));
    if (const auto png = ctx.args.get("png")) io::write_image(*png, render_heatmap(h).view());
    if (ctx.json) {
        JsonObject o;
        o.add("mode", "line")
            .add("from_x", h.geometry.x0)
            .add("from_y", h.geometry.y0)
            .add("to_x", h.geometry.x1)
            .add("to_y", h.geometry.y1)
            .add("clipped", h.clipped)
            .add("length", std::hypot(h.geometry.x1 - h.geometry.x0, h.geometry.y1 - h.geometry.y0))
            .add("length_physical", loaded.spacing.known()
                                        ? loaded.spacing.length(h.geometry.x1 - h.geometry.x0,
                                                                h.geometry.y1 - h.geometry.y0)
                                        : std::numeric_limits<double>::quiet_NaN())
            .add("position_step_physical",
                 loaded.spacing.known()
                     ? loaded.spacing.length(h.geometry.step_x, h.geometry.step_y)
                     : std::numeric_limits<double>::quiet_NaN())
            .add("positions", h.positions)
            .add("band_width", h.geometry.band)
            .add("bins", h.bins)
            .add("range_lo", double(h.range_lo))
            .add("range_hi", double(h.range_hi))
            .add("samples_outside", h.samples_outside)
            .add("samples_out_of_range", h.samples_out_of_range);
        add_calibration(o, loaded);
        o.add("backend", to_string(used))
            .add("load_ms", load_ms)
            .add("compute_ms", compute_ms)
            .add("write_ms", ms_since(write_start));
        ctx.out << o.str() << "\n";
    }
    return kExitOk;
}

}  // namespace

Command histogram_command() {
    const auto specs = ops::line_histogram_param_specs();
    return {
        {"histogram",
         "histogram of values at every position along a line (or a whole direction)",
         "IN --from x0,y0 --to x1,y1 [options] --csv OUT.csv [--png OUT.png]",
         {"IN"},
         1,
         1,
         {{"from", "x0,y0", "line start, in pixels (0,0 is the centre of the top-left pixel)"},
          {"to", "x1,y1", "line end; both ends are sampled"},
          {"width", "W", param_help(ops::param(specs, "band"))},
          {"bins", "N", param_help(ops::param(specs, "bins"))},
          {"range", "lo,hi",
           wrap_help("value range of the bins, in calibrated units for measurements (default "
                     "0,255 for photos, the data's min,max for measurements)")},
          {"page", "N",
           "the page of a stack (multi-page TIFF, multi-frame DICOM, FITS cube) to histogram "
           "(default 1)"},
          {"channel", "CH", "lum (Rec. 709, default), r, g, b, rgb, or value (measurement images)"},
          {"sampling", "MODE", "bilinear (default for lines) or nearest (default for --direction)"},
          {"direction", "DEG",
           "histogram every line at this angle (0 = rightwards, 90 = downwards)"},
          {"regions", "FILE",
           "profiles of every region in a JSON list of named lines, polylines and rectangles, "
           "into one --csv"},
          {"csv", "FILE", "write the bins x positions counts (--regions: all the profiles)"},
          {"profile-csv", "FILE", "write mean, median, min and max across the band per position"},
          {"png", "FILE", "write a heat map (log counts) with the profile curves over it"}},
         "A line of length L gives ceil(L)+1 positions (scikit-image's profile_line convention).\n"
         "Samples outside the image are excluded and counted, never clamped; a line that reaches\n"
         "outside is clipped to the image. Measurement images (single-channel 16-bit or float\n"
         "PNG, TIFF, PGM and PFM, DICOM, FITS) are histogrammed by value: calibrated (DICOM\n"
         "rescale, FITS BSCALE/BZERO) and in the file's unit (HU, BUNIT), which the JSON ('unit')\n"
         "and the CSVs' '#' comment lines name; --range is in that unit. In the PNG, bins run\n"
         "upwards, positions to the right; white is the mean, cyan the median, grey the min and\n"
         "max."},
        [](Context& ctx) {
            if (ctx.args.has("direction") && !ctx.args.has("sampling")) {
                ctx.args.values["sampling"] = "nearest";
            }
            return run_histogram(ctx);
        }};
}

}  // namespace lacuna::cli
