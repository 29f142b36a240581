// The CUDA kymograph, host side: the plan goes to the device in one asynchronous copy (again at
// each replan, into the same grow-only block); frames are uploaded into one
// pitched plane (a chunk of frames stacked top to bottom, grow-only), one launch samples the
// chunk, the rows come back in one copy. Every copy and launch runs on the caller's stream.
#include <lacuna/core/device_buffer.hpp>
#include <lacuna/core/error.hpp>
#include <lacuna/core/transfer_stats.hpp>
#include <lacuna/kernels/kymograph_kernels.h>
#include <lacuna/ops/kymograph.hpp>

#include "check.hpp"
#include "cuda_check.hpp"
#include "pinned_buffer.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <string>

namespace lacuna::ops {

using lacuna::detail::cuda_check;
using lacuna::detail::cuda_check_launch;

namespace {

/// Device memory a chunk of frames may take: large stacks go through in pieces.
constexpr std::size_t kChunkBytes = std::size_t{256} << 20;

void check_frame(const KymographPlan& plan, const int width, const int height) {
    if (width != plan.width || height != plan.height) {
        throw Error(ErrorCode::InvalidArgument,
                    "a frame of " + std::to_string(width) + "x" + std::to_string(height) +
                        " does not match the kymograph's " + std::to_string(plan.width) + "x" +
                        std::to_string(plan.height));
    }
}

}  // namespace

struct CudaKymograph::Impl {
    KymographPlan plan;
    DeviceStream stream = nullptr;
    // The plan on the device, one block: the segments (LineGeometry values, trivially
    // copyable), then each position's segment and index. Grow-only, filled from a page-locked
    // staging copy in one asynchronous upload: a region dragged in the editor re-plans at every
    // move without allocating or waiting.
    DeviceBuffer<std::uint8_t> plan_bytes;
    lacuna::detail::PinnedBuffer<std::uint8_t> staging;
    lacuna::detail::OrderingEvent staged;  // the last upload from `staging`
    std::size_t segment_of_offset = 0, index_of_offset = 0;
    DeviceImage<float> frames;  // a chunk of frames, top to bottom
    DeviceImage<float> rows;    // positions × frames of the chunk

    Impl(KymographPlan p, const DeviceStream s) : stream(s) {
        if (stream == nullptr)
            throw Error(ErrorCode::InvalidArgument,
                        "the CUDA kymograph needs a stream (not the legacy default stream)");
        frames.set_stream(stream);
        rows.set_stream(stream);
        upload(std::move(p));
    }

    // The staging memory is not freed under a copy still reading it.
    ~Impl() { staged.wait(); }
    Impl(const Impl&) = delete;
    Impl& operator=(const Impl&) = delete;

    void upload(KymographPlan p) {
        static_assert(std::is_trivially_copyable_v<LineGeometry>);
        // Offsets rounded up to 16 bytes: cudaMalloc aligns the block to 256, so each array is
        // aligned for its type in place.
        const auto align = [](const std::size_t n) { return (n + 15) / 16 * 16; };
        const std::size_t n = static_cast<std::size_t>(p.positions());
        const std::size_t segment_bytes = p.segments.size() * sizeof(LineGeometry);
        const std::size_t a = align(segment_bytes);
        const std::size_t b = align(a + n * sizeof(int));
        const std::size_t total = b + n * sizeof(int);
        staged.wait();  // the previous upload has left the staging memory
        std::uint8_t* const host = staging.reserve(total);
        std::memcpy(host, p.segments.data(), segment_bytes);
        std::memcpy(host + a, p.segment_of.data(), n * sizeof(int));
        std::memcpy(host + b, p.index_of.data(), n * sizeof(int));
        if (total > plan_bytes.capacity()) {
            // Until the new block holds the plan there is none (a failed allocation leaves no
            // plan that would launch on freed memory).
            plan = KymographPlan{};
            plan_bytes.reserve(std::max(total, 2 * plan_bytes.capacity()));
        }
        lacuna::detail::count_upload(total);
        cuda_check(cudaMemcpyAsync(plan_bytes.data(), host, total, cudaMemcpyHostToDevice, stream),
                   "host-to-device copy of a kymograph plan");
        staged.record(stream);
        segment_of_offset = a;
        index_of_offset = b;
        plan = std::move(p);
    }

    void launch(const ImageView<const float> stack, const int count, const ImageView<float> out) {
        kernels::KymographArgs a;
        a.stack = stack;
        a.width = plan.width;
        a.height = plan.height;
        a.frames = count;
        const std::uint8_t* const bytes = plan_bytes.data();
        a.segments = reinterpret_cast<const LineGeometry*>(bytes);
        a.segment_of = reinterpret_cast<const int*>(bytes + segment_of_offset);
        a.index_of = reinterpret_cast<const int*>(bytes + index_of_offset);
        a.positions = plan.positions();
        a.band = plan.band();
        a.sampling = plan.sampling;
        a.out = out;
        cuda_check_launch(kernels::launch_kymograph(a, stream), "kymograph kernel");
    }

