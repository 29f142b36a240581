// lacuna kymograph: the values along a line or polyline (averaged across a band) in every page of
// a stack or every frame of a video, as a position × time image of float values in the data's
// unit, and a CSV.
#include "commands.hpp"
#include "json.hpp"
#include "measurement.hpp"
#include "options.hpp"
#include "timing.hpp"

#include <lacuna/core/backend.hpp>
#include <lacuna/core/device_image.hpp>
#include <lacuna/core/error.hpp>
#include <lacuna/core/parallel.hpp>
#include <lacuna/io/image_io.hpp>
#include <lacuna/io/video_io.hpp>
#include <lacuna/ops/kymograph.hpp>
#include <lacuna/ops/params.hpp>

#include <cmath>
#include <iomanip>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace lacuna::cli {
namespace {

// "x0,y0,x1,y1,..." → points; `min_points` and `max_points` (0: any) bound the count.
std::vector<ops::Point2> parse_points(const std::string& option, const std::string& text,
                                      const std::size_t min_points, const std::size_t max_points) {
    std::vector<double> numbers;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ',')) numbers.push_back(parse_number(option, item));
    const bool count_ok = numbers.size() % 2 == 0 && numbers.size() / 2 >= min_points &&
                          (max_points == 0 || numbers.size() / 2 <= max_points);
    if (!count_ok) {
        throw UsageError("--" + option + " takes " +
                         (max_points == 2
                              ? std::string("x0,y0,x1,y1")
                              : std::string("x0,y0,x1,y1,x2,y2,... (two or more points)")) +
                         ", not '" + text + "'");
    }
    std::vector<ops::Point2> points;
    for (std::size_t i = 0; i < numbers.size(); i += 2)
        points.push_back({numbers[i], numbers[i + 1]});
    return points;
}

// The rows and what they mean.
struct Kymograph {
    ImageF32 image;                        // positions × frames
    Calibration calibration;               // what the values went through (identity for video)
    PixelSpacing spacing;                  // the stack's pixel size, where the file states one
    std::optional<double> frame_interval;  // seconds
    std::string interval_source;           // "from the file", "--frame-interval"
    std::string values;                    // "Rec. 709 luminance of 8-bit video frames", ...
    int frame_width = 0, frame_height = 0;
};

/// Roughly what the multi-threaded CPU kymograph costs: a sample of a diagonal path touches a
/// new cache line (lacuna bench kymograph: about 30 ns a sample with 2 threads on the build
/// machine, 60 ns per thread).
double estimated_cpu_ms(const ops::KymographPlan& plan, const long long frames) {
    const double samples = static_cast<double>(plan.positions()) * plan.band() *
                           static_cast<double>(std::max(frames, 1LL));
    return samples * 60e-6 / static_cast<double>(worker_count());
}

/// Rows of a stream of frames on one backend: the CPU sampler or the device, one frame uploaded
/// at a time.
class RowSink {
  public:
    RowSink(const ops::KymographPlan& plan, const Backend backend) {
        if (backend == Backend::Cuda) {
            stream_ = std::make_unique<OwnedStream>();
            device_ = std::make_unique<ops::CudaKymograph>(plan, stream_->get());
        } else {
            cpu_ = std::make_unique<ops::KymographSampler>(plan);
        }
    }
    void row(const ImageView<const float> frame, float* out) {
        if (device_)
            device_->row(frame, out);
        else
            cpu_->row(frame, out);
    }
    ImageF32 stack(const std::vector<ImageF32>& frames) {
        return device_ ? device_->stack(frames) : cpu_->stack(frames);
    }

  private:
    std::unique_ptr<OwnedStream> stream_;  // before the device kymograph, destroyed after it
    std::unique_ptr<ops::CudaKymograph> device_;
    std::unique_ptr<ops::KymographSampler> cpu_;
};

