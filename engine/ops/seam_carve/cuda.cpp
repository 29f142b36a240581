// CUDA seam carving, host side: upload once, two launches per seam on one stream (find the seam,
// remove it) with no synchronisation in between except progress checkpoints, download the order
// map and the per-seam costs at the end. The editor's device path starts from device images and
// leaves the map on the device; its previews (remove, insert, paint seams) are single kernels on
// device images (kernels/seam_preview.cu).
#include "carve_state.hpp"

#include "cuda_check.hpp"

#include <lacuna/core/device_buffer.hpp>
#include <lacuna/core/parallel.hpp>
#include <lacuna/kernels/measurement_kernels.h>
#include <lacuna/kernels/seam_kernels.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <numeric>
#include <type_traits>
#include <utility>
#include <vector>

namespace lacuna::ops {

using lacuna::detail::checked_allocation;
using lacuna::detail::cuda_check;
using lacuna::detail::cuda_check_launch;
using lacuna::detail::Event;
using lacuna::detail::Stream;

namespace {

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

/// Dense device images of one carve or retarget, `width` × `height`: the pixels (Rgba8, or the
/// Rgba16 decision image of a deep carve), the masks (when present) and the original linear index
/// of every pixel (retargeting).
template <class Pixel = Rgba8>
struct DenseImages {
    using PixelType = Pixel;
    int width = 0, height = 0;
    DeviceBuffer<Pixel> image;
    DeviceBuffer<std::uint8_t> protect, remove;
    DeviceBuffer<std::uint8_t> temporal;  ///< levels 0 .. kTemporalLevels − 1 (video)
    DeviceBuffer<std::int32_t> index;
    bool has_protect = false, has_remove = false, has_index = false, has_temporal = false;
    /// `temporal` is a fixed per-pixel map (importance, a video distance map), not the per-seam
    /// term's levels (which change from seam to seam): it may fold into the 32-bit layout.
    bool levels_fixed = false;
    int temporal_unit = 0;
    /// The per-seam term's paths (host; lines in the carve's orientation); `temporal` then holds
    /// the levels of seam 0, and the carver moves them on from seam to seam.
    const SeamPaths* temporal_seams = nullptr;
    /// Importance beside a temporal term (video with faces; importance_with_temporal): levels
    /// 0 .. 63 at `importance_unit`, carried with the pixels by the carver (CarveState::
    /// level_unit) while the temporal level stays in the mask bits.
    DeviceBuffer<std::uint8_t> importance;
    bool has_importance = false;
    int importance_unit = 0;

