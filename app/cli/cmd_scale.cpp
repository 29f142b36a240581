// lacuna scale: resize an image or a video (every frame) with nearest, bilinear, bicubic or cubic
// B-spline interpolation. Outputs are written under a temporary name
// and renamed, so a failure or Ctrl-C never leaves a half-written file under the chosen name.
#include "commands.hpp"
#include "json.hpp"
#include "measurement.hpp"
#include "options.hpp"
#include "output.hpp"
#include "timing.hpp"

#include <lacuna/core/error.hpp>
#include <lacuna/io/image_io.hpp>
#include <lacuna/io/video_io.hpp>
#include <lacuna/ops/scale.hpp>

#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <tuple>

namespace lacuna::cli {
namespace {

ops::ScaleMethod parse_method(const Context& ctx) {
    ops::ScaleParams params;
    parse_params(ctx.args, ops::scale_param_fields(), params);
    return params.method;
}

/// --width and --height (pixels or % of the input); one alone keeps the aspect ratio.
std::pair<int, int> target_size(const Context& ctx, const int w, const int h) {
    const auto width = ctx.args.get("width"), height = ctx.args.get("height");
    if (!width && !height)
        throw UsageError("give a target size with --width and/or --height (pixels or %)");
    const int tw =
        width ? parse_extent("width", *width, w)
              : static_cast<int>(std::lround(double(w) * parse_extent("height", *height, h) / h));
    const int th = height ? parse_extent("height", *height, h)
                          : static_cast<int>(std::lround(double(h) * tw / w));
    ops::check_scale(w, h, tw, th);
    return {tw, th};
}

/// Scales one frame after another on the chosen device; the CUDA path keeps its device images
/// and coefficient buffer from frame to frame.
class FrameScaler {
  public:
    FrameScaler(const Backend backend, const ops::ScaleMethod method) : method_(method) {
        if (backend == Backend::Cuda) {
            stream_ = std::make_unique<OwnedStream>();
            cuda_ = std::make_unique<ops::CudaScaler>(stream_->get());
        }
    }
    ImageRgba8 operator()(const ImageRgba8& frame, const int w, const int h) {
        if (!cuda_) return ops::scale_fast(frame.view(), w, h, method_);
        src_.set_stream(stream_->get());
        dst_.set_stream(stream_->get());
        src_.resize(frame.width(), frame.height());
        src_.upload(frame.view());
        cuda_->run(src_, dst_, w, h, method_);
        return dst_.download();
    }