Kymograph from_video(const Context& ctx, const std::string& path, const ops::KymographParams& p,
                     Backend& used) {
    const auto frames_of = [&](const Backend backend) {
        io::VideoReader reader(path);
        const io::VideoInfo& info = reader.info();
        Kymograph k;
        k.frame_width = info.width;
        k.frame_height = info.height;
        const ops::KymographPlan plan = ops::plan_kymograph(info.width, info.height, p);
        RowSink sink(plan, backend);
        std::vector<float> rows;
        const auto n = static_cast<std::size_t>(plan.positions());
        while (const std::optional<ImageRgba8> frame = reader.next()) {
            const ImageF32 plane = measurement_plane(to_native(frame->view()));
            rows.resize(rows.size() + n);
            sink.row(plane.view(), rows.data() + rows.size() - n);
        }
        if (!reader.warning().empty()) ctx.note(reader.warning());
        const int frames = static_cast<int>(rows.size() / n);
        k.image = ImageF32(static_cast<int>(n), frames);
        for (int t = 0; t < frames; ++t)
            std::copy_n(rows.data() + static_cast<std::size_t>(t) * n, n, k.image.row(t));
        // An image sequence has no rate of its own (the reader reports a default).
        if (!io::is_image_sequence_pattern(path) && info.fps > 0) {
            k.frame_interval = 1.0 / info.fps;
            std::ostringstream s;
            s << std::setprecision(6) << "from the file (" << info.fps << " fps)";
            k.interval_source = s.str();
        }
        k.values = "Rec. 709 luminance of the 8-bit video frames (0..255)";
        return k;
    };
    // The plan is checked, and the backend chosen, before any frame is decoded.
    const io::VideoInfo info = io::VideoReader(path).info();
    const ops::KymographPlan plan = ops::plan_kymograph(info.width, info.height, p);
    used = ctx.select_backend(estimated_cpu_ms(plan, info.frame_count)).backend;
    return ctx.with_cpu_fallback(used, [&](const Backend b) {
        used = b;
        return frames_of(b);
    });
}

Kymograph from_stack(const Context& ctx, const std::string& path, const ops::KymographParams& p,
                     Backend& used) {
    io::LoadedNative file = io::read_native(path);
    for (const std::string& n : file.notices) ctx.note(n);
    Kymograph k;
    const NativeImage& first = file.pages.front();
    k.frame_width = first.width();
    k.frame_height = first.height();
    k.calibration = file.calibration;
    k.spacing = file.spacing;
    if (file.frame_interval) {
        k.frame_interval = file.frame_interval->seconds;
        k.interval_source = "from the file (" + file.frame_interval->source + ")";
    }
    if (file.pages.size() == 1) ctx.note("'" + path + "' has one page: the kymograph has one row");
    const ops::KymographPlan plan = ops::plan_kymograph(first.width(), first.height(), p);
    std::vector<ImageF32> planes;
    for (std::size_t t = 0; t < file.pages.size(); ++t) {
        const NativeImage& page = file.pages[t];
        if (page.width() != first.width() || page.height() != first.height()) {
            throw Error(ErrorCode::InvalidArgument,
                        "page " + std::to_string(t + 1) + " of '" + path + "' is " +
                            std::to_string(page.width()) + "x" + std::to_string(page.height()) +
                            ", page 1 is " + std::to_string(first.width()) + "x" +
                            std::to_string(first.height()) +
                            ": a kymograph needs pages of one size");
        }
        planes.push_back(measurement_plane(page, file.calibration));
    }
    used =
        ctx.select_backend(estimated_cpu_ms(plan, static_cast<long long>(planes.size()))).backend;
    k.image = ctx.with_cpu_fallback(used, [&](const Backend b) {
        used = b;
        return RowSink(plan, b).stack(planes);
    });
    k.values = describe(first.format()) + (first.channels() > 1 ? " (Rec. 709 luminance)" : "");
    if (has_calibration(file.calibration)) k.values += ", " + file.calibration.describe();
    return k;
}