    [[nodiscard]] std::size_t pixels() const { return static_cast<std::size_t>(width) * height; }
    [[nodiscard]] const std::uint8_t* protect_or_null() const {
        return has_protect ? protect.data() : nullptr;
    }
    [[nodiscard]] const std::uint8_t* remove_or_null() const {
        return has_remove ? remove.data() : nullptr;
    }
    [[nodiscard]] const std::uint8_t* temporal_or_null() const {
        return has_temporal ? temporal.data() : nullptr;
    }
    [[nodiscard]] const std::uint8_t* importance_or_null() const {
        return has_importance ? importance.data() : nullptr;
    }
};

template <class Pixel>
DenseImages<Pixel> upload(const BasicCarveInput<Pixel>& in, const bool with_index,
                          const cudaStream_t stream,
                          const SeamDirection direction = SeamDirection::Vertical) {
    DenseImages<Pixel> d;
    d.width = in.image.width;
    d.height = in.image.height;
    const std::size_t n = d.pixels();
    const std::vector<Pixel> pixels = to_dense(in.image);
    d.image.upload(pixels.data(), n, stream);
    const std::vector<std::uint8_t> protect = dense_mask(in.protect, d.width, d.height);
    const std::vector<std::uint8_t> remove = dense_mask(in.remove, d.width, d.height);
    d.has_protect = !protect.empty();
    d.has_remove = !remove.empty();
    if (d.has_protect) d.protect.upload(protect.data(), n, stream);
    if (d.has_remove) d.remove.upload(remove.data(), n, stream);
    if (in.temporal != nullptr && in.temporal_unit > 0) {
        const std::vector<std::uint8_t> levels = to_dense(in.temporal->view());
        d.temporal.upload(levels.data(), n, stream);
        d.has_temporal = true;
        d.levels_fixed = true;
        d.temporal_unit = in.temporal_unit;
    }
    if (in.temporal_seams != nullptr && in.temporal_unit > 0) {
        // Seam 0's levels, in the image's orientation (transposed with it for horizontal seams).
        const SeamPaths& paths = *in.temporal_seams;
        const bool vertical = direction == SeamDirection::Vertical;
        std::vector<std::uint8_t> levels(n);
        for (int y = 0; y < d.height; ++y)
            for (int x = 0; x < d.width; ++x)
                levels[static_cast<std::size_t>(y) * d.width + x] =
                    vertical ? seam_temporal_level(x, paths.at(0, y))
                             : seam_temporal_level(y, paths.at(0, x));
        d.temporal.upload(levels.data(), n, stream);
        d.has_temporal = true;
        d.levels_fixed = false;
        d.temporal_unit = in.temporal_unit;
        d.temporal_seams = &paths;
    }
    // Left here by importance_as_levels only beside a temporal term (alone it is `temporal`).
    if (in.importance != nullptr && in.importance_unit > 0) {
        const std::vector<std::uint8_t> levels = to_dense(in.importance->view());
        d.importance.upload(levels.data(), n, stream);
        d.has_importance = true;
        d.importance_unit = in.importance_unit;
    }
    if (with_index) {
        std::vector<std::int32_t> index(n);
        for (std::size_t i = 0; i < n; ++i) index[i] = static_cast<std::int32_t>(i);
        d.index.upload(index.data(), n, stream);
        d.has_index = true;
    }
    return d;
}

/// Device images may live on any stream: `consumer` waits for what `producer` has enqueued so far
/// through an event, so neither the host nor unrelated work on either stream waits.
void order_after(const DeviceStream producer, const cudaStream_t consumer) {
    if (producer == consumer) return;
    struct OrderingEvent {  // RAII; destroying it right after the wait is fine: the wait keeps it
        cudaEvent_t e = nullptr;
        OrderingEvent() {
            cuda_check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "creating an event");
        }
        ~OrderingEvent() { cudaEventDestroy(e); }
        OrderingEvent(const OrderingEvent&) = delete;
        OrderingEvent& operator=(const OrderingEvent&) = delete;
    } event;
    cuda_check(cudaEventRecord(event.e, producer), "ordering two streams");
    cuda_check(cudaStreamWaitEvent(consumer, event.e, 0), "ordering two streams");
}

/// The carver's dense buffers from images already on the device: pitched rows packed by
/// device-to-device copies on `stream`, after the inputs' own streams; nothing crosses to the host.
/// The masks keep their bytes (the carver reads any non-zero byte as set, as dense_mask's 1).
template <class Pixel>
DenseImages<Pixel> dense_from_device(const BasicDeviceCarveInput<Pixel>& in,
                                     const cudaStream_t stream) {
    DenseImages<Pixel> d;
    d.width = in.image->width();
    d.height = in.image->height();
    const auto pack = [&](const auto& from, auto& to, const char* what) {
        using T = std::remove_cvref_t<decltype(*from.device_view().data)>;
        order_after(from.stream(), stream);
        to.reserve(d.pixels());
        const std::size_t row_bytes = static_cast<std::size_t>(d.width) * sizeof(T);
        cuda_check(cudaMemcpy2DAsync(to.data(), row_bytes, from.device_view().data, from.pitch(),
                                     row_bytes, static_cast<std::size_t>(d.height),
                                     cudaMemcpyDeviceToDevice, stream),
                   what);
    };
    pack(*in.image, d.image, "packing the image on the device");
    if (in.protect != nullptr) pack(*in.protect, d.protect, "packing the protect mask");
    if (in.remove != nullptr) pack(*in.remove, d.remove, "packing the remove mask");
    d.has_protect = in.protect != nullptr;
    d.has_remove = in.remove != nullptr;
    if (in.importance != nullptr && in.importance_unit > 0) {
        // Importance levels are the per-pixel level term, as importance_as_levels makes them
        // for host inputs: the same costs, so the same seams.
        pack(*in.importance, d.temporal, "packing the importance map");
        d.has_temporal = true;
        d.levels_fixed = true;
        d.temporal_unit = in.importance_unit;
    }
    return d;
}

/// The transpose of every image (width and height swap), on the device.
template <class Pixel>
DenseImages<Pixel> transposed(const DenseImages<Pixel>& in, const cudaStream_t stream) {
    DenseImages<Pixel> t;
    t.width = in.height;
    t.height = in.width;
    t.has_protect = in.has_protect;
    t.has_remove = in.has_remove;
    t.has_index = in.has_index;
    t.has_temporal = in.has_temporal;
    t.levels_fixed = in.levels_fixed;
    t.temporal_unit = in.temporal_unit;
    t.temporal_seams = in.temporal_seams;
    t.has_importance = in.has_importance;
    t.importance_unit = in.importance_unit;
    const std::size_t n = in.pixels();
    const auto words = [&](const auto& from, auto& to, const char* what) {
        to.reserve(n);
        cuda_check_launch(kernels::launch_transpose32(
                              reinterpret_cast<const std::uint32_t*>(from.data()), in.width,
                              in.height, reinterpret_cast<std::uint32_t*>(to.data()), stream),
                          what);
    };
    const auto bytes = [&](const DeviceBuffer<std::uint8_t>& from, DeviceBuffer<std::uint8_t>& to) {
        to.reserve(n);
        cuda_check_launch(
            kernels::launch_transpose8(from.data(), in.width, in.height, to.data(), stream),
            "transposing a mask");
    };
    if constexpr (sizeof(Pixel) == 8) {
        t.image.reserve(n);
        cuda_check_launch(kernels::launch_transpose64(
                              reinterpret_cast<const std::uint64_t*>(in.image.data()), in.width,
                              in.height, reinterpret_cast<std::uint64_t*>(t.image.data()), stream),
                          "transposing the image");
    } else {
        words(in.image, t.image, "transposing the image");
    }
    if (in.has_index) words(in.index, t.index, "transposing the pixel index");
    if (in.has_protect) bytes(in.protect, t.protect);
    if (in.has_remove) bytes(in.remove, t.remove);
    if (in.has_temporal) bytes(in.temporal, t.temporal);
    if (in.has_importance) bytes(in.importance, t.importance);
    return t;
}

/// Every image without the pixels whose `order` (dense, same size) is below `count`: one
/// compaction per row, on the device.
DenseImages<> compacted(const DenseImages<>& in, const std::int32_t* order, const int count,
                        const cudaStream_t stream) {
    DenseImages<> c;
    c.width = in.width - count;
    c.height = in.height;
    c.has_protect = in.has_protect;
    c.has_remove = in.has_remove;
    c.has_index = in.has_index;
    c.has_temporal = in.has_temporal;
    c.levels_fixed = in.levels_fixed;
    c.temporal_unit = in.temporal_unit;
    c.has_importance = in.has_importance;
    c.importance_unit = in.importance_unit;
    const std::size_t n = c.pixels();
    const auto words = [&](const auto& from, auto& to) {
        to.reserve(n);
        cuda_check_launch(
            kernels::launch_compact_rows32(
                reinterpret_cast<const std::uint32_t*>(from.data()), order, in.width, in.height,
                count, reinterpret_cast<std::uint32_t*>(to.data()), c.width, stream),
            "removing seams");
    };
    const auto bytes = [&](const DeviceBuffer<std::uint8_t>& from, DeviceBuffer<std::uint8_t>& to) {
        to.reserve(n);
        cuda_check_launch(kernels::launch_compact_rows8(from.data(), order, in.width, in.height,
                                                        count, to.data(), c.width, stream),
                          "removing seams");
    };
    words(in.image, c.image);
    if (in.has_index) words(in.index, c.index);
    if (in.has_protect) bytes(in.protect, c.protect);
    if (in.has_remove) bytes(in.remove, c.remove);
    if (in.has_temporal) bytes(in.temporal, c.temporal);
    if (in.has_importance) bytes(in.importance, c.importance);
    return c;
}

/// Every device buffer of one carve, owned together. The carver finds vertical seams of the
/// images it is given; for horizontal seams it is given their transpose (made on the device) and
/// says so, so that its order comes back in the original orientation.
class DeviceCarver {
  public:
    template <class Pixel>
    DeviceCarver(const DenseImages<Pixel>& in, const SeamEnergy energy,
                 const SeamDirection direction, const int seams, const cudaStream_t stream)
        : seams_(seams),
          horizontal_(direction == SeamDirection::Horizontal),
          W_(horizontal_ ? in.height : in.width),
          H_(horizontal_ ? in.width : in.height),
          stream_(stream) {
        const int cw = in.width, ch = in.height;
        const std::size_t n = in.pixels();
        // A deep carve always takes the masked layout (64-bit costs, 32-bit aux), its mask bits
        // zero when it has no masks. A fixed level map alone (a still's importance, a video
        // distance map) at a unit that fits folds into the unmasked layout (32-bit costs: the
        // fast CPU carver's levels_fold_into_energy, the same costs as the masked layout, at
        // about the unmasked speed); per-seam levels and levels beside a mask take the masked one.
        constexpr bool deep = std::is_same_v<Pixel, Rgba16>;
        // Importance beside a temporal term rides with the pixels as a folded map does (alpha
        // byte or aux bits 10..15) while the temporal level keeps the mask bits: a second level
        // field without a second per-pixel byte in the kernels. (A deep carve never has both:
        // refuse_two_level_fields.) Alone, in a chained frame that follows nothing, it folds
        // into the unmasked layout where its unit allows.
        const bool importance = !deep && in.has_importance && in.importance_unit > 0;
        const bool fold = !deep && in.has_temporal && in.levels_fixed && !in.has_protect &&
                          !in.has_remove && in.temporal_unit > 0 && !importance &&
                          level_unit_folds(in.temporal_unit);
        const bool masks = deep || in.has_protect || in.has_remove || (in.has_temporal && !fold) ||
                           (importance && !level_unit_folds(in.importance_unit));
        const int stride = padded_stride(cw);
        const std::size_t cells = static_cast<std::size_t>(stride) * ch;

        aux_.reserve(masks ? cells : (cells + 1) / 2);  // int32 with masks, int16 without
        cost_.reserve(masks ? cells : (cells + 1) / 2);
        parent_.reserve(cells);
        index_.reserve(cells);
        seam_.reserve(static_cast<std::size_t>(ch));
        order_.reserve(n);
        const std::size_t per_seam = static_cast<std::size_t>(std::max(seams, 1));
        seam_costs_.reserve(per_seam);
        crossed_.reserve(2 * per_seam);
        crossed_.zero_async(2 * per_seam, stream_);
        stats_.reserve(4);
        stats_.zero_async(4, stream_);
        if (masks) mask_.reserve(cells);
        if (energy != SeamEnergy::Forward) image_.reserve(cells * sizeof(Pixel) / sizeof(Rgba8));

        s_.stride = stride;
        s_.width = cw;
        s_.height = ch;
        s_.original_width = cw;
        s_.energy = energy;
        s_.masks = masks;
        s_.deep = deep;
        s_.temporal_unit = in.has_temporal && !fold ? in.temporal_unit : 0;
        s_.level_unit = fold ? in.temporal_unit : importance ? in.importance_unit : 0;
        s_.aux = aux_.data();
        s_.cost = cost_.data();
        s_.parent = parent_.data();
        s_.index = index_.data();
        s_.mask = masks ? mask_.data() : nullptr;
        s_.image = energy != SeamEnergy::Forward ? image_.data() : nullptr;
        s_.seam = seam_.data();
        s_.order = order_.data();
        s_.seam_costs = seam_costs_.data();
        s_.protected_crossed = crossed_.data();
        s_.remove_crossed = crossed_.data() + per_seam;
        s_.stats = stats_.data();
        if (in.temporal_seams != nullptr) {
            const SeamPaths& paths = *in.temporal_seams;
            temporal_seams_.upload(paths.positions.data(), paths.positions.size(), stream_);
            temporal_window_.reserve(2 * static_cast<std::size_t>(ch));
            s_.temporal_seams = temporal_seams_.data();
            s_.temporal_count = paths.count;
            s_.temporal_window = temporal_window_.data();
        }
        cuda_check_launch(
            kernels::launch_carve_init(s_, in.image.data(), in.protect_or_null(),
                                       in.remove_or_null(), fold ? nullptr : in.temporal_or_null(),
                                       fold         ? in.temporal_or_null()
                                       : importance ? in.importance_or_null()
                                                    : nullptr,
                                       stream_),
            "preparing seam carving");
    }

