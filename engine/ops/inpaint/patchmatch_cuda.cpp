// PatchMatch completion with CUDA, host side. All of a fill's device memory is one arena carved
// into the pyramid's arrays, taken from a process-wide pool that only grows, so "Fill again" and
// the next object removal allocate nothing; host staging is one pinned buffer from a pool too.
// Setup is a few launches per level and one read-back of a few counters (which levels have
// sources, and the checks below); after that advance() only enqueues kernels (four per EM
// iteration) and never waits; image() reads back only the hole's box (every other pixel is the
// problem's own) and field() the field.
//
// Level 0's valid source centres are computed on the device from the hole, with prepare_inpaint's
// rule (a complete patch inside the image with no hole pixel); the read-back's valid count is
// compared with the problem's. Only a problem prepared with a never-sample mask has fewer: that
// area exists only in the host problem, so then (and only then) the problem's valid centres are
// uploaded and the pyramid's sources rebuilt from them.
//
// From the host (make_inpainter): the image is staged through pinned memory in row chunks that
// overlap the copy with the transfer; of the hole only its box goes up.
//
// make_device_inpainter: no copy of the image or of a mask between host and device (except the
// never-sample case above). The pixels are copied device to device from the document; the hole is
// built by a kernel from the coverage (>= 128), which also counts its pixels and measures its box,
// and both must equal the problem's (hole_pixels, hole_box).
#include "factories.hpp"
#include "patchmatch_driver.hpp"

#include "arena_carver.hpp"
#include "blend_cuda.hpp"
#include "cuda_check.hpp"

#include <lacuna/core/device_buffer.hpp>
#include <lacuna/core/mask.hpp>
#include <lacuna/core/parallel.hpp>
#include <lacuna/core/transfer_stats.hpp>
#include <lacuna/kernels/patchmatch_kernels.h>

#include <cuda_runtime.h>

#include <cstring>
#include <type_traits>
#include <utility>
#include <mutex>
#include <string>

namespace lacuna::ops::detail {
namespace {

using lacuna::detail::checked_allocation;
using lacuna::detail::cuda_check;
using lacuna::detail::cuda_check_launch;
using lacuna::detail::OrderingEvent;
using lacuna::detail::size_text;
using patchmatch_terms::BasicPmLevel;
using patchmatch_terms::PmDepth16;
using patchmatch_terms::PmDepth8;
using patchmatch_terms::PmPass;

/// The pool: one spare arena, handed to the next filler and taken back (the larger kept).
/// Never destroyed, so no cudaFree runs after the CUDA runtime has shut down at exit.
class ArenaPool {
  public:
    DeviceBuffer<std::uint8_t> take(const std::size_t bytes) {
        DeviceBuffer<std::uint8_t> arena;
        {
            const std::lock_guard lock(mutex_);
            arena = std::move(spare_);
        }
        arena.reserve(bytes);
        return arena;
    }
    void give(DeviceBuffer<std::uint8_t> arena) {
        const std::lock_guard lock(mutex_);
        if (arena.capacity() > spare_.capacity()) spare_ = std::move(arena);
    }

  private:
    std::mutex mutex_;
    DeviceBuffer<std::uint8_t> spare_;
};

ArenaPool& arena_pool() {
    static auto* pool = new ArenaPool;  // NOLINT: intentionally never freed (see ArenaPool)
    return *pool;
}

/// Pinned host memory for staging transfers: one spare buffer, like ArenaPool (never freed at
/// exit; a smaller buffer given back is freed).
struct PinnedBuffer {
    std::uint8_t* data = nullptr;
    std::size_t capacity = 0;
};

class PinnedPool {
  public:
    PinnedBuffer take(const std::size_t bytes) {
        PinnedBuffer b;
        {
            const std::lock_guard lock(mutex_);
            b = spare_;
            spare_ = {};
        }
        if (b.capacity < bytes) {
            if (b.data != nullptr) cudaFreeHost(b.data);
            b = {};
            void* p = nullptr;
            cuda_check(
                checked_allocation([&] { return cudaHostAlloc(&p, bytes, cudaHostAllocDefault); }),
                "allocating pinned memory");
            b = {static_cast<std::uint8_t*>(p), bytes};
        }
        return b;
    }
    void give(const PinnedBuffer b) {
        if (b.data == nullptr) return;
        PinnedBuffer drop = b;
        {
            const std::lock_guard lock(mutex_);
            if (b.capacity > spare_.capacity) std::swap(drop, spare_);
        }
        if (drop.data != nullptr) cudaFreeHost(drop.data);
    }