int run_kymograph(Context& ctx) {
    const std::string in = ctx.args.positionals[0];
    const std::optional<std::string> out =
        ctx.args.positionals.size() > 1 ? std::optional(ctx.args.positionals[1]) : std::nullopt;
    if (!out && !ctx.args.has("csv") && !ctx.args.has("json"))
        throw UsageError("say where the kymograph goes: OUT.tif, --csv FILE and/or --json");
    if (ctx.args.has("line") == ctx.args.has("polyline"))
        throw UsageError(
            "give the path with --line x0,y0,x1,y1 or --polyline x0,y0,x1,y1,x2,y2,...");
    const bool polyline = ctx.args.has("polyline");
    ops::KymographParams p;
    p.path = polyline ? parse_points("polyline", *ctx.args.get("polyline"), 2, 0)
                      : parse_points("line", *ctx.args.get("line"), 2, 2);
    if (const auto b = ctx.args.get("band"))
        p.band_width =
            parse_int_param("band", *b, ops::param(ops::line_histogram_param_specs(), "band"));
    if (const auto s = ctx.args.get("sampling")) {
        if (*s == "nearest")
            p.sampling = Sampling::Nearest;
        else if (*s != "bilinear")
            throw UsageError("--sampling must be nearest or bilinear, not '" + *s + "'");
    }
    std::optional<double> interval;
    if (const auto f = ctx.args.get("frame-interval")) {
        interval = parse_number("frame-interval", *f);
        if (!(*interval > 0) || !std::isfinite(*interval))
            throw UsageError("--frame-interval must be a positive number of seconds, not '" + *f +
                             "'");
    }
    for (const std::optional<std::string>& target : {out, ctx.args.get("csv")}) {
        if (target && io::same_file(in, *target))
            throw Error(ErrorCode::InvalidArgument,
                        "refusing to overwrite the input '" + in + "' with '" + *target + "'");
    }
    if (out) (void)io::format_for_path(*out);

    // --backend cuda where CUDA cannot run: said before the input is read.
    if (ctx.backend == BackendRequest::Cuda) (void)ctx.select_backend();
    const auto start = Clock::now();
    Backend used = Backend::Cpu;
    Kymograph k =
        io::is_video_path(in) ? from_video(ctx, in, p, used) : from_stack(ctx, in, p, used);
    const double compute_ms = ms_since(start);
    if (interval) {
        k.frame_interval = interval;
        k.interval_source = "given with --frame-interval";
    }
    const ops::KymographPlan plan = ops::plan_kymograph(k.frame_width, k.frame_height, p);
    const auto write_start = Clock::now();
    if (out) {
        NativeImage image(k.image.width(), k.image.height(), {SampleType::F32, 1});
        for (int t = 0; t < k.image.height(); ++t)
            std::copy_n(k.image.row(t), k.image.width(), image.samples<float>(t));
        // FITS keeps the unit (BUNIT); the values are calibrated already.
        const Calibration unit_only{1.0, 0.0, k.calibration.unit};
        io::WriteOptions options;
        options.calibration = &unit_only;
        for (const std::string& n : io::write_native(*out, image, options)) ctx.note(n);
    }
    if (const auto csv = ctx.args.get("csv"))
        io::write_file_atomically(
            *csv, ops::kymograph_csv(plan, k.image,
                                     {k.values, k.calibration.unit, k.frame_interval,
                                      k.interval_source, k.spacing, polyline}));
    if (ctx.json) {
        JsonObject o;
        o.add("mode", polyline ? "polyline" : "line")
            .add("vertices", static_cast<int>(p.path.size()))
            .add("length", plan.length())
            .add("positions", plan.positions())
            .add("frames", k.image.height())
            .add("band_width", plan.band())
            .add("unit", k.calibration.unit)
            .add("calibration_slope", k.calibration.slope)
            .add("calibration_intercept", k.calibration.intercept);
        if (k.spacing.known())
            o.add("spacing_unit", k.spacing.unit)
                .add("length_in_unit", ops::kymograph_distances(plan, k.spacing).back());
        if (k.frame_interval)
            o.add("frame_interval_s", *k.frame_interval)
                .add("frame_interval_source", k.interval_source);
        o.add("backend", to_string(used))
            .add("compute_ms", compute_ms)
            .add("write_ms", ms_since(write_start));
        ctx.out << o.str() << "\n";
    }
    return kExitOk;
}

}  // namespace

Command kymograph_command() {
    const auto specs = ops::line_histogram_param_specs();
    return {
        {"kymograph",
         "values along a line or polyline through every page of a stack or frame of a video",
         "IN (--line x0,y0,x1,y1 | --polyline x0,y0,...) [--band N] [OUT.tif] [--csv OUT.csv]",
         {"IN", "OUT"},
         1,
         2,
         {{"line", "x0,y0,x1,y1", "the line (0,0 is the centre of the top-left pixel)"},
          {"polyline", "x0,y0,x1,y1,...",
           "a path of two or more points; the band follows each segment's normal"},
          {"band", "N", param_help(ops::param(specs, "band"))},
          {"sampling", "MODE", "bilinear (default) or nearest"},
          {"frame-interval", "S",
           "seconds between frames (default: the file's own: a video's frame rate, ImageJ's\n"
           "finterval or fps, DICOM Frame Time, a FITS time axis; else time is in frames)"},
          {"csv", "FILE",
           "write the kymograph as CSV: one row per frame, one column per position"}},
         "OUT is one float value per position (x) and frame (y, time downwards), in the data's\n"
         "unit: stacks (multi-page TIFF, multi-frame DICOM, FITS cubes) give calibrated values,\n"
         "colour and video frames Rec. 709 luminance. Write it as TIFF, PFM or FITS to keep the\n"
         "floats. A segment of length L gives ceil(L)+1 positions (as `histogram`); vertices\n"
         "shared by two segments are one position. Each value is the mean of the band's samples\n"
         "inside the image (NaN where none is); the path is not clipped. The CSV's '#' lines\n"
         "give the frame interval, each position's x, y and distance along the path.\n"
         "--backend cuda computes on the GPU (the same values, bit for bit); auto uses it when\n"
         "the job is large enough to repay starting the device; --json says which ran."},
        run_kymograph};
}

}  // namespace lacuna::cli