    /// Chained video carves: the per-seam term's paths are another carver's crossings, on the
    /// device (`count` seams × this carve's rows); seam 0's levels are set from them on the
    /// device just before seam 0 (enqueue_seam_levels), once the other carver has written them.
    /// The carver must have been built with the masked layout.
    void follow_device_paths(const std::int32_t* paths, const int count, const int unit) {
        temporal_window_.reserve(2 * static_cast<std::size_t>(s_.height));
        s_.temporal_seams = paths;
        s_.temporal_count = count;
        s_.temporal_unit = unit;
        s_.temporal_window = temporal_window_.data();
    }
    void enqueue_seam_levels() {
        cuda_check_launch(kernels::launch_carve_seam_levels(s_, stream_), "seam carving kernels");
    }
    /// Makes every removal record its seam's crossings (original columns) and returns them:
    /// seams × this carve's rows, on the device.
    const std::int32_t* record_crossings() {
        crossings_.reserve(static_cast<std::size_t>(std::max(seams_, 1)) * s_.height);
        s_.crossings = crossings_.data();
        return crossings_.data();
    }
    [[nodiscard]] cudaStream_t stream() const { return stream_; }

    /// Enqueues seam k: find it (the first from scratch, later ones incrementally), remove it.
    void enqueue_find(const int k) {
        kernels::CarveState s = s_;
        s.width = s_.width - k;
        cuda_check_launch(kernels::launch_carve_find_seam(s, k, k == 0, stream_),
                          "seam carving kernels");
    }
    void enqueue_remove(const int k) {
        kernels::CarveState s = s_;
        s.width = s_.width - k;
        cuda_check_launch(kernels::launch_carve_remove_seam(s, k, stream_), "seam carving kernels");
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
                        cudaStreamSynchronize(stream_);
                        throw Error(ErrorCode::Cancelled, "seam carving cancelled");
                    }
                }
                checkpoints[c].record(stream_);
                pending = c;
            }
        }
        cuda_check(cudaStreamSynchronize(stream_), "seam carving kernels");
        if (progress) progress(seams_, seams_);
    }

    /// The same carve with each stage timed (events around the launches, SM clocks inside the
    /// finder kernel's first block).
    void run_profiled(CarveProfile& profile, const Event& begin) {
        Event setup_done, a, b, c;
        setup_done.record(stream_);
        setup_done.wait();
        profile.setup_ms = setup_done.since(begin);
        clocks_.reserve(6);
        s_.clocks = clocks_.data();
        double update_ms = 0, walk_ms = 0, removal_ms = 0, mhz_sum = 0;
        std::int64_t clocks[6] = {0, 0, 0, 0, 0, 0};
        double detail[4] = {0, 0, 0, 0};
        for (int k = 0; k < seams_; ++k) {
            a.record(stream_);
            enqueue_find(k);
            b.record(stream_);
            enqueue_remove(k);
            c.record(stream_);
            c.wait();
            clocks_.download(clocks, 6, stream_);
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
        profile.stager_ms_per_seam = detail[3] / seams_;
        profile.walk_ms_per_seam = walk_ms / incremental;
        profile.removal_ms_per_seam = removal_ms / std::max(seams_, 1);
        std::int64_t stats[2] = {0, 0};
        stats_.download(stats, 2, stream_);
        const double rows = static_cast<double>(s_.height) * std::max(seams_, 1);
        profile.cells_per_seam = static_cast<double>(stats[0]) / std::max(seams_, 1);
        profile.direct_rows_share = static_cast<double>(stats[1]) / rows;
        profile.cost_bits = s_.masks ? 64 : 32;
        profile.folded_levels = s_.level_unit > 0;
        kernels::CarveState first_update = s_;
        first_update.width = s_.width - std::min(1, seams_);
        profile.finder_blocks = kernels::carve_finder_blocks(first_update);
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
            cuda_check_launch(kernels::launch_transpose32(
                                  reinterpret_cast<const std::uint32_t*>(order_.data()), H_, W_,
                                  reinterpret_cast<std::uint32_t*>(back.data()), stream_),
                              "transposing the seam order");
            back.download(host_order.data(), n, stream_);
        } else {
            order_.download(host_order.data(), n, stream_);
        }
        out.order = from_dense(host_order, W_, H_);
        const SeamOrder sums = totals();
        out.costs = sums.costs;
        out.protected_crossed = sums.protected_crossed;
        out.remove_crossed = sums.remove_crossed;
        return out;
    }

    /// The order as a device image in the original orientation (transposed back on the device
    /// for horizontal seams), on `result_stream`; the carve's stream is synchronised, so the
    /// carver may be destroyed at once.
    [[nodiscard]] DeviceSeamOrder device_result(const DeviceStream result_stream) {
        DeviceSeamOrder out;
        out.direction = horizontal_ ? SeamDirection::Horizontal : SeamDirection::Vertical;
        out.width = W_;
        out.height = H_;
        out.seams = seams_;
        out.order = DeviceImage<std::int32_t>(W_, H_, result_stream);
        const std::size_t n = static_cast<std::size_t>(W_) * H_;
        DeviceBuffer<std::int32_t> back;
        const std::int32_t* dense = order_.data();
        if (horizontal_) {
            // The carve's order is H_ wide and W_ high.
            back.reserve(n);
            cuda_check_launch(kernels::launch_transpose32(
                                  reinterpret_cast<const std::uint32_t*>(order_.data()), H_, W_,
                                  reinterpret_cast<std::uint32_t*>(back.data()), stream_),
                              "transposing the seam order");
            dense = back.data();
        }
        const std::size_t row_bytes = static_cast<std::size_t>(W_) * sizeof(std::int32_t);
        cuda_check(cudaMemcpy2DAsync(out.order.device_view().data, out.order.pitch(), dense,
                                     row_bytes, row_bytes, static_cast<std::size_t>(H_),
                                     cudaMemcpyDeviceToDevice, stream_),
                   "copying the seam order");
        // `back` and the carver's buffers are freed next: the copy must be done with them, and
        // the map must be complete on whatever stream the caller reads it from.
        cuda_check(cudaStreamSynchronize(stream_), "copying the seam order");
        return out;
    }

    /// The order in the carve's orientation (transposed for horizontal seams), on the device.
    [[nodiscard]] const std::int32_t* carve_order() const { return order_.data(); }
    /// Per-seam costs and mask crossings (the order map left empty).
    [[nodiscard]] SeamOrder totals() {
        SeamOrder out;
        out.seams = seams_;
        if (seams_ > 0) {
            out.costs.resize(static_cast<std::size_t>(seams_));
            seam_costs_.download(out.costs.data(), out.costs.size(), stream_);
            std::vector<std::int32_t> counts(2 * static_cast<std::size_t>(seams_));
            crossed_.download(counts.data(), counts.size(), stream_);
            out.protected_crossed.assign(counts.begin(), counts.begin() + seams_);
            out.remove_crossed.assign(counts.begin() + seams_, counts.end());
        }
        return out;
    }

  private:
    int seams_;
    bool horizontal_;
    int W_, H_;  ///< the original orientation
    cudaStream_t stream_;
    kernels::CarveState s_{};
    DeviceBuffer<Rgba8> image_;  ///< Rgba8 or Rgba16 pixels (a deep carve uses twice the cells)
    DeviceBuffer<std::uint8_t> mask_;
    DeviceBuffer<std::int32_t> aux_;   ///< int16 aux terms use the first half
    DeviceBuffer<std::int64_t> cost_;  // int32 costs use the first half
    DeviceBuffer<std::int8_t> parent_;
    DeviceBuffer<std::int32_t> index_, seam_, order_, crossed_;
    DeviceBuffer<std::int32_t> temporal_seams_, temporal_window_, crossings_;
    DeviceBuffer<std::int64_t> seam_costs_, stats_, clocks_;
};

}  // namespace

