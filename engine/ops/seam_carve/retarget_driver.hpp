// Internal: the seams-only retarget driver, one for a photo (ImageRgba8, common.cpp) and for a
// measurement (NativeImage, native_retarget.cpp): both orders when both sides shrink, enlarging
// in steps of at most half the extent, masks and importance levels carried, the seams painted on
// the original. Only how a seam order is decided differs (the caller's `decide`), and how the
// stored samples are removed or averaged in (the overloads below).
#pragma once

#include "carve_state.hpp"

#include <lacuna/ops/seam_carve.hpp>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <optional>
#include <string>
#include <utility>

namespace lacuna::ops::detail {

/// The image being retargeted with everything that travels with it.
template <class Sample>
struct RetargetWorking {
    Sample image;
    std::optional<Mask> protect;
    std::optional<Mask> remove;
    std::optional<Mask> importance;  ///< levels carved, duplicated and scaled with the image
    int importance_unit = 0;
    /// The automatic mix's crop-keep levels (RetargetParams::crop_keep), carried like the
    /// importance; absent: the crop reads `importance`.
    std::optional<Mask> crop_keep;
    /// Original linear index of each pixel, kept only for the overlay (the seams are painted at
    /// the original positions): at 8K it is as large as the RGBA image itself.
    std::optional<Image<std::int32_t>> index;
    std::int64_t cost = 0;
    std::int64_t protected_removed = 0;
    std::optional<ImageRgba8> overlay;  ///< the original with the seams painted, when asked for
};

inline constexpr Rgba8 kRemovedVertical{255, 40, 40, 255};
inline constexpr Rgba8 kRemovedHorizontal{40, 120, 255, 255};
inline constexpr Rgba8 kInserted{40, 230, 80, 255};

inline ImageRgba8 remove_sample_seams(const ImageRgba8& image, const SeamOrder& order,
                                      const int count) {
    return remove_seams<Rgba8>(image.view(), order, count);
}
inline NativeImage remove_sample_seams(const NativeImage& samples, const SeamOrder& order,
                                       const int count) {
    return remove_seams(samples, order, count);
}
inline ImageRgba8 insert_sample_seams(const ImageRgba8& image, const SeamOrder& order,
                                      const int count) {
    return insert_seams(image.view(), order, count);
}
inline NativeImage insert_sample_seams(const NativeImage& samples, const SeamOrder& order,
                                       const int count) {
    return insert_seams(samples, order, count);
}

/// The state before any seam: `image` (width × height) with the request's masks, its importance
/// levels when they weigh, each pixel's own index, and `overlay`: the picture the seams are
/// painted on, given only when the request wants the overlay.
template <class Sample>
RetargetWorking<Sample> start_working(Sample image, const int width, const int height,
                                      const RetargetParams& p, std::optional<ImageRgba8> overlay) {
    RetargetWorking<Sample> w;
    w.image = std::move(image);
    if (p.protect) w.protect = *p.protect;
    if (p.remove) w.remove = *p.remove;
    if (p.importance && p.importance_unit > 0) {
        w.importance = *p.importance;
        w.importance_unit = p.importance_unit;
    }
    if (p.automatic && p.crop_keep) w.crop_keep = *p.crop_keep;
    w.overlay = std::move(overlay);
    if (!w.overlay) return w;
    w.index = Image<std::int32_t>(width, height);
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) w.index->at(x, y) = y * width + x;
    return w;
}

/// Paints the pixels of the first `count` seams at their original positions.
template <class Sample>
void mark_seams(RetargetWorking<Sample>& w, const SeamOrder& order, const int count,
                const Rgba8 colour) {
    if (!w.overlay) return;
    const int original_width = w.overlay->width();
    for (int y = 0; y < w.index->height(); ++y) {
        for (int x = 0; x < w.index->width(); ++x) {
            if (order.order.at(x, y) < count) {
                const std::int32_t original = w.index->at(x, y);
                w.overlay->at(original % original_width, original / original_width) = colour;
            }
        }
    }
}

/// Removes the first `count` seams of `order` (an order of w's current image) from w.
template <class Sample>
void remove_with_order(RetargetWorking<Sample>& w, const SeamOrder& order, const int count) {
    const SeamDirection dir = order.direction;
    mark_seams(w, order, count,
               dir == SeamDirection::Vertical ? kRemovedVertical : kRemovedHorizontal);
    const auto first = [&](const auto& v) {
        return v.begin() + std::min<std::ptrdiff_t>(count, std::ssize(v));
    };
    w.cost += std::accumulate(order.costs.begin(), first(order.costs), std::int64_t{0});
    w.protected_removed += std::accumulate(order.protected_crossed.begin(),
                                           first(order.protected_crossed), std::int64_t{0});
    w.image = remove_sample_seams(w.image, order, count);
    if (w.index) w.index = remove_seams<std::int32_t>(w.index->view(), order, count);
    if (w.protect) w.protect = remove_seams<std::uint8_t>(w.protect->view(), order, count);
    if (w.remove) w.remove = remove_seams<std::uint8_t>(w.remove->view(), order, count);
    if (w.importance) w.importance = remove_seams<std::uint8_t>(w.importance->view(), order, count);
    if (w.crop_keep) w.crop_keep = remove_seams<std::uint8_t>(w.crop_keep->view(), order, count);
}

