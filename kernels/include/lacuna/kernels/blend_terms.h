// The gradient-domain blend of a finished PatchMatch fill, per node: what the host's blend_fill
// (engine/ops/inpaint/blend.cpp) and the device's kernels (kernels/blend.cu) both run, node by
// node, in the same order of operations, so both give the same bytes.
//
// The system: each hole pixel's steps to its four neighbours should be the steps its source had
// there (between two hole pixels, the mean of their two sources' steps), with the known pixels
// around the hole fixed; a step is weighted down where the fill's own step and the source's
// disagree by tens of levels (structure that does not continue, which spreading would smear).
// Solved by conjugate gradients preconditioned with a multigrid V-cycle: every level is a
// regular grid over a box (level L + 1 merges level L's 2 × 2 blocks, Galerkin with piecewise
// constant prolongation, so every level stays symmetric positive definite), smoothed by
// red-black Gauss-Seidel. Every node of one colour depends only on nodes of the other, so the
// device's parallel half-sweep and the host's loop compute the same numbers; dot products sum
// in one fixed tree (kDotThreads threads of kDotPerThread elements each, then a halving tree,
// then the blocks in order) on both.
#pragma once

#include <lacuna/core/pixel.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>

namespace lacuna::blend_terms {

constexpr int kDotThreads = 256;
constexpr int kDotPerThread = 4;
constexpr int kDotChunk = kDotThreads * kDotPerThread;
/// The grids stop coarsening at this many nodes; the coarsest is smoothed kCoarsestSweeps times.
constexpr int kCoarsestNodes = 64;
constexpr int kCoarsestSweeps = 16;

/// Neighbour k: −x, +x, −y, +y.
LACUNA_HD int step_x(const int k) {
    return k == 0 ? -1 : k == 1 ? 1 : 0;
}
LACUNA_HD int step_y(const int k) {
    return k == 2 ? -1 : k == 3 ? 1 : 0;
}

/// One multigrid level: a regular grid over a box of absolute coordinates (level L's node (x, y)
/// merges level 0's pixels (x << L ...)), every array `width × height` long, channel-major for
/// the three colour channels (`x[c * n + i]`).
struct BlendGrid {
    int x0 = 0, y0 = 0, width = 0, height = 0;
    std::uint8_t* active = nullptr;  ///< 1 = an unknown of the system
    double* weight = nullptr;        ///< 4 planes: weight[k * n + i] to neighbour k
    double* diag = nullptr;
    double* x = nullptr;  ///< 3 planes: the level's solution (level 0: the V-cycle's output z)
    double* b = nullptr;  ///< 3 planes: the level's right side (level 0: the CG residual r)
    [[nodiscard]] LACUNA_HD int size() const { return width * height; }
};

/// The filled image and its hole as the blend reads them (pitches in bytes), and its setting.
/// setup_node reads any type with these members: width, height, structure_levels and
/// edge_levels (in the values' units), channels (1 to 3 solved), in_hole(x, y) and value(x, y, c).
struct BlendPixels {
    const Rgba8* color = nullptr;
    std::size_t color_pitch = 0;
    const std::uint8_t* hole = nullptr;  ///< non-zero = filled
    std::size_t hole_pitch = 0;
    int width = 0, height = 0;
    double structure_levels = 24;
    double edge_levels = 4;
    static constexpr int channels = 3;
    [[nodiscard]] LACUNA_HD Rgba8 at(const int x, const int y) const {
        return reinterpret_cast<const Rgba8*>(reinterpret_cast<const unsigned char*>(color) +
                                              static_cast<std::size_t>(y) * color_pitch)[x];
    }
    [[nodiscard]] LACUNA_HD bool in_hole(const int x, const int y) const {
        return hole[static_cast<std::size_t>(y) * hole_pitch + x] != 0;
    }
    [[nodiscard]] LACUNA_HD double value(const int x, const int y, const int c) const {
        const Rgba8 p = at(x, y);
        return c == 0 ? p.r : c == 1 ? p.g : p.b;
    }
};

/// The CG's scalars per channel (on the device they stay there: no iteration waits for them).
struct BlendScalars {
    double rz[3], rr[3], stop[3], alpha[3], beta[3];
    int running[3];  ///< 0 once a channel has converged (or broken down): α stays 0 after
};

/// Which scalar a finished dot product becomes.
enum class BlendDot {
    StopFromRhs,  ///< stop = tolerance² × max(dot, 1)
    RrStart,      ///< rr = dot; running = rr > stop
    Rr,           ///< rr = dot
    RzStart,      ///< rz = dot
    PapToAlpha,   ///< α = rz / dot (dot ≤ 0: the channel stops)
    RzToBeta,     ///< β = dot / rz, rz = dot; the channel stops once rr ≤ stop
};

LACUNA_HD double channel(const Rgba8 p, const int c) {
    return c == 0 ? p.r : c == 1 ? p.g : p.b;
}

/// The node index of absolute (x, y) on g, -1 outside its box.
LACUNA_HD int node_at(const BlendGrid& g, const int x, const int y) {
    const int gx = x - g.x0, gy = y - g.y0;
    if (gx < 0 || gy < 0 || gx >= g.width || gy >= g.height) return -1;
    return gy * g.width + gx;
}

/// The unknown at (x, y), -1 if none.
LACUNA_HD int unknown_at(const BlendGrid& g, const int x, const int y) {
    const int j = node_at(g, x, y);
    return j >= 0 && g.active[j] ? j : -1;
}

/// (A v)_i of channel c at the unknown i = (x, y).
LACUNA_HD double apply_at(const BlendGrid& g, const double* v, const int c, const int i,
                          const int x, const int y) {
    const int n = g.size();
    double s = g.diag[i] * v[c * n + i];
    for (int k = 0; k < 4; ++k) {
        const int j = unknown_at(g, x + step_x(k), y + step_y(k));
        if (j >= 0) s -= g.weight[k * n + i] * v[c * n + j];
    }
    return s;
}

/// Level 0's node i: whether it is an unknown (a hole pixel with a source), its weights,
/// diagonal and right side, and its start value (the fill); zeros elsewhere, also in g.x and g.b.
/// `sources` holds the source pixel's index (y × width + x) per node, -1 for none. Channels from
/// p.channels up stay zero (not unknowns of any consequence: their right side is 0).
template <class Pixels>
LACUNA_HD void setup_node(const Pixels& p, const BlendGrid& g, const std::int32_t* sources,
                          double* rhs, double* f, const int i) {
    const int n = g.size();
    const int x = g.x0 + i % g.width, y = g.y0 + i / g.width;
    const int w = p.width, h = p.height;
    for (int c = 0; c < 3; ++c) {
        rhs[c * n + i] = 0;
        f[c * n + i] = 0;
        g.x[c * n + i] = 0;
        g.b[c * n + i] = 0;
    }
    for (int k = 0; k < 4; ++k) g.weight[k * n + i] = 0;
    g.diag[i] = 0;
    const std::int32_t s = sources[i];
    const bool active = p.in_hole(x, y) && s >= 0;
    g.active[i] = active ? 1 : 0;
    if (!active) return;
    // A pixel whose value the guidance may read: in the image, not a hole pixel (a source's
    // neighbour can be one where its patch touched the hole).
    const auto readable = [&](const int qx, const int qy) {
        return qx >= 0 && qy >= 0 && qx < w && qy < h && !p.in_hole(qx, qy);
    };
    const int sx = s % w, sy = s / w;
    double diag = 0;
    double b[3] = {0, 0, 0};
    for (int k = 0; k < 4; ++k) {
        const int dx = step_x(k), dy = step_y(k);
        const int qx = x + dx, qy = y + dy;
        if (qx < 0 || qy < 0 || qx >= w || qy >= h) continue;
        const int j = node_at(g, qx, qy);
        const std::int32_t t = j < 0 ? -1 : sources[j];
        const bool both = p.in_hole(qx, qy) && t >= 0;
        double v3[3] = {0, 0, 0};
        for (int c = 0; c < p.channels; ++c) {
            const double step = p.value(x, y, c) - p.value(qx, qy, c);
            // The source's own step from p's source to its neighbour; where it cannot be read,
            // the fill's step (no guidance change).
            double v = readable(sx + dx, sy + dy)
                           ? p.value(sx, sy, c) - p.value(sx + dx, sy + dy, c)
                           : step;
            if (both) {
                // Both in the hole: the mean of the two sources' steps (antisymmetric, so the
                // system stays symmetric).
                const int tx = t % w, ty = t / w;
                const double u = readable(tx - dx, ty - dy)
                                     ? p.value(tx - dx, ty - dy, c) - p.value(tx, ty, c)
                                     : step;
                v = 0.5 * (v + u);
            }
            v3[c] = v;
        }
        // How far the fill's step is from the source's: a few levels is a tone offset to
        // spread; tens of levels is structure that does not continue (a dark gap met by wood),
        // which spreading would smear into the fill as a new colour. The edge's weight falls off
        // with it (the same for every channel, and symmetric in p and q).
        double mismatch = 0;
        for (int c = 0; c < p.channels; ++c)
            mismatch = fmax(mismatch, fabs(p.value(x, y, c) - p.value(qx, qy, c) - v3[c]));
        const double kappa = p.structure_levels;
        double wt = kappa > 0 ? 1.0 / (1.0 + (mismatch / kappa) * (mismatch / kappa)) : 1.0;
        // A strong edge in the sources (the guidance step itself is large: a lattice bar's
        // side, a stripe) couples the two sides weakly, so a tone correction that one side
        // needs is not pushed across it into the other, where it would make colours that
        // neither side has. Also the same for every channel and symmetric in p and q.
        const double eps = p.edge_levels;
        if (eps > 0) {
            double edge = 0;
            for (int c = 0; c < p.channels; ++c) edge = fmax(edge, fabs(v3[c]));
            wt *= 1.0 / (1.0 + (edge / eps) * (edge / eps));
        }
        g.weight[k * n + i] = wt;
        diag += wt;
        for (int c = 0; c < p.channels; ++c)
            b[c] += wt * (v3[c] + (both ? 0.0 : p.value(qx, qy, c)));
    }
    g.diag[i] = diag;
    for (int c = 0; c < p.channels; ++c) {
        rhs[c * n + i] = b[c];
        f[c * n + i] = p.value(x, y, c);
    }
}

/// Coarse node I from its (up to four) children on `fine`: an unknown if any child is; its
/// diagonal the children's minus their inner weights (each inner edge seen from both ends),
/// its weight to neighbour k the sum of the children's weights across that side.
LACUNA_HD void coarsen_node(const BlendGrid& fine, const BlendGrid& coarse, const int I) {
    const int cn = coarse.size(), fn = fine.size();
    const int X = coarse.x0 + I % coarse.width, Y = coarse.y0 + I / coarse.width;
    double diag = 0;
    double weight[4] = {0, 0, 0, 0};
    bool active = false;
    for (int j = 0; j < 2; ++j)
        for (int i = 0; i < 2; ++i) {
            const int fx = 2 * X + i, fy = 2 * Y + j;
            const int f = unknown_at(fine, fx, fy);
            if (f < 0) continue;
            active = true;
            diag += fine.diag[f];
            for (int k = 0; k < 4; ++k) {
                const int nx = fx + step_x(k), ny = fy + step_y(k);
                if (unknown_at(fine, nx, ny) < 0) continue;
                if ((nx >> 1) == X && (ny >> 1) == Y)
                    diag -= fine.weight[k * fn + f];
                else
                    weight[k] += fine.weight[k * fn + f];
            }
        }
    coarse.active[I] = active ? 1 : 0;
    coarse.diag[I] = active ? diag : 0;
    for (int k = 0; k < 4; ++k) coarse.weight[k * cn + I] = active ? weight[k] : 0;
}

/// Red (parity 0) or black (1) Gauss-Seidel at node i: reads only nodes of the other colour.
LACUNA_HD void smooth_node(const BlendGrid& g, const int i, const int parity) {
    const int n = g.size();
    const int x = g.x0 + i % g.width, y = g.y0 + i / g.width;
    if (((x + y) & 1) != parity || !g.active[i]) return;
    int nb[4];
    for (int k = 0; k < 4; ++k) nb[k] = unknown_at(g, x + step_x(k), y + step_y(k));
    for (int c = 0; c < 3; ++c) {
        double sum = g.b[c * n + i];
        for (int k = 0; k < 4; ++k)
            if (nb[k] >= 0) sum += g.weight[k * n + i] * g.x[c * n + nb[k]];
        g.x[c * n + i] = sum / g.diag[i];
    }
}

/// Coarse node I's right side: the sum of its children's residuals b − A x; its x = 0.
LACUNA_HD void restrict_node(const BlendGrid& fine, const BlendGrid& coarse, const int I) {
    const int cn = coarse.size(), fn = fine.size();
    const int X = coarse.x0 + I % coarse.width, Y = coarse.y0 + I / coarse.width;
    double b[3] = {0, 0, 0};
    if (coarse.active[I]) {
        for (int j = 0; j < 2; ++j)
            for (int i = 0; i < 2; ++i) {
                const int fx = 2 * X + i, fy = 2 * Y + j;
                const int f = unknown_at(fine, fx, fy);
                if (f < 0) continue;
                for (int c = 0; c < 3; ++c)
                    b[c] += fine.b[c * fn + f] - apply_at(fine, fine.x, c, f, fx, fy);
            }
    }
    for (int c = 0; c < 3; ++c) {
        coarse.b[c * cn + I] = b[c];
        coarse.x[c * cn + I] = 0;
    }
}

/// fine.x += the coarse correction of node i's block.
LACUNA_HD void prolong_node(const BlendGrid& fine, const BlendGrid& coarse, const int i) {
    const int fn = fine.size(), cn = coarse.size();
    if (!fine.active[i]) return;
    const int x = fine.x0 + i % fine.width, y = fine.y0 + i / fine.width;
    const int I = node_at(coarse, x >> 1, y >> 1);
    for (int c = 0; c < 3; ++c) fine.x[c * fn + i] += coarse.x[c * cn + I];
}

/// out = A v at node i (0 off the unknowns).
LACUNA_HD void apply_node(const BlendGrid& g, const double* v, double* out, const int i) {
    const int n = g.size();
    const int x = g.x0 + i % g.width, y = g.y0 + i / g.width;
    for (int c = 0; c < 3; ++c) out[c * n + i] = g.active[i] ? apply_at(g, v, c, i, x, y) : 0.0;
}

/// r = rhs − A f at node i.
LACUNA_HD void residual_node(const BlendGrid& g, const double* rhs, const double* f, double* r,
                             const int i) {
    const int n = g.size();
    const int x = g.x0 + i % g.width, y = g.y0 + i / g.width;
    for (int c = 0; c < 3; ++c)
        r[c * n + i] = g.active[i] ? rhs[c * n + i] - apply_at(g, f, c, i, x, y) : 0.0;
}

/// Thread t's share of dot-product block `block` (channel c): its kDotPerThread elements in order.
LACUNA_HD double dot_thread(const double* a, const double* b, const int n, const int c,
                            const int block, const int t) {
    const int base = block * kDotChunk + t;
    double s = 0;
    for (int k = 0; k < kDotPerThread; ++k) {
        const int i = base + k * kDotThreads;
        if (i < n) s += a[c * n + i] * b[c * n + i];
    }
    return s;
}

/// The scalar a channel's finished dot product `v` becomes.
LACUNA_HD void dot_finish(BlendScalars& s, const int c, const double v, const BlendDot what,
                          const double tolerance) {
    switch (what) {
        case BlendDot::StopFromRhs:
            s.stop[c] = tolerance * tolerance * fmax(v, 1.0);
            break;
        case BlendDot::RrStart:
            s.rr[c] = v;
            s.running[c] = v > s.stop[c] ? 1 : 0;
            break;
        case BlendDot::Rr:
            s.rr[c] = v;
            break;
        case BlendDot::RzStart:
            s.rz[c] = v;
            break;
        case BlendDot::PapToAlpha:
            if (s.running[c] && v > 0) {
                s.alpha[c] = s.rz[c] / v;
            } else {
                s.alpha[c] = 0;
                s.running[c] = 0;
            }
            break;
        case BlendDot::RzToBeta:
            s.beta[c] = s.running[c] && s.rz[c] != 0 ? v / s.rz[c] : 0;
            if (s.running[c]) s.rz[c] = v;
            if (s.rr[c] <= s.stop[c]) s.running[c] = 0;
            break;
    }
}

/// f += α p, r −= α ap at node i.
LACUNA_HD void step_node(const BlendScalars& s, const int n, const double* p, const double* ap,
                         double* f, double* r, const int i) {
    for (int c = 0; c < 3; ++c) {
        const double alpha = s.alpha[c];
        if (alpha == 0) continue;
        f[c * n + i] += alpha * p[c * n + i];
        r[c * n + i] -= alpha * ap[c * n + i];
    }
}

/// p = z + β p at node i.
LACUNA_HD void direction_node(const BlendScalars& s, const int n, const double* z, double* p,
                              const int i) {
    for (int c = 0; c < 3; ++c) p[c * n + i] = z[c * n + i] + s.beta[c] * p[c * n + i];
}

/// The blended colour channel: f rounded half away from zero, clamped to 0 … 255.
LACUNA_HD std::uint8_t blended_level(const double v) {
    return static_cast<std::uint8_t>(llround(fmin(fmax(v, 0.0), 255.0)));
}

}  // namespace lacuna::blend_terms
