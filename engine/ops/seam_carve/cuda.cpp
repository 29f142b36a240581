// CUDA seam carving, host side: upload once, two launches per seam on one stream (find the seam,
// remove it) with no synchronisation in between except progress checkpoints, download the order
// map and the per-seam costs at the end.
#include "carve_state.hpp"

#include "cuda_check.hpp"

#include <lacuna/core/device_buffer.hpp>
#include <lacuna/kernels/seam_kernels.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <utility>
#include <vector>

namespace lacuna::ops {

using lacuna::detail::cuda_check;

namespace {

/// One CUDA stream or event, owned (RAII).
class Stream {
  public:
    Stream() {
        cuda_check(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking), "creating a stream");
    }
    ~Stream() { cudaStreamDestroy(s_); }
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
    [[nodiscard]] cudaStream_t get() const { return s_; }

  private:
    cudaStream_t s_ = nullptr;
};

class Event {
  public:
    Event() { cuda_check(cudaEventCreate(&e_), "creating an event"); }
    ~Event() { cudaEventDestroy(e_); }
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;
    [[nodiscard]] cudaEvent_t get() const { return e_; }
    void record(const cudaStream_t stream) {
        cuda_check(cudaEventRecord(e_, stream), "recording an event");
    }
    void wait() const { cuda_check(cudaEventSynchronize(e_), "seam carving kernels"); }
    /// Milliseconds from `start` to this event (both complete).
    [[nodiscard]] double since(const Event& start) const {
        float ms = 0;
        cuda_check(cudaEventElapsedTime(&ms, start.e_, e_), "reading an event");
        return ms;
    }

  private:
    cudaEvent_t e_ = nullptr;
};

int padded_stride(const int width) {
    return (width + 15) & ~15;
}

/// Dense 0/1 bytes of a mask (absent: empty).
std::vector<std::uint8_t> dense_mask(const Mask* mask, const int w, const int h) {
    std::vector<std::uint8_t> out;
    if (mask == nullptr) return out;
    out.resize(static_cast<std::size_t>(w) * h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) out[static_cast<std::size_t>(y) * w + x] = mask->at(x, y) != 0;
    return out;
}

/// Every device buffer of one carve, owned together. Horizontal seams are carved on transposed
/// copies made on the device, so the carver itself only knows vertical seams.
class DeviceCarver {
  public:
    DeviceCarver(const CarveInput& in, const SeamDirection direction, const int seams)
        : seams_(seams),
          horizontal_(direction == SeamDirection::Horizontal),
          W_(in.image.width),
          H_(in.image.height) {
        const int cw = horizontal_ ? H_ : W_, ch = horizontal_ ? W_ : H_;
        const std::size_t n = static_cast<std::size_t>(W_) * H_;
        const bool masks = in.protect != nullptr || in.remove != nullptr;
        const int stride = padded_stride(cw);
        const std::size_t cells = static_cast<std::size_t>(stride) * ch;

        // Dense inputs, transposed on the device for horizontal seams.
        const std::vector<Rgba8> host_image = to_dense(in.image);
        dense_image_.upload(host_image.data(), n, stream_.get());
        const std::vector<std::uint8_t> protect = dense_mask(in.protect, W_, H_);
        const std::vector<std::uint8_t> remove = dense_mask(in.remove, W_, H_);
        if (!protect.empty()) dense_protect_.upload(protect.data(), n, stream_.get());
        if (!remove.empty()) dense_remove_.upload(remove.data(), n, stream_.get());
        if (horizontal_) {
            transposed_image_.reserve(n);
            cuda_check(
                kernels::launch_transpose32(
                    reinterpret_cast<const std::uint32_t*>(dense_image_.data()), W_, H_,
                    reinterpret_cast<std::uint32_t*>(transposed_image_.data()), stream_.get()),
                "transposing the image");
            std::swap(dense_image_, transposed_image_);
            for (DeviceBuffer<std::uint8_t>* m : {&dense_protect_, &dense_remove_}) {
                if (m->capacity() == 0) continue;
                transposed_mask_.reserve(n);
                cuda_check(kernels::launch_transpose8(m->data(), W_, H_, transposed_mask_.data(),
                                                      stream_.get()),
                           "transposing a mask");
                std::swap(*m, transposed_mask_);
            }
        }

        aux_.reserve(cells);
        cost_.reserve(masks ? cells : (cells + 1) / 2);
        parent_.reserve(cells);
        index_.reserve(cells);
        seam_.reserve(static_cast<std::size_t>(ch));
        order_.reserve(n);
        const std::size_t per_seam = static_cast<std::size_t>(std::max(seams, 1));
        seam_costs_.reserve(per_seam);
        crossed_.reserve(2 * per_seam);
        crossed_.zero_async(2 * per_seam, stream_.get());
        stats_.reserve(4);
        stats_.zero_async(4, stream_.get());
        if (masks) mask_.reserve(cells);
        if (in.energy != SeamEnergy::Forward) image_.reserve(cells);

        s_.stride = stride;
        s_.width = cw;
        s_.height = ch;
        s_.original_width = cw;
        s_.energy = in.energy;
        s_.masks = masks;
        s_.aux = aux_.data();
        s_.cost = cost_.data();
        s_.parent = parent_.data();
        s_.index = index_.data();
        s_.mask = masks ? mask_.data() : nullptr;
        s_.image = in.energy != SeamEnergy::Forward ? image_.data() : nullptr;
        s_.seam = seam_.data();
        s_.order = order_.data();
        s_.seam_costs = seam_costs_.data();
        s_.protected_crossed = crossed_.data();
        s_.remove_crossed = crossed_.data() + per_seam;
        s_.stats = stats_.data();
        cuda_check(kernels::launch_carve_init(
                       s_, dense_image_.data(), protect.empty() ? nullptr : dense_protect_.data(),
                       remove.empty() ? nullptr : dense_remove_.data(), stream_.get()),
                   "preparing seam carving");
    }

