// The retarget driver for measurement images (the command line's path; the editor composes the
// same steps in its Retarget panel): seams decided on every bit of the 16-bit decision image,
// stored samples moved. Mirrors retarget()'s seams-only driver in common.cpp (both orders when
// both sides shrink, enlarging in steps of at most half the extent, masks carried, overlay on
// the original) with a NativeImage where that one has an RGBA8 image.
#include "carve_state.hpp"

#include <lacuna/ops/seam_carve.hpp>

#include <algorithm>
#include <numeric>

namespace lacuna::ops {
namespace {

constexpr Rgba8 kRemovedVertical{255, 40, 40, 255};
constexpr Rgba8 kRemovedHorizontal{40, 120, 255, 255};
constexpr Rgba8 kInserted{40, 230, 80, 255};

struct NativeWorking {
    NativeImage samples;
    std::optional<Mask> protect;
    std::optional<Mask> remove;
    Image<std::int32_t> index;  ///< original linear index of each pixel (for the overlay)
    std::int64_t cost = 0;
    std::int64_t protected_removed = 0;
    std::optional<ImageRgba8> overlay;
};

/// The range every pass decides over: the original's, so a carved copy keeps deciding as the
/// original did (the editor's rule: deep_carving_proxy over the document's proxy range).
struct DecisionRange {
    double lo = 0;
    double hi = 0;
};

SeamOrder order_of(const NativeWorking& w, const DecisionRange range, const SeamDirection dir,
                   const int seams, const SeamEnergy energy, const CarveImplementation impl,
                   const CarveProgress& progress) {
    const DeepCarvingProxy decision = deep_carving_proxy(w.samples, range.lo, range.hi);
    DeepCarveInput in;
    in.image = decision.image.view();
    in.protect = w.protect ? &*w.protect : nullptr;
    in.remove = w.remove ? &*w.remove : nullptr;
    in.energy = energy;
    return seam_order(in, dir, seams, impl, progress);
}

void mark_seams(NativeWorking& w, const SeamOrder& order, const int count, const Rgba8 colour) {
    if (!w.overlay) return;
    const int original_width = w.overlay->width();
    for (int y = 0; y < w.index.height(); ++y)
        for (int x = 0; x < w.index.width(); ++x)
            if (order.order.at(x, y) < count) {
                const std::int32_t original = w.index.at(x, y);
                w.overlay->at(original % original_width, original / original_width) = colour;
            }
}

void shrink(NativeWorking& w, const DecisionRange range, const SeamDirection dir, const int count,
            const SeamEnergy energy, const CarveImplementation impl,
            const CarveProgress& progress) {
    if (count <= 0) return;
    const SeamOrder order = order_of(w, range, dir, count, energy, impl, progress);
    mark_seams(w, order, count,
               dir == SeamDirection::Vertical ? kRemovedVertical : kRemovedHorizontal);
    const auto first = [&](const auto& v) {
        return v.begin() + std::min<std::ptrdiff_t>(count, std::ssize(v));
    };
    w.cost += std::accumulate(order.costs.begin(), first(order.costs), std::int64_t{0});
    w.protected_removed += std::accumulate(order.protected_crossed.begin(),
                                           first(order.protected_crossed), std::int64_t{0});
    w.samples = remove_seams(w.samples, order, count);
    w.index = remove_seams<std::int32_t>(w.index.view(), order, count);
    if (w.protect) w.protect = remove_seams<std::uint8_t>(w.protect->view(), order, count);
    if (w.remove) w.remove = remove_seams<std::uint8_t>(w.remove->view(), order, count);
}

void enlarge(NativeWorking& w, const DecisionRange range, const SeamDirection dir, const int target,
             const SeamEnergy energy, const CarveImplementation impl,
             const CarveProgress& progress) {
    const auto extent = [&] {
        return dir == SeamDirection::Vertical ? w.samples.width() : w.samples.height();
    };
    while (extent() < target) {
        if (extent() < 2)
            detail::invalid("an image 1 pixel " +
                            std::string(dir == SeamDirection::Vertical ? "wide" : "high") +
                            " cannot be enlarged by seams");
        const int step = std::min(target - extent(), std::max(1, extent() / 2));
        const SeamOrder order = order_of(w, range, dir, step, energy, impl, progress);
        mark_seams(w, order, step, kInserted);
        w.samples = insert_seams(w.samples, order, step);
        w.index = insert_seams_nearest<std::int32_t>(w.index.view(), order, step);
        if (w.protect)
            w.protect = insert_seams_nearest<std::uint8_t>(w.protect->view(), order, step);
        if (w.remove) w.remove = insert_seams_nearest<std::uint8_t>(w.remove->view(), order, step);
    }
}

NativeWorking start(const NativeImage& samples, const RetargetParams& p) {
    NativeWorking w;
    w.samples = samples;
    if (p.protect) w.protect = *p.protect;
    if (p.remove) w.remove = *p.remove;
    if (p.want_overlay) w.overlay = carving_proxy(samples).image;
    w.index = Image<std::int32_t>(samples.width(), samples.height());
    for (int y = 0; y < samples.height(); ++y)
        for (int x = 0; x < samples.width(); ++x) w.index.at(x, y) = y * samples.width() + x;
    return w;
}

}  // namespace

void check_measurement_retarget(const RetargetParams& p) {
    // Scaling would resample the stored values and the importance levels weigh photo content
    // (faces, skin, saliency): the editor carves measurements by seams on their values alone.
    if (p.automatic || p.amount < 100)
        detail::invalid(
            "a measurement is retargeted by seams only: mixing in scaling (an amount below 100 "
            "or the automatic mix) would resample its stored values");
    if (p.importance)
        detail::invalid(
            "a measurement is carved on its values only: importance levels (faces, saliency, "
            "lines, skin) are for photos");
}

NativeRetargetResult retarget(const NativeImage& samples, const RetargetParams& p,
                              const CarveImplementation impl, const CarveProgress& progress) {
    detail::validate_retarget(samples.width(), samples.height(), p);
    check_measurement_retarget(p);
    const DeepCarvingProxy whole = deep_carving_proxy(samples);
    const DecisionRange range{whole.raw_lo, whole.raw_hi};
    const int shrink_w = std::max(0, samples.width() - p.width);
    const int shrink_h = std::max(0, samples.height() - p.height);
    const auto run = [&](const bool width_first) {
        NativeWorking w = start(samples, p);
        const SeamDirection first =
            width_first ? SeamDirection::Vertical : SeamDirection::Horizontal;
        const SeamDirection second =
            width_first ? SeamDirection::Horizontal : SeamDirection::Vertical;
        shrink(w, range, first, width_first ? shrink_w : shrink_h, p.energy, impl, progress);
        shrink(w, range, second, width_first ? shrink_h : shrink_w, p.energy, impl, progress);
        return w;
    };
    NativeWorking w = run(true);
    bool width_first = true;
    if (shrink_w > 0 && shrink_h > 0) {
        NativeWorking other = run(false);
        if (other.cost < w.cost) {
            w = std::move(other);
            width_first = false;
        }
    }
    enlarge(w, range, SeamDirection::Vertical, p.width, p.energy, impl, progress);
    enlarge(w, range, SeamDirection::Horizontal, p.height, p.energy, impl, progress);

    NativeRetargetResult result;
    RetargetResult& r = result.summary;
    r.seams_removed_vertical = shrink_w;
    r.seams_removed_horizontal = shrink_h;
    r.seams_inserted_vertical = std::max(0, p.width - samples.width());
    r.seams_inserted_horizontal = std::max(0, p.height - samples.height());
    r.width_first = width_first;
    r.total_cost = w.cost;
    r.protected_removed = w.protected_removed;
    r.remove_left = w.remove ? count_selected(w.remove->view()) : 0;
    if (r.protected_removed > 0)
        r.notes.push_back(
            "the protect mask had to be carved: " + std::to_string(r.protected_removed) +
            " protected pixels were removed because no seam could avoid them");
    if (p.remove && r.remove_left > 0)
        r.notes.push_back(std::to_string(r.remove_left) +
                          " pixels marked for removal remain; remove more seams to clear them");
    if (w.overlay) r.overlay = std::move(*w.overlay);
    result.samples = std::move(w.samples);
    return result;
}

}  // namespace lacuna::ops
