// lacuna-bench-editor: the editor's interactions driven headless through EGL, timed from the input
// to a presented frame (the tool's work, present() into the renderer, a draw into a 1600 × 1000
// framebuffer, glFinish), on the device path and the host path side by side.
//
//   lacuna-bench-editor [--image PATH] [--size WxH] [--repeats N]
//   lacuna-bench-editor --video CLIP [--saliency] [--lines] [--skin] [--faces] [--temporal W]
//     [--repeats N]
//     (the Retarget preview of a video's frames with the export's importance, and with the
//     Video dock's temporal weight W (default 1) its match to the exported frame: run_video)
//
// Default: the bundled sample photo scaled to 3840 × 2160. Prints a table (median and 95th
// percentile per interaction) and the host<->device bytes each interaction moved.
#include <GL/glew.h>

#include "line_tool.hpp"
#include "regions_tool.hpp"
#include "remove_object_tool.hpp"
#include "retarget_tool.hpp"
#include "session.hpp"

#include <lacuna/core/backend.hpp>
#include <lacuna/core/error.hpp>
#include <lacuna/core/transfer_stats.hpp>
#include <lacuna/io/image_io.hpp>
#include <lacuna/ops/importance.hpp>
#include <lacuna/ops/line_histogram.hpp>
#include <lacuna/ops/patchmatch.hpp>
#include <lacuna/ops/regions.hpp>
#include <lacuna/ops/seam_carve.hpp>
#include <lacuna/render/egl_context.hpp>
#include <lacuna/render/framebuffer.hpp>
#include <lacuna/render/image_renderer.hpp>

#include <algorithm>
#include <chrono>
#include <thread>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

using namespace lacuna;

