// The CUDA spatio-temporal PatchMatch, host side: every level's arrays uploaded once into
// DeviceBuffers (RAII), the schedule's steps launched on one owned stream, level 0's colours and
// field read back at the end.
#include "common.hpp"

#include "cuda_check.hpp"

#include <lacuna/core/backend.hpp>
#include <lacuna/core/device_buffer.hpp>
#include <lacuna/kernels/patchmatch3d_kernels.h>

namespace lacuna::ops::pm3 {
namespace {

struct DeviceLevel {
    int width = 0, height = 0, frames = 0;
    std::int32_t fallback = -1;
    DeviceBuffer<Rgba8> color;
    DeviceBuffer<std::uint8_t> hole, valid, target;
    DeviceBuffer<std::int32_t> nnf[2];
    DeviceBuffer<std::uint32_t> dist[2];

    [[nodiscard]] std::size_t size() const {
        return static_cast<std::size_t>(width) * height * frames;
    }
    Pm3Level view() { return level_view(*this); }
};

class CudaBackend final : public Backend {
  public:
    explicit CudaBackend(const Problem& problem) : levels_(problem.levels.size()) {
        const cudaStream_t s = stream_.get();
        for (std::size_t i = 0; i < levels_.size(); ++i) {
            const HostLevel& h = problem.levels[i];
            DeviceLevel& d = levels_[i];
            d.width = h.width;
            d.height = h.height;
            d.frames = h.frames;
            d.fallback = h.fallback;
            d.color.upload(h.color.data(), h.color.size(), s);
            d.hole.upload(h.hole.data(), h.hole.size(), s);
            d.valid.upload(h.valid.data(), h.valid.size(), s);
            d.target.upload(h.target.data(), h.target.size(), s);
            for (int b = 0; b < 2; ++b) {
                d.nnf[b].reserve(d.size());
                d.dist[b].reserve(d.size());
            }
            if (i + 1 == levels_.size())  // the onion peel's field of the coarsest hole
                d.nnf[0].upload(h.nnf[0].data(), h.nnf[0].size(), s);
        }
    }

    void init(const int level, const Pm3Patch patch, const std::uint32_t seed) override {
        detail::cuda_check_launch(
            kernels::pm3_launch_init(at(level), patch, seed, level, stream_.get()),
            "the 3-D PatchMatch's start");
    }
    void upsample(const int level, const int coarse_buf, const Pm3Patch patch,
                  const std::uint32_t seed) override {
        detail::cuda_check_launch(kernels::pm3_launch_upsample(at(level), at(level + 1), coarse_buf,
                                                               patch, seed, level, stream_.get()),
                                  "the 3-D PatchMatch's upsampling");
    }
    void pass(const int level, const Pm3Pass& pass) override {
        detail::cuda_check_launch(kernels::pm3_launch_pass(at(level), pass, stream_.get()),
                                  "a 3-D PatchMatch pass");
    }
    void vote(const int level, const int buf, const Pm3Patch patch,
              const bool winner_take_all) override {
        detail::cuda_check_launch(
            kernels::pm3_launch_vote(at(level), buf, patch, winner_take_all, stream_.get()),
            "the 3-D PatchMatch's vote");
    }
    void finish(const int buf, std::vector<Rgba8>& color, std::vector<std::int32_t>& nnf) override {
        DeviceLevel& l0 = levels_[0];
        color.resize(l0.size());
        nnf.resize(l0.size());
        l0.color.download(color.data(), color.size(), stream_.get());
        l0.nnf[buf].download(nnf.data(), nnf.size(), stream_.get());
    }

  private:
    Pm3Level at(const int level) { return levels_[static_cast<std::size_t>(level)].view(); }

    detail::Stream stream_;
    std::vector<DeviceLevel> levels_;
};

}  // namespace

std::unique_ptr<Backend> make_cuda_backend(const Problem& problem) {
    if (cuda_device_count() == 0)
        throw Error(ErrorCode::CudaUnavailable, "the CUDA 3-D PatchMatch needs a CUDA device");
    return std::make_unique<CudaBackend>(problem);
}

}  // namespace lacuna::ops::pm3
