// The spatio-temporal PatchMatch's problem and schedule, shared by the three backends, and the
// entry point.
#include "common.hpp"

#include <lacuna/core/error.hpp>

#include <algorithm>
#include <limits>
#include <string>

namespace lacuna::ops::pm3 {
namespace {

[[noreturn]] void invalid(const std::string& message) {
    throw Error(ErrorCode::InvalidArgument, message);
}

void check_params(const PatchMatch3dParams& p) {
    if (p.patch < 3 || p.patch > 15 || p.patch % 2 == 0)
        invalid("the 3-D patch's side must be odd, 3 to 15 pixels, not " + std::to_string(p.patch));
    if (p.patch_frames < 1 || p.patch_frames > 9 || p.patch_frames % 2 == 0)
        invalid("the 3-D patch must span an odd number of frames, 1 to 9, not " +
                std::to_string(p.patch_frames));
    if (p.iterations < 1 || p.iterations > 100)
        invalid("the 3-D PatchMatch's iterations must be 1 to 100, not " +
                std::to_string(p.iterations));
    if (p.max_levels < 1 || p.max_levels > 16)
        invalid("the 3-D PatchMatch's levels must be 1 to 16, not " + std::to_string(p.max_levels));
    if (p.margin < -1) invalid("the 3-D PatchMatch's margin must be -1 (automatic) or more");
}

/// 1 where any of src within ± r along one axis (stride `stride`, `n` positions) is non-zero.
void any_along(const std::vector<std::uint8_t>& src, std::vector<std::uint8_t>& dst, const int w,
               const int h, const int frames, const int axis, const int r) {
    dst.assign(src.size(), 0);
    const int n = axis == 0 ? w : axis == 1 ? h : frames;
    const long long stride = axis == 0 ? 1 : axis == 1 ? w : static_cast<long long>(w) * h;
    for (int t = 0; t < frames; ++t)
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                const long long i = (static_cast<long long>(t) * h + y) * w + x;
                const int pos = axis == 0 ? x : axis == 1 ? y : t;
                const int lo = std::max(0, pos - r), hi = std::min(n - 1, pos + r);
                for (int k = lo; k <= hi; ++k)
                    if (src[static_cast<std::size_t>(i + (k - pos) * stride)]) {
                        dst[static_cast<std::size_t>(i)] = 1;
                        break;
                    }
            }
}

/// Targets (a hole voxel in the patch, clipped to the volume), valid centres (the patch inside the
/// volume, no hole voxel in it) and the fallback.
void finish_masks(HostLevel& l, const Pm3Patch p) {
    std::vector<std::uint8_t> a, b;
    any_along(l.hole, a, l.width, l.height, l.frames, 0, p.rx);
    any_along(a, b, l.width, l.height, l.frames, 1, p.rx);
    any_along(b, l.target, l.width, l.height, l.frames, 2, p.rt);
    l.valid.assign(l.target.size(), 0);
    l.fallback = -1;
    for (int t = p.rt; t + p.rt < l.frames; ++t)
        for (int y = p.rx; y + p.rx < l.height; ++y)
            for (int x = p.rx; x + p.rx < l.width; ++x) {
                const long long i = (static_cast<long long>(t) * l.height + y) * l.width + x;
                if (l.target[static_cast<std::size_t>(i)]) continue;
                l.valid[static_cast<std::size_t>(i)] = 1;
                if (l.fallback < 0 || i < l.fallback) l.fallback = static_cast<std::int32_t>(i);
            }
}

/// The longer side of the box of hole pixels over all frames (0 without any).
int hole_span(const HostLevel& l) {
    int x0 = l.width, y0 = l.height, x1 = -1, y1 = -1;
    for (int t = 0; t < l.frames; ++t)
        for (int y = 0; y < l.height; ++y)
            for (int x = 0; x < l.width; ++x)
                if (l.hole[(static_cast<std::size_t>(t) * l.height + y) * l.width + x]) {
                    x0 = std::min(x0, x), x1 = std::max(x1, x);
                    y0 = std::min(y0, y), y1 = std::max(y1, y);
                }
    return x1 < 0 ? 0 : std::max(x1 - x0 + 1, y1 - y0 + 1);
}

/// Coarse voxel (x, y, t) from its up to 2 × 2 children in frame t: the rounded mean colour; hole
/// if any child is.
HostLevel downsample(const HostLevel& f) {
    HostLevel c;
    c.width = (f.width + 1) / 2;
    c.height = (f.height + 1) / 2;
    c.frames = f.frames;
    c.color.resize(static_cast<std::size_t>(c.size()));
    c.hole.assign(static_cast<std::size_t>(c.size()), 0);
    for (int t = 0; t < c.frames; ++t)
        for (int y = 0; y < c.height; ++y)
            for (int x = 0; x < c.width; ++x) {
                unsigned r = 0, g = 0, b = 0, a = 0, n = 0;
                std::uint8_t hole = 0;
                for (int dy = 0; dy < 2; ++dy)
                    for (int dx = 0; dx < 2; ++dx) {
                        const int fx = 2 * x + dx, fy = 2 * y + dy;
                        if (fx >= f.width || fy >= f.height) continue;
                        const std::size_t i =
                            (static_cast<std::size_t>(t) * f.height + fy) * f.width + fx;
                        const Rgba8 v = f.color[i];
                        r += v.r, g += v.g, b += v.b, a += v.a, ++n;
                        hole |= f.hole[i];
                    }
                const std::size_t o = (static_cast<std::size_t>(t) * c.height + y) * c.width + x;
                c.color[o] = Rgba8{static_cast<std::uint8_t>((r + n / 2) / n),
                                   static_cast<std::uint8_t>((g + n / 2) / n),
                                   static_cast<std::uint8_t>((b + n / 2) / n),
                                   static_cast<std::uint8_t>((a + n / 2) / n)};
                c.hole[o] = hole;
            }
    return c;
}

/// The coarsest hole's start: peeled in from its border, layer by layer (Jacobi), each voxel the
/// rounded mean of its known 6-neighbours (x, y and t). Smooth, and the same in neighbouring
/// frames where their surroundings are.
void peel_start(HostLevel& l) {
    std::vector<std::uint8_t> known(l.hole.size());
    for (std::size_t i = 0; i < known.size(); ++i) known[i] = l.hole[i] ? 0 : 1;
    const long long plane = static_cast<long long>(l.width) * l.height;
    for (bool changed = true; changed;) {
        changed = false;
        std::vector<std::uint8_t> next = known;
        for (int t = 0; t < l.frames; ++t)
            for (int y = 0; y < l.height; ++y)
                for (int x = 0; x < l.width; ++x) {
                    const long long i = t * plane + static_cast<long long>(y) * l.width + x;
                    if (known[static_cast<std::size_t>(i)]) continue;
                    const int nx[6] = {x - 1, x + 1, x, x, x, x};
                    const int ny[6] = {y, y, y - 1, y + 1, y, y};
                    const int nt[6] = {t, t, t, t, t - 1, t + 1};
                    unsigned r = 0, g = 0, b = 0, n = 0;
                    for (int k = 0; k < 6; ++k) {
                        if (nx[k] < 0 || ny[k] < 0 || nt[k] < 0 || nx[k] >= l.width ||
                            ny[k] >= l.height || nt[k] >= l.frames)
                            continue;
                        const std::size_t q = static_cast<std::size_t>(
                            nt[k] * plane + static_cast<long long>(ny[k]) * l.width + nx[k]);
                        if (!known[q]) continue;
                        r += l.color[q].r, g += l.color[q].g, b += l.color[q].b, ++n;
                    }
                    if (n == 0) continue;
                    Rgba8& v = l.color[static_cast<std::size_t>(i)];
                    v.r = static_cast<std::uint8_t>((r + n / 2) / n);
                    v.g = static_cast<std::uint8_t>((g + n / 2) / n);
                    v.b = static_cast<std::uint8_t>((b + n / 2) / n);
                    next[static_cast<std::size_t>(i)] = 1;
                    changed = true;
                }
        known.swap(next);
    }
}

}  // namespace