namespace {

using Clock = std::chrono::steady_clock;

/// Region drags (the Regions tool): a line with a 64-pixel band, a four-vertex polyline and a
/// rectangle a fifth of the image high, each moved whole by the pointer. On a device session the
/// moved region's profile is taken on the device (CudaRegionProfiler: the CUDA kymograph on the
/// document's plane, built there once per pixels revision by the first press), only the profile
/// coming back; on the host path by KymographSampler on the host plane. On the device the rows
/// `...: device` give the device time of one profile (plan up, kernel, values back; CUDA
/// events), and a drag that fell back to the host is an error.
template <class Bench, class Out>
void time_region_drags(session::Session& s, Bench& bench, Out& out, const int w, const int h,
                       const int repeats) {
    s.select(session::ToolKind::Regions);
    session::RegionsTool& regions = s.regions();
    regions.clear();
    ops::ProfileRegion line;
    line.points = {{w * 0.1, h * 0.2}, {w * 0.8, h * 0.7}};
    line.width = 64;
    regions.add(line);
    ops::ProfileRegion poly;
    poly.shape = ops::RegionShape::Polyline;
    poly.points = {{w * 0.1, h * 0.8}, {w * 0.3, h * 0.5}, {w * 0.6, h * 0.9}, {w * 0.9, h * 0.4}};
    poly.width = 16;
    regions.add(poly);
    ops::ProfileRegion rect;
    rect.shape = ops::RegionShape::Rectangle;
    rect.x = std::floor(w * 0.3);
    rect.y = std::floor(h * 0.1);
    rect.width = std::max(2, w * 2 / 5);
    rect.height = std::clamp(h / 5, 1, ops::kMaxBandWidth);
    regions.add(rect);
    const struct {
        const char* label;
        double x, y;  // a point on the region, continuous coordinates
    } drags[] = {{"region drag: line (64 px band)", w * 0.45 + 0.5, h * 0.45 + 0.5},
                 {"region drag: polyline (4 vertices, 16 px)", w * 0.2 + 0.5, h * 0.65 + 0.5},
                 {"region drag: rectangle (0.4 w x 0.2 h)", w * 0.5, h * 0.2}};
    const bool device = s.on_device();
    int index = 0;
    for (const auto& d : drags) {
        regions.press({d.x, d.y});
        const std::uint64_t on_device_before = regions.device_profiles();
        for (int i = 0; i < repeats; ++i)
            bench.time(out[d.label], [&] {
                regions.move({d.x + 3.0 * ((i % 8) + 1), d.y + 2.0 * ((i % 8) + 1)});
            });
        regions.release({});
        const std::uint64_t on_device = regions.device_profiles() - on_device_before;
        if (device && on_device < static_cast<std::uint64_t>(repeats))
            throw Error(ErrorCode::DeviceError,
                        std::string(d.label) + ": only " + std::to_string(on_device) + " of " +
                            std::to_string(repeats) + " profiles were taken on the device");
        if (device) {
            // The device part alone, on the document's device plane, for the region as dragged.
            const OwnedStream stream;
            ops::CudaRegionProfiler profiler(stream.get());
            const session::Document& doc = s.document();
            if (doc.measurement())
                profiler.build_values(doc.device_samples(), doc.format(), doc.width(),
                                      doc.calibration());
            else
                profiler.build_luminance(s.document().device_pixels());
            const ops::ProfileRegion& r = regions.regions()[std::size_t(index)];
            out[std::string(d.label) + ": device"].ms.push_back(profiler.time_profile(r, 20));
        }
        ++index;
    }
    regions.clear();
}

struct Options {
    std::string image = LACUNA_SAMPLE_IMAGE;
    int width = 3840;
    int height = 2160;
    int repeats = 100;
    bool measurement = false;  ///< a float measurement document instead of a photo
    /// --video: the Retarget preview of a clip's frames (host path, the tool's work only).
    std::string video;
    ops::ImportanceParams terms = [] {
        ops::ImportanceParams p;
        p.faces = false;
        return p;
    }();
    bool video_faces = false;
    double temporal = 1.0;  ///< the Video dock's temporal weight (the export's)
};

/// Bilinear resize, so any photo becomes the benchmark's size.
ImageRgba8 resized(const ImageRgba8& src, const int w, const int h) {
    ImageRgba8 out(w, h);
    for (int y = 0; y < h; ++y) {
        const double sy = std::clamp((y + 0.5) * src.height() / h - 0.5, 0.0, src.height() - 1.0);
        const int y0 = static_cast<int>(sy), y1 = std::min(y0 + 1, src.height() - 1);
        const double fy = sy - y0;
        for (int x = 0; x < w; ++x) {
            const double sx = std::clamp((x + 0.5) * src.width() / w - 0.5, 0.0, src.width() - 1.0);
            const int x0 = static_cast<int>(sx), x1 = std::min(x0 + 1, src.width() - 1);
            const double fx = sx - x0;
            const auto mix = [&](auto channel) {
                const double top =
                    channel(src.at(x0, y0)) * (1 - fx) + channel(src.at(x1, y0)) * fx;
                const double bottom =
                    channel(src.at(x0, y1)) * (1 - fx) + channel(src.at(x1, y1)) * fx;
                return static_cast<std::uint8_t>(std::lround(top * (1 - fy) + bottom * fy));
            };
            out.at(x, y) = Rgba8{mix([](Rgba8 p) { return double(p.r); }),
                                 mix([](Rgba8 p) { return double(p.g); }),
                                 mix([](Rgba8 p) { return double(p.b); }), 255};
        }
    }
    return out;
}

struct Timing {
    std::vector<double> ms;
    std::vector<double> work_ms;  ///< the tool's part (device work finished), before presenting
    TransferStats moved;
    [[nodiscard]] double percentile(const double p) const {
        if (ms.empty()) return NAN;
        std::vector<double> sorted = ms;
        std::sort(sorted.begin(), sorted.end());
        return sorted[std::min(sorted.size() - 1, static_cast<std::size_t>(p * sorted.size()))];
    }
};

class Bench {
  public:
    Bench(session::Session& s, render::ImageRenderer& renderer, const render::Framebuffer& window)
        : s_(s), renderer_(renderer), window_(window) {}