  private:
    std::mutex mutex_;
    PinnedBuffer spare_;
};

PinnedPool& pinned_pool() {
    static auto* pool = new PinnedPool;  // NOLINT: intentionally never freed (see ArenaPool)
    return *pool;
}

/// A pinned buffer held for one scope (given back to the pool at its end).
class PinnedLease {
  public:
    explicit PinnedLease(const std::size_t bytes) : b_(pinned_pool().take(bytes)) {}
    ~PinnedLease() { pinned_pool().give(b_); }
    PinnedLease(const PinnedLease&) = delete;
    PinnedLease& operator=(const PinnedLease&) = delete;
    [[nodiscard]] std::uint8_t* data() const { return b_.data; }

  private:
    PinnedBuffer b_;
};

kernels::PmRect rect_of(const SearchRect& r) {
    return {r.x0, r.y0, r.x1, r.y1};
}

/// PatchMatch on the device at depth D: at 8 bits on the problem's image (uploaded, or copied
/// from a device document); at 16 bits on a decision image of the problem's size (uploaded),
/// where image() and copy_filled show the hole's estimate at 8 bits (pm_to_rgba8).
template <class D>
class CudaPatchMatch final : public PatchMatchDriver<DeviceInpainter> {
  public:
    using Color = typename D::Color;
    using Level = BasicPmLevel<D>;
    static constexpr bool kDeep = !std::is_same_v<D, PmDepth8>;

    /// From the host: the decision image (empty at 8 bits: the problem's image) goes up.
    CudaPatchMatch(InpaintProblem problem, const Image<Color>& decision)
        : PatchMatchDriver(std::move(problem)) {
        if constexpr (kDeep) check_decision_size(decision.width(), decision.height(), problem_);
        if (problem_.hole_pixels == 0) {
            set_levels(0);
            return;
        }
        carve();
        clear_counters();
        const int w = problem_.image.width();
        const int h = problem_.image.height();
        const std::size_t row = static_cast<std::size_t>(w) * sizeof(Color);
        const SearchRect& box = problem_.hole_box;
        const int bw = box.x1 - box.x0 + 1;
        const int bh = box.y1 - box.y0 + 1;
        const std::size_t image_bytes = row * h;
        const std::size_t box_bytes = static_cast<std::size_t>(bw) * bh;
        // The staging buffer must outlive the transfers: build() ends with a synchronous read-back.
        PinnedLease staging(image_bytes + box_bytes);
        // The image in row chunks: each chunk's transfer overlaps the next chunk's copy.
        const ImageView<const Color> image = [&] {
            if constexpr (kDeep)
                return decision.view();
            else
                return decision.empty() ? std::as_const(problem_.image).view() : decision.view();
        }();
        constexpr int kChunks = 8;
        parallel_chunks(kChunks, [&](const int begin, const int end, int) {
            for (int c = begin; c < end; ++c) {
                const int y0 = h * c / kChunks, y1 = h * (c + 1) / kChunks;
                if (y1 <= y0) continue;
                std::uint8_t* dst = staging.data() + row * y0;
                if (image.pitch == row) {
                    std::memcpy(dst, image.row(y0), row * (y1 - y0));
                } else {
                    for (int y = y0; y < y1; ++y)
                        std::memcpy(dst + row * (y - y0), image.row(y), row);
                }
                cuda_check(
                    cudaMemcpyAsync(reinterpret_cast<std::uint8_t*>(levels_[0].color) + row * y0,
                                    dst, row * (y1 - y0), cudaMemcpyHostToDevice, stream_.get()),
                    "uploading the image for PatchMatch");
            }
        });
        lacuna::detail::count_upload(image_bytes);
        upload_hole(staging.data() + image_bytes);
        build(false);
    }

    /// From a decision image already on the device (a measurement document's, made there from
    /// its samples): copied device to device; only the hole's box goes up.
    CudaPatchMatch(InpaintProblem problem, const DeviceImage<Color>& decision)
        : PatchMatchDriver(std::move(problem)) {
        check_decision_size(decision.width(), decision.height(), problem_);
        decision.synchronize();
        if (problem_.hole_pixels == 0) {
            set_levels(0);
            return;
        }
        carve();
        clear_counters();
        copy_2d(levels_[0].color, decision.device_view().data, decision.pitch(), sizeof(Color),
                cudaMemcpyDeviceToDevice);
        const SearchRect& box = problem_.hole_box;
        // The staging buffer must outlive the transfer: build() ends with a synchronous read-back.
        PinnedLease staging(static_cast<std::size_t>(box.x1 - box.x0 + 1) * (box.y1 - box.y0 + 1));
        upload_hole(staging.data());
        build(false);
    }