    /// Enqueues seam k: find it (the first from scratch, later ones incrementally), remove it.
    void enqueue_find(const int k) {
        kernels::CarveState s = s_;
        s.width = s_.width - k;
        cuda_check(kernels::launch_carve_find_seam(s, k, k == 0, stream_.get()),
                   "seam carving kernels");
    }
    void enqueue_remove(const int k) {
        kernels::CarveState s = s_;
        s.width = s_.width - k;
        cuda_check(kernels::launch_carve_remove_seam(s, k, stream_.get()), "seam carving kernels");
    }

    /// All seams; every `kCheckEvery` seams an event lets the host report progress while at most
    /// two checkpoints' worth of work is queued ahead of it.
    void run(const CarveProgress& progress) {
        constexpr int kCheckEvery = 32;
        Event checkpoints[2];
        int pending = -1;  // the checkpoint recorded last, not yet waited for
        for (int k = 0; k < seams_; ++k) {
            enqueue_find(k);
            enqueue_remove(k);
            if (progress && (k + 1) % kCheckEvery == 0) {
                const int c = ((k + 1) / kCheckEvery) & 1;
                if (pending >= 0) {
                    checkpoints[pending].wait();
                    if (!progress(k + 1 - kCheckEvery, seams_)) {
                        cudaStreamSynchronize(stream_.get());
                        throw Error(ErrorCode::Cancelled, "seam carving cancelled");
                    }
                }
                checkpoints[c].record(stream_.get());
                pending = c;
            }
        }
        cuda_check(cudaStreamSynchronize(stream_.get()), "seam carving kernels");
        if (progress) progress(seams_, seams_);
    }