    /// Times `interaction` followed by a presented frame.
    void time(Timing& timing, const std::function<void()>& interaction) {
        const TransferStats before = transfer_stats();
        const auto start = Clock::now();
        interaction();
        // Where the time goes: the tool's work (its device work waited for) and the rest.
        if (s_.on_device()) s_.document().device_pixels().synchronize();
        const auto worked = Clock::now();
        present();
        glFinish();
        const auto end = Clock::now();
        timing.ms.push_back(std::chrono::duration<double, std::milli>(end - start).count());
        timing.work_ms.push_back(std::chrono::duration<double, std::milli>(worked - start).count());
        timing.moved = timing.moved + (transfer_stats() - before);
        // After the frame is shown: the interop textures are mapped for the next present, off
        // the path from input to frame (timed on its own).
        if (!s_.wants_map_ahead()) return;
        const auto map_start = Clock::now();
        renderer_.map_ahead();
        map_ahead_ms.push_back(
            std::chrono::duration<double, std::milli>(Clock::now() - map_start).count());
    }

    std::vector<double> map_ahead_ms;

    void present() {
        s_.present(renderer_);
        const render::ViewTransform view = render::fit_view(s_.shown_width(), s_.shown_height(),
                                                            window_.width(), window_.height());
        renderer_.render(window_.id(), window_.width(), window_.height(), view);
    }

