// The spatio-temporal PatchMatch's problem and schedule, shared by the three backends, and the
// entry point.
#include "common.hpp"

#include <lacuna/core/error.hpp>
#include <lacuna/core/parallel.hpp>

#include <algorithm>
#include <limits>
#include <string>

namespace lacuna::ops::pm3 {
namespace {

using patchmatch_terms::pm_hash;
using patchmatch_terms::pm_uniform;

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

/// Candidates of the onion peel: random centres over the level, before windows around the best.
constexpr int kOnionTries = 128;

/// The coarsest hole's start (Newson et al.'s onion peel, as the image PatchMatch's): the hole
/// is filled layer by layer from its border; each voxel of a layer (unknown, with a known
/// neighbour in its frame or the frames beside it) takes the centre colour of the source whose
/// patch best matches its patch's known voxels, and that source as its initial field. Known
/// voxels are the same for every candidate of a voxel, so raw sums compare. Candidates, in
/// order: the known neighbours' sources shifted back, hashed random centres, then windows
/// halving around the best; strictly better wins. Jacobi: a layer reads only earlier layers.
/// Done once on the host for every backend, so all start alike. (A smooth start here, a mean
/// peeled in from the border, was matched by flat wall: 10.2 dB on the still logo clip.)
void onion_start(HostLevel& l, const Pm3Patch p, const std::uint32_t seed, const int level) {
    const Pm3Level v = l.view();
    std::vector<std::uint8_t> known(l.hole.size()), next;
    for (std::size_t i = 0; i < known.size(); ++i) known[i] = l.hole[i] ? 0 : 1;
    const int w = l.width, h = l.height, plane = w * h;
    const auto distance = [&](const int x, const int y, const int t, const int sx, const int sy,
                              const int st, const std::uint32_t bound) {
        std::uint32_t sum = 0;
        for (int dt = -p.rt; dt <= p.rt; ++dt) {
            if (t + dt < 0 || t + dt >= l.frames) continue;
            for (int dy = -p.rx; dy <= p.rx; ++dy) {
                if (y + dy < 0 || y + dy >= h) continue;
                for (int dx = -p.rx; dx <= p.rx; ++dx) {
                    if (x + dx < 0 || x + dx >= w) continue;
                    const long long a = patchmatch3d_terms::pm3_index(v, x + dx, y + dy, t + dt);
                    if (!known[static_cast<std::size_t>(a)]) continue;
                    const long long b = patchmatch3d_terms::pm3_index(v, sx + dx, sy + dy, st + dt);
                    sum += patchmatch3d_terms::pm3_pixel_distance(v.color[a], v.color[b]);
                }
                if (sum >= bound) return sum;
            }
        }
        return sum;
    };
    const int nx[10] = {-1, 0, 1, -1, 1, -1, 0, 1, 0, 0};
    const int ny[10] = {-1, -1, -1, 0, 0, 1, 1, 1, 0, 0};
    const int nt[10] = {0, 0, 0, 0, 0, 0, 0, 0, -1, 1};
    for (int layer = 0;; ++layer) {
        next = known;
        std::vector<std::uint8_t> filled(worker_count(), 0);  // per worker: a voxel filled
        const int tag = -2 - layer;
        parallel_chunks(l.frames * h, [&](const int begin, const int end, const int worker) {
            for (int row = begin; row < end; ++row) {
                const int t = row / h, y = row % h;
                for (int x = 0; x < w; ++x) {
                    const std::size_t i = static_cast<std::size_t>(t) * plane + y * w + x;
                    if (known[i]) continue;
                    bool front = false;
                    for (int k = 0; k < 10 && !front; ++k) {
                        const int qx = x + nx[k], qy = y + ny[k], qt = t + nt[k];
                        front = qx >= 0 && qy >= 0 && qt >= 0 && qx < w && qy < h &&
                                qt < l.frames &&
                                known[static_cast<std::size_t>(qt) * plane + qy * w + qx];
                    }
                    if (!front) continue;
                    std::int32_t best = -1;
                    std::uint32_t bd = 0xffffffffU;
                    int bx = 0, by = 0, bt = 0;
                    const auto consider = [&](const int sx, const int sy, const int st) {
                        if (!patchmatch3d_terms::pm3_source_ok(v, p, sx, sy, st)) return;
                        const auto c =
                            static_cast<std::int32_t>(patchmatch3d_terms::pm3_index(v, sx, sy, st));
                        if (c == best) return;
                        const std::uint32_t d = distance(x, y, t, sx, sy, st, bd);
                        if (d < bd) best = c, bd = d, bx = sx, by = sy, bt = st;
                    };
                    for (int k = 0; k < 10; ++k) {
                        const int qx = x + nx[k], qy = y + ny[k], qt = t + nt[k];
                        if (qx < 0 || qy < 0 || qt < 0 || qx >= w || qy >= h || qt >= l.frames)
                            continue;
                        const std::size_t q = static_cast<std::size_t>(qt) * plane + qy * w + qx;
                        if (!known[q] || !l.hole[q] || l.nnf[0][q] < 0) continue;
                        const std::int32_t s = l.nnf[0][q];
                        consider(s % w - nx[k], s % plane / w - ny[k], s / plane - nt[k]);
                    }
                    const int r = t * h + y;
                    for (int k = 0; k < kOnionTries; ++k)
                        consider(
                            pm_uniform(pm_hash(seed, level, tag, x, r, 3 * k), p.rx, w - 1 - p.rx),
                            pm_uniform(pm_hash(seed, level, tag, x, r, 3 * k + 1), p.rx,
                                       h - 1 - p.rx),
                            pm_uniform(pm_hash(seed, level, tag, x, r, 3 * k + 2), p.rt,
                                       l.frames - 1 - p.rt));
                    int k = kOnionTries;
                    for (int span = std::max(w, h) / 4; best >= 0 && span >= 1; span /= 2, ++k) {
                        const int span_t = std::min(span, l.frames);
                        consider(pm_uniform(pm_hash(seed, level, tag, x, r, 3 * k), bx - span,
                                            bx + span),
                                 pm_uniform(pm_hash(seed, level, tag, x, r, 3 * k + 1), by - span,
                                            by + span),
                                 pm_uniform(pm_hash(seed, level, tag, x, r, 3 * k + 2), bt - span_t,
                                            bt + span_t));
                    }
                    if (best < 0) best = l.fallback;
                    const Rgba8 c = l.color[static_cast<std::size_t>(best)];
                    Rgba8& out = l.color[i];
                    out.r = c.r, out.g = c.g, out.b = c.b;
                    l.nnf[0][i] = best;
                    next[i] = 1;
                    filled[static_cast<std::size_t>(worker)] = 1;
                }
            }
        });
        known.swap(next);
        if (std::find(filled.begin(), filled.end(), 1) == filled.end()) break;
    }
}

}  // namespace

Pm3Level HostLevel::view() {
    const auto n = static_cast<std::size_t>(size());
    for (int b = 0; b < 2; ++b) {
        if (nnf[b].size() != n) nnf[b].assign(n, -1);
        if (dist[b].size() != n) dist[b].assign(n, 0);
    }
    return level_view(*this);
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
    onion_start(pr.levels.back(), pr.patch, params.seed, static_cast<int>(pr.levels.size()) - 1);
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