    /// The same carve with each stage timed (events around the launches, SM clocks inside the
    /// single-block kernel).
    void run_profiled(CarveProfile& profile, const Event& begin) {
        Event setup_done, a, b, c;
        setup_done.record(stream_.get());
        setup_done.wait();
        profile.setup_ms = setup_done.since(begin);
        clocks_.reserve(6);
        s_.clocks = clocks_.data();
        double update_ms = 0, walk_ms = 0, removal_ms = 0, mhz_sum = 0;
        std::int64_t clocks[6] = {0, 0, 0, 0, 0, 0};
        double detail[4] = {0, 0, 0, 0};
        for (int k = 0; k < seams_; ++k) {
            a.record(stream_.get());
            enqueue_find(k);
            b.record(stream_.get());
            enqueue_remove(k);
            c.record(stream_.get());
            c.wait();
            clocks_.download(clocks, 6, stream_.get());
            const double find_ms = b.since(a);
            if (k > 0) mhz_sum += static_cast<double>(clocks[0] + clocks[1]) / (find_ms * 1000.0);
            for (int i = 0; i < 4; ++i)
                detail[i] += find_ms * clocks[2 + i] / std::max<double>(1, clocks[0] + clocks[1]);
            const double cycles = static_cast<double>(clocks[0] + clocks[1]);
            const double update_share = cycles > 0 ? clocks[0] / cycles : 1.0;
            if (k > 0) {  // the first map is set-up work
                update_ms += find_ms * update_share;
                walk_ms += find_ms * (1 - update_share);
            } else {
                profile.setup_ms += find_ms;
            }
            removal_ms += c.since(b);
        }
        const int incremental = std::max(seams_ - 1, 1);
        profile.seams = seams_;
        profile.update_ms_per_seam = update_ms / incremental;
        profile.batch_wait_ms_per_seam = detail[0] / seams_;
        profile.rows_ms_per_seam = detail[1] / seams_;
        profile.strips_ms_per_seam = detail[2] / seams_;
        profile.sm_mhz = mhz_sum / incremental;
        profile.writer_stage_ms_per_seam = detail[3] / seams_;
        profile.walk_ms_per_seam = walk_ms / incremental;
        profile.removal_ms_per_seam = removal_ms / std::max(seams_, 1);
        std::int64_t stats[2] = {0, 0};
        stats_.download(stats, 2, stream_.get());
        const double rows = static_cast<double>(s_.height) * std::max(seams_, 1);
        profile.cells_per_seam = static_cast<double>(stats[0]) / std::max(seams_, 1);
        profile.direct_rows_share = static_cast<double>(stats[1]) / rows;
        s_.clocks = nullptr;
    }

    [[nodiscard]] SeamOrder result() {
        SeamOrder out;
        out.direction = horizontal_ ? SeamDirection::Horizontal : SeamDirection::Vertical;
        out.width = W_;
        out.height = H_;
        out.seams = seams_;
        const std::size_t n = static_cast<std::size_t>(W_) * H_;
        std::vector<std::int32_t> host_order(n);
        if (horizontal_) {
            // The carve's order is H_ wide and W_ high: transpose it back on the device.
            DeviceBuffer<std::int32_t> back;
            back.reserve(n);
            cuda_check(kernels::launch_transpose32(
                           reinterpret_cast<const std::uint32_t*>(order_.data()), H_, W_,
                           reinterpret_cast<std::uint32_t*>(back.data()), stream_.get()),
                       "transposing the seam order");
            back.download(host_order.data(), n, stream_.get());
        } else {
            order_.download(host_order.data(), n, stream_.get());
        }
        out.order = from_dense(host_order, W_, H_);
        if (seams_ > 0) {
            out.costs.resize(static_cast<std::size_t>(seams_));
            seam_costs_.download(out.costs.data(), out.costs.size(), stream_.get());
            std::vector<std::int32_t> counts(2 * static_cast<std::size_t>(seams_));
            crossed_.download(counts.data(), counts.size(), stream_.get());
            out.protected_crossed.assign(counts.begin(), counts.begin() + seams_);
            out.remove_crossed.assign(counts.begin() + seams_, counts.end());
        }
        return out;
    }