    /// From a device document (8 bits only).
    CudaPatchMatch(const DeviceImage<Rgba8>& pixels, const DeviceImage<std::uint8_t>& coverage,
                   InpaintProblem problem)
        : PatchMatchDriver(std::move(problem)) {
        static_assert(!kDeep, "a deep fill starts from its decision image");
        const int w = problem_.image.width();
        const int h = problem_.image.height();
        if (pixels.width() != w || pixels.height() != h || coverage.width() != w ||
            coverage.height() != h) {
            throw Error(ErrorCode::InvalidArgument,
                        "the device pixels (" + size_text(pixels.width(), pixels.height()) +
                            ") and coverage (" + size_text(coverage.width(), coverage.height()) +
                            ") must have the problem's size (" + size_text(w, h) + ")");
        }
        // The document writes its pixels and coverage on its own streams: wait for them.
        pixels.synchronize();
        coverage.synchronize();
        if (problem_.hole_pixels == 0) {
            // Nothing to fill, but copy_filled still hands out the pixels.
            set_levels(0);
            empty_pixels_ = arena_pool().take(static_cast<std::size_t>(w) * h * sizeof(Rgba8));
            copy_2d(reinterpret_cast<Rgba8*>(empty_pixels_.data()), pixels.device_view().data,
                    pixels.pitch(), sizeof(Rgba8), cudaMemcpyDeviceToDevice);
            filled_.record(stream_.get());
            return;
        }
        carve();
        clear_counters();
        copy_2d(levels_[0].color, pixels.device_view().data, pixels.pitch(), sizeof(Rgba8),
                cudaMemcpyDeviceToDevice);
        cuda_check_launch(kernels::pm_launch_coverage_hole(coverage.device_view(), levels_[0].hole,
                                                           hole_stats(), stream_.get()),
                          "PatchMatch hole from the coverage");
        build(true);
    }

    ~CudaPatchMatch() override {
        // A copy_filled on the caller's stream may still read the arena the next fill will reuse.
        copied_.wait();
        if (arena_.data() != nullptr) {
            stream_.synchronize();
            arena_pool().give(std::move(arena_));
        }
        if (empty_pixels_.data() != nullptr) arena_pool().give(std::move(empty_pixels_));
    }

    [[nodiscard]] ImageRgba8 image() const override {
        ImageRgba8 out = clone(problem_.image.view());
        if (problem_.hole_pixels == 0) return out;
        // Only hole pixels change, and they all lie in the hole's box.
        const int w = problem_.image.width();
        const SearchRect& box = problem_.hole_box;
        const int bw = box.x1 - box.x0 + 1;
        const int bh = box.y1 - box.y0 + 1;
        const std::size_t row = static_cast<std::size_t>(bw) * sizeof(Color);
        const PinnedLease staging(row * bh);
        cuda_check(
            cudaMemcpy2DAsync(staging.data(), row,
                              levels_[0].color + static_cast<std::size_t>(box.y0) * w + box.x0,
                              static_cast<std::size_t>(w) * sizeof(Color), row,
                              static_cast<std::size_t>(bh), cudaMemcpyDeviceToHost, stream_.get()),
            "device-to-host copy of the filled image");
        cuda_check(cudaStreamSynchronize(stream_.get()), "device-to-host copy of the filled image");
        lacuna::detail::count_download(row * bh);
        const ImageView<Rgba8> dst = out.view();
        for (int y = 0; y < bh; ++y) {
            if constexpr (kDeep) {
                // Only the hole shows the estimate; elsewhere the problem's own pixels stay.
                const auto* estimate = reinterpret_cast<const Color*>(staging.data() + row * y);
                const std::uint8_t* hole = problem_.hole.view().row(box.y0 + y) + box.x0;
                for (int x = 0; x < bw; ++x)
                    if (hole[x])
                        dst.row(box.y0 + y)[box.x0 + x] =
                            patchmatch_terms::pm_to_rgba8(estimate[x]);
            } else {
                std::memcpy(dst.row(box.y0 + y) + box.x0, staging.data() + row * y, row);
            }
        }
        return out;
    }

