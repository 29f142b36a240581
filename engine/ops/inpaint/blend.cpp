// The gradient-domain blend of a finished PatchMatch fill (issue 31): see patchmatch.hpp.
#include <lacuna/core/error.hpp>
#include <lacuna/ops/patchmatch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <thread>
#include <vector>

namespace lacuna::ops {
namespace {

constexpr int kDx[4] = {-1, 1, 0, 0};
constexpr int kDy[4] = {0, 0, -1, 1};

double channel(const Rgba8 p, const int c) {
    return c == 0 ? p.r : c == 1 ? p.g : p.b;
}

/// One level of the blend's system A x = b: a weighted grid graph (4 neighbour slots per node, -1
/// for none) whose matrix is diag on the diagonal and -weight off it. Level 0 is the hole's
/// pixels; each next level merges 2 × 2 blocks (Galerkin with piecewise-constant prolongation:
/// a coarse weight is the sum of the fine weights between the two blocks, a coarse diagonal
/// the sum of its children's diagonals minus twice their inner weights), so every level stays
/// symmetric positive definite.
struct Level {
    std::vector<int> gx, gy;  ///< grid position of each node
    std::vector<std::int32_t> nb;
    std::vector<double> weight, diag;
    std::vector<std::int32_t> parent;  ///< the node of the next level (empty on the last)
    [[nodiscard]] std::size_t size() const { return diag.size(); }
};

void apply(const Level& l, const std::vector<double>& v, std::vector<double>& out) {
    for (std::size_t i = 0; i < l.size(); ++i) {
        double s = l.diag[i] * v[i];
        for (int k = 0; k < 4; ++k) {
            const std::int32_t j = l.nb[i * 4 + k];
            if (j >= 0) s -= l.weight[i * 4 + k] * v[j];
        }
        out[i] = s;
    }
}

/// The next level (2 × 2 blocks); fills `fine.parent`.
Level coarsen(Level& fine) {
    Level c;
    const int x0 = *std::min_element(fine.gx.begin(), fine.gx.end()) >> 1;
    const int y0 = *std::min_element(fine.gy.begin(), fine.gy.end()) >> 1;
    const int x1 = *std::max_element(fine.gx.begin(), fine.gx.end()) >> 1;
    const int y1 = *std::max_element(fine.gy.begin(), fine.gy.end()) >> 1;
    const int bw = x1 - x0 + 1;
    std::vector<std::int32_t> id(static_cast<std::size_t>(bw) * (y1 - y0 + 1), -1);
    fine.parent.resize(fine.size());
    for (std::size_t i = 0; i < fine.size(); ++i) {
        const int X = fine.gx[i] >> 1, Y = fine.gy[i] >> 1;
        std::int32_t& slot = id[static_cast<std::size_t>(Y - y0) * bw + (X - x0)];
        if (slot < 0) {
            slot = static_cast<std::int32_t>(c.gx.size());
            c.gx.push_back(X);
            c.gy.push_back(Y);
        }
        fine.parent[i] = slot;
    }
    const std::size_t n = c.gx.size();
    c.nb.assign(n * 4, -1);
    c.weight.assign(n * 4, 0.0);
    c.diag.assign(n, 0.0);
    for (std::size_t i = 0; i < n; ++i)
        for (int k = 0; k < 4; ++k) {
            const int X = c.gx[i] + kDx[k], Y = c.gy[i] + kDy[k];
            if (X < x0 || X > x1 || Y < y0 || Y > y1) continue;
            c.nb[i * 4 + k] = id[static_cast<std::size_t>(Y - y0) * bw + (X - x0)];
        }
    for (std::size_t i = 0; i < fine.size(); ++i) {
        const std::int32_t I = fine.parent[i];
        c.diag[I] += fine.diag[i];
        for (int k = 0; k < 4; ++k) {
            const std::int32_t j = fine.nb[i * 4 + k];
            if (j < 0) continue;
            const std::int32_t J = fine.parent[j];
            if (J == I) {
                c.diag[I] -= fine.weight[i * 4 + k];  // each inner edge is seen from both ends
            } else {
                c.weight[static_cast<std::size_t>(I) * 4 + k] += fine.weight[i * 4 + k];
            }
        }
    }
    return c;
}

/// Symmetric Gauss-Seidel sweeps (forward, or backward), in place.
void smooth(const Level& l, const std::vector<double>& b, std::vector<double>& x,
            const bool forward, const int sweeps) {
    const auto n = static_cast<std::ptrdiff_t>(l.size());
    for (int s = 0; s < sweeps; ++s)
        for (std::ptrdiff_t t = 0; t < n; ++t) {
            const std::size_t i = static_cast<std::size_t>(forward ? t : n - 1 - t);
            double sum = b[i];
            for (int k = 0; k < 4; ++k) {
                const std::int32_t j = l.nb[i * 4 + k];
                if (j >= 0) sum += l.weight[i * 4 + k] * x[j];
            }
            x[i] = sum / l.diag[i];
        }
}

/// One V-cycle from x = 0 (a symmetric preconditioner: forward sweeps down, backward up).
void v_cycle(const std::vector<Level>& levels, const std::size_t at, const std::vector<double>& b,
             std::vector<double>& x) {
    const Level& l = levels[at];
    x.assign(l.size(), 0.0);
    if (at + 1 == levels.size()) {
        for (int s = 0; s < 16; ++s) {  // symmetric sweeps keep the preconditioner symmetric
            smooth(l, b, x, true, 1);
            smooth(l, b, x, false, 1);
        }
        return;
    }
    smooth(l, b, x, true, 2);
    std::vector<double> r(l.size());
    apply(l, x, r);
    std::vector<double> bc(levels[at + 1].size(), 0.0), xc;
    for (std::size_t i = 0; i < l.size(); ++i) bc[l.parent[i]] += b[i] - r[i];
    v_cycle(levels, at + 1, bc, xc);
    for (std::size_t i = 0; i < l.size(); ++i) x[i] += xc[l.parent[i]];
    smooth(l, b, x, false, 2);
}

}  // namespace

ImageRgba8 blend_fill(const ImageRgba8& filled, const Mask& hole, const FillSources& sources,
                      const BlendOptions& options) {
    const int w = filled.width(), h = filled.height();
    check_mask_size(hole.view(), w, h, "the hole");
    if (sources.width != w || sources.height != h)
        throw Error(ErrorCode::InvalidArgument, "the fill's sources are for another size");
    ImageRgba8 out = filled;
    const SearchRect& b = sources.box;
    if (b.x1 < b.x0) return out;
    const int bw = b.x1 - b.x0 + 1, bh = b.y1 - b.y0 + 1;
    // Unknowns: the hole pixels with a source, numbered row by row over the box.
    std::vector<std::int32_t> id(static_cast<std::size_t>(bw) * bh, -1);
    std::vector<std::int32_t> px;  // linear image index of each unknown
    for (int y = b.y0; y <= b.y1; ++y)
        for (int x = b.x0; x <= b.x1; ++x) {
            const std::size_t k = static_cast<std::size_t>(y - b.y0) * bw + (x - b.x0);
            if (hole.at(x, y) == 0 || sources.index[k] < 0) continue;
            id[k] = static_cast<std::int32_t>(px.size());
            px.push_back(y * w + x);
        }
    const std::size_t n = px.size();
    if (n == 0) return out;
    const auto unknown = [&](const int x, const int y) -> std::int32_t {
        if (x < b.x0 || x > b.x1 || y < b.y0 || y > b.y1) return -1;
        return id[static_cast<std::size_t>(y - b.y0) * bw + (x - b.x0)];
    };
    const auto source_of = [&](const int x, const int y) {
        return sources.index[static_cast<std::size_t>(y - b.y0) * bw + (x - b.x0)];
    };
    // A pixel whose value the guidance may read: in the image, not a hole pixel (a source's
    // neighbour can be one where its patch touched the hole).
    const auto readable = [&](const int x, const int y) {
        return x >= 0 && y >= 0 && x < w && y < h && hole.at(x, y) == 0;
    };
    // Per unknown and neighbour k: the neighbour's unknown (or -1 for a known pixel, -2 outside
    // the image) and the guidance per channel, v = f(p) − f(q) as the source has it.
    std::vector<std::int32_t> nb(n * 4);
    std::vector<double> rhs(n * 3, 0.0), diag(n, 0.0), weight(n * 4, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
        const int x = px[i] % w, y = px[i] / w;
        const std::int32_t s = source_of(x, y);
        const int sx = s % w, sy = s / w;
        for (int k = 0; k < 4; ++k) {
            const int qx = x + kDx[k], qy = y + kDy[k];
            if (qx < 0 || qy < 0 || qx >= w || qy >= h) {
                nb[i * 4 + k] = -2;
                continue;
            }
            const std::int32_t j = unknown(qx, qy);
            nb[i * 4 + k] = j;
            const Rgba8 gp = filled.at(x, y), gq = filled.at(qx, qy);
            double v3[3];
            for (int c = 0; c < 3; ++c) {
                // The source's own step from p's source to its neighbour; where it cannot be
                // read, the fill's step (no guidance change).
                double v = readable(sx + kDx[k], sy + kDy[k])
                               ? channel(filled.at(sx, sy), c) -
                                     channel(filled.at(sx + kDx[k], sy + kDy[k]), c)
                               : channel(gp, c) - channel(gq, c);
                if (j >= 0) {
                    // Both in the hole: the mean of the two sources' steps (antisymmetric, so
                    // the system stays symmetric).
                    const std::int32_t t = source_of(qx, qy);
                    const int tx = t % w, ty = t / w;
                    const double u = readable(tx - kDx[k], ty - kDy[k])
                                         ? channel(filled.at(tx - kDx[k], ty - kDy[k]), c) -
                                               channel(filled.at(tx, ty), c)
                                         : channel(gp, c) - channel(gq, c);
                    v = 0.5 * (v + u);
                }
                v3[c] = v;
            }
            // How far the fill's step is from the source's: a few levels is a tone offset to
            // spread; tens of levels is structure that does not continue (a dark gap met by
            // wood), which spreading would smear into the fill as a new colour. The edge's
            // weight falls off with it (the same for every channel, and symmetric in p and q).
            double mismatch = 0;
            for (int c = 0; c < 3; ++c)
                mismatch = std::max(mismatch, std::abs(channel(gp, c) - channel(gq, c) - v3[c]));
            const double kappa = options.structure_levels;
            const double wt =
                kappa > 0 ? 1.0 / (1.0 + (mismatch / kappa) * (mismatch / kappa)) : 1.0;
            weight[i * 4 + k] = wt;
            diag[i] += wt;
            for (int c = 0; c < 3; ++c)
                rhs[i * 3 + c] += wt * (v3[c] + (j >= 0 ? 0.0 : channel(gq, c)));
        }
    }
    // Conjugate gradients per channel on A f = rhs (A: the hole's weighted Laplacian with the
    // known border, symmetric positive definite), from the fill itself, preconditioned by a
    // multigrid V-cycle (without it a 300 × 200 hole needs hundreds of iterations). Fixed
    // order, double precision: every run, and every backend's fill, gives the same bytes.
    std::vector<Level> levels(1);
    levels[0].nb = std::move(nb);
    levels[0].weight = std::move(weight);
    levels[0].diag = std::move(diag);
    for (std::size_t i = 0; i < n; ++i) {
        levels[0].gx.push_back(px[i] % w);
        levels[0].gy.push_back(px[i] / w);
    }
    while (levels.back().size() > 64) {
        Level next = coarsen(levels.back());
        levels.push_back(std::move(next));
    }
    // The three channels are independent systems with the same matrix: each is solved on its
    // own thread, in the same fixed order as alone, so the bytes do not depend on the threads.
    const auto solve_channel = [&](const int c) {
        std::vector<double> f(n), r(n), z, p(n), ap(n);
        for (std::size_t i = 0; i < n; ++i) f[i] = channel(filled.at(px[i] % w, px[i] / w), c);
        apply(levels[0], f, ap);
        double bb = 0;
        for (std::size_t i = 0; i < n; ++i) {
            r[i] = rhs[i * 3 + c] - ap[i];
            bb += rhs[i * 3 + c] * rhs[i * 3 + c];
        }
        const double stop = options.tolerance * options.tolerance * std::max(bb, 1.0);
        const auto dot = [&](const std::vector<double>& a, const std::vector<double>& b) {
            double s = 0;
            for (std::size_t i = 0; i < n; ++i) s += a[i] * b[i];
            return s;
        };
        double rr = dot(r, r);
        v_cycle(levels, 0, r, z);
        p = z;
        double rz = dot(r, z);
        for (int it = 0; it < options.max_iterations && rr > stop; ++it) {
            apply(levels[0], p, ap);
            const double pap = dot(p, ap);
            if (pap <= 0) break;
            const double alpha = rz / pap;
            for (std::size_t i = 0; i < n; ++i) {
                f[i] += alpha * p[i];
                r[i] -= alpha * ap[i];
            }
            rr = dot(r, r);
            v_cycle(levels, 0, r, z);
            const double next = dot(r, z);
            const double beta = next / rz;
            rz = next;
            for (std::size_t i = 0; i < n; ++i) p[i] = z[i] + beta * p[i];
        }
        // Each thread writes only its own channel's bytes.
        for (std::size_t i = 0; i < n; ++i) {
            const auto v = static_cast<std::uint8_t>(std::lround(std::clamp(f[i], 0.0, 255.0)));
            Rgba8& o = out.at(px[i] % w, px[i] / w);
            (c == 0 ? o.r : c == 1 ? o.g : o.b) = v;
        }
    };
    {
        std::jthread green(solve_channel, 1), blue(solve_channel, 2);
        solve_channel(0);
    }
    return out;
}

ImageRgba8 finished_image(const Inpainter& filler) {
    const std::optional<PatchMatchField> field = patchmatch_field(filler);
    if (!field || field->level != 0 || !filler.progress().done()) return filler.image();
    const InpaintProblem& problem = filler.problem();
    return blend_fill(filler.image(), problem.hole,
                      patchmatch_sources(*field, problem.hole, problem.radius));
}

}  // namespace lacuna::ops
