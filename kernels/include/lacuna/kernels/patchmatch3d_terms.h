// Spatio-temporal PatchMatch completion (Newson, Almansa, Fradet, Gousseau & Pérez 2014, "Video
// inpainting of complex scenes"): every per-voxel step, written once for the fast CPU path and the
// CUDA kernels (the reference, ops/patchmatch3d/reference.cpp, writes them out again plainly).
//
// A volume is frames × height × width voxels (index (t · height + y) · width + x). Patches are
// (2 rx + 1)² × (2 rt + 1) voxels. The nearest-neighbour field maps every target voxel (one whose
// patch holds a hole voxel) to a source centre whose whole patch lies in the volume and holds no
// hole voxel. Both backends run the same Jacobi schedule (each pass reads one field buffer and
// writes the other), and everything is integer: the hashed random numbers (patchmatch_terms'
// scheme), the distance, the vote weights and the rounded vote. So the field and the filled
// voxels are the same on the CPU and the GPU, with no tolerance.
//
// Shared with CUDA (C++17, no std:: containers).
#pragma once

#include <lacuna/core/pixel.hpp>
#include <lacuna/kernels/patchmatch_terms.h>

#include <cstdint>

namespace lacuna::patchmatch3d_terms {

using patchmatch_terms::pm_hash;
using patchmatch_terms::pm_uniform;

/// Random tries for an initial source before the level's fallback (its first valid centre).
inline constexpr int kInitTries = 8;
/// Random search below the coarsest level: spatial windows from ± this (level pixels) down, and
/// ± kRefineSpanT frames; the coarsest level searches the whole volume.
inline constexpr int kRefineSpan = 16;
inline constexpr int kRefineSpanT = 2;
/// Jump-flooding steps of one EM iteration; the last pass also does the random search.
inline constexpr int kJumpSteps[3] = {4, 2, 1};

/// One pyramid level: dense arrays over the volume (host vectors or device memory). The pyramid
/// halves width and height (rounding up) and keeps the frames.
struct Pm3Level {
    Rgba8* color = nullptr;
    const std::uint8_t* hole = nullptr;    ///< 1: to be synthesised
    const std::uint8_t* valid = nullptr;   ///< 1: may be a source centre
    const std::uint8_t* target = nullptr;  ///< 1: the field is defined here
    std::int32_t* nnf[2] = {nullptr, nullptr};
    std::uint32_t* dist[2] = {nullptr, nullptr};
    int width = 0, height = 0, frames = 0;
    std::int32_t fallback = -1;  ///< the first valid centre (scan order)
};

/// The patch: radius rx in x and y, rt in t.
struct Pm3Patch {
    int rx = 2, rt = 1;
};

LACUNA_HD long long pm3_index(const Pm3Level& l, const int x, const int y, const int t) {
    return (static_cast<long long>(t) * l.height + y) * l.width + x;
}

LACUNA_HD int pm3_min(const int a, const int b) {
    return a < b ? a : b;
}
LACUNA_HD int pm3_max(const int a, const int b) {
    return a > b ? a : b;
}

/// The hash's second coordinate: the row of the voxel in the stacked frames.
LACUNA_HD int pm3_row(const Pm3Level& l, const int y, const int t) {
    return t * l.height + y;
}

/// Whether (x, y, t) may be a source centre.
LACUNA_HD bool pm3_source_ok(const Pm3Level& l, const Pm3Patch p, const int x, const int y,
                             const int t) {
    if (x < p.rx || y < p.rx || t < p.rt || x + p.rx >= l.width || y + p.rx >= l.height ||
        t + p.rt >= l.frames)
        return false;
    return l.valid[pm3_index(l, x, y, t)] != 0;
}

/// Squared RGB difference of two voxels.
LACUNA_HD std::uint32_t pm3_pixel_distance(const Rgba8 a, const Rgba8 b) {
    const int dr = a.r - b.r, dg = a.g - b.g, db = a.b - b.b;
    return static_cast<std::uint32_t>(dr * dr + dg * dg + db * db);
}

/// Sum of squared RGB differences between the target patch at (tx, ty, tt) and the source patch
/// at (sx, sy, st) (a valid centre, so wholly inside), over the target voxels inside the volume.
/// Stops once the sum reaches `bound` after a row (the caller only keeps a strictly smaller one,
/// so the early stop decides as the full sum would).
LACUNA_HD std::uint32_t pm3_distance(const Pm3Level& l, const Pm3Patch p, const int tx,
                                     const int ty, const int tt, const int sx, const int sy,
                                     const int st, const std::uint32_t bound) {
    const int x0 = pm3_max(-p.rx, -tx), x1 = pm3_min(p.rx, l.width - 1 - tx);
    const int y0 = pm3_max(-p.rx, -ty), y1 = pm3_min(p.rx, l.height - 1 - ty);
    const int t0 = pm3_max(-p.rt, -tt), t1 = pm3_min(p.rt, l.frames - 1 - tt);
    std::uint32_t sum = 0;
    for (int dt = t0; dt <= t1; ++dt)
        for (int dy = y0; dy <= y1; ++dy) {
            const long long trow = pm3_index(l, tx, ty + dy, tt + dt);
            const long long srow = pm3_index(l, sx, sy + dy, st + dt);
            for (int dx = x0; dx <= x1; ++dx)
                sum += pm3_pixel_distance(l.color[trow + dx], l.color[srow + dx]);
            if (sum >= bound) return sum;
        }
    return sum;
}

/// A deterministic initial source for target (x, y, t): hashed random centres, then the fallback.
LACUNA_HD std::int32_t pm3_random_source(const Pm3Level& l, const Pm3Patch p,
                                         const std::uint32_t seed, const int level, const int x,
                                         const int y, const int t) {
    const int row = pm3_row(l, y, t);
    for (int k = 0; k < kInitTries; ++k) {
        const int sx =
            pm_uniform(pm_hash(seed, level, -1, x, row, 3 * k), p.rx, l.width - 1 - p.rx);
        const int sy =
            pm_uniform(pm_hash(seed, level, -1, x, row, 3 * k + 1), p.rx, l.height - 1 - p.rx);
        const int st =
            pm_uniform(pm_hash(seed, level, -1, x, row, 3 * k + 2), p.rt, l.frames - 1 - p.rt);
        if (pm3_source_ok(l, p, sx, sy, st))
            return static_cast<std::int32_t>(pm3_index(l, sx, sy, st));
    }
    return l.fallback;
}

/// The coarsest level's initial field (buffer 0): hole voxels keep the onion peel's source (set
/// on the host), other targets get random sources, -1 elsewhere. The first pass measures the
/// distances.
LACUNA_HD void pm3_init_pixel(const Pm3Level& l, const Pm3Patch p, const std::uint32_t seed,
                              const int level, const int x, const int y, const int t) {
    const long long i = pm3_index(l, x, y, t);
    l.dist[0][i] = 0;
    if (l.hole[i]) return;
    l.nnf[0][i] = l.target[i] ? pm3_random_source(l, p, seed, level, x, y, t) : -1;
}

/// A finer level's initial field (buffer 0) from the coarse one (buffer `coarse_buf`): the
/// parent's source, doubled, plus this voxel's offset in its parent (same frame), if valid here;
/// else a random one. The parent's distance stands in for the first vote's weights.
LACUNA_HD void pm3_upsample_pixel(const Pm3Level& fine, const Pm3Level& coarse,
                                  const int coarse_buf, const Pm3Patch p, const std::uint32_t seed,
                                  const int level, const int x, const int y, const int t) {
    const long long i = pm3_index(fine, x, y, t);
    if (!fine.target[i]) {
        fine.nnf[0][i] = -1;
        fine.dist[0][i] = 0;
        return;
    }
    const long long parent = pm3_index(coarse, x / 2, y / 2, t);
    const std::int32_t q = coarse.nnf[coarse_buf][parent];
    std::int32_t source = -1;
    std::uint32_t dist = 0;
    if (q >= 0) {
        dist = coarse.dist[coarse_buf][parent];
        const int plane = coarse.width * coarse.height;
        const int qt = q / plane, qy = q % plane / coarse.width, qx = q % coarse.width;
        const int sx = pm3_min(pm3_max(2 * qx + (x & 1), p.rx), fine.width - 1 - p.rx);
        const int sy = pm3_min(pm3_max(2 * qy + (y & 1), p.rx), fine.height - 1 - p.rx);
        if (pm3_source_ok(fine, p, sx, sy, qt))
            source = static_cast<std::int32_t>(pm3_index(fine, sx, sy, qt));
    }
    if (source < 0) source = pm3_random_source(fine, p, seed, level, x, y, t);
    fine.nnf[0][i] = source;
    fine.dist[0][i] = dist;
}

struct Pm3Pass {
    int src = 0;  ///< field buffer read
    int dst = 1;  ///< field buffer written
    Pm3Patch patch;
    int step = 1;            ///< jump: the 6 neighbours at ± step in x, y and t
    bool recompute = false;  ///< the volume changed since the distances were measured
    bool random = false;     ///< then the random search around the best
    int span = 1;            ///< the random search's first window: ± span pixels ...
    int span_t = 1;          ///< ... and ± span_t frames
    std::uint32_t seed = 1;
    int level = 0;
    int iteration = 0;  ///< within the level
};

/// One target voxel of a pass (Jacobi: reads buffer src only, writes dst). The candidates, in a
/// fixed order: the current source; the 6 neighbours' sources (−x, +x, −y, +y, −t, +t at the
/// jump) shifted back; then random centres in windows halving around the best so far. Strictly
/// better wins; a candidate equal to the best is not measured again.
LACUNA_HD void pm3_pass_pixel(const Pm3Level& l, const Pm3Pass& pass, const int x, const int y,
                              const int t) {
    const long long i = pm3_index(l, x, y, t);
    std::int32_t best = l.nnf[pass.src][i];
    if (best < 0) {
        l.nnf[pass.dst][i] = -1;
        l.dist[pass.dst][i] = 0;
        return;
    }
    const Pm3Patch p = pass.patch;
    const int w = l.width, plane = l.width * l.height;
    int bx = best % w, by = best % plane / w, bt = best / plane;
    std::uint32_t bd =
        pass.recompute ? pm3_distance(l, p, x, y, t, bx, by, bt, 0xffffffffU) : l.dist[pass.src][i];
    const int s = pass.step;
    const int jx[6] = {-s, s, 0, 0, 0, 0};
    const int jy[6] = {0, 0, -s, s, 0, 0};
    const int jt[6] = {0, 0, 0, 0, -s, s};
    for (int k = 0; k < 6; ++k) {
        const int nx = x + jx[k], ny = y + jy[k], nt = t + jt[k];
        if (nx < 0 || ny < 0 || nt < 0 || nx >= w || ny >= l.height || nt >= l.frames) continue;
        const std::int32_t q = l.nnf[pass.src][pm3_index(l, nx, ny, nt)];
        if (q < 0) continue;
        const int sx = q % w - jx[k], sy = q % plane / w - jy[k], st = q / plane - jt[k];
        if (!pm3_source_ok(l, p, sx, sy, st)) continue;
        const std::int32_t c = static_cast<std::int32_t>(pm3_index(l, sx, sy, st));
        if (c == best) continue;
        const std::uint32_t d = pm3_distance(l, p, x, y, t, sx, sy, st, bd);
        if (d < bd) best = c, bd = d, bx = sx, by = sy, bt = st;
    }
    if (pass.random) {
        const int row = pm3_row(l, y, t);
        int k = 0;
        for (int span = pass.span; span >= 1; span /= 2, ++k) {
            const int span_t = pm3_min(span, pass.span_t);
            const int sx = pm_uniform(pm_hash(pass.seed, pass.level, pass.iteration, x, row, 3 * k),
                                      bx - span, bx + span);
            const int sy =
                pm_uniform(pm_hash(pass.seed, pass.level, pass.iteration, x, row, 3 * k + 1),
                           by - span, by + span);
            const int st =
                pm_uniform(pm_hash(pass.seed, pass.level, pass.iteration, x, row, 3 * k + 2),
                           bt - span_t, bt + span_t);
            if (!pm3_source_ok(l, p, sx, sy, st)) continue;
            const std::int32_t c = static_cast<std::int32_t>(pm3_index(l, sx, sy, st));
            if (c == best) continue;
            const std::uint32_t d = pm3_distance(l, p, x, y, t, sx, sy, st, bd);
            if (d < bd) best = c, bd = d, bx = sx, by = sy, bt = st;
        }
    }
    l.nnf[pass.dst][i] = best;
    l.dist[pass.dst][i] = bd;
}

/// Integer vote weight: 2^16 / (16 + mean squared error per voxel), 1..4096 (the image
/// PatchMatch's, patchmatch_terms::pm_weight).
LACUNA_HD std::uint32_t pm3_weight(const std::uint32_t dist, const Pm3Patch p) {
    const std::uint32_t area =
        static_cast<std::uint32_t>((2 * p.rx + 1) * (2 * p.rx + 1) * (2 * p.rt + 1));
    const std::uint32_t w = 65536U / (16U + dist / area);
    return w == 0 ? 1U : w;
}

/// Hole voxel (x, y, t) gathers what every target patch covering it proposes (the voxel at the
/// same offset in its source patch): the weighted mean with rounding, or with `winner_take_all`
/// the proposal of the smallest distance (first in (dt, dy, dx) scan order on ties). Sources
/// are never hole voxels, so voting in place reads nothing it writes.
LACUNA_HD void pm3_vote_pixel(const Pm3Level& l, const int buf, const Pm3Patch p,
                              const bool winner_take_all, const int x, const int y, const int t) {
    const long long i = pm3_index(l, x, y, t);
    if (!l.hole[i]) return;
    const int w = l.width, plane = l.width * l.height;
    unsigned long long sr = 0, sg = 0, sb = 0, sw = 0;
    std::uint32_t best_d = 0;
    long long best_at = -1;
    for (int dt = -p.rt; dt <= p.rt; ++dt) {
        const int ct = t - dt;
        if (ct < 0 || ct >= l.frames) continue;
        for (int dy = -p.rx; dy <= p.rx; ++dy) {
            const int cy = y - dy;
            if (cy < 0 || cy >= l.height) continue;
            for (int dx = -p.rx; dx <= p.rx; ++dx) {
                const int cx = x - dx;
                if (cx < 0 || cx >= w) continue;
                const long long c = pm3_index(l, cx, cy, ct);
                const std::int32_t q = l.nnf[buf][c];
                if (q < 0) continue;
                const long long s = pm3_index(l, q % w + dx, q % plane / w + dy, q / plane + dt);
                const std::uint32_t d = l.dist[buf][c];
                if (winner_take_all) {
                    if (best_at < 0 || d < best_d) best_at = s, best_d = d;
                    continue;
                }
                const std::uint32_t wt = pm3_weight(d, p);
                const Rgba8 v = l.color[s];
                sr += static_cast<unsigned long long>(wt) * v.r;
                sg += static_cast<unsigned long long>(wt) * v.g;
                sb += static_cast<unsigned long long>(wt) * v.b;
                sw += wt;
            }
        }
    }
    Rgba8& out = l.color[i];
    if (winner_take_all) {
        if (best_at < 0) return;
        const Rgba8 v = l.color[best_at];
        out.r = v.r, out.g = v.g, out.b = v.b;
        return;
    }
    if (sw == 0) return;
    out.r = static_cast<std::uint8_t>((sr + sw / 2) / sw);
    out.g = static_cast<std::uint8_t>((sg + sw / 2) / sw);
    out.b = static_cast<std::uint8_t>((sb + sw / 2) / sw);
}

}  // namespace lacuna::patchmatch3d_terms