    [[nodiscard]] cudaStream_t stream() const { return stream_.get(); }

  private:
    int seams_;
    bool horizontal_;
    int W_, H_;
    Stream stream_;
    kernels::CarveState s_{};
    DeviceBuffer<Rgba8> dense_image_, transposed_image_, image_;
    DeviceBuffer<std::uint8_t> dense_protect_, dense_remove_, transposed_mask_, mask_;
    DeviceBuffer<std::int16_t> aux_;
    DeviceBuffer<std::int64_t> cost_;  // int32 costs use the first half
    DeviceBuffer<std::int8_t> parent_;
    DeviceBuffer<std::int32_t> index_, seam_, order_, crossed_;
    DeviceBuffer<std::int64_t> seam_costs_, stats_, clocks_;
};

}  // namespace

SeamOrder seam_order_cuda(const CarveInput& input, const SeamDirection direction, const int seams,
                          const CarveProgress& progress) {
    detail::check_carve_input(input, direction, seams);
    DeviceCarver carver(input, direction, seams);
    carver.run(progress);
    return carver.result();
}

SeamOrder seam_order_cuda_profiled(const CarveInput& input, const SeamDirection direction,
                                   const int seams, CarveProfile& profile) {
    detail::check_carve_input(input, direction, seams);
    profile = CarveProfile{};
    Event begin, end;
    begin.record(nullptr);
    DeviceCarver carver(input, direction, seams);
    carver.run_profiled(profile, begin);
    SeamOrder order = carver.result();
    end.record(nullptr);
    end.wait();
    profile.total_ms = end.since(begin);
    return order;
}

struct CudaSeamSlider::Impl {
    int width = 0, height = 0, seams = 0;
    DeviceBuffer<Rgba8> image, frame;
    DeviceBuffer<std::int32_t> order;
};

CudaSeamSlider::CudaSeamSlider(const ImageView<const Rgba8> image, const SeamOrder& order)
    : impl_(std::make_unique<Impl>()) {
    if (order.direction != SeamDirection::Vertical || order.width != image.width ||
        order.height != image.height) {
        throw Error(ErrorCode::InvalidArgument,
                    "the slider needs the vertical seam order of this image");
    }
    const std::size_t n = static_cast<std::size_t>(image.width) * image.height;
    const std::vector<Rgba8> pixels = to_dense(image);
    const std::vector<std::int32_t> ranks = to_dense(order.order.view());
    impl_->width = image.width;
    impl_->height = image.height;
    impl_->seams = order.seams;
    impl_->image.upload(pixels.data(), n);
    impl_->order.upload(ranks.data(), n);
    impl_->frame.reserve(n);
}

CudaSeamSlider::~CudaSeamSlider() = default;

ImageRgba8 CudaSeamSlider::frame(const int count) {
    if (count < 0 || count > impl_->seams) {
        throw Error(ErrorCode::InvalidArgument, "the slider holds " + std::to_string(impl_->seams) +
                                                    " seams, not " + std::to_string(count));
    }
    const int w = impl_->width - count;
    cuda_check(kernels::launch_compact_rows(impl_->image.data(), impl_->order.data(), impl_->width,
                                            impl_->height, count, impl_->frame.data(), w, nullptr),
               "compaction kernel");
    std::vector<Rgba8> pixels(static_cast<std::size_t>(w) * impl_->height);
    impl_->frame.download(pixels.data(), pixels.size());
    return from_dense(pixels, w, impl_->height);
}

double CudaSeamSlider::time_frame_ms(const int count, const int repeats) {
    const int w = impl_->width - count;
    const auto launch = [&] {
        cuda_check(
            kernels::launch_compact_rows(impl_->image.data(), impl_->order.data(), impl_->width,
                                         impl_->height, count, impl_->frame.data(), w, nullptr),
            "compaction kernel");
    };
    return lacuna::detail::median_event_ms(repeats, launch);
}

}  // namespace lacuna::ops
