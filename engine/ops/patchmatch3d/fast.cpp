// The fast CPU spatio-temporal PatchMatch: every step of patchmatch3d_terms.h over the level's
// rows (frame by frame) split across the threads. Each step reads one buffer and writes another
// (or, for the vote, writes hole voxels and reads only sources), so the order does not matter
// and the result is the reference's.
#include "common.hpp"

#include <lacuna/core/parallel.hpp>

namespace lacuna::ops::pm3 {
namespace {

namespace terms = patchmatch3d_terms;

class FastBackend final : public Backend {
  public:
    explicit FastBackend(Problem& problem) : problem_(problem) {}

    void init(const int level, const Pm3Patch patch, const std::uint32_t seed) override {
        const Pm3Level l = at(level);
        rows(l, [&](const int x, const int y, const int t) {
            terms::pm3_init_pixel(l, patch, seed, level, x, y, t);
        });
    }
    void upsample(const int level, const int coarse_buf, const Pm3Patch patch,
                  const std::uint32_t seed) override {
        const Pm3Level l = at(level), c = at(level + 1);
        rows(l, [&](const int x, const int y, const int t) {
            terms::pm3_upsample_pixel(l, c, coarse_buf, patch, seed, level, x, y, t);
        });
    }
    void pass(const int level, const Pm3Pass& pass) override {
        const Pm3Level l = at(level);
        rows(l, [&](const int x, const int y, const int t) {
            terms::pm3_pass_pixel(l, pass, x, y, t);
        });
    }
    void vote(const int level, const int buf, const Pm3Patch patch,
              const bool winner_take_all) override {
        const Pm3Level l = at(level);
        rows(l, [&](const int x, const int y, const int t) {
            terms::pm3_vote_pixel(l, buf, patch, winner_take_all, x, y, t);
        });
    }
    void finish(const int buf, std::vector<Rgba8>& color, std::vector<std::int32_t>& nnf) override {
        color = problem_.levels[0].color;
        nnf = problem_.levels[0].nnf[buf];
    }

  private:
    Pm3Level at(const int level) { return problem_.levels[static_cast<std::size_t>(level)].view(); }

    template <class Body>
    static void rows(const Pm3Level& l, Body&& body) {
        parallel_chunks(l.frames * l.height, [&](const int begin, const int end, int) {
            for (int row = begin; row < end; ++row) {
                const int t = row / l.height, y = row % l.height;
                for (int x = 0; x < l.width; ++x) body(x, y, t);
            }
        });
    }

    Problem& problem_;
};

}  // namespace

std::unique_ptr<Backend> make_fast_backend(Problem& problem) {
    return std::make_unique<FastBackend>(problem);
}

}  // namespace lacuna::ops::pm3