Pm3Level HostLevel::view() {
    const auto n = static_cast<std::size_t>(size());
    for (int b = 0; b < 2; ++b) {
        if (nnf[b].size() != n) nnf[b].assign(n, -1);
        if (dist[b].size() != n) dist[b].assign(n, 0);
    }
    Pm3Level l;
    l.color = color.data();
    l.hole = hole.data();
    l.valid = valid.data();
    l.target = target.data();
    for (int b = 0; b < 2; ++b) {
        l.nnf[b] = nnf[b].data();
        l.dist[b] = dist[b].data();
    }
    l.width = width;
    l.height = height;
    l.frames = frames;
    l.fallback = fallback;
    return l;
}

Problem prepare(const std::vector<ImageRgba8>& frames, const std::vector<Mask>& holes,
                const PatchMatch3dParams& params) {
    check_params(params);
    if (frames.empty()) invalid("no frames to fill");
    const int w = frames[0].width(), h = frames[0].height();
    const int n = static_cast<int>(frames.size());
    if (static_cast<int>(holes.size()) != n)
        invalid("the 3-D fill needs one mask a frame: " + std::to_string(holes.size()) +
                " masks for " + std::to_string(n) + " frames");
    for (int t = 0; t < n; ++t) {
        if (frames[t].width() != w || frames[t].height() != h)
            invalid("frame " + std::to_string(t) + " is not " + std::to_string(w) + "×" +
                    std::to_string(h) + " like the first");
        if (holes[t].width() != w || holes[t].height() != h)
            invalid("the mask of frame " + std::to_string(t) + " is not " + std::to_string(w) +
                    "×" + std::to_string(h) + " like the frames");
    }
    if (n < params.patch_frames)
        invalid("the 3-D patch spans " + std::to_string(params.patch_frames) +
                " frames; the clip has " + std::to_string(n));
    Problem pr;
    pr.patch = Pm3Patch{params.patch / 2, params.patch_frames / 2};
    int x0 = w, y0 = h, x1 = -1, y1 = -1;
    for (int t = 0; t < n; ++t)
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                if (holes[t].at(x, y)) {
                    x0 = std::min(x0, x), x1 = std::max(x1, x);
                    y0 = std::min(y0, y), y1 = std::max(y1, y);
                }
    if (x1 < 0) return pr;  // nothing to fill
    const int m =
        params.margin >= 0 ? params.margin : std::max(32, std::max(x1 - x0 + 1, y1 - y0 + 1));
    pr.crop_x = std::max(0, x0 - m);
    pr.crop_y = std::max(0, y0 - m);
    HostLevel l0;
    l0.width = std::min(w - 1, x1 + m) - pr.crop_x + 1;
    l0.height = std::min(h - 1, y1 + m) - pr.crop_y + 1;
    l0.frames = n;
    if (l0.size() >= std::numeric_limits<std::int32_t>::max())
        invalid(
            "the 3-D fill's volume around the hole is too large (over 2^31 voxels); fill fewer "
            "frames at a time");
    l0.color.resize(static_cast<std::size_t>(l0.size()));
    l0.hole.resize(static_cast<std::size_t>(l0.size()));
    for (int t = 0; t < n; ++t)
        for (int y = 0; y < l0.height; ++y)
            for (int x = 0; x < l0.width; ++x) {
                const std::size_t i = (static_cast<std::size_t>(t) * l0.height + y) * l0.width + x;
                l0.color[i] = frames[t].at(pr.crop_x + x, pr.crop_y + y);
                l0.hole[i] = holes[t].at(pr.crop_x + x, pr.crop_y + y) ? 1 : 0;
            }
    const int side = params.patch;
    finish_masks(l0, pr.patch);
    if (l0.fallback < 0)
        invalid("the 3-D fill finds no source patch: every " + std::to_string(side) + "×" +
                std::to_string(side) + "×" + std::to_string(params.patch_frames) +
                " patch around the hole touches it");
    pr.levels.push_back(std::move(l0));
    // Deeper while the next level's hole still spans 1.5 patches and sources have room.
    for (int span = hole_span(pr.levels[0]);
         static_cast<int>(pr.levels.size()) < params.max_levels;) {
        const HostLevel& f = pr.levels.back();
        span = (span + 1) / 2;
        if (2 * span < 3 * side || (f.width + 1) / 2 < 2 * side || (f.height + 1) / 2 < 2 * side)
            break;
        HostLevel c = downsample(f);
        finish_masks(c, pr.patch);
        if (c.fallback < 0) break;  // no source at that scale: start one level finer
        pr.levels.push_back(std::move(c));
    }
    peel_start(pr.levels.back());
    return pr;
}

