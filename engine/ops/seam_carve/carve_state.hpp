// Internal: the working state of vertical seam carving shared by the reference and the fast
// carver — the image being carved, the original index of every remaining pixel, and the masks —
// plus the transposition used to carve horizontal seams as vertical ones.
#pragma once

#include "../invalid_argument.hpp"

#include <lacuna/core/error.hpp>
#include <lacuna/ops/seam_carve.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace lacuna::ops::detail {

template <class T>
Image<T> transpose(const ImageView<const T> src) {
    Image<T> out(src.height, src.width);
    for (int y = 0; y < src.height; ++y) {
        const T* row = src.row(y);
        for (int x = 0; x < src.width; ++x) out.at(y, x) = row[x];
    }
    return out;
}

/// The retarget's checks of a `width` × `height` image and its request (targets, masks,
/// importance, amount): Error(InvalidArgument) with a sentence the user can act on.
void validate_retarget(int width, int height, const RetargetParams& p);

/// Throws InvalidArgument unless `seams` seams fit a `width` × `height` image in `direction`.
inline void check_seam_count(const int width, const int height, const SeamDirection direction,
                             const int seams) {
    const int extent = direction == SeamDirection::Vertical ? width : height;
    if (seams < 0 || seams >= extent) {
        throw Error(ErrorCode::InvalidArgument,
                    "cannot find " + std::to_string(seams) + " seams in an image " +
                        std::to_string(extent) + " pixels " +
                        (direction == SeamDirection::Vertical ? "wide" : "high") + " (at most " +
                        std::to_string(extent - 1) + ")");
    }
}

/// Throws InvalidArgument unless a seam order of an `order_width` × `order_height` image holding
/// `seams` seams fits a `width` × `height` image and has `count` seams to remove or insert.
inline void check_order(const int width, const int height, const int order_width,
                        const int order_height, const int seams, const int count) {
    if (order_width != width || order_height != height)
        invalid("the seam order belongs to an image of another size");
    if (count < 0 || count > seams) {
        invalid("asked for " + std::to_string(count) + " seams, but the order holds " +
                std::to_string(seams));
    }
}

/// The per-seam term's paths must fit the carve: one position per line, inside the line, for at
/// least every seam asked for; and they replace the distance map rather than add to it.
template <class Pixel>
void check_temporal_seams(const SeamPaths& paths, const BasicCarveInput<Pixel>& in,
                          const SeamDirection direction, const int seams) {
    const bool vertical = direction == SeamDirection::Vertical;
    const int lines = vertical ? in.image.height : in.image.width;
    const int extent = vertical ? in.image.width : in.image.height;
    if (in.temporal) invalid("a carve takes a temporal distance map or seam paths, not both");
    if (paths.lines != lines ||
        paths.positions.size() != static_cast<std::size_t>(paths.count) * paths.lines)
        invalid("the previous frame's seams belong to an image of another size");
    if (paths.count < seams)
        invalid("the previous frame's seams are " + std::to_string(paths.count) +
                ", fewer than the " + std::to_string(seams) + " asked for");
    for (const std::int32_t p : paths.positions)
        if (p < 0 || p >= extent) invalid("a previous seam lies outside the image");
}

/// Checks masks and the seam count against the image; throws InvalidArgument.
template <class Pixel>
void check_carve_input(const BasicCarveInput<Pixel>& in, const SeamDirection direction,
                       const int seams) {
    check_image_size(in.image.width, in.image.height);
    if (in.protect)
        check_mask_size(in.protect->view(), in.image.width, in.image.height, "the protect mask");
    if (in.remove)
        check_mask_size(in.remove->view(), in.image.width, in.image.height, "the remove mask");
    if (in.temporal) {
        check_mask_size(in.temporal->view(), in.image.width, in.image.height,
                        "the temporal distance map");
        for (int y = 0; y < in.temporal->height(); ++y)
            for (int x = 0; x < in.temporal->width(); ++x)
                if (in.temporal->at(x, y) >= kTemporalLevels)
                    invalid("the temporal distance map holds levels 0 to " +
                            std::to_string(kTemporalLevels - 1));
    }
    if (in.temporal_seams) check_temporal_seams(*in.temporal_seams, in, direction, seams);
    if (in.importance) {
        check_mask_size(in.importance->view(), in.image.width, in.image.height,
                        "the importance map");
        for (int y = 0; y < in.importance->height(); ++y)
            for (int x = 0; x < in.importance->width(); ++x)
                if (in.importance->at(x, y) >= kTemporalLevels)
                    invalid("the importance map holds levels 0 to " +
                            std::to_string(kTemporalLevels - 1));
    }
    if (in.importance_unit < 0 || in.importance_unit > kTemporalMaxUnit)
        invalid("the importance unit is out of range (0 to " + std::to_string(kTemporalMaxUnit) +
                " per level)");
    if (in.temporal_unit < 0 || in.temporal_unit > kTemporalMaxUnit)
        invalid("the temporal weight is out of range (0 to " + std::to_string(kTemporalMaxUnit) +
                " per level)");
    check_seam_count(in.image.width, in.image.height, direction, seams);
}

