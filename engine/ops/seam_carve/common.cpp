// What every implementation shares: compaction and insertion passes, and the retarget driver
// (validation, both orders for W×H shrinking, stepwise enlarging, masks and the seams overlay).
#include "carve_state.hpp"

#include <algorithm>
#include <numeric>

namespace lacuna::ops {
namespace {

using detail::invalid;

Rgba8 average(const Rgba8 a, const Rgba8 b) {
    const auto avg = [](const int p, const int q) {
        return static_cast<std::uint8_t>((p + q + 1) / 2);
    };
    return {avg(a.r, b.r), avg(a.g, b.g), avg(a.b, b.b), avg(a.a, b.a)};
}

template <class T, class Combine>
Image<T> insert_impl(const ImageView<const T> image, const SeamOrder& order, const int count,
                     Combine&& combine) {
    const bool vertical = order.direction == SeamDirection::Vertical;
    Image<T> out(image.width + (vertical ? count : 0), image.height + (vertical ? 0 : count));
    if (vertical) {
        for (int y = 0; y < image.height; ++y) {
            const T* in = image.row(y);
            const std::int32_t* o = order.order.row(y);
            T* dst = out.row(y);
            for (int x = 0; x < image.width; ++x) {
                *dst++ = in[x];
                if (o[x] < count) *dst++ = combine(in[x], in[x + 1 < image.width ? x + 1 : x]);
            }
        }
    } else {
        for (int x = 0; x < image.width; ++x) {
            int yy = 0;
            for (int y = 0; y < image.height; ++y) {
                const T p = image.row(y)[x];
                out.at(x, yy++) = p;
                if (order.order.at(x, y) < count)
                    out.at(x, yy++) = combine(p, image.row(y + 1 < image.height ? y + 1 : y)[x]);
            }
        }
    }
    return out;
}

void check_order(const int width, const int height, const SeamOrder& order, const int count) {
    detail::check_order(width, height, order.width, order.height, order.seams, count);
}

}  // namespace

template <class T>
Image<T> remove_seams(const ImageView<const T> image, const SeamOrder& order, const int count) {
    check_order(image.width, image.height, order, count);
    const bool vertical = order.direction == SeamDirection::Vertical;
    Image<T> out(image.width - (vertical ? count : 0), image.height - (vertical ? 0 : count));
    if (vertical) {
        for (int y = 0; y < image.height; ++y) {
            const T* in = image.row(y);
            const std::int32_t* o = order.order.row(y);
            T* dst = out.row(y);
            for (int x = 0; x < image.width; ++x) {
                if (o[x] >= count) *dst++ = in[x];
            }
        }
    } else {
        for (int x = 0; x < image.width; ++x) {
            int yy = 0;
            for (int y = 0; y < image.height; ++y) {
                if (order.order.at(x, y) >= count) out.at(x, yy++) = image.row(y)[x];
            }
        }
    }
    return out;
}

ImageRgba8 insert_seams(const ImageView<const Rgba8> image, const SeamOrder& order,
                        const int count) {
    check_order(image.width, image.height, order, count);
    return insert_impl(image, order, count, average);
}

template <class T>
Image<T> insert_seams_nearest(const ImageView<const T> image, const SeamOrder& order,
                              const int count) {
    check_order(image.width, image.height, order, count);
    return insert_impl(image, order, count, [](const T a, const T) { return a; });
}

ImageRgba8 paint_seams(const ImageView<const Rgba8> image, const SeamOrder& order, const int count,
                       const Rgba8 colour) {
    check_order(image.width, image.height, order, count);
    ImageRgba8 out = clone(image);
    for (int y = 0; y < image.height; ++y) {
        const std::int32_t* o = order.order.row(y);
        Rgba8* row = out.row(y);
        for (int x = 0; x < image.width; ++x) {
            if (o[x] < count) row[x] = colour;
        }
    }
    return out;
}

template Image<Rgba8> remove_seams<Rgba8>(ImageView<const Rgba8>, const SeamOrder&, int);
template Image<std::uint8_t> remove_seams<std::uint8_t>(ImageView<const std::uint8_t>,
                                                        const SeamOrder&, int);
template Image<std::int32_t> remove_seams<std::int32_t>(ImageView<const std::int32_t>,
                                                        const SeamOrder&, int);
template Image<Rgba8> insert_seams_nearest<Rgba8>(ImageView<const Rgba8>, const SeamOrder&, int);
template Image<std::uint8_t> insert_seams_nearest<std::uint8_t>(ImageView<const std::uint8_t>,
                                                                const SeamOrder&, int);
template Image<std::int32_t> insert_seams_nearest<std::int32_t>(ImageView<const std::int32_t>,
                                                                const SeamOrder&, int);

namespace {
template <class Pixel>
SeamOrder seam_order_any(const BasicCarveInput<Pixel>& input, const SeamDirection direction,
                         const int seams, const CarveImplementation implementation,
                         const CarveProgress& progress) {
    switch (implementation) {
        case CarveImplementation::Reference:
            return seam_order_reference(input, direction, seams);
        case CarveImplementation::Fast:
            return seam_order_fast(input, direction, seams, progress);
        case CarveImplementation::Cuda:
            return seam_order_cuda(input, direction, seams, progress);
    }
    return {};
}
}  // namespace

SeamOrder seam_order(const CarveInput& input, const SeamDirection direction, const int seams,
                     const CarveImplementation implementation, const CarveProgress& progress) {
    return seam_order_any(input, direction, seams, implementation, progress);
}

SeamOrder seam_order(const DeepCarveInput& input, const SeamDirection direction, const int seams,
                     const CarveImplementation implementation, const CarveProgress& progress) {
    return seam_order_any(input, direction, seams, implementation, progress);
}

SeamPaths seam_paths(const SeamOrder& order, const int count) {
    if (count < 0 || count > order.seams)
        detail::invalid("asked for the paths of " + std::to_string(count) +
                        " seams, but the order holds " + std::to_string(order.seams));
    const bool vertical = order.direction == SeamDirection::Vertical;
    SeamPaths paths;
    paths.lines = vertical ? order.height : order.width;
    paths.count = count;
    paths.positions.assign(static_cast<std::size_t>(count) * paths.lines, 0);
    // Every seam crosses every line exactly once, so each pixel with order k < count is seam k's
    // crossing of its line.
    for (int y = 0; y < order.height; ++y) {
        const std::int32_t* row = order.order.row(y);
        for (int x = 0; x < order.width; ++x) {
            const std::int32_t k = row[x];
            if (k >= count) continue;
            const int line = vertical ? y : x;
            paths.positions[static_cast<std::size_t>(k) * paths.lines + line] = vertical ? x : y;
        }
    }
    return paths;
}

int seams_to_clear(const Mask& remove, const SeamDirection direction) {
    int widest = 0;
    const bool vertical = direction == SeamDirection::Vertical;
    const int lines = vertical ? remove.height() : remove.width();
    const int length = vertical ? remove.width() : remove.height();
    for (int a = 0; a < lines; ++a) {
        int count = 0;
        for (int b = 0; b < length; ++b)
            count += (vertical ? remove.at(b, a) : remove.at(a, b)) != 0;
        widest = std::max(widest, count);
    }
    return widest;
}

std::string to_string(const SeamEnergy energy) {
    switch (energy) {
        case SeamEnergy::L1:
            return "l1";
        case SeamEnergy::Prewitt:
            return "prewitt";
        case SeamEnergy::Sobel:
            return "sobel";
        case SeamEnergy::Forward:
            return "forward";
    }
    return "?";
}

std::optional<SeamEnergy> parse_seam_energy(const std::string& text) {
    if (text == "l1") return SeamEnergy::L1;
    if (text == "prewitt") return SeamEnergy::Prewitt;
    if (text == "sobel") return SeamEnergy::Sobel;
    if (text == "forward") return SeamEnergy::Forward;
    return std::nullopt;
}

// ---- the retarget driver ----
namespace {

/// The image being retargeted with everything that travels with it.
struct Working {
    ImageRgba8 image;
    std::optional<Mask> protect;
    std::optional<Mask> remove;
    Image<std::int32_t> index;  ///< original linear index of each pixel (for the overlay)
    std::int64_t cost = 0;
    std::int64_t protected_removed = 0;
    std::optional<ImageRgba8> overlay;  ///< the original with the seams painted, when asked for
};

constexpr Rgba8 kRemovedVertical{255, 40, 40, 255};
constexpr Rgba8 kRemovedHorizontal{40, 120, 255, 255};
constexpr Rgba8 kInserted{40, 230, 80, 255};

CarveInput input_of(const Working& w, const SeamEnergy energy) {
    CarveInput in;
    in.image = w.image.view();
    in.protect = w.protect ? &*w.protect : nullptr;
    in.remove = w.remove ? &*w.remove : nullptr;
    in.energy = energy;
    return in;
}

// Paints the pixels of the first `count` seams at their original positions.
void mark_seams(Working& w, const SeamOrder& order, const int count, const Rgba8 colour) {
    if (!w.overlay) return;
    const int original_width = w.overlay->width();
    for (int y = 0; y < w.index.height(); ++y) {
        for (int x = 0; x < w.index.width(); ++x) {
            if (order.order.at(x, y) < count) {
                const std::int32_t original = w.index.at(x, y);
                w.overlay->at(original % original_width, original / original_width) = colour;
            }
        }
    }
}

void shrink(Working& w, const SeamDirection dir, const int count, const SeamEnergy energy,
            const CarveImplementation impl, const CarveProgress& progress) {
    if (count <= 0) return;
    const SeamOrder order = seam_order(input_of(w, energy), dir, count, impl, progress);
    mark_seams(w, order, count,
               dir == SeamDirection::Vertical ? kRemovedVertical : kRemovedHorizontal);
    w.cost += std::accumulate(order.costs.begin(), order.costs.end(), std::int64_t{0});
    w.protected_removed += std::accumulate(order.protected_crossed.begin(),
                                           order.protected_crossed.end(), std::int64_t{0});
    w.image = remove_seams<Rgba8>(w.image.view(), order, count);
    w.index = remove_seams<std::int32_t>(w.index.view(), order, count);
    if (w.protect) w.protect = remove_seams<std::uint8_t>(w.protect->view(), order, count);
    if (w.remove) w.remove = remove_seams<std::uint8_t>(w.remove->view(), order, count);
}

// Avidan & Shamir: duplicate the k cheapest seams; at most half the current size per step, so the
// same low-energy seam is not stretched again and again.
void enlarge(Working& w, const SeamDirection dir, const int target, const SeamEnergy energy,
             const CarveImplementation impl, const CarveProgress& progress) {
    const auto extent = [&] {
        return dir == SeamDirection::Vertical ? w.image.width() : w.image.height();
    };
    while (extent() < target) {
        if (extent() < 2)
            invalid("an image 1 pixel " +
                    std::string(dir == SeamDirection::Vertical ? "wide" : "high") +
                    " cannot be enlarged by seams");
        const int step = std::min(target - extent(), std::max(1, extent() / 2));
        const SeamOrder order = seam_order(input_of(w, energy), dir, step, impl, progress);
        mark_seams(w, order, step, kInserted);
        w.image = insert_seams(w.image.view(), order, step);
        w.index = insert_seams_nearest<std::int32_t>(w.index.view(), order, step);
        if (w.protect)
            w.protect = insert_seams_nearest<std::uint8_t>(w.protect->view(), order, step);
        if (w.remove) w.remove = insert_seams_nearest<std::uint8_t>(w.remove->view(), order, step);
    }
}

void validate(const ImageView<const Rgba8> image, const RetargetParams& p) {
    check_image_size(image.width, image.height);
    const auto check_target = [&](const int target, const int original, const char* what) {
        if (target < 1)
            invalid(std::string("the target ") + what + " must be at least 1 pixel, not " +
                    std::to_string(target));
        if (target > 2 * original) {
            invalid(std::string("the target ") + what + " " + std::to_string(target) +
                    " is more than twice the original " + std::to_string(original) +
                    " (enlarge in several runs if you must)");
        }
    };
    check_target(p.width, image.width, "width");
    check_target(p.height, image.height, "height");
    if (image.width == 1 && image.height == 1 && (p.width != 1 || p.height != 1)) {
        invalid("a 1x1 image has no seams to carve or duplicate");
    }
    if (p.protect) {
        check_mask_size(p.protect->view(), image.width, image.height, "the protect mask");
        if (count_selected(p.protect->view()) == std::int64_t{image.width} * image.height &&
            (p.width != image.width || p.height != image.height)) {
            invalid("the protect mask covers the whole image, so nothing can be carved");
        }
    }
    if (p.remove) check_mask_size(p.remove->view(), image.width, image.height, "the remove mask");
}

Working start(const ImageView<const Rgba8> image, const RetargetParams& p) {
    Working w;
    w.image = clone(image);
    if (p.protect) w.protect = *p.protect;
    if (p.remove) w.remove = *p.remove;
    if (p.want_overlay) w.overlay = clone(image);
    w.index = Image<std::int32_t>(image.width, image.height);
    for (int y = 0; y < image.height; ++y)
        for (int x = 0; x < image.width; ++x) w.index.at(x, y) = y * image.width + x;
    return w;
}

}  // namespace

namespace {

/// The parts of a result both paths share: sizes, totals and the notes a user should read.
RetargetResult summarise(const ImageView<const Rgba8> image, const RetargetParams& p,
                         ImageRgba8 result, const std::int64_t cost,
                         const std::int64_t protected_removed, const std::int64_t remove_left,
                         const bool width_first) {
    RetargetResult r;
    r.seams_removed_vertical = std::max(0, image.width - p.width);
    r.seams_removed_horizontal = std::max(0, image.height - p.height);
    r.seams_inserted_vertical = std::max(0, p.width - image.width);
    r.seams_inserted_horizontal = std::max(0, p.height - image.height);
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
    r.image = std::move(result);
    return r;
}

/// Shrinking with CUDA and no overlay asked for: both passes stay on the device.
RetargetResult shrink_on_device(const ImageView<const Rgba8> image, const RetargetParams& p,
                                const CarveProgress& progress) {
    const int shrink_w = image.width - p.width, shrink_h = image.height - p.height;
    const CarveInput in{image, p.protect, p.remove, p.energy};
    detail::DeviceShrink best = detail::shrink_cuda(in, shrink_w, shrink_h, true, progress);
    bool width_first = true;
    if (shrink_w > 0 && shrink_h > 0) {
        detail::DeviceShrink other = detail::shrink_cuda(in, shrink_w, shrink_h, false, progress);
        if (other.cost < best.cost) {
            best = std::move(other);
            width_first = false;
        }
    }
    return summarise(image, p, std::move(best.image), best.cost, best.protected_removed,
                     best.remove_left, width_first);
}

}  // namespace

RetargetResult retarget(const ImageView<const Rgba8> image, const RetargetParams& p,
                        const CarveImplementation impl, const CarveProgress& progress) {
    validate(image, p);
    if (impl == CarveImplementation::Cuda && !p.want_overlay && p.width <= image.width &&
        p.height <= image.height) {
        return shrink_on_device(image, p, progress);
    }
    const int shrink_w = std::max(0, image.width - p.width);
    const int shrink_h = std::max(0, image.height - p.height);
    const auto run = [&](const bool width_first) {
        Working w = start(image, p);
        const SeamDirection first =
            width_first ? SeamDirection::Vertical : SeamDirection::Horizontal;
        const SeamDirection second =
            width_first ? SeamDirection::Horizontal : SeamDirection::Vertical;
        shrink(w, first, width_first ? shrink_w : shrink_h, p.energy, impl, progress);
        shrink(w, second, width_first ? shrink_h : shrink_w, p.energy, impl, progress);
        return w;
    };
    Working w = run(true);
    bool width_first = true;
    if (shrink_w > 0 && shrink_h > 0) {
        // Both orders; keep the one that removes less energy (Avidan & Shamir's optimal order
        // restricted to its two extremes).
        Working other = run(false);
        if (other.cost < w.cost) {
            w = std::move(other);
            width_first = false;
        }
    }
    enlarge(w, SeamDirection::Vertical, p.width, p.energy, impl, progress);
    enlarge(w, SeamDirection::Horizontal, p.height, p.energy, impl, progress);

    const std::int64_t remove_left = w.remove ? count_selected(w.remove->view()) : 0;
    RetargetResult r = summarise(image, p, std::move(w.image), w.cost, w.protected_removed,
                                 remove_left, width_first);
    if (w.overlay) r.overlay = std::move(*w.overlay);
    return r;
}

}  // namespace lacuna::ops
