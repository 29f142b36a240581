// CUDA seam carving, host side: upload once, one launch sequence per seam on one stream with no
// synchronisation in between, download the order map and the per-seam costs at the end.
#include "carve_state.hpp"

#include "cuda_check.hpp"

#include <lacuna/core/device_buffer.hpp>
#include <lacuna/kernels/seam_kernels.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <numeric>
#include <utility>

namespace lacuna::ops {

using lacuna::detail::cuda_check;

namespace {

SeamOrder vertical_cuda(const CarveInput& in, const int seams) {
    const int W = in.image.width, h = in.image.height;
    const std::size_t n = static_cast<std::size_t>(W) * h;
    const bool masks = in.protect != nullptr || in.remove != nullptr;

    const std::vector<Rgba8> host_image = to_dense(in.image);
    std::vector<std::int32_t> host_index(n);
    std::iota(host_index.begin(), host_index.end(), 0);

    DeviceBuffer<Rgba8> image[2];
    DeviceBuffer<std::int32_t> index[2];
    DeviceBuffer<std::uint8_t> protect[2], remove[2];
    DeviceBuffer<std::int64_t> cost;   // int32 costs use the first half
    DeviceBuffer<std::int64_t> terms;  // one 8-byte CellTerms per pixel
    DeviceBuffer<std::int8_t> parent;
    DeviceBuffer<std::int32_t> seam, order, crossed;
    DeviceBuffer<std::int64_t> seam_costs;
    image[0].upload(host_image.data(), n);
    image[1].reserve(n);
    index[0].upload(host_index.data(), n);
    index[1].reserve(n);
    if (masks) {
        std::vector<std::uint8_t> p(n, 0), r(n, 0);
        for (int y = 0; y < h; ++y) {
            for (int x = 0; x < W; ++x) {
                if (in.protect) p[static_cast<std::size_t>(y) * W + x] = in.protect->at(x, y);
                if (in.remove) r[static_cast<std::size_t>(y) * W + x] = in.remove->at(x, y);
            }
        }
        protect[0].upload(p.data(), n);
        remove[0].upload(r.data(), n);
        protect[1].reserve(n);
        remove[1].reserve(n);
    }
    cost.reserve(n);
    terms.reserve(n);
    parent.reserve(n);
    seam.reserve(static_cast<std::size_t>(h));
    const std::vector<std::int32_t> never(n, kNeverRemoved);
    order.upload(never.data(), n);
    crossed.reserve(static_cast<std::size_t>(std::max(seams, 1)) * 2);
    seam_costs.reserve(static_cast<std::size_t>(std::max(seams, 1)));

    kernels::SeamState s;
    s.stride = W;
    s.height = h;
    s.energy = in.energy;
    s.cost = cost.data();
    s.terms = terms.data();
    s.parent = parent.data();
    s.seam = seam.data();
    s.order = order.data();
    s.seam_costs = seam_costs.data();
    s.protected_crossed = crossed.data();
    s.remove_crossed = crossed.data() + std::max(seams, 1);
    int current = 0;
    for (int k = 0; k < seams; ++k) {
        s.width = W - k;
        s.image = image[current].data();
        s.image_out = image[1 - current].data();
        s.index = index[current].data();
        s.index_out = index[1 - current].data();
        if (masks) {
            s.protect = protect[current].data();
            s.protect_out = protect[1 - current].data();
            s.remove = remove[current].data();
            s.remove_out = remove[1 - current].data();
        }
        cuda_check(kernels::launch_carve_one_seam(s, k, nullptr), "seam carving kernels");
        current = 1 - current;
    }
    SeamOrder result;
    result.direction = SeamDirection::Vertical;
    result.width = W;
    result.height = h;
    result.seams = seams;
    std::vector<std::int32_t> host_order(n);
    order.download(host_order.data(), n);  // synchronises: the first wait since the upload
    result.order = from_dense(host_order, W, h);
    if (seams > 0) {
        result.costs.resize(static_cast<std::size_t>(seams));
        seam_costs.download(result.costs.data(), result.costs.size());
        std::vector<std::int32_t> counts(static_cast<std::size_t>(seams) * 2);
        crossed.download(counts.data(), counts.size());
        result.protected_crossed.assign(counts.begin(), counts.begin() + seams);
        result.remove_crossed.assign(counts.begin() + seams, counts.end());
    }
    return result;
}

}  // namespace

SeamOrder seam_order_cuda(const CarveInput& input, const SeamDirection direction, const int seams) {
    detail::check_carve_input(input, direction, seams);
    return detail::in_direction(input, direction, seams, vertical_cuda);
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
