// lacuna bench kymograph: the reference and the multi-threaded kymograph on a generated stack,
// side by side, checked against each other.
#include "commands.hpp"
#include "options.hpp"
#include "timing.hpp"

#include <lacuna/core/parallel.hpp>
#include <lacuna/ops/kymograph.hpp>

#include <cstdio>
#include <cstring>
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
    ctx.out << "lacuna bench kymograph: generated " << w << "x" << h << " float stack of " << frames
            << " frames; " << worker_count() << " CPU threads; median of " << repeats
            << " runs; fast checked against the reference (bit for bit)\n\n";
    char line[300];
    std::snprintf(line, sizeof line, "%-34s %9s %6s %12s %12s %8s  %s\n", "path", "positions",
                  "band", "reference ms", "fast ms", "speed-up", "check");
    ctx.out << line;
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
        std::snprintf(line, sizeof line, "%-34s %9d %6d %12.1f %12.1f %7.1fx  %s\n", c.name,
                      reference.width(), c.band, ref_ms, fast_ms, ref_ms / fast_ms,
                      same_bits(reference, fast) ? "identical" : "DIFFERS");
        ctx.out << line;
    }
    return kExitOk;
}

}  // namespace lacuna::cli