/// Checks a chained video carve (seam_orders_cuda_chained, seam_orders_fast_chained): a follows
/// flag per frame, a unit in range, frames of one size that each make a valid carve, and paths
/// for a first frame that follows. Throws InvalidArgument.
inline void check_chained_input(const std::vector<CarveInput>& frames,
                                const SeamDirection direction, const int seams,
                                const SeamPaths* first_previous, const std::vector<bool>& follows,
                                const int temporal_unit) {
    if (follows.size() != frames.size()) invalid("every frame needs a follows flag");
    if (temporal_unit < 0 || temporal_unit > kTemporalMaxUnit)
        invalid("the temporal weight is out of range (0 to " + std::to_string(kTemporalMaxUnit) +
                " per level)");
    for (const CarveInput& frame : frames) {
        CarveInput plain = frame;
        plain.temporal = nullptr;
        plain.temporal_seams = nullptr;
        check_carve_input(plain, direction, seams);
        if (frame.image.width != frames[0].image.width ||
            frame.image.height != frames[0].image.height)
            invalid("the frames of a chained carve must have one size");
    }
    if (!frames.empty() && follows[0] && temporal_unit > 0) {
        if (first_previous == nullptr)
            invalid("the first frame follows a previous frame but got no paths");
        CarveInput with_paths = frames[0];
        with_paths.temporal = nullptr;
        with_paths.temporal_seams = first_previous;
        with_paths.temporal_unit = temporal_unit;
        check_carve_input(with_paths, direction, seams);
    }
}

/// The input as the carvers evaluate it: importance levels become the per-pixel level term
/// (`temporal` at `importance_unit`), which every implementation computes identically; beside a
/// temporal term it stays a second level field. Call after check_carve_input.
/// An importance map with every level 0 (no face found, no term on) adds nothing to any cost,
/// so it is left out: the carvers keep their plain layout, with the same seams and costs.
inline bool any_level(const Mask& levels) {
    for (int y = 0; y < levels.height(); ++y) {
        const std::uint8_t* row = levels.row(y);
        if (std::any_of(row, row + levels.width(), [](const std::uint8_t v) { return v != 0; }))
            return true;
    }
    return false;
}

template <class Pixel>
BasicCarveInput<Pixel> importance_as_levels(const BasicCarveInput<Pixel>& in) {
    BasicCarveInput<Pixel> out = in;
    out.importance = nullptr;
    out.importance_unit = 0;
    if (!(in.importance && in.importance_unit > 0 && any_level(*in.importance))) return out;
    // With a temporal term as well (video with faces) both level fields stay: the carvers add
    // level × unit of each (the reference's sum; the fast carver's second level array).
    if ((in.temporal || in.temporal_seams) && in.temporal_unit > 0) {
        out.importance = in.importance;
        out.importance_unit = in.importance_unit;
        return out;
    }
    out.temporal = in.importance;
    out.temporal_seams = nullptr;
    out.temporal_unit = in.importance_unit;
    return out;
}

/// Whether an input (after importance_as_levels) carries importance beside a temporal term: the
/// CUDA carver's masked layout has one level field and refuses it (cuda.cpp).
template <class Pixel>
bool importance_with_temporal(const BasicCarveInput<Pixel>& in) {
    return in.importance != nullptr && in.importance_unit > 0 &&
           (in.temporal || in.temporal_seams) && in.temporal_unit > 0;
}