    /// Host frames [first, first + count) into the chunk plane, sampled; rows into `out` from
    /// row `first`.
    template <class FrameAt>
    void chunk(const FrameAt& frame_at, const int first, const int count, ImageF32& out) {
        frames.resize(plan.width, plan.height * count);
        rows.resize(plan.positions(), count);
        for (int k = 0; k < count; ++k) {
            const ImageView<const float> f = frame_at(first + k);
            lacuna::detail::count_upload(f.row_bytes() * static_cast<std::size_t>(f.height));
            cuda_check(
                cudaMemcpy2DAsync(frames.device_view().row(k * plan.height), frames.pitch(), f.data,
                                  f.pitch, f.row_bytes(), static_cast<std::size_t>(f.height),
                                  cudaMemcpyHostToDevice, stream),
                "host-to-device copy of a frame");
        }
        launch(frames.device_view(), count, rows.device_view());
        const ImageView<float> dst = out.view();
        const ImageView<const float> src = rows.device_view();
        lacuna::detail::count_download(src.row_bytes() * static_cast<std::size_t>(count));
        cuda_check(
            cudaMemcpy2DAsync(dst.row(first), dst.pitch, src.data, src.pitch, src.row_bytes(),
                              static_cast<std::size_t>(count), cudaMemcpyDeviceToHost, stream),
            "device-to-host copy of kymograph rows");
        cuda_check(cudaStreamSynchronize(stream), "the kymograph kernel");
    }
};

CudaKymograph::CudaKymograph(KymographPlan plan, const DeviceStream stream)
    : impl_(std::make_unique<Impl>(std::move(plan), stream)) {}

CudaKymograph::~CudaKymograph() = default;

const KymographPlan& CudaKymograph::plan() const {
    return impl_->plan;
}

void CudaKymograph::replan(KymographPlan plan) {
    impl_->upload(std::move(plan));
}

void CudaKymograph::rows(const ImageView<const float> stack, const int count,
                         const ImageView<float> out) {
    const KymographPlan& plan = impl_->plan;
    if (count < 1 || stack.width != plan.width ||
        static_cast<long long>(stack.height) != static_cast<long long>(plan.height) * count)
        throw Error(ErrorCode::InvalidArgument, "the device stack must hold " +
                                                    std::to_string(count) + " frames of " +
                                                    std::to_string(plan.width) + "x" +
                                                    std::to_string(plan.height) + " top to bottom");
    if (out.width != plan.positions() || out.height != count)
        throw Error(ErrorCode::InvalidArgument, "the kymograph's rows must be " +
                                                    std::to_string(plan.positions()) + "x" +
                                                    std::to_string(count));
    impl_->launch(stack, count, out);
}

void CudaKymograph::row(const ImageView<const float> frame, float* out) {
    check_frame(impl_->plan, frame.width, frame.height);
    ImageF32 one(impl_->plan.positions(), 1);
    impl_->chunk([&](int) { return frame; }, 0, 1, one);
    std::copy_n(one.row(0), one.width(), out);
}

ImageF32 CudaKymograph::stack(const std::vector<ImageF32>& frames) {
    const KymographPlan& plan = impl_->plan;
    for (const ImageF32& f : frames) check_frame(plan, f.width(), f.height());
    const int count = static_cast<int>(frames.size());
    if (count == 0) return {};
    ImageF32 out(plan.positions(), count);
    const std::size_t frame_bytes =
        static_cast<std::size_t>(plan.width) * static_cast<std::size_t>(plan.height) * 4;
    // The chunk's rows are one plane: keep its height within an int as well.
    const int per_chunk = static_cast<int>(std::clamp<std::size_t>(
        kChunkBytes / frame_bytes, 1,
        std::min<std::size_t>(static_cast<std::size_t>(count),
                              static_cast<std::size_t>(INT32_MAX / plan.height))));
    const auto frame_at = [&](const int t) { return frames[static_cast<std::size_t>(t)].view(); };
    for (int first = 0; first < count; first += per_chunk)
        impl_->chunk(frame_at, first, std::min(per_chunk, count - first), out);
    return out;
}

ImageF32 kymograph_cuda(const std::vector<ImageF32>& frames, const KymographParams& params,
                        const DeviceStream stream) {
    detail::check_kymograph_frames(frames);
    CudaKymograph k(plan_kymograph(frames[0].width(), frames[0].height(), params), stream);
    return k.stack(frames);
}

}  // namespace lacuna::ops
