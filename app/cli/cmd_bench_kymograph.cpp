// lacuna bench kymograph: the reference, the multi-threaded and (with a device) the CUDA kymograph
// on a generated stack, side by side, each checked against the reference bit for bit.
#include "commands.hpp"
#include "options.hpp"
#include "timing.hpp"

#include <lacuna/core/backend.hpp>
#include <lacuna/core/device_image.hpp>
#include <lacuna/core/parallel.hpp>
#include <lacuna/ops/kymograph.hpp>

#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

namespace lacuna::cli {
namespace {

bool same_bits(const ImageF32& a, const ImageF32& b) {
    if (a.width() != b.width() || a.height() != b.height()) return false;
    for (int y = 0; y < a.height(); ++y)
        if (std::memcmp(a.row(y), b.row(y), sizeof(float) * static_cast<std::size_t>(a.width())))
            return false;
    return true;
}

}  // namespace

int bench_kymograph(Context& ctx) {
    const auto [w, h] = parse_size("size", ctx.args.get("size").value_or("1024x1024"));
    const int frames = parse_int("frames", ctx.args.get("frames").value_or("32"));
    const int repeats = parse_int("repeats", ctx.args.get("repeats").value_or("5"));
    if (frames < 1) throw UsageError("--frames must be at least 1");
    std::vector<ImageF32> stack;
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> value(0.0f, 1000.0f);
    for (int t = 0; t < frames; ++t) {
        ImageF32 f(w, h);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) f.at(x, y) = value(rng);
        stack.push_back(std::move(f));
    }
    const BackendInfo backend = lacuna::select_backend(
        ctx.backend == BackendRequest::Cpu ? BackendRequest::Cpu : BackendRequest::Auto);
    const bool cuda = backend.backend == Backend::Cuda;
    ctx.out << "lacuna bench kymograph: generated " << w << "x" << h << " float stack of " << frames
            << " frames; " << worker_count() << " CPU threads; " << backend.describe()
            << "; median of " << repeats
            << " runs; each path checked against the reference (bit for bit)\n";
    if (cuda)
        ctx.out << "cuda ms: host stack in, rows out (uploads included); resident ms: the stack "
                   "already on the device, rows left there\n";
    ctx.out << "\n";
    // The device stack for the resident timing: every frame top to bottom in one plane.
    std::unique_ptr<OwnedStream> stream;
    DeviceImage<float> device_stack;
    if (cuda) {
        stream = std::make_unique<OwnedStream>();
        device_stack = DeviceImage<float>(w, h * frames, stream->get());
        for (int t = 0; t < frames; ++t)
            device_stack.upload_region({0, t * h, w - 1, t * h + h - 1},
                                       stack[static_cast<std::size_t>(t)].view());
    }
    char line[300];
    std::snprintf(line, sizeof line, "%-24s %9s %5s %12s %9s %8s", "path", "positions", "band",
                  "reference ms", "fast ms", "speed-up");
    ctx.out << line;
    if (cuda) {
        std::snprintf(line, sizeof line, " %9s %11s", "cuda ms", "resident ms");
        ctx.out << line;
    }
    ctx.out << "  check\n";
    const double W = w - 1, H = h - 1;
    struct Case {
        const char* name;
        std::vector<ops::Point2> path;
        int band;
    };
    const std::vector<Case> cases = {
        {"line, horizontal", {{0, H / 2}, {W, H / 2}}, 1},
        {"line, diagonal", {{0, 0}, {W, H}}, 1},
        {"line, diagonal", {{0, 0}, {W, H}}, 16},
        {"line, diagonal", {{0, 0}, {W, H}}, 64},
        {"polyline, 4 segments", {{0, 0}, {W, H / 3}, {0, H / 2}, {W / 2, H}, {W, 2 * H / 3}}, 16},
    };
    for (const Case& c : cases) {
        ops::KymographParams p;
        p.path = c.path;
        p.band_width = c.band;
        ImageF32 reference, fast;
        const double ref_ms =
            median_ms(repeats, [&] { reference = ops::kymograph_reference(stack, p); });
        const double fast_ms = median_ms(repeats, [&] { fast = ops::kymograph_fast(stack, p); });
        bool same = same_bits(reference, fast);
        std::snprintf(line, sizeof line, "%-24s %9d %5d %12.1f %9.1f %7.1fx", c.name,
                      reference.width(), c.band, ref_ms, fast_ms, ref_ms / fast_ms);
        ctx.out << line;
        if (cuda) {
            ImageF32 device;
            const double cuda_ms =
                median_ms(repeats, [&] { device = ops::kymograph_cuda(stack, p, stream->get()); });
            same = same && same_bits(reference, device);
            ops::CudaKymograph k(ops::plan_kymograph(w, h, p), stream->get());
            DeviceImage<float> rows(k.plan().positions(), frames, stream->get());
            const double resident_ms = median_ms(repeats, [&] {
                k.rows(device_stack.device_view(), frames, rows.device_view());
                stream->synchronize();
            });
            std::snprintf(line, sizeof line, " %9.2f %11.3f", cuda_ms, resident_ms);
            ctx.out << line;
        }
        ctx.out << "  " << (same ? "identical" : "DIFFERS") << "\n";
    }
    return kExitOk;
}

}  // namespace lacuna::cli