  private:
    session::Session& s_;
    render::ImageRenderer& renderer_;
    const render::Framebuffer& window_;
};

std::map<std::string, Timing> run(const bool device, const ImageRgba8& photo, const int repeats,
                                  std::string& path_name) {
    std::map<std::string, Timing> out;
    render::ImageRenderer renderer;
    std::string error;
    if (!renderer.initialize(error)) throw Error(ErrorCode::DeviceError, "renderer: " + error);
    {
        const render::Framebuffer window(1600, 1000);
        session::Session s(device);
        s.open(clone(photo.view()));
        Bench bench(s, renderer, window);
        bench.present();
        glFinish();
        path_name = s.on_device() ? "device" : "host";
        for (int i = 0; i < repeats; ++i) bench.time(out["frame, nothing changed"], [] {});
        const int w = photo.width(), h = photo.height();

        // Brush stamps: a stroke across the object.
        s.select(session::ToolKind::RemoveObject);
        s.remove_object().set_brush({60, 0.8, false});
        session::Tool& brush = *s.active_tool();
        brush.press({w * 0.45, h * 0.5});
        for (int i = 0; i < repeats; ++i) {
            const double a = 6.2832 * i / repeats;
            bench.time(out["brush stamp"], [&] {
                brush.move({w * 0.5 + w * 0.05 * std::cos(a), h * 0.5 + h * 0.08 * std::sin(a)});
            });
        }
        bench.time(out["stroke end (undo snapshot)"], [&] { brush.release({w * 0.5, h * 0.5}); });

        // Slider frames from the exact vertical map.
        s.select(session::ToolKind::Retarget);
        const auto maps_start = Clock::now();
        s.retarget().wait();
        out["seam maps (background)"].ms.push_back(
            std::chrono::duration<double, std::milli>(Clock::now() - maps_start).count());
        for (int i = 0; i < repeats; ++i) {
            const int width = w - 1 - (i * (w / 2)) / std::max(1, repeats - 1);
            bench.time(out["slider frame"], [&] { s.retarget().set_target(width, h); });
        }
        // The same with the Amount at 50 % (seams, then area scaling: composed on the host on
        // either path) and with Automatic (five candidates measured per frame).
        ops::RetargetMix mix;
        mix.amount = 50;
        s.retarget().set_mix(mix);
        for (int i = 0; i < repeats; ++i) {
            const int width = w - 1 - (i * (w / 2)) / std::max(1, repeats - 1);
            bench.time(out["slider frame, amount 50 %"],
                       [&] { s.retarget().set_target(width, h); });
        }
        mix.automatic = true;
        s.retarget().set_mix(mix);
        for (int i = 0; i < repeats; ++i) {
            const int width = w - 1 - (i * (w / 2)) / std::max(1, repeats - 1);
            bench.time(out["slider frame, automatic"], [&] { s.retarget().set_target(width, h); });
        }
        s.retarget().set_mix({});
        s.retarget().set_target(w, h);

        // Line drags with a 64-pixel band.
        s.select(session::ToolKind::LineHistogram);
        s.line().set_band(64);
        session::Tool& line = *s.active_tool();
        line.press({w * 0.1, h * 0.2});
        for (int i = 0; i < repeats; ++i) {
            bench.time(out["line drag (64 px band)"], [&] {
                line.move(
                    {w * 0.1 + w * 0.7 * (i + 1) / repeats, h * 0.2 + h * 0.5 * (i + 1) / repeats});
            });
        }
        line.release({});
        time_region_drags(s, bench, out, w, h, repeats);
        if (s.on_device() && s.line().result() != nullptr) {
            // The histogram kernels alone for the last line (device time, CUDA events).
            ops::CudaLineHistogrammer kernels(s.document().device_pixels());
            ops::LineHistogramParams params;
            params.from = s.line().from();
            params.to = s.line().to();
            params.band_width = 64;
            out["line drag: kernels only"].ms.push_back(kernels.time_line_kernels(params, 20));
            // The histogrammer's whole call (kernels, result copy, host vectors), and the tool's.
            for (int i = 0; i < 20; ++i) {
                const auto start = Clock::now();
                const ops::LineHistogram result = kernels.line(params);
                out["line drag: line() call"].ms.push_back(
                    std::chrono::duration<double, std::milli>(Clock::now() - start).count());
                const auto tool_start = Clock::now();
                s.line().recompute();
                out["line drag: tool recompute"].ms.push_back(
                    std::chrono::duration<double, std::milli>(Clock::now() - tool_start).count());
            }
        }

        // Fill steps: one filler iteration per step, and a batch of 8.
        s.select(session::ToolKind::RemoveObject);
        if (!s.remove_object().start_fill())
            throw Error(ErrorCode::InvalidArgument, "fill: " + s.remove_object().message());
        for (int i = 0; i < repeats && s.remove_object().fill_running(); ++i)
            bench.time(out["fill step (1 iteration)"], [&] { s.remove_object().advance(1); });
        for (int i = 0; i < repeats && s.remove_object().fill_running(); ++i)
            bench.time(out["fill step (batch of 8)"], [&] { s.remove_object().advance(8); });
        s.remove_object().cancel_fill();
        bench.time(out["undo (stroke rectangle)"], [&] { s.undo(); });
        out["map ahead (after a frame)"].ms = bench.map_ahead_ms;
        if (s.on_device()) {
            // Where a device present's time goes, per stage (each waited for).
            renderer.set_interop_profiling(true);
            s.select(session::ToolKind::Retarget);
            s.retarget().wait();
            for (int i = 0; i < 20; ++i) {
                s.retarget().set_target(w - 10 - i, h);
                bench.present();
                glFinish();
                renderer.map_ahead();
            }
            const render::ImageRenderer::InteropProfile image = renderer.interop_profile();
            s.retarget().set_target(w, h);
            renderer.set_interop_profiling(true);
            s.select(session::ToolKind::RemoveObject);
            brush.press({w * 0.3, h * 0.3});
            for (int i = 0; i < 20; ++i) {
                brush.move({w * 0.3 + i, h * 0.3});
                bench.present();
                glFinish();
                renderer.map_ahead();
            }
            brush.release({w * 0.3, h * 0.3});
            const render::ImageRenderer::InteropProfile mask = renderer.interop_profile();
            renderer.set_interop_profiling(false);
            const auto line = [](const char* what, const render::ImageRenderer::InteropProfile& p) {
                const double n = std::max(1, p.presents);
                std::printf("  %s: map %.3f ms, copy %.3f ms, unmap %.3f ms (%d)\n", what,
                            p.map_ms / n, p.copy_ms / n, p.unmap_ms / n, p.presents);
            };
            std::printf(
                "interop stages per present (profiled, each stage waited for; mapped ahead):\n");
            line("image (slider frames)", image);
            line("mask (brush stamps)", mask);
        }
        for (const std::string& n : s.take_notices()) std::cerr << "  notice: " << n << "\n";
    }
    renderer.release();
    return out;
}

/// A measurement document for the benchmark: a w × h float temperature field in kelvin (hot
/// spots over a gradient, a few NaN), generated so no file is needed.
NativeImage temperature_field(const int w, const int h) {
    NativeImage field(w, h, {SampleType::F32, 1});
    for (int y = 0; y < h; ++y) {
        float* row = field.samples<float>(y);
        for (int x = 0; x < w; ++x) {
            const double u = double(x) / w, v = double(y) / h;
            double t = 293.15 + 4.0 * u;
            t += 75.0 * std::exp(-((u - 0.3) * (u - 0.3) + (v - 0.3) * (v - 0.3)) / 0.01);
            t += 48.0 * std::exp(-((u - 0.65) * (u - 0.65) + (v - 0.6) * (v - 0.6)) / 0.02);
            row[x] = static_cast<float>(t + 0.2 * std::sin(x * 0.37 + y * 0.11));
        }
    }
    for (int k = 0; k < 64; ++k) field.set_sample((k * 7919) % w, (k * 104729) % h, 0, NAN);
    return field;
}

std::map<std::string, Timing> run_measurement(const bool device, const int w, const int h,
                                              const int repeats, std::string& path_name) {
    std::map<std::string, Timing> out;
    render::ImageRenderer renderer;
    std::string error;
    if (!renderer.initialize(error)) throw Error(ErrorCode::DeviceError, "renderer: " + error);
    {
        const render::Framebuffer window(1600, 1000);
        session::Session s(device);
        std::vector<NativeImage> pages{temperature_field(w, h)};
        const auto open_start = Clock::now();
        s.open_measurement(std::move(pages), {1.0, 0.0, "K"});
        out["open (samples to device, auto window)"].ms.push_back(
            std::chrono::duration<double, std::milli>(Clock::now() - open_start).count());
        Bench bench(s, renderer, window);
        bench.present();
        glFinish();
        path_name = s.on_device() ? "device" : "host";
        for (int i = 0; i < repeats; ++i) bench.time(out["frame, nothing changed"], [] {});
        const DisplayWindow window0 = s.display().window;
        for (int i = 0; i < repeats; ++i)
            bench.time(out["window change"], [&] {
                s.set_window({window0.lo + 0.1 * i, window0.hi - 0.1 * i});
            });
        for (int i = 0; i < repeats; ++i)
            bench.time(out["LUT change"], [&] { s.set_lut(all_luts()[std::size_t(i % 4)]); });
        s.select(session::ToolKind::LineHistogram);
        s.line().set_band(64);
        s.line().set_bins(256);
        session::Tool& line = *s.active_tool();
        // The press computes the first line, building the plane (once per document, page or
        // calibration change).
        bench.time(out["line press (builds the plane)"], [&] { line.press({w * 0.1, h * 0.2}); });
        for (int i = 0; i < repeats; ++i) {
            bench.time(out["line drag (64 px band, 256 bins)"], [&] {
                line.move(
                    {w * 0.1 + w * 0.7 * (i + 1) / repeats, h * 0.2 + h * 0.5 * (i + 1) / repeats});
            });
        }
        line.release({});
        time_region_drags(s, bench, out, w, h, repeats);
        // Remove object on the measurement: the fill decides on the 16-bit decision image (made
        // on the device from the samples there) and its sources move the float samples.
        s.select(session::ToolKind::RemoveObject);
        s.remove_object().set_brush({40, 1.0, false});
        session::Tool& brush = *s.active_tool();
        brush.press({w * 0.5, h * 0.5});
        brush.move({w * 0.5 + 60, h * 0.5 + 20});
        brush.release({w * 0.5 + 60, h * 0.5 + 20});
        // A few whole fills (each undone, which puts the stroke back), so the start and the end
        // have medians; the first fill also warms the pools.
        const int fills = std::min(repeats, 3);
        for (int f = 0; f < fills; ++f) {
            bench.time(out["fill start (decision image, pyramid)"], [&] {
                if (!s.remove_object().start_fill())
                    throw Error(ErrorCode::InvalidArgument, "fill: " + s.remove_object().message());
            });
            bench.time(out["fill to the end (16-bit PatchMatch)"], [&] {
                while (s.remove_object().fill_running()) s.remove_object().advance(64);
            });
            std::printf("fill: %s\n", s.remove_object().message().c_str());
            s.undo();
        }
        {
            // Where a fill's start and end go, piece by piece (the pools are warm now): the
            // problem (host, over the stroke's box), the decision image and the filler's setup
            // (device or host, as the path's fill makes them); then the filler's iterations to
            // the end with the field read back (which waits for the device), and the finish's
            // sources and blended samples of the stroke's box (host, both paths).
            // The hole the tool takes (coverage >= 128) and the stroke's box, as the tool finds
            // them in its one read of the coverage (not timed here).
            const Mask& coverage = s.document().mask(session::MaskLayer::Fill);
            Mask hole(w, h, 0);
            PixelRect painted;
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x) {
                    if (coverage.at(x, y) == 0) continue;
                    painted.unite({x, y, x, y});
                    hole.at(x, y) = coverage.at(x, y) >= 128 ? 255 : 0;
                }
            const auto ms = [](const auto start) {
                return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
            };
            auto t = Clock::now();
            ops::InpaintProblem problem = ops::prepare_inpaint(
                s.document().pixels().view(), hole, s.remove_object().fill_params(), painted);
            out["fill start: prepare_inpaint (host)"].ms.push_back(ms(t));
            t = Clock::now();
            const auto [lo, hi] = s.document().proxy_range();
            std::unique_ptr<ops::Inpainter> filler;
            if (s.on_device()) {
                DeviceImage<Rgba16> decision = ops::deep_carving_proxy(
                    s.document().device_samples(), s.document().format(), w, lo, hi);
                decision.synchronize();
                out["fill start: decision image"].ms.push_back(ms(t));
                t = Clock::now();
                filler = ops::make_deep_patchmatch_device_inpainter(std::move(problem), decision);
                out["fill start: filler setup"].ms.push_back(ms(t));
            } else {
                Image<Rgba16> decision =
                    ops::deep_carving_proxy(s.document().samples(), lo, hi).image;
                out["fill start: decision image"].ms.push_back(ms(t));
                t = Clock::now();
                filler = ops::make_deep_patchmatch_inpainter(
                    std::move(problem), std::move(decision), ops::InpaintImplementation::Fast);
                out["fill start: filler setup"].ms.push_back(ms(t));
            }
            t = Clock::now();
            while (!filler->progress().done()) filler->advance(64);
            const std::optional<ops::PatchMatchField> field = ops::patchmatch_field(*filler);
            out["fill end: filler iterations + field"].ms.push_back(ms(t));
            t = Clock::now();
            const int radius = s.remove_object().fill_params().patch / 2;
            const ops::FillSources sources = ops::patchmatch_sources(*field, hole, radius);
            out["fill end: sources (host)"].ms.push_back(ms(t));
            t = Clock::now();
            const NativeImage region = ops::blend_samples_region(
                s.document().samples(), hole, sources, s.document().proxy_range(), painted);
            out["fill end: blended samples (host)"].ms.push_back(ms(t));
        }
        s.select(session::ToolKind::LineHistogram);
        if (s.on_device() && s.line().result() != nullptr) {
            ops::CudaLineHistogrammer kernels(s.document().device_samples(), s.document().format(),
                                              w, s.document().calibration());
            ops::LineHistogramParams params;
            params.from = s.line().from();
            params.to = s.line().to();
            params.band_width = 64;
            out["line drag: kernels only"].ms.push_back(kernels.time_line_kernels(params, 20));
        }
        const double mb = 1024.0 * 1024.0;
        std::printf(
            "measurement document %dx%d float (%s path): samples %.1f MB; host holds "
            "%.1f MB (samples, 8-bit carving proxy, masks), device %.1f MB (the same) + histogram "
            "plane "
            "%.1f MB + display texture %.1f MB (GL)\n",
            w, h, path_name.c_str(), double(s.document().samples().pitch()) * h / mb,
            double(s.document().host_bytes()) / mb, double(s.document().device_bytes()) / mb,
            s.on_device() ? double(w) * h * 4 / mb : 0.0, double(w) * h * 4 / mb);
        for (const std::string& n : s.take_notices()) std::cerr << "  notice: " << n << "\n";
    }
    renderer.release();
    return out;
}

