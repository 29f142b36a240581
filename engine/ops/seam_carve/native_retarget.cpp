// The retarget driver for measurement images (the command line's path; the editor composes the
// same steps in its Retarget panel): seams decided on every bit of the 16-bit decision image,
// stored samples moved. retarget()'s seams-only driver (retarget_driver.hpp: both orders when
// both sides shrink, enlarging in steps of at most half the extent, masks carried, overlay on
// the original) with a NativeImage where that one has an RGBA8 image.
#include "retarget_driver.hpp"

#include <lacuna/ops/seam_carve.hpp>

#include <algorithm>

namespace lacuna::ops {
namespace {

using NativeWorking = detail::RetargetWorking<NativeImage>;

/// The range every pass decides over: the original's, so a carved copy keeps deciding as the
/// original did (the editor's rule: deep_carving_proxy over the document's proxy range).
struct DecisionRange {
    double lo = 0;
    double hi = 0;
};

NativeWorking start(const NativeImage& samples, const RetargetParams& p) {
    return detail::start_working(
        samples, samples.width(), samples.height(), p,
        p.want_overlay ? std::optional(carving_proxy(samples).image) : std::nullopt);
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
    const auto decide = [&](const NativeWorking& w, const SeamDirection dir, const int seams) {
        const DeepCarvingProxy decision = deep_carving_proxy(w.image, range.lo, range.hi);
        DeepCarveInput in;
        in.image = decision.image.view();
        in.protect = w.protect ? &*w.protect : nullptr;
        in.remove = w.remove ? &*w.remove : nullptr;
        in.energy = p.energy;
        return seam_order(in, dir, seams, impl, progress);
    };
    auto [w, width_first] = detail::retarget_seams_only(
        samples.width(), samples.height(), p, [&] { return start(samples, p); }, decide);

    NativeRetargetResult result;
    result.summary = detail::summarise_seams_only(
        samples.width(), samples.height(), p, w.cost, w.protected_removed,
        w.remove ? count_selected(w.remove->view()) : 0, width_first);
    if (w.overlay) result.summary.overlay = std::move(*w.overlay);
    result.samples = std::move(w.image);
    return result;
}

}  // namespace lacuna::ops