/// Importance beside a temporal term rides with the 8-bit pixels (CarveState::level_unit); a
/// 16-bit decision image (measurements, which have no temporal term) has no such place: refused
/// rather than dropped.
template <class Pixel>
void refuse_two_level_fields(const BasicCarveInput<Pixel>& input) {
    if (std::is_same_v<Pixel, Rgba16> && detail::importance_with_temporal(input))
        throw Error(ErrorCode::InvalidArgument,
                    "a 16-bit decision image takes an importance map or a temporal term, not both");
}
namespace {
template <class Pixel>
SeamOrder carve_host_input(const BasicCarveInput<Pixel>& given, const SeamDirection direction,
                           const int seams, const CarveProgress& progress) {
    detail::check_carve_input(given, direction, seams);
    const BasicCarveInput<Pixel> input = detail::importance_as_levels(given);
    refuse_two_level_fields(input);
    const Stream stream;
    DenseImages<Pixel> images = upload(input, false, stream.get(), direction);
    if (direction == SeamDirection::Horizontal) images = transposed(images, stream.get());
    DeviceCarver carver(images, input.energy, direction, seams, stream.get());
    carver.run(progress);
    return carver.result();
}
}  // namespace

SeamOrder seam_order_cuda(const CarveInput& input, const SeamDirection direction, const int seams,
                          const CarveProgress& progress) {
    return carve_host_input(input, direction, seams, progress);
}

