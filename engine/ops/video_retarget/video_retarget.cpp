// Video retargeting: the image carvers frame by frame, with the temporal term of
// video_retarget.hpp and scene-cut resets; and the flicker measure.
#include <lacuna/core/error.hpp>
#include <lacuna/core/parallel.hpp>
#include <lacuna/ops/video_retarget.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

namespace lacuna::ops {
namespace {

[[noreturn]] void invalid(const std::string& text) {
    throw Error(ErrorCode::InvalidArgument, text);
}

// Distance to the nearest marked entry of a line of `n` entries, two sweeps, capped.
template <class Marked, class Store>
void line_distances(const int n, Marked&& marked, Store&& store) {
    constexpr int cap = kTemporalLevels - 1;
    int since = cap;
    std::vector<int> left(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
        since = marked(i) ? 0 : std::min(since + 1, cap);
        left[static_cast<std::size_t>(i)] = since;
    }
    since = cap;
    for (int i = n - 1; i >= 0; --i) {
        since = marked(i) ? 0 : std::min(since + 1, cap);
        store(i, std::min(since, left[static_cast<std::size_t>(i)]));
    }
}

/// A frame and its protect mask after one pass: the first `count` seams of `order` removed, or
/// inserted when enlarging (the mask follows its pixels).
struct PassResult {
    ImageRgba8 image;
    std::optional<Mask> protect;
    std::optional<Mask> importance;
};
PassResult apply_pass(const ImageView<const Rgba8> image, const Mask* protect,
                      const Mask* importance, const SeamOrder& order, const int count,
                      const bool shrink) {
    const auto carry = [&](const Mask& mask) {
        return shrink ? remove_seams<std::uint8_t>(mask.view(), order, count)
                      : insert_seams_nearest<std::uint8_t>(mask.view(), order, count);
    };
    PassResult out{
        shrink ? remove_seams<Rgba8>(image, order, count) : insert_seams(image, order, count),
        std::nullopt, std::nullopt};
    if (protect) out.protect = carry(*protect);
    // The frame's importance levels follow its pixels into the second pass.
    if (importance) out.importance = carry(*importance);
    return out;
}

/// Whether the previous frame's order of this pass can steer `seams` seams of an image of this
/// size (it may be missing, hold fewer seams, or belong to another size).
bool can_follow(const std::optional<SeamOrder>& previous, const int seams, const int width,
                const int height) {
    return previous && previous->seams >= seams && previous->width == width &&
           previous->height == height;
}

double mean_abs_difference(const ImageView<const Rgba8> a, const ImageView<const Rgba8> b) {
    double sum = 0;
    for (int y = 0; y < a.height; ++y) {
        const Rgba8* pa = a.row(y);
        const Rgba8* pb = b.row(y);
        for (int x = 0; x < a.width; ++x)
            sum += std::abs(pa[x].r - pb[x].r) + std::abs(pa[x].g - pb[x].g) +
                   std::abs(pa[x].b - pb[x].b);
    }
    const double n = 3.0 * a.width * a.height;
    return n > 0 ? sum / n : 0;
}

}  // namespace

Mask temporal_distance_map(const SeamOrder& order, const int count) {
    Mask map(order.width, order.height, 0);
    const auto removed = [&](const int x, const int y) { return order.order.at(x, y) < count; };
    // Lines are independent: split them between threads (a video pays this every frame).
    if (order.direction == SeamDirection::Vertical) {
        parallel_chunks(order.height, [&](const int y0, const int y1, int) {
            for (int y = y0; y < y1; ++y)
                line_distances(
                    order.width, [&](const int x) { return removed(x, y); },
                    [&](const int x, const int d) { map.at(x, y) = static_cast<std::uint8_t>(d); });
        });
    } else {
        parallel_chunks(order.width, [&](const int x0, const int x1, int) {
            for (int x = x0; x < x1; ++x)
                line_distances(
                    order.height, [&](const int y) { return removed(x, y); },
                    [&](const int y, const int d) { map.at(x, y) = static_cast<std::uint8_t>(d); });
        });
    }
    return map;
}

double removed_pixels_changed(const SeamOrder& a, const SeamOrder& b, const int count) {
    if (a.width != b.width || a.height != b.height || a.direction != b.direction)
        invalid("seam orders of different images cannot be compared");
    long long differ = 0;
    for (int y = 0; y < a.height; ++y) {
        const std::int32_t* ra = a.order.row(y);
        const std::int32_t* rb = b.order.row(y);
        for (int x = 0; x < a.width; ++x) differ += (ra[x] < count) != (rb[x] < count);
    }
    const int lines = a.direction == SeamDirection::Vertical ? a.height : a.width;
    return static_cast<double>(differ) / (2.0 * std::max(count, 1) * lines);
}

std::string to_string(const TemporalTerm term) {
    return term == TemporalTerm::PerSeam ? "seam" : "removed";
}

std::optional<TemporalTerm> parse_temporal_term(const std::string& text) {
    if (text == "seam") return TemporalTerm::PerSeam;
    if (text == "removed") return TemporalTerm::RemovedPixels;
    return std::nullopt;
}

int temporal_unit(const double weight) {
    if (!(weight > 0)) return 0;
    return static_cast<int>(std::min<double>(std::lround(weight * 8), kTemporalMaxUnit));
}

namespace detail_cut {
// Mean luma of every kCutBlock × kCutBlock block (the last ones clipped).
constexpr int kCutBlock = 16;
std::vector<double> block_luma(const ImageView<const Rgba8> image) {
    const int bw = (image.width + kCutBlock - 1) / kCutBlock;
    const int bh = (image.height + kCutBlock - 1) / kCutBlock;
    std::vector<double> sum(static_cast<std::size_t>(bw) * bh, 0.0), count(sum.size(), 0.0);
    for (int y = 0; y < image.height; ++y) {
        const Rgba8* row = image.row(y);
        for (int x = 0; x < image.width; ++x) {
            const std::size_t b = static_cast<std::size_t>(y / kCutBlock) * bw + x / kCutBlock;
            sum[b] += luminance709(row[x]);
            count[b] += 1;
        }
    }
    for (std::size_t b = 0; b < sum.size(); ++b) sum[b] /= count[b];
    return sum;
}
double block_difference(const std::vector<double>& ma, const std::vector<double>& mb) {
    double sum = 0;
    for (std::size_t i = 0; i < ma.size(); ++i) sum += std::fabs(ma[i] - mb[i]);
    return ma.empty() ? 0 : sum / static_cast<double>(ma.size());
}
}  // namespace detail_cut

double mean_luma_difference(const ImageView<const Rgba8> a, const ImageView<const Rgba8> b) {
    if (a.width != b.width || a.height != b.height)
        invalid("frames of different sizes cannot be compared");
    // On block means: a pan moves fine texture a few pixels and changes single pixels a lot, but
    // hardly moves the block means; a cut changes them.
    return detail_cut::block_difference(detail_cut::block_luma(a), detail_cut::block_luma(b));
}

VideoRetargeter::VideoRetargeter(const int source_width, const int source_height,
                                 const VideoRetargetParams& params,
                                 const CarveImplementation implementation)
    : source_w_(source_width),
      source_h_(source_height),
      params_(params),
      implementation_(implementation),
      unit_(temporal_unit(params.temporal)) {
    check_image_size(source_width, source_height);
    const auto check_extent = [](const int target, const int source, const char* what) {
        if (target < 1 || target > 2 * source - 1)
            invalid(std::string("the target ") + what + " " + std::to_string(target) +
                    " is out of range for a video " + std::to_string(source) + " pixels " +
                    (what[0] == 'w' ? "wide" : "high") + " (1 to " +
                    std::to_string(2 * source - 1) + ")");
    };
    check_extent(params.width, source_width, "width");
    check_extent(params.height, source_height, "height");
    if (params.protect)
        check_mask_size(params.protect->view(), source_width, source_height, "the protect mask");
    if (!(params.temporal >= 0)) invalid("the temporal weight must be 0 or more");
    if (!(params.cut_threshold >= 0)) invalid("the cut threshold must be 0 or more");
    if (params.importance_unit < 0 || params.importance_unit > kTemporalMaxUnit)
        invalid("the importance unit is out of range (0 to " + std::to_string(kTemporalMaxUnit) +
                " per level)");
    if (params.approximate != 1 && params.approximate != 2 && params.approximate != 4 &&
        params.approximate != 8)
        invalid("the approximation factor must be 1 (exact), 2, 4 or 8, not " +
                std::to_string(params.approximate));
}

VideoRetargeter::FrameStart VideoRetargeter::start_frame(const ImageView<const Rgba8> frame,
                                                         const std::vector<double>& previous_blocks,
                                                         const int index) const {
    if (frame.width != source_w_ || frame.height != source_h_)
        invalid("frame " + std::to_string(index) + " is " + std::to_string(frame.width) + "x" +
                std::to_string(frame.height) + " but the video is " + std::to_string(source_w_) +
                "x" + std::to_string(source_h_));
    // The previous frame is kept as its block means only (mean_luma_difference in two halves).
    FrameStart start;
    start.blocks = detail_cut::block_luma(frame);
    const bool first = previous_blocks.empty();
    start.cut = !first &&
                detail_cut::block_difference(previous_blocks, start.blocks) > params_.cut_threshold;
    start.follows = unit_ > 0 && !first && !start.cut;
    return start;
}

bool VideoRetargeter::chains() const {
    return implementation_ != CarveImplementation::Reference && params_.approximate == 1 &&
           (params_.term == TemporalTerm::PerSeam || unit_ == 0);
}

int VideoRetargeter::frames_in_flight() const {
    if (!chains()) return 1;
    if (params_.chained_frames > 0) return params_.chained_frames;
    // Each frame in flight holds its carver's buffers (about 20 bytes a pixel: 1.3 GB of device
    // memory for 32 frames at 1080p) and two queues' frames. A wave of 32 was fastest at 720p
    // (H100: 16, 32, 64) and at 1080p (H100 7.9 / 12.1 / 10.5 fps for 16 / 32 / 48, H200 8.0 /
    // 11.8 / 9.8), where each frame's chain of rows keeps one SM busy; 8 at 4K, fewer beyond.
    // The CPU wave runs a thread per frame: at most one per core.
    const std::int64_t pixels = std::int64_t{source_w_} * source_h_;
    const int by_size =
        static_cast<int>(std::clamp<std::int64_t>((std::int64_t{64} << 20) / pixels, 1, 32));
    if (implementation_ == CarveImplementation::Fast)
        return std::min(by_size, static_cast<int>(std::clamp<unsigned>(worker_count(), 1, 16)));
    return by_size;
}

std::vector<ImageRgba8> VideoRetargeter::process_batch(
    const std::vector<ImageView<const Rgba8>>& frames, const std::vector<const Mask*>& importance) {
    if (!importance.empty() && importance.size() != frames.size())
        invalid("every frame of a batch needs an importance map (or none has one)");
    const auto importance_of = [&](const std::size_t f) -> const Mask* {
        return importance.empty() ? nullptr : importance[f];
    };
    std::vector<ImageRgba8> out;
    out.reserve(frames.size());
    if (!chains() || frames.size() < 2) {
        for (std::size_t f = 0; f < frames.size(); ++f)
            out.push_back(process(frames[f], importance_of(f)));
        return out;
    }
    const std::size_t n = frames.size();
    for (std::size_t f = 0; f < n; ++f) check_importance_map(importance_of(f));
    // Cuts first (they decide which frames follow which); the state is committed at the end so
    // that a failed batch can be carved again (the CPU fallback).
    std::vector<FrameStart> starts;
    std::vector<bool> follows(n);
    std::vector<double> blocks = previous_blocks_;
    for (std::size_t f = 0; f < n; ++f) {
        starts.push_back(start_frame(frames[f], blocks, frames_ + static_cast<int>(f)));
        follows[f] = starts.back().follows;
        blocks = starts.back().blocks;
    }
    std::vector<std::optional<ImageRgba8>> carved(n);
    std::vector<std::optional<Mask>> carved_protect(n), carved_importance(n);
    std::optional<SeamOrder> last_vertical = vertical_, last_horizontal = horizontal_;
    const auto current = [&](const std::size_t f) {
        return carved[f] ? std::as_const(*carved[f]).view() : frames[f];
    };
    const auto protect = [&](const std::size_t f) -> const Mask* {
        return carved_protect[f] ? &*carved_protect[f] : params_.protect;
    };
    const auto levels = [&](const std::size_t f) -> const Mask* {
        return carved_importance[f] ? &*carved_importance[f] : importance_of(f);
    };
    const auto pass = [&](const SeamDirection direction, const int target, const int extent,
                          std::optional<SeamOrder>& previous) {
        if (target == extent) {
            previous.reset();
            return;
        }
        const int count = std::abs(target - extent);
        std::vector<CarveInput> inputs;
        for (std::size_t f = 0; f < n; ++f) {
            inputs.push_back(CarveInput{current(f), protect(f), nullptr, params_.energy});
            if (levels(f) && params_.importance_unit > 0) {
                inputs.back().importance = levels(f);
                inputs.back().importance_unit = params_.importance_unit;
            }
        }
        std::vector<bool> linked = follows;
        std::optional<SeamPaths> first_paths;
        linked[0] = follows[0] && can_follow(previous, count, current(0).width, current(0).height);
        if (linked[0]) first_paths = seam_paths(*previous, count);
        const SeamPaths* first = first_paths ? &*first_paths : nullptr;
        std::vector<SeamOrder> orders =
            implementation_ == CarveImplementation::Cuda
                ? seam_orders_cuda_chained(inputs, direction, count, first, linked, unit_)
                : seam_orders_fast_chained(inputs, direction, count, first, linked, unit_);
        const bool shrink = target < extent;
        // The frames are independent now: carve them on all cores (the device waits meanwhile).
        parallel_chunks(static_cast<int>(n), [&](const int f0, const int f1, int) {
            for (int i = f0; i < f1; ++i) {
                const auto f = static_cast<std::size_t>(i);
                PassResult next =
                    apply_pass(current(f), protect(f), levels(f), orders[f], count, shrink);
                carved[f] = std::move(next.image);
                if (next.protect) carved_protect[f] = std::move(next.protect);
                if (next.importance) carved_importance[f] = std::move(next.importance);
            }
        });
        previous = std::move(orders.back());
    };
    pass(SeamDirection::Vertical, params_.width, source_w_, last_vertical);
    pass(SeamDirection::Horizontal, params_.height, source_h_, last_horizontal);
    for (std::size_t f = 0; f < n; ++f) {
        if (starts[f].cut) ++cuts_;
        out.push_back(carved[f] ? std::move(*carved[f]) : clone(frames[f]));
    }
    last_cut_ = starts.back().cut;
    previous_blocks_ = std::move(starts.back().blocks);
    vertical_ = std::move(last_vertical);
    horizontal_ = std::move(last_horizontal);
    frames_ += static_cast<int>(n);
    return out;
}

void VideoRetargeter::check_importance_map(const Mask* importance) const {
    if (importance)
        check_mask_size(importance->view(), source_w_, source_h_, "the frame's importance map");
}

ImageRgba8 VideoRetargeter::process(const ImageView<const Rgba8> frame, const Mask* importance) {
    check_importance_map(importance);
    FrameStart start = start_frame(frame, previous_blocks_, frames_);
    std::vector<double> blocks = std::move(start.blocks);
    last_cut_ = start.cut;
    if (last_cut_) ++cuts_;
    const bool temporal = start.follows;

    // The frame and the protect mask as the passes leave them: the inputs themselves until a
    // pass has carved them (the carver only reads, so nothing is copied for it).
    std::optional<ImageRgba8> carved;
    std::optional<Mask> carved_protect, carved_importance;
    const auto levels = [&]() -> const Mask* {
        return carved_importance ? &*carved_importance : importance;
    };
    const auto current = [&] { return carved ? std::as_const(*carved).view() : frame; };
    const auto protect = [&]() -> const Mask* {
        return carved_protect ? &*carved_protect : params_.protect;
    };
    // One direction: the seams of the current image (with the previous frame's term), applied
    // to it and to the protect mask that follows its pixels.
    const auto pass = [&](const SeamDirection direction, const int target, const int extent,
                          std::optional<SeamOrder>& previous) {
        if (target == extent) {
            previous.reset();
            return;
        }
        const int count = std::abs(target - extent);
        // Approximate: the coarse carve finds whole blocks of `factor` seams; enough blocks for
        // `count`, of which exactly `count` seams are then taken (any prefix of an order is one).
        const int factor = params_.approximate;
        const int coarse_extent =
            (direction == SeamDirection::Vertical ? current().width : current().height) / factor;
        const int rounded = (count + factor - 1) / factor * factor;
        const bool approximate = factor > 1 && rounded / factor < coarse_extent;
        const int seams = approximate ? rounded : count;
        std::optional<Mask> distances;
        std::optional<SeamPaths> paths;
        CarveInput in{current(), protect(), nullptr, params_.energy};
        if (levels() && params_.importance_unit > 0) {
            in.importance = levels();
            in.importance_unit = params_.importance_unit;
        }
        if (temporal && can_follow(previous, seams, current().width, current().height)) {
            if (params_.term == TemporalTerm::PerSeam)
                in.temporal_seams = &paths.emplace(seam_paths(*previous, seams));
            else
                in.temporal = &distances.emplace(temporal_distance_map(*previous, count));
            in.temporal_unit = unit_;
        }
        SeamOrder order =
            approximate ? seam_order_approximate(in, direction, seams, factor, implementation_)
                        : seam_order(in, direction, seams, implementation_);
        PassResult next = apply_pass(current(), protect(), levels(), order, count, target < extent);
        carved = std::move(next.image);
        if (next.protect) carved_protect = std::move(next.protect);
        if (next.importance) carved_importance = std::move(next.importance);
        previous = std::move(order);
    };
    pass(SeamDirection::Vertical, params_.width, source_w_, vertical_);
    pass(SeamDirection::Horizontal, params_.height, source_h_, horizontal_);
    previous_blocks_ = std::move(blocks);
    ++frames_;
    return carved ? std::move(*carved) : clone(frame);
}

ImageRgba8 resize_bilinear(const ImageView<const Rgba8> image, const int width, const int height) {
    check_image_size(width, height);
    ImageRgba8 out(width, height);
    const double sx = static_cast<double>(image.width) / width;
    const double sy = static_cast<double>(image.height) / height;
    for (int y = 0; y < height; ++y) {
        const double fy = std::clamp((y + 0.5) * sy - 0.5, 0.0, image.height - 1.0);
        const int y0 = static_cast<int>(fy), y1 = std::min(y0 + 1, image.height - 1);
        const double wy = fy - y0;
        for (int x = 0; x < width; ++x) {
            const double fx = std::clamp((x + 0.5) * sx - 0.5, 0.0, image.width - 1.0);
            const int x0 = static_cast<int>(fx), x1 = std::min(x0 + 1, image.width - 1);
            const double wx = fx - x0;
            const auto mix = [&](auto channel) {
                const double top =
                    channel(image.row(y0)[x0]) * (1 - wx) + channel(image.row(y0)[x1]) * wx;
                const double bottom =
                    channel(image.row(y1)[x0]) * (1 - wx) + channel(image.row(y1)[x1]) * wx;
                return static_cast<std::uint8_t>(std::lround(top * (1 - wy) + bottom * wy));
            };
            out.at(x, y) = Rgba8{
                mix([](Rgba8 p) { return double(p.r); }), mix([](Rgba8 p) { return double(p.g); }),
                mix([](Rgba8 p) { return double(p.b); }), mix([](Rgba8 p) { return double(p.a); })};
        }
    }
    return out;
}

void FlickerMeter::add(const ImageView<const Rgba8> input, const ImageView<const Rgba8> output) {
    ImageRgba8 scaled = resize_bilinear(input, output.width, output.height);
    if (previous_output_ && previous_output_->width() == output.width &&
        previous_output_->height() == output.height) {
        output_sum_ += mean_abs_difference(output, previous_output_->view());
        scaled_sum_ += mean_abs_difference(scaled.view(), previous_scaled_->view());
        ++pairs_;
    }
    previous_output_ = clone(output);
    previous_scaled_ = std::move(scaled);
}

}  // namespace lacuna::ops