/// `decide(w, direction, seams)`: the seam order of w's current image.
template <class Sample, class Decide>
void shrink_working(RetargetWorking<Sample>& w, const SeamDirection dir, const int count,
                    const Decide& decide) {
    if (count <= 0) return;
    remove_with_order(w, decide(std::as_const(w), dir, count), count);
}

// Avidan & Shamir: duplicate the k cheapest seams; at most half the current size per step, so the
// same low-energy seam is not stretched again and again.
template <class Sample, class Decide>
void enlarge_working(RetargetWorking<Sample>& w, const SeamDirection dir, const int target,
                     const Decide& decide) {
    const auto extent = [&] {
        return dir == SeamDirection::Vertical ? w.image.width() : w.image.height();
    };
    while (extent() < target) {
        if (extent() < 2)
            invalid("an image 1 pixel " +
                    std::string(dir == SeamDirection::Vertical ? "wide" : "high") +
                    " cannot be enlarged by seams");
        const int step = std::min(target - extent(), std::max(1, extent() / 2));
        const SeamOrder order = decide(std::as_const(w), dir, step);
        mark_seams(w, order, step, kInserted);
        w.image = insert_sample_seams(w.image, order, step);
        if (w.index) w.index = insert_seams_nearest<std::int32_t>(w.index->view(), order, step);
        if (w.protect)
            w.protect = insert_seams_nearest<std::uint8_t>(w.protect->view(), order, step);
        if (w.remove) w.remove = insert_seams_nearest<std::uint8_t>(w.remove->view(), order, step);
        if (w.importance)
            w.importance = insert_seams_nearest<std::uint8_t>(w.importance->view(), order, step);
        if (w.crop_keep)
            w.crop_keep = insert_seams_nearest<std::uint8_t>(w.crop_keep->view(), order, step);
    }
}

template <class Sample>
struct SeamsOnlyRun {
    RetargetWorking<Sample> working;
    bool width_first = true;
};

/// The seams-only retarget of a `width` × `height` image to p.width × p.height: `fresh()` gives
/// a new start_working state, `decide` as in shrink_working.
template <class Fresh, class Decide>
auto retarget_seams_only(const int width, const int height, const RetargetParams& p,
                         const Fresh& fresh, const Decide& decide) {
    using Working = decltype(fresh());
    const int shrink_w = std::max(0, width - p.width);
    const int shrink_h = std::max(0, height - p.height);
    const auto run = [&](const bool width_first) {
        Working w = fresh();
        const SeamDirection first =
            width_first ? SeamDirection::Vertical : SeamDirection::Horizontal;
        const SeamDirection second =
            width_first ? SeamDirection::Horizontal : SeamDirection::Vertical;
        shrink_working(w, first, width_first ? shrink_w : shrink_h, decide);
        shrink_working(w, second, width_first ? shrink_h : shrink_w, decide);
        return w;
    };
    SeamsOnlyRun<decltype(Working::image)> out{run(true), true};
    if (shrink_w > 0 && shrink_h > 0) {
        // Both orders; keep the one that removes less energy (Avidan & Shamir's optimal order
        // restricted to its two extremes).
        Working other = run(false);
        if (other.cost < out.working.cost) {
            out.working = std::move(other);
            out.width_first = false;
        }
    }
    enlarge_working(out.working, SeamDirection::Vertical, p.width, decide);
    enlarge_working(out.working, SeamDirection::Horizontal, p.height, decide);
    return out;
}

/// The report of a seams-only retarget of a `width` × `height` image (no image or overlay yet):
/// sizes, totals and the notes a user should read.
inline RetargetResult summarise_seams_only(const int width, const int height,
                                           const RetargetParams& p, const std::int64_t cost,
                                           const std::int64_t protected_removed,
                                           const std::int64_t remove_left, const bool width_first) {
    RetargetResult r;
    r.seams_removed_vertical = std::max(0, width - p.width);
    r.seams_removed_horizontal = std::max(0, height - p.height);
    r.seams_inserted_vertical = std::max(0, p.width - width);
    r.seams_inserted_horizontal = std::max(0, p.height - height);
    r.width_first = width_first;
    r.total_cost = cost;
    r.protected_removed = protected_removed;
    r.remove_left = remove_left;
    if (r.protected_removed > 0) {
        r.notes.push_back(
            "the protect mask had to be carved: " + std::to_string(r.protected_removed) +
            " protected pixels were removed because no seam could avoid them");
    }
    if (p.remove && r.remove_left > 0) {
        r.notes.push_back(std::to_string(r.remove_left) +
                          " pixels marked for removal remain; remove more seams to clear them");
    }
    return r;
}

}  // namespace lacuna::ops::detail