SeamOrder seam_order_cuda(const DeepCarveInput& input, const SeamDirection direction,
                          const int seams, const CarveProgress& progress) {
    return carve_host_input(input, direction, seams, progress);
}

void set_cuda_finder_blocks(const int blocks) {
    kernels::set_carve_finder_blocks(blocks);
}

SeamOrder seam_order_cuda_profiled(const CarveInput& given, const SeamDirection direction,
                                   const int seams, CarveProfile& profile) {
    detail::check_carve_input(given, direction, seams);
    const CarveInput input = detail::importance_as_levels(given);
    refuse_two_level_fields(input);
    profile = CarveProfile{};
    const Stream stream;
    Event begin, end;
    begin.record(stream.get());
    DenseImages<> images = upload(input, false, stream.get(), direction);
    if (direction == SeamDirection::Horizontal) images = transposed(images, stream.get());
    DeviceCarver carver(images, input.energy, direction, seams, stream.get());
    carver.run_profiled(profile, begin);
    SeamOrder order = carver.result();
    end.record(stream.get());
    end.wait();
    profile.total_ms = end.since(begin);
    return order;
}

std::vector<SeamOrder> seam_orders_cuda_chained(const std::vector<CarveInput>& frames,
                                                const SeamDirection direction, const int seams,
                                                const SeamPaths* first_previous,
                                                const std::vector<bool>& follows,
                                                const int temporal_unit) {
    detail::check_chained_input(frames, direction, seams, first_previous, follows, temporal_unit);
    const std::size_t n = frames.size();
    if (n == 0) return {};
    const auto linked = [&](const std::size_t f) { return follows[f] && temporal_unit > 0; };

    // One stream, carver and event per frame. Each frame's images are uploaded on its own
    // stream; a frame that follows another takes the masked layout (its levels live in the mask
    // bits), its paths being the crossings the frame before it records.
    std::vector<std::unique_ptr<Stream>> streams;
    std::vector<std::unique_ptr<DeviceCarver>> carvers;
    std::vector<lacuna::detail::OrderingEvent> done(n);
    DeviceBuffer<std::int32_t> first_paths;
    const std::int32_t* previous_crossings = nullptr;
    for (std::size_t f = 0; f < n; ++f) {
        streams.push_back(std::make_unique<Stream>());
        const cudaStream_t stream = streams.back()->get();
        CarveInput plain = frames[f];
        plain.temporal = nullptr;
        plain.temporal_seams = nullptr;
        DenseImages<> images = upload(plain, false, stream, direction);
        if (direction == SeamDirection::Horizontal) images = transposed(images, stream);
        images.has_temporal = linked(f);  // the layout only: seam 0's levels come later
        images.temporal_unit = linked(f) ? temporal_unit : 0;
        carvers.push_back(
            std::make_unique<DeviceCarver>(images, plain.energy, direction, seams, stream));
        DeviceCarver& carver = *carvers.back();
        if (linked(f)) {
            const std::int32_t* paths = previous_crossings;
            if (f == 0) {
                first_paths.upload(first_previous->positions.data(),
                                   first_previous->positions.size(), stream);
                paths = first_paths.data();
            }
            carver.follow_device_paths(paths, seams, temporal_unit);
        }
        previous_crossings = f + 1 < n ? carver.record_crossings() : nullptr;
    }
    // The wavefront: at step t frame f does seam t − f. Frame f's removal of seam k moves its
    // levels to the previous frame's seam k + 1, which that frame removed earlier in the same
    // step; seam 0's levels need the previous frame's seam 0. Enqueued in this order, each wait
    // is on the previous frame's latest mark.
    const int steps = seams + static_cast<int>(n) - 1;
    for (int t = 0; t < steps; ++t) {
        for (std::size_t f = 0; f < n; ++f) {
            const int k = t - static_cast<int>(f);
            if (k < 0 || k >= seams) continue;
            DeviceCarver& carver = *carvers[f];
            const bool waits = linked(f) && f > 0;
            if (linked(f) && k == 0) {
                if (waits) done[f - 1].order_before(carver.stream());
                carver.enqueue_seam_levels();
            }
            carver.enqueue_find(k);
            if (waits && k + 1 < seams) done[f - 1].order_before(carver.stream());
            carver.enqueue_remove(k);
            done[f].record(carver.stream());
        }
    }
    // Frames finish in order, the first n − 1 steps before the last: their orders are fetched
    // (and laid out on the host) by several threads while the device finishes the rest.
    std::vector<SeamOrder> orders(n);
    parallel_chunks(static_cast<int>(n), [&](const int f0, const int f1, int) {
        for (int f = f0; f < f1; ++f) {
            DeviceCarver& carver = *carvers[static_cast<std::size_t>(f)];
            cuda_check(cudaStreamSynchronize(carver.stream()), "seam carving kernels");
            orders[static_cast<std::size_t>(f)] = carver.result();
        }
    });
    return orders;
}