/// The Retarget preview of a video's frames with the export's importance (ClipImportance): the
/// first frame's map and seams from cold, a step forward, a step back to a cached frame, a jump
/// ahead (the smoother walks the frames between), and a slider frame once the maps are ready.
/// Wall time of the tool's work to a ready preview (wait()), host path, no presenting.
int run_video(const Options& o) {
    session::Session s(false);
    s.open_video(o.video);
    const int frames = s.video()->frame_count();
    const int w = s.document().width(), h = s.document().height();
    session::Session::VideoExportSettings exporting;
    exporting.temporal = o.temporal;
    exporting.faces = o.video_faces;
    s.set_video_export_settings(exporting);
    ops::RetargetMix mix;
    mix.importance = o.terms;
    mix.importance.faces = mix.importance.faces || o.video_faces;
    s.select(session::ToolKind::Retarget);
    s.retarget().set_mix(mix);
    const int target = std::max(2, w * 6 / 10);
    std::map<std::string, std::vector<double>> out;
    // The single-frame preview (exact maps; what the live slider shows) under `label`, then, with
    // a temporal term, the preview matched to the exported frame under "label: matched".
    const auto timed = [&](const std::string& label, const std::function<void()>& interaction) {
        const auto start = Clock::now();
        const auto since = [&] {
            return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
        };
        interaction();
        s.retarget().refresh();
        double exact = -1;
        while (s.retarget().poll()) {
            if (exact < 0 && s.retarget().matching_export()) exact = since();
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        const double settled = since();
        out[label].push_back(exact < 0 ? settled : exact);
        if (exact >= 0) out[label + ": matched"].push_back(settled);
    };
    timed("first frame: map + seams (cold)", [&] { s.retarget().set_target(target, h); });
    const int steps = std::min(o.repeats, frames - 1);
    for (int f = 1; f <= steps; ++f)
        timed("step forward one frame", [&] { s.show_video_frame(f); });
    for (int f = steps - 1; f >= std::max(0, steps - o.repeats); --f)
        timed("step back (map cached)", [&] { s.show_video_frame(f); });
    if (frames > steps + 2) {
        const int far = std::min(frames - 1, steps + 30);
        timed("jump " + std::to_string(far - steps) + " frames ahead",
              [&] { s.show_video_frame(far); });
    }
    for (int i = 0; i < o.repeats; ++i)
        timed("slider frame (maps ready)",
              [&] { s.retarget().set_target(target - 1 - (i % 7), h); });
    std::printf(
        "Retarget preview of %s (%dx%d, %d frames announced) to %d px wide, host path, "
        "temporal weight %g, terms:%s%s%s%s\n",
        o.video.c_str(), w, h, frames, target, o.temporal,
        mix.importance.saliency ? " saliency" : "", mix.importance.lines ? " lines" : "",
        mix.importance.skin ? " skin" : "", o.video_faces ? " faces (tracked)" : "");
    std::printf("%-48s | %8s %8s %8s %4s\n", "interaction", "median", "min", "max", "n");
    for (auto& [label, ms] : out) {
        std::sort(ms.begin(), ms.end());
        std::printf("%-48s | %8.1f %8.1f %8.1f %4zu\n", label.c_str(), ms[ms.size() / 2],
                    ms.front(), ms.back(), ms.size());
    }
    for (const std::string& n : s.take_notices()) std::cerr << "  notice: " << n << "\n";
    return 0;
}

bool parse(int argc, char** argv, Options& o) {
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
        if (a == "--image") {
            o.image = next();
        } else if (a == "--size") {
            if (std::sscanf(next().c_str(), "%dx%d", &o.width, &o.height) != 2) return false;
        } else if (a == "--measurement") {
            o.measurement = true;
        } else if (a == "--repeats") {
            o.repeats = std::atoi(next().c_str());
        } else if (a == "--video") {
            o.video = next();
        } else if (a == "--saliency") {
            o.terms.saliency = true;
        } else if (a == "--lines") {
            o.terms.lines = true;
        } else if (a == "--skin") {
            o.terms.skin = true;
        } else if (a == "--faces") {
            o.video_faces = true;
        } else if (a == "--temporal") {
            o.temporal = std::atof(next().c_str());
        } else {
            return false;
        }
    }
    return o.width > 16 && o.height > 16 && o.repeats > 0;
}

}  // namespace

