// The spatio-temporal PatchMatch's reference: one thread, every voxel in scan order, the distance
// summed in full (no early stop), the pass and the vote written out from their definitions. It
// shares only the random numbers (patchmatch_terms' hash) and the field's start (random or the
// parent's) with the fast and CUDA paths, which must decide exactly as it does.
#include "common.hpp"

namespace lacuna::ops::pm3 {
namespace {

namespace terms = patchmatch3d_terms;

struct Voxel {
    int x = 0, y = 0, t = 0;
};

class ReferenceBackend final : public Backend {
  public:
    explicit ReferenceBackend(Problem& problem) : problem_(problem) {}

    void init(const int level, const Pm3Patch patch, const std::uint32_t seed) override {
        const Pm3Level l = problem_.levels[static_cast<std::size_t>(level)].view();
        for_each(
            l, [&](const Voxel v) { terms::pm3_init_pixel(l, patch, seed, level, v.x, v.y, v.t); });
    }
    void upsample(const int level, const int coarse_buf, const Pm3Patch patch,
                  const std::uint32_t seed) override {
        const Pm3Level l = problem_.levels[static_cast<std::size_t>(level)].view();
        const Pm3Level c = problem_.levels[static_cast<std::size_t>(level) + 1].view();
        for_each(l, [&](const Voxel v) {
            terms::pm3_upsample_pixel(l, c, coarse_buf, patch, seed, level, v.x, v.y, v.t);
        });
    }

    void pass(const int level, const Pm3Pass& pass) override {
        HostLevel& l = problem_.levels[static_cast<std::size_t>(level)];
        const Pm3Level view = l.view();
        for_each(view, [&](const Voxel v) { pass_voxel(l, pass, v); });
    }

    void vote(const int level, const int buf, const Pm3Patch patch,
              const bool winner_take_all) override {
        HostLevel& l = problem_.levels[static_cast<std::size_t>(level)];
        for_each(l.view(), [&](const Voxel v) { vote_voxel(l, buf, patch, winner_take_all, v); });
    }

    void finish(const int buf, std::vector<Rgba8>& color, std::vector<std::int32_t>& nnf) override {
        color = problem_.levels[0].color;
        nnf = problem_.levels[0].nnf[buf];
    }

  private:
    template <class Body>
    static void for_each(const Pm3Level& l, Body&& body) {
        for (int t = 0; t < l.frames; ++t)
            for (int y = 0; y < l.height; ++y)
                for (int x = 0; x < l.width; ++x) body(Voxel{x, y, t});
    }

    static std::size_t index(const HostLevel& l, const Voxel v) {
        return (static_cast<std::size_t>(v.t) * l.height + v.y) * l.width + v.x;
    }
    static Voxel voxel(const HostLevel& l, const std::int32_t i) {
        const int plane = l.width * l.height;
        return {i % l.width, i % plane / l.width, i / plane};
    }
    static bool inside(const HostLevel& l, const Voxel v) {
        return v.x >= 0 && v.y >= 0 && v.t >= 0 && v.x < l.width && v.y < l.height &&
               v.t < l.frames;
    }
    /// A source: its whole patch inside the volume, no hole voxel in it.
    static bool source_ok(const HostLevel& l, const Pm3Patch p, const Voxel s) {
        if (s.x - p.rx < 0 || s.y - p.rx < 0 || s.t - p.rt < 0 || s.x + p.rx >= l.width ||
            s.y + p.rx >= l.height || s.t + p.rt >= l.frames)
            return false;
        for (int dt = -p.rt; dt <= p.rt; ++dt)
            for (int dy = -p.rx; dy <= p.rx; ++dy)
                for (int dx = -p.rx; dx <= p.rx; ++dx)
                    if (l.hole[index(l, {s.x + dx, s.y + dy, s.t + dt})]) return false;
        return true;
    }
    /// Sum of squared RGB differences over the target patch's voxels inside the volume.
    static std::uint32_t distance(const HostLevel& l, const Pm3Patch p, const Voxel a,
                                  const Voxel s) {
        std::uint32_t sum = 0;
        for (int dt = -p.rt; dt <= p.rt; ++dt)
            for (int dy = -p.rx; dy <= p.rx; ++dy)
                for (int dx = -p.rx; dx <= p.rx; ++dx) {
                    const Voxel q{a.x + dx, a.y + dy, a.t + dt};
                    if (!inside(l, q)) continue;
                    const Rgba8 u = l.color[index(l, q)];
                    const Rgba8 v = l.color[index(l, {s.x + dx, s.y + dy, s.t + dt})];
                    const int dr = u.r - v.r, dg = u.g - v.g, db = u.b - v.b;
                    sum += static_cast<std::uint32_t>(dr * dr + dg * dg + db * db);
                }
        return sum;
    }