    [[nodiscard]] std::optional<PatchMatchField> field() const override {
        if (!started()) return std::nullopt;
        const int level = current_level();
        const Level& l = levels_[static_cast<std::size_t>(level)];
        const int b = buffer_[static_cast<std::size_t>(level)];
        PatchMatchField f{level, l.width, l.height,       {l.box_x0, l.box_y0, l.box_x1, l.box_y1},
                          {},    {},      depth_bits<D>()};
        f.gradient_weight = l.grad_weight;
        if (l.box_x1 < l.box_x0 || l.box_y1 < l.box_y0) return f;
        // Only the target box: the field is defined nowhere else.
        const auto bw = static_cast<std::size_t>(f.box_width());
        const auto bh = static_cast<std::size_t>(l.box_y1 - l.box_y0 + 1);
        const std::size_t at = static_cast<std::size_t>(l.box_y0) * l.width + l.box_x0;
        const auto pitch = static_cast<std::size_t>(l.width);
        f.nnf.resize(bw * bh);
        std::vector<typename D::Dist> dist(bw * bh);
        cuda_check(cudaMemcpy2DAsync(f.nnf.data(), bw * sizeof(std::int32_t), l.nnf[b] + at,
                                     pitch * sizeof(std::int32_t), bw * sizeof(std::int32_t), bh,
                                     cudaMemcpyDeviceToHost, stream_.get()),
                   "device-to-host copy of the field");
        cuda_check(
            cudaMemcpy2DAsync(dist.data(), bw * sizeof(typename D::Dist), l.dist[b] + at,
                              pitch * sizeof(typename D::Dist), bw * sizeof(typename D::Dist), bh,
                              cudaMemcpyDeviceToHost, stream_.get()),
            "device-to-host copy of the field");
        cuda_check(cudaStreamSynchronize(stream_.get()), "device-to-host copy of the field");
        lacuna::detail::count_download(bw * bh * (sizeof(std::int32_t) + sizeof(typename D::Dist)));
        f.dist.assign(dist.begin(), dist.end());
        return f;
    }

    void copy_filled(DeviceImage<Rgba8>& dst, const PixelRect& rect) const override {
        const int w = problem_.image.width();
        const int h = problem_.image.height();
        if (dst.width() != w || dst.height() != h) {
            throw Error(ErrorCode::InvalidArgument, "copy_filled: the destination is " +
                                                        size_text(dst.width(), dst.height()) +
                                                        ", the filler's image " + size_text(w, h));
        }
        if (rect.empty() || rect.x0 < 0 || rect.y0 < 0 || rect.x1 >= w || rect.y1 >= h) {
            throw Error(ErrorCode::InvalidArgument,
                        "copy_filled: the rectangle is empty or not inside the " + size_text(w, h) +
                            " image");
        }
        if constexpr (kDeep) {
            if (problem_.hole_pixels == 0) return;  // nothing changed: dst keeps its pixels
            filled_.order_before(dst.stream());
            cuda_check_launch(
                kernels::pm_launch_show8(levels_[0], dst.device_view(),
                                         {rect.x0, rect.y0, rect.x1, rect.y1}, dst.stream()),
                "showing the filled pixels");
            copied_.record(dst.stream());
            return;
        }
        const Rgba8* pixels = problem_.hole_pixels > 0
                                  ? reinterpret_cast<const Rgba8*>(levels_[0].color)
                                  : reinterpret_cast<const Rgba8*>(empty_pixels_.data());
        if (pixels == nullptr) {
            // Only a host-prepared filler with nothing to fill has no device pixels.
            dst.upload_region(rect, sub_view(problem_.image.view(), rect));
            return;
        }
        filled_.order_before(dst.stream());
        const Rgba8* from = pixels + static_cast<std::size_t>(rect.y0) * w + rect.x0;
        cuda_check(cudaMemcpy2DAsync(sub_view(dst.device_view(), rect).data, dst.pitch(), from,
                                     static_cast<std::size_t>(w) * sizeof(Rgba8),
                                     static_cast<std::size_t>(rect.width()) * sizeof(Rgba8),
                                     static_cast<std::size_t>(rect.height()),
                                     cudaMemcpyDeviceToDevice, dst.stream()),
                   "device-to-device copy of the filled pixels");
        copied_.record(dst.stream());
    }