namespace {
template <class Pixel>
DeviceSeamOrder carve_device_input(const BasicDeviceCarveInput<Pixel>& input,
                                   const SeamDirection direction, const int seams,
                                   const CarveProgress& progress) {
    detail::check_carve_input(input, direction, seams);
    const Stream stream;
    DenseImages<Pixel> images = dense_from_device(input, stream.get());
    if (direction == SeamDirection::Horizontal) images = transposed(images, stream.get());
    DeviceCarver carver(images, input.energy, direction, seams, stream.get());
    carver.run(progress);
    return carver.device_result(input.image->stream());
}
}  // namespace

DeviceSeamOrder seam_order_cuda(const DeviceCarveInput& input, const SeamDirection direction,
                                const int seams, const CarveProgress& progress) {
    return carve_device_input(input, direction, seams, progress);
}

DeviceSeamOrder seam_order_cuda(const DeepDeviceCarveInput& input, const SeamDirection direction,
                                const int seams, const CarveProgress& progress) {
    return carve_device_input(input, direction, seams, progress);
}

DeviceSeamOrder upload_order(const SeamOrder& order, const DeviceStream stream) {
    DeviceSeamOrder out;
    out.direction = order.direction;
    out.width = order.width;
    out.height = order.height;
    out.seams = order.seams;
    out.order = DeviceImage<std::int32_t>(order.order.view(), stream);
    return out;
}

