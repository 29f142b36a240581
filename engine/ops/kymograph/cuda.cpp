// The CUDA kymograph, host side: the plan goes to the device once; frames are uploaded into one
// pitched plane (a chunk of frames stacked top to bottom, grow-only), one launch samples the
// chunk, the rows come back in one copy. Every copy and launch runs on the caller's stream.
#include <lacuna/core/device_buffer.hpp>
#include <lacuna/core/error.hpp>
#include <lacuna/core/transfer_stats.hpp>
#include <lacuna/kernels/kymograph_kernels.h>
#include <lacuna/ops/kymograph.hpp>

#include "check.hpp"
#include "cuda_check.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
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
    DeviceBuffer<std::uint8_t> segments;  // LineGeometry values (trivially copyable), as bytes
    DeviceBuffer<int> segment_of, index_of;
    DeviceImage<float> frames;  // a chunk of frames, top to bottom
    DeviceImage<float> rows;    // positions × frames of the chunk

    Impl(KymographPlan p, const DeviceStream s) : plan(std::move(p)), stream(s) {
        if (stream == nullptr)
            throw Error(ErrorCode::InvalidArgument,
                        "the CUDA kymograph needs a stream (not the legacy default stream)");
        static_assert(std::is_trivially_copyable_v<LineGeometry>);
        const std::size_t bytes = plan.segments.size() * sizeof(LineGeometry);
        segments.reserve(bytes);
        segments.upload(reinterpret_cast<const std::uint8_t*>(plan.segments.data()), bytes, stream);
        const auto n = static_cast<std::size_t>(plan.positions());
        segment_of.reserve(n);
        segment_of.upload(plan.segment_of.data(), n, stream);
        index_of.reserve(n);
        index_of.upload(plan.index_of.data(), n, stream);
        frames.set_stream(stream);
        rows.set_stream(stream);
    }

    void launch(const ImageView<const float> stack, const int count, const ImageView<float> out) {
        kernels::KymographArgs a;
        a.stack = stack;
        a.width = plan.width;
        a.height = plan.height;
        a.frames = count;
        // cudaMalloc aligns to 256 bytes: the bytes are LineGeometry values in place.
        a.segments = reinterpret_cast<const LineGeometry*>(segments.data());
        a.segment_of = segment_of.data();
        a.index_of = index_of.data();
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