    bool blend_in_place(const BlendOptions& options) override {
        if constexpr (kDeep) {
            (void)options;
            return false;  // a measurement's samples are moved by the sources, unblended
        } else {
            if (blended_) return true;
            if (problem_.hole_pixels == 0 || !progress().done() || !started() ||
                current_level() != 0)
                return false;
            // A copy_filled still reading the pixels on its own stream must finish first.
            copied_.order_before(stream_.get());
            const Level& l = levels_[0];
            const int b = buffer_[0];
            kernels::BlendPixels pixels;
            pixels.color = l.color;
            pixels.color_pitch = static_cast<std::size_t>(l.width) * sizeof(Rgba8);
            pixels.hole = l.hole;
            pixels.hole_pitch = static_cast<std::size_t>(l.width);
            pixels.width = l.width;
            pixels.height = l.height;
            kernels::BlendField field;
            field.nnf = l.nnf[b];
            field.dist = l.dist[b];
            field.box_x0 = l.box_x0;
            field.box_y0 = l.box_y0;
            field.box_x1 = l.box_x1;
            field.box_y1 = l.box_y1;
            field.radius = problem_.radius;
            blend_on_device(pixels, field, l.color, problem_.hole_box, options, stream_.get());
            filled_.record(stream_.get());
            blended_ = true;
            return true;
        }
    }

    InpaintProgress advance(const int iterations) override {
        // A copy_filled still reading the pixels on its own stream must finish first.
        copied_.order_before(stream_.get());
        const InpaintProgress p = PatchMatchDriver::advance(iterations);
        if (problem_.hole_pixels > 0) filled_.record(stream_.get());
        return p;
    }

  private:
    /// Level 0's hole, zero outside its box: only the box goes up (as 0/1), staged in `stage`
    /// (box-sized pinned memory that must outlive the transfer).
    void upload_hole(std::uint8_t* const stage) {
        const int w = problem_.image.width();
        const int h = problem_.image.height();
        const SearchRect& box = problem_.hole_box;
        const int bw = box.x1 - box.x0 + 1;
        const int bh = box.y1 - box.y0 + 1;
        cuda_check(
            cudaMemsetAsync(levels_[0].hole, 0, static_cast<std::size_t>(w) * h, stream_.get()),
            "clearing the hole");
        const MaskView hole = problem_.hole.view();
        for (int y = 0; y < bh; ++y) {
            const std::uint8_t* src = hole.row(box.y0 + y) + box.x0;
            for (int x = 0; x < bw; ++x)
                stage[static_cast<std::size_t>(y) * bw + x] = src[x] != 0 ? 1 : 0;
        }
        cuda_check(
            cudaMemcpy2DAsync(levels_[0].hole + static_cast<std::size_t>(box.y0) * w + box.x0,
                              static_cast<std::size_t>(w), stage, static_cast<std::size_t>(bw),
                              static_cast<std::size_t>(bw), static_cast<std::size_t>(bh),
                              cudaMemcpyHostToDevice, stream_.get()),
            "uploading the hole for PatchMatch");
        lacuna::detail::count_upload(static_cast<std::uint64_t>(bw) * bh);
    }

    /// Lays the pyramid out in one arena from the pool.
    void carve() {
        const int w = problem_.image.width();
        const int h = problem_.image.height();
        const std::vector<PmShape> shapes = pyramid_shapes(problem_);
        shapes_ = static_cast<int>(shapes.size());
        const std::uint32_t grad_weight = gradient_weight_for(problem_);
        const auto layout = [&](Carver& c) {
            levels_.assign(shapes.size(), Level{});
            for (std::size_t i = 0; i < shapes.size(); ++i) {
                Level& l = levels_[i];
                l.width = shapes[i].width;
                l.height = shapes[i].height;
                const auto n = static_cast<std::size_t>(l.width) * l.height;
                l.color = c.take<Color>(n);
                l.texture = c.take<typename D::Tex>(n);
                l.hole = c.take<std::uint8_t>(n);
                l.forbid = c.take<std::uint8_t>(n);
                l.valid = c.take<std::uint8_t>(n);
                for (int b = 0; b < 2; ++b) {
                    l.nnf[b] = c.take<std::int32_t>(n);
                    l.dist[b] = c.take<typename D::Dist>(n);
                }
                // The gradient channels, as the CPU filler takes them (gradient_weight_for).
                if (grad_weight != 0 &&
                    static_cast<int>(i) >= patchmatch_terms::kGradientMinLevel) {
                    l.grad_x = c.take<typename D::Grad>(n);
                    l.grad_y = c.take<typename D::Grad>(n);
                    l.grad_weight = grad_weight;
                }
            }
            const auto n0 = static_cast<std::size_t>(w) * h;
            // Bytes for the masks' passes, or the gradient (a texture value a pixel).
            scratch_ = c.take<typename D::Tex>(n0);
            // [0, shapes) valid counts, [shapes, 2 shapes) first valid (as n - 1 - index),
            // [2 shapes, 2 shapes + 5) the coverage hole's count and box: all start at zero.
            counters_ = c.take<unsigned long long>(counter_count());
        };
        Carver measure(nullptr);
        layout(measure);
        arena_ = arena_pool().take(measure.size());
        Carver carver(arena_.data());
        layout(carver);
        buffer_.assign(shapes.size(), 0);
    }