SeamOrder download_order(const DeviceSeamOrder& order) {
    SeamOrder out;
    out.direction = order.direction;
    out.width = order.width;
    out.height = order.height;
    out.seams = order.seams;
    out.order = order.order.download();
    return out;
}

namespace detail {

DeviceShrink shrink_cuda(const CarveInput& input, const int shrink_width, const int shrink_height,
                         const bool width_first, const CarveProgress& progress) {
    const Stream stream;
    DenseImages<> images = upload(input, false, stream.get());
    DeviceShrink out;
    const auto pass = [&](const SeamDirection direction, const int count) {
        if (count <= 0) return;
        const bool horizontal = direction == SeamDirection::Horizontal;
        // Horizontal seams are vertical seams of the transpose; the compaction runs there too
        // and the result is transposed back: nothing leaves the device between the passes.
        DenseImages<> frame = horizontal ? transposed(images, stream.get()) : std::move(images);
        DeviceCarver carver(frame, input.energy, direction, count, stream.get());
        carver.run(progress);
        const SeamOrder sums = carver.totals();
        out.cost += std::accumulate(sums.costs.begin(), sums.costs.end(), std::int64_t{0});
        out.protected_removed += std::accumulate(sums.protected_crossed.begin(),
                                                 sums.protected_crossed.end(), std::int64_t{0});
        DenseImages<> narrower = compacted(frame, carver.carve_order(), count, stream.get());
        images = horizontal ? transposed(narrower, stream.get()) : std::move(narrower);
        // The carver's and the frame's buffers are freed here: let the kernels reading them end.
        cuda_check(cudaStreamSynchronize(stream.get()), "removing seams");
    };
    pass(width_first ? SeamDirection::Vertical : SeamDirection::Horizontal,
         width_first ? shrink_width : shrink_height);
    pass(width_first ? SeamDirection::Horizontal : SeamDirection::Vertical,
         width_first ? shrink_height : shrink_width);
    std::vector<Rgba8> pixels(images.pixels());
    images.image.download(pixels.data(), pixels.size(), stream.get());
    out.image = from_dense(pixels, images.width, images.height);
    if (images.has_remove) {
        std::vector<std::uint8_t> remove(images.pixels());
        images.remove.download(remove.data(), remove.size(), stream.get());
        out.remove_left = std::count_if(remove.begin(), remove.end(),
                                        [](const std::uint8_t v) { return v != 0; });
    }
    return out;
}

}  // namespace detail

struct CudaSeamSlider::Impl {
    lacuna::detail::Stream stream;  // declared first, destroyed last
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
    impl_->image.upload(pixels.data(), n, impl_->stream.get());
    impl_->order.upload(ranks.data(), n, impl_->stream.get());
    impl_->frame.reserve(n);
}

CudaSeamSlider::~CudaSeamSlider() = default;

ImageRgba8 CudaSeamSlider::frame(const int count) {
    if (count < 0 || count > impl_->seams) {
        throw Error(ErrorCode::InvalidArgument, "the slider holds " + std::to_string(impl_->seams) +
                                                    " seams, not " + std::to_string(count));
    }
    const int w = impl_->width - count;
    cuda_check_launch(kernels::launch_compact_rows(impl_->image.data(), impl_->order.data(),
                                                   impl_->width, impl_->height, count,
                                                   impl_->frame.data(), w, impl_->stream.get()),
                      "compaction kernel");
    std::vector<Rgba8> pixels(static_cast<std::size_t>(w) * impl_->height);
    impl_->frame.download(pixels.data(), pixels.size(), impl_->stream.get());
    return from_dense(pixels, w, impl_->height);
}