int main(int argc, char** argv) {
    Options options;
    if (!parse(argc, argv, options)) {
        std::cerr << "usage: lacuna-bench-editor [--image PATH] [--size WxH] [--repeats N] "
                     "[--measurement]\n"
                     "       lacuna-bench-editor --video CLIP [--saliency] [--lines] [--skin] "
                     "[--faces] [--temporal W] [--repeats N]\n";
        return 2;
    }
    try {
        if (!options.video.empty()) return run_video(options);
        const render::EglContext egl;
        if (!egl.ok()) {
            std::cerr << "lacuna-bench-editor: no headless EGL context: " << egl.error() << "\n";
            return 1;
        }
        const ImageRgba8 photo = options.measurement ? ImageRgba8()
                                                     : resized(io::read_image(options.image).image,
                                                               options.width, options.height);
        const BackendInfo backend = select_backend(BackendRequest::Auto);
        std::cout << "editor latency, input to presented frame (1600x1000 framebuffer, glFinish), "
                  << options.width << "x" << options.height
                  << (options.measurement ? " float measurement" : "") << ", " << options.repeats
                  << " repeats\nbackend: " << backend.describe() << "\nGL: ";
        std::vector<std::pair<std::string, std::map<std::string, Timing>>> paths;
        const auto run_one = [&](const bool device, std::string& name) {
            return options.measurement ? run_measurement(device, options.width, options.height,
                                                         options.repeats, name)
                                       : run(device, photo, options.repeats, name);
        };
        if (backend.backend == Backend::Cuda) {
            std::string name;
            auto timings = run_one(true, name);
            paths.emplace_back(name, std::move(timings));
        }
        std::string name;
        auto host = run_one(false, name);
        paths.emplace_back(name, std::move(host));
        std::cout << reinterpret_cast<const char*>(glGetString(GL_RENDERER)) << "\n\n";
        std::printf("%-38s", "interaction");
        for (const auto& [path, t] : paths)
            std::printf(" | %8s median  p95 ms  work ms  bytes/op", path.c_str());
        std::printf("\n");
        for (const auto& [label, unused] : paths.front().second) {
            (void)unused;
            std::printf("%-38s", label.c_str());
            for (const auto& [path, timings] : paths) {
                const auto it = timings.find(label);
                if (it == timings.end()) {
                    std::printf(" | %42s", "-");
                    continue;
                }
                const Timing& t = it->second;
                const double per_op =
                    t.ms.empty()
                        ? 0.0
                        : double(t.moved.upload_bytes + t.moved.download_bytes) / t.ms.size();
                std::vector<double> work = t.work_ms;
                std::sort(work.begin(), work.end());
                const double work_median = work.empty() ? NAN : work[work.size() / 2];
                std::printf(" | %15.3f %7.3f %8.3f %9.0f", t.percentile(0.5), t.percentile(0.95),
                            work_median, per_op);
            }
            std::printf("\n");
        }
        if (paths.size() == 2) {
            // The device path against the host path, side by side in this one run.
            std::printf("\n%-38s | %10s | %10s | host/device\n", "median", paths[0].first.c_str(),
                        paths[1].first.c_str());
            for (const auto& [label, device_timing] : paths[0].second) {
                const auto it = paths[1].second.find(label);
                if (it == paths[1].second.end() || device_timing.ms.empty() ||
                    (label.rfind("fill", 0) != 0 && label.rfind("undo", 0) != 0))
                    continue;
                const double d = device_timing.percentile(0.5), h = it->second.percentile(0.5);
                std::printf("%-38s | %10.1f | %10.1f | %6.2fx\n", label.c_str(), d, h, h / d);
            }
        }
        return 0;
    } catch (const Error& e) {
        std::cerr << "lacuna-bench-editor: " << e.what() << "\n";
        return 1;
    }
}