    /// Dense copy of a pitched image of the level-0 size into `dst`.
    void copy_2d(void* dst, const void* src, const std::size_t pitch, const std::size_t bytes,
                 const cudaMemcpyKind kind) const {
        const std::size_t row = static_cast<std::size_t>(problem_.image.width()) * bytes;
        cuda_check(cudaMemcpy2DAsync(dst, row, src, pitch, row,
                                     static_cast<std::size_t>(problem_.image.height()), kind,
                                     stream_.get()),
                   "copying the image for PatchMatch");
    }

    [[nodiscard]] std::size_t counter_count() const {
        return 2 * static_cast<std::size_t>(shapes_) + 5;
    }
    [[nodiscard]] unsigned long long* hole_stats() const { return counters_ + 2 * shapes_; }
    void clear_counters() const {
        cuda_check(cudaMemsetAsync(counters_, 0, counter_count() * sizeof(unsigned long long),
                                   stream_.get()),
                   "clearing counters");
    }

    /// Level 0's forbidden pixels, the pyramid with its valid centres, and their counts.
    void build_pyramid() {
        const int r = problem_.radius;
        const auto count = static_cast<std::size_t>(shapes_);
        cuda_check_launch(kernels::pm_launch_forbid0(levels_[0], scratch_bytes(), r, stream_.get()),
                          "PatchMatch sources");
        for (std::size_t i = 1; i < count; ++i)
            cuda_check_launch(kernels::pm_launch_downsample(levels_[i - 1], levels_[i],
                                                            scratch_bytes(), r, stream_.get()),
                              "PatchMatch pyramid");
        for (std::size_t i = 0; i < count; ++i)
            cuda_check_launch(kernels::pm_launch_stats(levels_[i], counters_ + i,
                                                       counters_ + count + i, stream_.get()),
                              "PatchMatch sources");
    }

    /// The problem's valid centres, counted by row chunks over the threads.
    [[nodiscard]] std::int64_t count_valid() const {
        const MaskView valid = problem_.valid_source.view();
        std::vector<std::int64_t> parts(worker_count(), 0);
        parallel_chunks(valid.height, [&](const int begin, const int end, const int worker) {
            parts[static_cast<std::size_t>(worker)] =
                count_selected(MaskView(valid.row(begin), valid.width, end - begin, valid.pitch));
        });
        std::int64_t total = 0;
        for (const std::int64_t p : parts) total += p;
        return total;
    }

    std::vector<unsigned long long> read_counters() const {
        std::vector<unsigned long long> host(counter_count());
        cuda_check(cudaMemcpyAsync(host.data(), counters_, host.size() * sizeof(unsigned long long),
                                   cudaMemcpyDeviceToHost, stream_.get()),
                   "reading the PatchMatch counters");
        cuda_check(cudaStreamSynchronize(stream_.get()), "reading the PatchMatch counters");
        lacuna::detail::count_download(host.size() * sizeof(unsigned long long));
        return host;
    }