double CudaSeamSlider::time_frame_ms(const int count, const int repeats) {
    const int w = impl_->width - count;
    const auto launch = [&] {
        cuda_check_launch(kernels::launch_compact_rows(impl_->image.data(), impl_->order.data(),
                                                       impl_->width, impl_->height, count,
                                                       impl_->frame.data(), w, impl_->stream.get()),
                          "compaction kernel");
    };
    return lacuna::detail::median_event_ms(repeats, impl_->stream.get(), launch);
}

// ---- previews on device images ----
namespace {

template <class T>
void check_preview(const DeviceImage<T>& image, const DeviceSeamOrder& order, const int count,
                   const DeviceImage<T>& dst) {
    detail::check_order(image.width(), image.height(), order.width, order.height, order.seams,
                        count);
    if (order.order.width() != order.width || order.order.height() != order.height)
        detail::invalid("the device seam order's map is not the size it says");
    // dst is resized before the kernel reads the image: it cannot be the image.
    if (&image == &dst) detail::invalid("a seam preview cannot write into its own source");
}

/// One preview kernel into `dst` (already sized) on dst's stream, after the inputs' streams.
template <class T>
void run_pass(const kernels::SeamPass pass, const DeviceImage<T>& image,
              const DeviceSeamOrder& order, const int count, DeviceImage<T>& dst,
              const char* what) {
    order_after(image.stream(), dst.stream());
    order_after(order.order.stream(), dst.stream());
    cuda_check_launch(kernels::launch_seam_pass(pass, order.direction == SeamDirection::Vertical,
                                                image.device_view(), order.order.device_view(),
                                                count, dst.device_view(), dst.stream()),
                      what);
}

/// The output size of a pass that removes (sign −1) or inserts (+1) `count` seams.
template <class T>
void resize_for(DeviceImage<T>& dst, const DeviceImage<T>& image, const DeviceSeamOrder& order,
                const int change) {
    const bool vertical = order.direction == SeamDirection::Vertical;
    dst.resize(image.width() + (vertical ? change : 0), image.height() + (vertical ? 0 : change));
}

}  // namespace

template <class T>
void remove_seams(const DeviceImage<T>& image, const DeviceSeamOrder& order, const int count,
                  DeviceImage<T>& dst) {
    check_preview(image, order, count, dst);
    resize_for(dst, image, order, -count);
    run_pass(kernels::SeamPass::Remove, image, order, count, dst, "removing seams on the device");
}

void insert_seams(const DeviceImage<Rgba8>& image, const DeviceSeamOrder& order, const int count,
                  DeviceImage<Rgba8>& dst) {
    check_preview(image, order, count, dst);
    resize_for(dst, image, order, count);
    run_pass(kernels::SeamPass::Insert, image, order, count, dst, "inserting seams on the device");
}

template <class T>
void insert_seams_nearest(const DeviceImage<T>& image, const DeviceSeamOrder& order,
                          const int count, DeviceImage<T>& dst) {
    check_preview(image, order, count, dst);
    resize_for(dst, image, order, count);
    run_pass(kernels::SeamPass::InsertNearest, image, order, count, dst,
             "inserting seams on the device");
}

void paint_seams(const DeviceImage<Rgba8>& image, const DeviceSeamOrder& order, const int count,
                 const Rgba8 colour, DeviceImage<Rgba8>& dst) {
    check_preview(image, order, count, dst);
    dst.resize(image.width(), image.height());
    order_after(image.stream(), dst.stream());
    order_after(order.order.stream(), dst.stream());
    cuda_check_launch(kernels::launch_paint_seams(image.device_view(), order.order.device_view(),
                                                  count, colour, dst.device_view(), dst.stream()),
                      "painting seams on the device");
}

template void remove_seams<Rgba8>(const DeviceImage<Rgba8>&, const DeviceSeamOrder&, int,
                                  DeviceImage<Rgba8>&);
template void remove_seams<std::uint8_t>(const DeviceImage<std::uint8_t>&, const DeviceSeamOrder&,
                                         int, DeviceImage<std::uint8_t>&);
template void insert_seams_nearest<Rgba8>(const DeviceImage<Rgba8>&, const DeviceSeamOrder&, int,
                                          DeviceImage<Rgba8>&);
template void insert_seams_nearest<std::uint8_t>(const DeviceImage<std::uint8_t>&,
                                                 const DeviceSeamOrder&, int,
                                                 DeviceImage<std::uint8_t>&);

DeviceImage<Rgba16> deep_carving_proxy(const DeviceImage<std::uint8_t>& rows,
                                       const PixelFormat format, const int width,
                                       const double raw_lo, const double raw_hi) {
    DeviceImage<Rgba16> out(width, rows.height(), rows.stream());
    const kernels::RawSamples raw{
        rows.device_view().data,         rows.pitch(),   width, rows.height(),
        static_cast<int>(format.sample), format.channels};
    cuda_check_launch(
        kernels::launch_deep_decision(raw, raw_lo, raw_hi, out.device_view(), rows.stream()),
        "decision image kernel");
    return out;
}

}  // namespace lacuna::ops