/// Whether a carve needs the masked layout (64-bit costs, per-pixel mask terms).
template <class Pixel>
bool has_pixel_terms(const BasicCarveInput<Pixel>& in) {
    return in.protect || in.remove ||
           ((in.temporal || in.temporal_seams) && in.temporal_unit > 0) ||
           (in.importance && in.importance_unit > 0);
}

/// A level map alone (a still's importance or a video distance map: no masks, no per-seam paths)
/// at a unit that folds into the energies (level_unit_folds, kMaxFoldedLevelTerm in
/// seam_energy.h): the fast CPU carver and CUDA then keep their unmasked 32-bit layout, the same
/// costs and seams as the 64-bit one, at about the unmasked speed.
inline bool levels_fold_into_energy(const CarveInput& in) {
    return in.temporal != nullptr && in.protect == nullptr && in.remove == nullptr &&
           in.temporal_seams == nullptr && in.importance == nullptr && in.temporal_unit > 0 &&
           level_unit_folds(in.temporal_unit);
}

/// The same checks for inputs on the device (only their sizes are looked at).
template <class Pixel>
void check_carve_input(const BasicDeviceCarveInput<Pixel>& in, const SeamDirection direction,
                       const int seams) {
    if (in.image == nullptr) invalid("the carve was given no image");
    const int w = in.image->width(), h = in.image->height();
    check_image_size(w, h);
    if (in.protect) check_mask_size(in.protect->device_view(), w, h, "the protect mask");
    if (in.remove) check_mask_size(in.remove->device_view(), w, h, "the remove mask");
    if (in.importance) check_mask_size(in.importance->device_view(), w, h, "the importance map");
    if (in.importance_unit < 0 || in.importance_unit > kTemporalMaxUnit)
        invalid("the importance unit is out of range (0 to " + std::to_string(kTemporalMaxUnit) +
                " per level)");
    check_seam_count(w, h, direction, seams);
}

/// Runs a vertical-seam finder on the transposed problem for horizontal seams, and maps the order
/// back. `find_vertical(input, seams)` must return a vertical SeamOrder of that input.
template <class Pixel, class FindVertical>
SeamOrder in_direction(const BasicCarveInput<Pixel>& input, const SeamDirection direction,
                       const int seams, FindVertical&& find_vertical) {
    if (direction == SeamDirection::Vertical) return find_vertical(input, seams);
    const Image<Pixel> image = transpose<Pixel>(input.image);
    std::optional<Mask> protect, remove, temporal, importance;
    BasicCarveInput<Pixel> t = input;
    t.image = image.view();
    if (input.protect) t.protect = &protect.emplace(transpose<std::uint8_t>(input.protect->view()));
    if (input.remove) t.remove = &remove.emplace(transpose<std::uint8_t>(input.remove->view()));
    if (input.temporal)
        t.temporal = &temporal.emplace(transpose<std::uint8_t>(input.temporal->view()));
    if (input.importance)
        t.importance = &importance.emplace(transpose<std::uint8_t>(input.importance->view()));
    SeamOrder order = find_vertical(t, seams);
    order.direction = SeamDirection::Horizontal;
    order.order = transpose<std::int32_t>(order.order.view());
    order.width = input.image.width;
    order.height = input.image.height;
    return order;
}

/// What shrinking on the device returns: the image, the summed seam costs, the protected pixels
/// carved and the pixels marked for removal that remain.
struct DeviceShrink {
    ImageRgba8 image;
    std::int64_t cost = 0;
    std::int64_t protected_removed = 0;
    std::int64_t remove_left = 0;
};

/// Removes `shrink_width` vertical and `shrink_height` horizontal seams (in that order when
/// `width_first`) with the CUDA carver, keeping the image, its masks and the seam orders on the
/// device between the passes (transposed there for horizontal seams). Throws
/// Error(CudaUnavailable) without a CUDA build or device.
DeviceShrink shrink_cuda(const CarveInput& input, int shrink_width, int shrink_height,
                         bool width_first, const CarveProgress& progress);

}  // namespace lacuna::ops::detail