int iterations_at(const int level, const int levels, const PatchMatch3dParams& params) {
    return level == levels - 1 ? 2 * params.iterations : params.iterations;
}

int run_schedule(Backend& backend, const Problem& problem, const PatchMatch3dParams& params,
                 const PatchMatch3dCancelFn& cancel) {
    const int levels = static_cast<int>(problem.levels.size());
    const Pm3Patch patch = problem.patch;
    int buf = 0;
    for (int level = levels - 1; level >= 0; --level) {
        const HostLevel& l = problem.levels[static_cast<std::size_t>(level)];
        const bool coarsest = level == levels - 1;
        if (coarsest) {
            backend.init(level, patch, params.seed);
        } else {
            backend.upsample(level, buf, patch, params.seed);
            backend.vote(level, 0, patch, false);  // the parent's field sets the hole's start
        }
        buf = 0;
        const int iterations = iterations_at(level, levels, params);
        for (int it = 0; it < iterations; ++it) {
            for (int k = 0; k < 3; ++k) {
                Pm3Pass pass;
                pass.src = buf;
                pass.dst = 1 - buf;
                pass.patch = patch;
                pass.step = patchmatch3d_terms::kJumpSteps[k];
                pass.recompute = k == 0;
                pass.random = k == 2;
                pass.span =
                    coarsest ? std::max(l.width, l.height) : patchmatch3d_terms::kRefineSpan;
                pass.span_t = coarsest ? l.frames : patchmatch3d_terms::kRefineSpanT;
                pass.seed = params.seed;
                pass.level = level;
                pass.iteration = it;
                backend.pass(level, pass);
                buf = 1 - buf;
            }
            backend.vote(level, buf, patch, level == 0 && it == iterations - 1);
            if (cancel && !cancel()) throw Error(ErrorCode::Cancelled, "cancelled");
        }
    }
    return buf;
}

}  // namespace lacuna::ops::pm3