    /// Level 0's valid centres (from the hole), the texture, the pyramid, and the one read-back:
    /// which levels have sources, whether level 0's valid centres are the problem's, and (for a
    /// device document) whether its hole matched.
    void build(const bool check_hole) {
        const int r = problem_.radius;
        const auto count = static_cast<std::size_t>(shapes_);
        cuda_check_launch(kernels::pm_launch_valid0(levels_[0], scratch_bytes(), r, stream_.get()),
                          "PatchMatch sources");
        cuda_check_launch(kernels::pm_launch_texture(levels_[0], scratch_, stream_.get()),
                          "PatchMatch texture");
        build_pyramid();
        // Counted on the host while the device works (no transfer).
        const std::int64_t expected_valid = count_valid();
        std::vector<unsigned long long> host = read_counters();
        if (check_hole) {
            const unsigned long long* s = host.data() + 2 * count;
            const int w = problem_.image.width();
            const int h = problem_.image.height();
            const SearchRect& b = problem_.hole_box;
            const auto found = static_cast<std::int64_t>(s[0]);
            if (found != problem_.hole_pixels) {
                throw Error(ErrorCode::InvalidArgument,
                            "the coverage mask has " + std::to_string(found) +
                                " hole pixels (coverage >= 128) but the problem was prepared for " +
                                std::to_string(problem_.hole_pixels));
            }
            if (w - 1 - static_cast<int>(s[1]) != b.x0 || h - 1 - static_cast<int>(s[2]) != b.y0 ||
                static_cast<int>(s[3]) != b.x1 || static_cast<int>(s[4]) != b.y1) {
                throw Error(ErrorCode::InvalidArgument,
                            "the coverage mask's hole is not in the box the problem was prepared "
                            "for");
            }
        }
        const auto valid_found = static_cast<std::int64_t>(host[0]);
        if (valid_found < expected_valid) {
            throw Error(ErrorCode::InvalidArgument,
                        "the hole does not match the valid sources the problem was prepared with");
        }
        if (valid_found > expected_valid) {
            // The documented exceptions: a never-sample mask or the colour prior
            // (params.source_colours, prepare_inpaint) removed sources, and they exist only in
            // the host problem. Its valid centres go up, and the pyramid is rebuilt from them.
            const MaskView valid = problem_.valid_source.view();
            copy_2d(levels_[0].valid, valid.data, valid.pitch, 1, cudaMemcpyHostToDevice);
            lacuna::detail::count_upload(static_cast<std::uint64_t>(problem_.image.width()) *
                                         problem_.image.height());
            cuda_check(cudaMemsetAsync(counters_, 0, 2 * count * sizeof(unsigned long long),
                                       stream_.get()),
                       "clearing counters");
            build_pyramid();
            host = read_counters();
        }
        int usable = 0;
        for (std::size_t i = 0; i < count && host[i] > 0; ++i) {
            const auto n = static_cast<unsigned long long>(levels_[i].width) * levels_[i].height;
            levels_[i].fallback = static_cast<std::int32_t>(n - 1 - host[count + i]);
            set_target_box(levels_[i], hole_box_at(problem_, static_cast<int>(i)), r);
            ++usable;
        }
        set_levels(usable);
        filled_.record(stream_.get());
    }

    void start_level(const int level) override {
        const Level& l = levels_[static_cast<std::size_t>(level)];
        const int r = problem_.radius;
        buffer_[static_cast<std::size_t>(level)] = 0;
        const SearchRect box = hole_box_at(problem_, level);
        if (level == levels() - 1) {
            // Diffusion scratch: level 0's field memory, unused until level 0 starts, and large
            // enough (16 bytes a pixel at level 0 against 6 at this level; 24 against 22 at 16
            // bits).
            kernels::PmDiffuseScratch<D> s;
            Carver carver(levels_[0].nnf[0]);
            const auto n = static_cast<std::size_t>(l.width) * l.height;
            for (int b = 0; b < 2; ++b) {
                s.color[b] = carver.take<Color>(n);
                s.texture[b] = carver.take<typename D::Tex>(n);
                s.known[b] = carver.take<std::uint8_t>(n);
            }
            const int steps =
                patchmatch_terms::pm_diffusion_steps(box.x1 - box.x0 + 1, box.y1 - box.y0 + 1);
            cuda_check_launch(kernels::pm_launch_diffuse(l, rect_of(box), s, steps, stream_.get()),
                              "PatchMatch diffusion");
            // Onion scratch, two masks back to back: level 0's second distance buffer (4 or 8
            // bytes a pixel at level 0 against 2 here). The peel writes this level's nnf[0], never
            // it; the diffusion's scratch may reach into it but is finished (same stream).
            std::uint8_t* known0 = reinterpret_cast<std::uint8_t*>(levels_[0].dist[1]);
            std::uint8_t* known1 = known0 + n;
            const int layers =
                patchmatch_terms::pm_onion_layers(box.x1 - box.x0 + 1, box.y1 - box.y0 + 1);
            cuda_check_launch(kernels::pm_launch_onion(l, rect_of(box), known0, known1, r,
                                                       problem_.seed, level, layers, stream_.get()),
                              "PatchMatch onion peel");
            cuda_check_launch(kernels::pm_launch_init(l, r, problem_.seed, level, stream_.get()),
                              "PatchMatch initial field");
            return;
        }
        const int coarse_buf = buffer_[static_cast<std::size_t>(level) + 1];
        cuda_check_launch(
            kernels::pm_launch_upsample_vote(l, levels_[static_cast<std::size_t>(level) + 1],
                                             coarse_buf, r, problem_.seed, level, rect_of(box),
                                             winner_take_all(level, 0), stream_.get()),
            "PatchMatch upsampling");
    }