    static void pass_voxel(HostLevel& l, const Pm3Pass& pass, const Voxel v) {
        const std::size_t i = index(l, v);
        const Pm3Patch p = pass.patch;
        std::int32_t best = l.nnf[pass.src][i];
        std::uint32_t bd = 0;
        if (best >= 0)
            bd = pass.recompute ? distance(l, p, v, voxel(l, best)) : l.dist[pass.src][i];
        // Candidates in order; strictly better wins, the current best is not measured again.
        const auto consider = [&](const Voxel s) {
            if (!source_ok(l, p, s)) return;
            const auto c = static_cast<std::int32_t>(index(l, s));
            if (c == best) return;
            const std::uint32_t d = distance(l, p, v, s);
            if (d < bd) best = c, bd = d;
        };
        if (best >= 0) {
            const int s = pass.step;
            const Voxel jumps[6] = {{-s, 0, 0}, {s, 0, 0},  {0, -s, 0},
                                    {0, s, 0},  {0, 0, -s}, {0, 0, s}};
            for (const Voxel j : jumps) {
                const Voxel n{v.x + j.x, v.y + j.y, v.t + j.t};
                if (!inside(l, n)) continue;
                const std::int32_t q = l.nnf[pass.src][index(l, n)];
                if (q < 0) continue;
                const Voxel qs = voxel(l, q);
                consider({qs.x - j.x, qs.y - j.y, qs.t - j.t});
            }
            if (pass.random) {
                const int row = v.t * l.height + v.y;
                int k = 0;
                for (int span = pass.span; span >= 1; span /= 2, ++k) {
                    const Voxel b = voxel(l, best);
                    const int span_t = std::min(span, pass.span_t);
                    const auto draw = [&](const int j, const int centre, const int r) {
                        return patchmatch_terms::pm_uniform(
                            patchmatch_terms::pm_hash(pass.seed, pass.level, pass.iteration, v.x,
                                                      row, 3 * k + j),
                            centre - r, centre + r);
                    };
                    consider({draw(0, b.x, span), draw(1, b.y, span), draw(2, b.t, span_t)});
                }
            }
        }
        l.nnf[pass.dst][i] = best;
        l.dist[pass.dst][i] = best >= 0 ? bd : 0;
    }

    /// The weighted mean (weights 2^16 / (16 + MSE), rounded), or the proposal of the smallest
    /// distance (the first in (dt, dy, dx) order on ties), of every target patch over the voxel.
    static void vote_voxel(HostLevel& l, const int buf, const Pm3Patch p,
                           const bool winner_take_all, const Voxel v) {
        const std::size_t i = index(l, v);
        if (!l.hole[i]) return;
        const auto area =
            static_cast<std::uint32_t>((2 * p.rx + 1) * (2 * p.rx + 1) * (2 * p.rt + 1));
        unsigned long long sum[3] = {0, 0, 0}, weights = 0;
        std::uint32_t best_d = 0;
        bool found = false;
        Rgba8 best{};
        for (int dt = -p.rt; dt <= p.rt; ++dt)
            for (int dy = -p.rx; dy <= p.rx; ++dy)
                for (int dx = -p.rx; dx <= p.rx; ++dx) {
                    const Voxel c{v.x - dx, v.y - dy, v.t - dt};
                    if (!inside(l, c)) continue;
                    const std::int32_t q = l.nnf[buf][index(l, c)];
                    if (q < 0) continue;
                    const Voxel s = voxel(l, q);
                    const Rgba8 value = l.color[index(l, {s.x + dx, s.y + dy, s.t + dt})];
                    const std::uint32_t d = l.dist[buf][index(l, c)];
                    if (winner_take_all) {
                        if (!found || d < best_d) best = value, best_d = d, found = true;
                        continue;
                    }
                    const std::uint32_t w = std::max(1U, 65536U / (16U + d / area));
                    sum[0] += static_cast<unsigned long long>(w) * value.r;
                    sum[1] += static_cast<unsigned long long>(w) * value.g;
                    sum[2] += static_cast<unsigned long long>(w) * value.b;
                    weights += w;
                }
        Rgba8& out = l.color[i];
        if (winner_take_all) {
            if (found) out.r = best.r, out.g = best.g, out.b = best.b;
            return;
        }
        if (weights == 0) return;
        out.r = static_cast<std::uint8_t>((sum[0] + weights / 2) / weights);
        out.g = static_cast<std::uint8_t>((sum[1] + weights / 2) / weights);
        out.b = static_cast<std::uint8_t>((sum[2] + weights / 2) / weights);
    }

    Problem& problem_;
};

}  // namespace

std::unique_ptr<Backend> make_reference_backend(Problem& problem) {
    return std::make_unique<ReferenceBackend>(problem);
}

}  // namespace lacuna::ops::pm3