namespace lacuna::ops {

PatchMatch3dResult patchmatch3d_fill(const std::vector<ImageRgba8>& frames,
                                     const std::vector<Mask>& holes,
                                     const PatchMatch3dParams& params,
                                     const PatchMatch3dImplementation implementation,
                                     const PatchMatch3dCancelFn& cancel) {
    pm3::Problem problem = pm3::prepare(frames, holes, params);
    PatchMatch3dResult r;
    r.frames = frames;
    if (problem.levels.empty()) return r;
    std::unique_ptr<pm3::Backend> backend =
        implementation == PatchMatch3dImplementation::Cuda   ? pm3::make_cuda_backend(problem)
        : implementation == PatchMatch3dImplementation::Fast ? pm3::make_fast_backend(problem)
                                                             : pm3::make_reference_backend(problem);
    const int buf = pm3::run_schedule(*backend, problem, params, cancel);
    std::vector<Rgba8> color;
    backend->finish(buf, color, r.nnf);
    const pm3::HostLevel& l0 = problem.levels[0];
    r.crop_x = problem.crop_x;
    r.crop_y = problem.crop_y;
    r.crop_w = l0.width;
    r.crop_h = l0.height;
    r.levels = static_cast<int>(problem.levels.size());
    for (int t = 0; t < l0.frames; ++t)
        for (int y = 0; y < l0.height; ++y)
            for (int x = 0; x < l0.width; ++x) {
                const std::size_t i = (static_cast<std::size_t>(t) * l0.height + y) * l0.width + x;
                if (!l0.hole[i]) continue;
                Rgba8& out = r.frames[static_cast<std::size_t>(t)].at(r.crop_x + x, r.crop_y + y);
                out.r = color[i].r, out.g = color[i].g, out.b = color[i].b;
            }
    return r;
}

}  // namespace lacuna::ops