    void iterate(const int level, const int iteration, const bool wta) override {
        const Level& l = levels_[static_cast<std::size_t>(level)];
        int& cur = buffer_[static_cast<std::size_t>(level)];
        PmPass passes[3];
        for (int i = 0; i < 3; ++i) {
            const int step = patchmatch_terms::kJumpSteps[i];
            PmPass& pass = passes[i];
            pass.src = cur;
            pass.dst = 1 - cur;
            pass.radius = problem_.radius;
            pass.step = step;
            pass.recompute = i == 0;
            pass.random = step == 1;
            // Global random search at the coarsest level, local refinement below it.
            pass.span = level == levels() - 1
                            ? std::max(l.width, l.height)
                            : std::min(std::max(l.width, l.height), patchmatch_terms::kRefineSpan);
            pass.seed = problem_.seed;
            pass.level = level;
            pass.iteration = iteration;
            cur = 1 - cur;
        }
        cuda_check_launch(
            kernels::pm_launch_iteration(l, passes, 3, rect_of(hole_box_at(problem_, level)), wta,
                                         stream_.get()),
            "PatchMatch iteration");
    }

    void show(const int level) override {
        cuda_check_launch(
            kernels::pm_launch_compose(levels_[0], levels_[static_cast<std::size_t>(level)], level,
                                       rect_of(hole_box_at(problem_, 0)), stream_.get()),
            "PatchMatch display");
    }

    // Declared first, destroyed last: the fill's own stream (non-blocking), so a fill on a
    // worker thread never waits behind, or holds up, the document's stream or another fill.
    // The caller's streams are ordered against it with events (filled_, copied_).
    lacuna::detail::Stream stream_;
    DeviceBuffer<std::uint8_t> arena_;
    DeviceBuffer<std::uint8_t> empty_pixels_;
    std::vector<Level> levels_;
    std::vector<int> buffer_;
    int shapes_ = 0;
    typename D::Tex* scratch_ = nullptr;
    [[nodiscard]] std::uint8_t* scratch_bytes() const {
        return reinterpret_cast<std::uint8_t*>(scratch_);
    }
    unsigned long long* counters_ = nullptr;
    bool blended_ = false;  ///< level 0's colours are blended (blend_in_place ran)
    // The last work on the pixels (the fill's stream) and the last copy out of them (the
    // caller's stream): copy_filled and advance order themselves after these on the device.
    mutable OrderingEvent filled_;
    mutable OrderingEvent copied_;
};

}  // namespace

std::unique_ptr<Inpainter> make_patchmatch_cuda_inpainter(InpaintProblem problem) {
    return std::make_unique<CudaPatchMatch<PmDepth8>>(std::move(problem), ImageRgba8());
}

std::unique_ptr<DeviceInpainter> make_deep_patchmatch_cuda_inpainter(InpaintProblem problem,
                                                                     Image<Rgba16> decision) {
    return std::make_unique<CudaPatchMatch<PmDepth16>>(std::move(problem), decision);
}

std::unique_ptr<DeviceInpainter> make_deep_patchmatch_cuda_inpainter(
    InpaintProblem problem, const DeviceImage<Rgba16>& decision) {
    return std::make_unique<CudaPatchMatch<PmDepth16>>(std::move(problem), decision);
}

std::unique_ptr<DeviceInpainter> make_patchmatch_device_inpainter(
    const DeviceImage<Rgba8>& pixels, const DeviceImage<std::uint8_t>& coverage,
    InpaintProblem problem) {
    return std::make_unique<CudaPatchMatch<PmDepth8>>(pixels, coverage, std::move(problem));
}

}  // namespace lacuna::ops::detail