  private:
    ops::ScaleMethod method_;
    std::unique_ptr<OwnedStream> stream_;
    std::unique_ptr<ops::CudaScaler> cuda_;
    DeviceImage<Rgba8> src_, dst_;
};

int run_scale_video(Context& ctx, const std::string& in, const std::string& out,
                    const ops::ScaleMethod method) {
    check_video_output(out, "a video");
    io::VideoReader reader(in);
    const io::VideoInfo info = reader.info();
    // std::tie, not a structured binding: lambdas below use them, and clang before 16 (the
    // fuzzing build) cannot capture bindings.
    int tw = 0, th = 0;
    std::tie(tw, th) = target_size(ctx, info.width, info.height);
    io::VideoWriter writer(out, tw, th, info.fps);
    const BackendInfo chosen = ctx.select_backend();
    const auto start = Clock::now();
    std::optional<ImageRgba8> pending;  // read but not yet written: kept if the device fails
    const auto scale_all = [&](const Backend backend) {
        FrameScaler scaler(backend, method);
        auto last_report = Clock::now();
        while (pending || (pending = reader.next())) {
            writer.write(scaler(*pending, tw, th));
            pending.reset();
            if (ms_since(last_report) > 1000) {
                char line[160];
                std::snprintf(line, sizeof line, "lacuna: frame %d of %d, %.1f fps\n",
                              reader.frames_read(), info.frame_count,
                              reader.frames_read() / (ms_since(start) / 1000));
                ctx.err << line << std::flush;
                last_report = Clock::now();
            }
        }
        return std::string(to_string(backend));
    };
    // A device failure part-way goes on with the CPU from the frame it failed on (the frames
    // written so far are the GPU's, identical to the CPU's).
    const std::string backend_name = ctx.with_cpu_fallback(chosen.backend, scale_all);
    if (reader.ended_early()) {
        if (!ctx.args.has("keep-truncated"))
            throw Error(ErrorCode::Truncated,
                        reader.warning() + "; nothing was written (--keep-truncated writes the " +
                            std::to_string(reader.frames_read()) + " frames that decoded)");
        ctx.note(reader.warning() + "; the " + std::to_string(reader.frames_read()) +
                 " frames that decoded are written");
    }
    writer.finish();
    for (const std::string& n : writer.notices()) ctx.note(n);
    const double seconds = ms_since(start) / 1000;
    char done[160];
    std::snprintf(done, sizeof done, "lacuna: %d frames in %.1f s (%.1f fps, %s)\n",
                  writer.frames_written(), seconds, writer.frames_written() / seconds,
                  backend_name.c_str());
    ctx.err << done;
    if (ctx.json)
        ctx.out << JsonObject()
                       .add("input", in)
                       .add("output", out)
                       .add("frames", writer.frames_written())
                       .add("width", info.width)
                       .add("height", info.height)
                       .add("target_width", tw)
                       .add("target_height", th)
                       .add("method", ops::to_string(method))
                       .add("implementation", backend_name)
                       .add("output_codec", writer.codec())
                       .add("seconds", seconds)
                       .str()
                << "\n";
    return kExitOk;
}

/// A measurement scales its stored samples with the photo scaler's kernels (ops::scale_native):
/// nearest moves them, the interpolating methods weigh them in float and round integer results
/// to the stored type, as ImageJ's Adjust > Size does for 16-bit and float images.
int scale_measurement(Context& ctx, const Input& input, const ops::ScaleMethod method,
                      const Clock::time_point load_start) {
    const std::string& in = ctx.args.positionals[0];
    const std::string& out = ctx.args.positionals[1];
    const NativeImage& samples = input.samples();
    const double load_ms = ms_since(load_start);
    const int w = samples.width(), h = samples.height();
    int tw = 0, th = 0;
    std::tie(tw, th) = target_size(ctx, w, h);
    const bool reference = ctx.args.has("reference");
    const auto scale_start = Clock::now();
    const NativeImage result = ops::scale_native(
        samples, tw, th, method,
        reference ? ops::ScaleImplementation::Reference : ops::ScaleImplementation::Fast);
    const double scale_ms = ms_since(scale_start);
    const auto write_start = Clock::now();
    // Each output pixel covers w / tw input pixels across (h / th down).
    PixelSpacing spacing = input.native->spacing;
    if (spacing.known()) {
        spacing.x *= static_cast<double>(w) / tw;
        spacing.y *= static_cast<double>(h) / th;
    }
    const PixelFormat written = write_measurement(ctx, out, result, *input.native, spacing);
    const double write_ms = ms_since(write_start);
    if (ctx.json)
        ctx.out << resize_report(in, out, w, h, tw, th)
                       .add("method", ops::to_string(method))
                       .add("sample_type", sample_type_code(samples.sample_type()))
                       .add("written_sample_type", sample_type_code(written.sample))
                       .add("arithmetic", method == ops::ScaleMethod::Nearest ? "copy"
                                          : reference                         ? "double"
                                                                              : "float")
                       .add("implementation", reference ? "reference" : "cpu")
                       .add("load_ms", load_ms)
                       .add("scale_ms", scale_ms)
                       .add("write_ms", write_ms)
                       .str()
                << "\n";
    return kExitOk;
}

int run_scale(Context& ctx) {
    const std::string& in = ctx.args.positionals[0];
    const std::string& out = ctx.args.positionals[1];
    refuse_overwriting_inputs(out, {in});
    const ops::ScaleMethod method = parse_method(ctx);
    if (io::is_video_path(in)) return run_scale_video(ctx, in, out, method);
    if (io::is_video_path(out))
        throw UsageError("'" + in + "' is an image: write it to an image file, not a video");
    io::format_for_path(out);

    const auto load_start = Clock::now();
    Input input = read_input(ctx, in);
    if (input.measurement()) return scale_measurement(ctx, input, method, load_start);
    const io::LoadedImage image = std::move(input.photo);
    const double load_ms = ms_since(load_start);
    const int w = image.image.width(), h = image.image.height();
    int tw = 0, th = 0;  // std::tie: captured below (clang 14)
    std::tie(tw, th) = target_size(ctx, w, h);

    std::string implementation = "reference";
    const auto scale_start = Clock::now();
    const ImageRgba8 result =
        ctx.args.has("reference")
            ? ops::scale_reference(image.image.view(), tw, th, method)
            : ctx.with_cpu_fallback(ctx.select_backend().backend, [&](const Backend b) {
                  implementation = std::string(to_string(b));
                  return ops::scale(image.image.view(), tw, th, method,
                                    b == Backend::Cuda ? ops::ScaleImplementation::Cuda
                                                       : ops::ScaleImplementation::Fast);
              });
    const double scale_ms = ms_since(scale_start);
    const auto write_start = Clock::now();
    write_photo(ctx, out, result.view(), image.metadata);  // the size tags follow the new size
    const double write_ms = ms_since(write_start);
    if (ctx.json)
        ctx.out << resize_report(in, out, w, h, tw, th)
                       .add("method", ops::to_string(method))
                       .add("implementation", implementation)
                       .add("load_ms", load_ms)
                       .add("scale_ms", scale_ms)
                       .add("write_ms", write_ms)
                       .str()
                << "\n";
    return kExitOk;
}

}  // namespace

Command scale_command() {
    return {{"scale",
             "resize an image or a video: nearest, bilinear, bicubic or cubic B-spline",
             "IN OUT --width W | --height H [options]  (images, or videos: IN.mp4 OUT.mp4)",
             {"IN", "OUT"},
             2,
             2,
             {{"width", "W", "target width: pixels, or a percentage such as 200%"},
              {"height", "H", "target height (pixels or %); one of the two keeps the aspect ratio"},
              param_option(ops::param(ops::scale_param_specs(), "method"), "M"),
              {"keep-truncated", "", "videos: write the frames of a damaged file that decode"},
              {"reference", "", "images: run the single-threaded CPU reference (for checking)"},
              {"page", "N", "measurement stacks: the page to scale (default 1)"}},
             "Output pixel centres map onto the input as (x + 0.5) * in/out - 0.5; edges are\n"
             "clamped (the spline's are mirrored). Alpha is resampled like the colours. A video\n"
             "keeps its frame rate and frame count; its audio is not copied. Measurements\n"
             "(16-bit, signed, float, DICOM, FITS) scale on the CPU in their stored type, as\n"
             "ImageJ does: nearest moves the samples; the other methods weigh them in float and\n"
             "round integer samples to the nearest, clamped to the type; calibration is kept and\n"
             "the pixel spacing follows the size. bspline refuses float images holding NaN or\n"
             "infinity. OUT keeps the type where its format holds it."},
            run_scale};
}

}  // namespace lacuna::cli
