// What every implementation shares: compaction and insertion passes, and the retarget driver
// (validation, both orders for W×H shrinking, stepwise enlarging, masks and the seams overlay).
#include "carve_state.hpp"
#include "retarget_driver.hpp"

#include <lacuna/core/parallel.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
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
        case SeamEnergy::Transversal:
            return "transversal";
    }
    return "?";
}

std::optional<SeamEnergy> parse_seam_energy(const std::string& text) {
    if (text == "l1") return SeamEnergy::L1;
    if (text == "prewitt") return SeamEnergy::Prewitt;
    if (text == "sobel") return SeamEnergy::Sobel;
    if (text == "forward") return SeamEnergy::Forward;
    if (text == "transversal") return SeamEnergy::Transversal;
    return std::nullopt;
}

// Shared with the measurement retarget (native_retarget.cpp).
void detail::validate_retarget(const int width, const int height, const RetargetParams& p) {
    check_image_size(width, height);
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
    check_target(p.width, width, "width");
    check_target(p.height, height, "height");
    if (width == 1 && height == 1 && (p.width != 1 || p.height != 1)) {
        invalid("a 1x1 image has no seams to carve or duplicate");
    }
    if (p.protect) {
        check_mask_size(p.protect->view(), width, height, "the protect mask");
        if (count_selected(p.protect->view()) == std::int64_t{width} * height &&
            (p.width != width || p.height != height)) {
            invalid("the protect mask covers the whole image, so nothing can be carved");
        }
    }
    if (p.remove) check_mask_size(p.remove->view(), width, height, "the remove mask");
    if (p.crop_keep) check_mask_size(p.crop_keep->view(), width, height, "the crop-keep map");
    if (p.importance) {
        check_mask_size(p.importance->view(), width, height, "the importance map");
        for (int y = 0; y < height; ++y)
            for (int x = 0; x < width; ++x)
                if (p.importance->at(x, y) >= kTemporalLevels)
                    invalid("the importance map holds levels 0 to " +
                            std::to_string(kTemporalLevels - 1));
    }
    if (p.importance_unit < 0 || p.importance_unit > kTemporalMaxUnit)
        invalid("the importance unit must be from 0 to " + std::to_string(kTemporalMaxUnit));
    if (!(p.amount >= 0 && p.amount <= 100))
        invalid("the amount must be from 0 to 100 percent, not " + std::to_string(p.amount));
}

// ---- the retarget driver (retarget_driver.hpp, shared with the measurement retarget) ----
namespace {

using Working = detail::RetargetWorking<ImageRgba8>;

CarveInput input_of(const Working& w, const SeamEnergy energy) {
    CarveInput in;
    in.image = w.image.view();
    in.protect = w.protect ? &*w.protect : nullptr;
    in.remove = w.remove ? &*w.remove : nullptr;
    in.energy = energy;
    // Every implementation evaluates the importance levels the same way (as the per-pixel level
    // term), so the seams stay identical across them.
    if (w.importance && w.importance_unit > 0) {
        in.importance = &*w.importance;
        in.importance_unit = w.importance_unit;
    }
    return in;
}

/// The seam decider of a photo: seam_order on its current image, masks and importance levels.
auto decider(const SeamEnergy energy, const CarveImplementation impl,
             const CarveProgress& progress) {
    return [energy, impl, &progress](const Working& w, const SeamDirection dir, const int seams) {
        return seam_order(input_of(w, energy), dir, seams, impl, progress);
    };
}

void validate(const ImageView<const Rgba8> image, const RetargetParams& p) {
    detail::validate_retarget(image.width, image.height, p);
}

Working start(const ImageView<const Rgba8> image, const RetargetParams& p) {
    return detail::start_working(clone(image), image.width, image.height, p,
                                 p.want_overlay ? std::optional(clone(image)) : std::nullopt);
}

/// The parts of a result both paths share: sizes, totals and the notes a user should read.
RetargetResult summarise(const ImageView<const Rgba8> image, const RetargetParams& p,
                         ImageRgba8 result, const std::int64_t cost,
                         const std::int64_t protected_removed, const std::int64_t remove_left,
                         const bool width_first) {
    RetargetResult r = detail::summarise_seams_only(image.width, image.height, p, cost,
                                                    protected_removed, remove_left, width_first);
    r.image = std::move(result);
    return r;
}

/// Shrinking with CUDA and no overlay asked for: both passes stay on the device.
RetargetResult shrink_on_device(const ImageView<const Rgba8> image, const RetargetParams& p,
                                const CarveProgress& progress) {
    const int shrink_w = image.width - p.width, shrink_h = image.height - p.height;
    CarveInput in{image, p.protect, p.remove, p.energy};
    if (p.importance && p.importance_unit > 0) {
        in.temporal = p.importance;
        in.temporal_unit = p.importance_unit;
    }
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

// ---- mixed operators: crop, seams and uniform scaling (amount and automatic) ----
namespace {

/// Input coverage of output sample i when `in` samples become `out`: shrinking, the interval
/// [i·in/out, (i+1)·in/out) with fractional end weights; growing, linear interpolation between
/// the two nearest input centres (OpenCV's centre convention).
struct Tap {
    int first = 0;
    std::vector<float> weights;  ///< for inputs first, first + 1, …
};
std::vector<Tap> taps(const int in, const int out) {
    std::vector<Tap> t(static_cast<std::size_t>(out));
    const double ratio = static_cast<double>(in) / out;
    for (int i = 0; i < out; ++i) {
        Tap& tap = t[static_cast<std::size_t>(i)];
        if (out <= in) {
            const double a = i * ratio, b = (i + 1) * ratio;
            tap.first = static_cast<int>(std::floor(a));
            const int last = std::min(in - 1, static_cast<int>(std::ceil(b)) - 1);
            for (int j = tap.first; j <= last; ++j) {
                const double cover = std::min(b, j + 1.0) - std::max(a, static_cast<double>(j));
                tap.weights.push_back(static_cast<float>(cover / ratio));
            }
        } else {
            const double u = std::clamp((i + 0.5) * ratio - 0.5, 0.0, in - 1.0);
            tap.first = std::min(static_cast<int>(u), in - 1);
            const double f = u - tap.first;
            tap.weights.push_back(static_cast<float>(1 - f));
            if (tap.first + 1 < in) tap.weights.push_back(static_cast<float>(f));
        }
    }
    return t;
}

/// The sample of a tap a discrete map keeps: the largest covered value when shrinking (a mask
/// or importance level survives a squeeze), the nearest when growing.
template <class T>
T pick(const T* line, const std::size_t step, const Tap& tap, const bool shrinking) {
    if (!shrinking) {
        const int j =
            tap.weights.size() > 1 && tap.weights[1] > tap.weights[0] ? tap.first + 1 : tap.first;
        return line[static_cast<std::size_t>(j) * step];
    }
    T best = line[static_cast<std::size_t>(tap.first) * step];
    for (std::size_t k = 1; k < tap.weights.size(); ++k)
        best = std::max(best, line[(tap.first + k) * step]);
    return best;
}

/// Resamples a map of discrete values (masks, levels, original indices) with pick().
template <class T>
Image<T> resample_discrete(const ImageView<const T> src, const int width, const int height) {
    const std::vector<Tap> tx = taps(src.width, width), ty = taps(src.height, height);
    Image<T> mid(width, src.height), out(width, height);
    for (int y = 0; y < src.height; ++y)
        for (int x = 0; x < width; ++x)
            mid.at(x, y) = pick(src.row(y), 1, tx[static_cast<std::size_t>(x)], width <= src.width);
    for (int x = 0; x < width; ++x) {
        std::vector<T> column(static_cast<std::size_t>(src.height));
        for (int y = 0; y < src.height; ++y) column[static_cast<std::size_t>(y)] = mid.at(x, y);
        for (int y = 0; y < height; ++y)
            out.at(x, y) =
                pick(column.data(), 1, ty[static_cast<std::size_t>(y)], height <= src.height);
    }
    return out;
}

template <class T>
Image<T> columns(const ImageView<const T> src, const int x0, const int width) {
    Image<T> out(width, src.height);
    for (int y = 0; y < src.height; ++y) std::copy_n(src.row(y) + x0, width, out.row(y));
    return out;
}

/// Every map of the working state, transposed (horizontal work is done as vertical work).
void transpose_working(Working& w) {
    w.image = detail::transpose<Rgba8>(w.image.view());
    if (w.index) w.index = detail::transpose<std::int32_t>(w.index->view());
    for (std::optional<Mask>* m : {&w.protect, &w.remove, &w.importance, &w.crop_keep})
        if (*m) **m = detail::transpose<std::uint8_t>((*m)->view());
}

void crop_working(Working& w, const int x0, const int width) {
    w.image = columns<Rgba8>(w.image.view(), x0, width);
    if (w.index) w.index = columns<std::int32_t>(w.index->view(), x0, width);
    for (std::optional<Mask>* m : {&w.protect, &w.remove, &w.importance, &w.crop_keep})
        if (*m) **m = columns<std::uint8_t>((*m)->view(), x0, width);
}

void scale_working_width(Working& w, const int width) {
    if (w.image.width() == width) return;
    const int h = w.image.height();
    w.image = resample_area(w.image.view(), width, h);
    if (w.index) w.index = resample_discrete<std::int32_t>(w.index->view(), width, h);
    for (std::optional<Mask>* m : {&w.protect, &w.remove, &w.importance, &w.crop_keep})
        if (*m) **m = resample_discrete<std::uint8_t>((*m)->view(), width, h);
}

/// The importance levels a crop reads: RetargetParams::crop_keep (the levels without lines: a
/// straight line cut by a crop stays straight, only shorter) when given, else the carvers'.
const std::optional<Mask>& crop_levels(const Working& w) {
    return w.crop_keep ? w.crop_keep : w.importance;
}

/// The columns a crop must keep: any protected pixel, or a crop level (crop_levels) of
/// kCropKeepLevel or more. Empty (first > last) when nothing is kept.
std::pair<int, int> kept_columns(const Working& w) {
    const std::optional<Mask>& levels = crop_levels(w);
    int first = w.image.width(), last = -1;
    for (int y = 0; y < w.image.height(); ++y)
        for (int x = 0; x < w.image.width(); ++x) {
            const bool keep = (w.protect && w.protect->at(x, y) != 0) ||
                              (levels && levels->at(x, y) >= kCropKeepLevel);
            if (keep) {
                first = std::min(first, x);
                last = std::max(last, x);
            }
        }
    return {first, last};
}

/// Where a crop to `width` columns may go: only margins that carry little are cut — every cut
/// column has less than kCropDetailShare of the mean column detail (gradient plus crop levels),
/// and no kept column (kept_columns). Among the allowed windows, the one keeping the most detail;
/// ties (within a thousandth) go to the most central. -1: no window is allowed.
/// (Seen on the benchmark's photos: a crop chosen by detail alone cut a tail light off a car and
/// a head off a person, where the image distance barely noticed.)
constexpr double kCropDetailShare = 0.5;
int crop_offset(const Working& w, const int width) {
    const int W = w.image.width(), h = w.image.height();
    const auto [first, last] = kept_columns(w);
    const std::optional<Mask>& levels = crop_levels(w);
    int lo = 0, hi = W - width;  // allowed offsets
    if (first <= last) {
        if (last - first + 1 > width) return -1;
        lo = std::max(lo, last - width + 1);
        hi = std::min(hi, first);
    }
    std::vector<double> value(static_cast<std::size_t>(W), 0.0);
    for (int y = 0; y < h; ++y) {
        const Rgba8* row = w.image.row(y);
        for (int x = 0; x < W; ++x) {
            const Rgba8 a = row[std::max(x - 1, 0)], b = row[std::min(x + 1, W - 1)];
            value[static_cast<std::size_t>(x)] +=
                std::abs(a.r - b.r) + std::abs(a.g - b.g) + std::abs(a.b - b.b);
            if (levels)
                value[static_cast<std::size_t>(x)] +=
                    static_cast<double>(levels->at(x, y)) * std::max(1, w.importance_unit);
        }
    }
    std::vector<double> prefix(static_cast<std::size_t>(W) + 1, 0.0);
    for (int x = 0; x < W; ++x) prefix[x + 1] = prefix[x] + value[static_cast<std::size_t>(x)];
    const double limit = kCropDetailShare * prefix[W] / W;
    // The longest runs of low-detail columns at each edge bound the offsets.
    int left_low = 0, right_low = 0;
    while (left_low < W && value[static_cast<std::size_t>(left_low)] < limit) ++left_low;
    while (right_low < W && value[static_cast<std::size_t>(W - 1 - right_low)] < limit) ++right_low;
    lo = std::max(lo, W - width - right_low);
    hi = std::min(hi, left_low);
    if (lo > hi) return -1;
    int best = lo;
    double best_value = -1;
    const double centre = (W - width) / 2.0;
    for (int x0 = lo; x0 <= hi; ++x0) {
        const double v = prefix[x0 + width] - prefix[x0];
        if (v > best_value * 1.001 ||
            (v >= best_value * 0.999 && std::abs(x0 - centre) < std::abs(best - centre))) {
            if (v > best_value) best_value = v;
            best = x0;
        }
    }
    return best;
}

struct Candidate {
    int crop = 0, offset = 0, seams = 0;
    SeamEnergy energy = SeamEnergy::Forward;  ///< of the seams (automatic compares two)
};

/// Applies crop, seams (removed or duplicated) and scaling to a copy of w, vertically.
/// `order`: a seam order of the cropped image with at least c.seams seams (shrinking only).
Working apply_vertical(const Working& w, const Candidate& c, const int target,
                       const SeamOrder* order, const SeamEnergy energy,
                       const CarveImplementation impl, const CarveProgress& progress) {
    Working out = w;
    if (c.crop > 0) crop_working(out, c.offset, out.image.width() - c.crop);
    if (target < w.image.width()) {
        if (c.seams > 0) detail::remove_with_order(out, *order, c.seams);
    } else {
        detail::enlarge_working(out, SeamDirection::Vertical, out.image.width() + c.seams,
                                decider(energy, impl, progress));
    }
    scale_working_width(out, target);
    return out;
}

/// One side, as vertical work on w: plans the mix (amount or automatic) and applies it.
SideMix retarget_side(Working& w, const int target, const RetargetParams& p,
                      const CarveImplementation impl, const CarveProgress& progress) {
    SideMix mix;
    const int W = w.image.width();
    mix.original = W;
    mix.target = target;
    mix.scaled_from = mix.scaled_to = target;
    mix.energy = p.energy;
    if (target == W) return mix;
    const bool shrinking = target < W;
    const int change = std::abs(W - target);
    // Seams for a candidate are found once per crop: the first k of an order are the k-seam
    // carve.
    const auto order_for = [&](const Working& cropped, const int seams, const SeamEnergy e) {
        return seam_order(input_of(cropped, e), SeamDirection::Vertical, seams, impl, progress);
    };
    // Shrinking, the automatic mix also compares seams of the backward L1 gradient energy and
    // of the transversal energy (liblqr's default: |dI/dx| only, so seams may run along
    // horizontal edges): on the benchmark photos either scores above the forward energy's by
    // ARS, and each energy's seams are identical across the carvers. BDS chooses among them
    // (transversal seams won 2 of 30 cases with faces, 11 with saliency on, none looked worse:
    // docs/notes/retarget-quality.md, "Transversal seams as candidates").
    std::vector<SeamEnergy> energies{p.energy};
    if (p.automatic && shrinking)
        for (const SeamEnergy e : {SeamEnergy::L1, SeamEnergy::Transversal})
            if (e != p.energy) energies.push_back(e);
    std::vector<Candidate> candidates;
    if (!p.automatic) {
        candidates.push_back(
            {0, 0, static_cast<int>(std::lround(p.amount / 100.0 * change)), p.energy});
    } else {
        // Crops of 0, ¼, ½, ¾ and all of the change: where a whole margin is empty, only the
        // full crop leaves the picture untouched (with ½ at most, seams or scaling had to
        // make up the rest even beside an empty margin).
        std::vector<int> crops{0};
        if (shrinking)
            for (const int c : {change / 4, change / 2, change * 3 / 4, change})
                if (c > 0 && crops.back() != c) crops.push_back(c);
        for (const int c : crops) {
            const int offset = c > 0 ? crop_offset(w, W - c) : 0;
            if (offset < 0) continue;  // the crop would cut into protection
            const int rest = change - c;
            for (const SeamEnergy e : energies)
                for (int step = 0; step <= 4; ++step) {
                    const int k = rest * step / 4;
                    if (k == 0 && e != p.energy) continue;  // no seams: the same image
                    if (!candidates.empty() && candidates.back().crop == c &&
                        candidates.back().seams == k && candidates.back().energy == e)
                        continue;
                    candidates.push_back({c, offset, k, e});
                }
        }
    }
    const Working original = w;
    std::optional<Working> best;
    double best_distance = std::numeric_limits<double>::infinity();
    Candidate chosen;
    std::optional<SeamOrder> order;
    int order_crop = -1;
    SeamEnergy order_energy = p.energy;
    for (const Candidate& c : candidates) {
        if (shrinking && c.seams > 0 && (order_crop != c.crop || order_energy != c.energy)) {
            Working cropped = original;
            if (c.crop > 0) crop_working(cropped, c.offset, W - c.crop);
            order = order_for(cropped, change - c.crop, c.energy);
            order_crop = c.crop;
            order_energy = c.energy;
        }
        Working result = apply_vertical(original, c, target, order ? &*order : nullptr, c.energy,
                                        impl, progress);
        double d = 0;
        if (p.automatic) {
            d = p.mix_distance ? (*p.mix_distance)(original.image.view(), result.image.view())
                               : bidirectional_dissimilarity(
                                     original.image.view(), result.image.view(),
                                     original.importance ? &*original.importance : nullptr);
        }
        if (!best || d < best_distance) {
            best_distance = d;
            best = std::move(result);
            chosen = c;
        }
    }
    w = std::move(*best);
    mix.crop = chosen.crop;
    mix.crop_offset = chosen.offset;
    mix.seams = chosen.seams;
    mix.energy = chosen.energy;
    mix.scaled_from = W - chosen.crop + (shrinking ? -chosen.seams : chosen.seams);
    mix.distance = p.automatic ? best_distance : 0;
    mix.candidates = static_cast<int>(candidates.size());
    return mix;
}

RetargetResult retarget_mixed(const ImageView<const Rgba8> image, const RetargetParams& p,
                              const CarveImplementation impl, const CarveProgress& progress) {
    Working w = start(image, p);
    const SideMix width_mix = retarget_side(w, p.width, p, impl, progress);
    transpose_working(w);
    const SideMix height_mix = retarget_side(w, p.height, p, impl, progress);
    transpose_working(w);
    RetargetResult r;
    r.mixed = true;
    r.width_mix = width_mix;
    r.height_mix = height_mix;
    const auto removed = [](const SideMix& m) { return m.target < m.original ? m.seams : 0; };
    const auto inserted = [](const SideMix& m) { return m.target > m.original ? m.seams : 0; };
    r.seams_removed_vertical = removed(width_mix);
    r.seams_removed_horizontal = removed(height_mix);
    r.seams_inserted_vertical = inserted(width_mix);
    r.seams_inserted_horizontal = inserted(height_mix);
    r.total_cost = w.cost;
    r.protected_removed = w.protected_removed;
    r.remove_left = w.remove ? count_selected(w.remove->view()) : 0;
    if (r.protected_removed > 0)
        r.notes.push_back(
            "the protect mask had to be carved: " + std::to_string(r.protected_removed) +
            " protected pixels were removed because no seam could avoid them");
    if (p.remove && r.remove_left > 0)
        r.notes.push_back(std::to_string(r.remove_left) +
                          " pixels marked for removal remain; use seams only (amount 100) to "
                          "clear them");
    r.image = std::move(w.image);
    if (w.overlay) r.overlay = std::move(*w.overlay);
    return r;
}

}  // namespace

ImageRgba8 resample_area(const ImageView<const Rgba8> image, const int width, const int height) {
    check_image_size(image.width, image.height);
    check_image_size(width, height);
    const std::vector<Tap> tx = taps(image.width, width), ty = taps(image.height, height);
    // Horizontal pass in float, then vertical, rounded once.
    std::vector<float> mid(static_cast<std::size_t>(width) * image.height * 4);
    parallel_chunks(image.height, [&](const int y0, const int y1, int) {
        for (int y = y0; y < y1; ++y) {
            const Rgba8* row = image.row(y);
            for (int x = 0; x < width; ++x) {
                const Tap& t = tx[static_cast<std::size_t>(x)];
                float acc[4] = {0, 0, 0, 0};
                for (std::size_t k = 0; k < t.weights.size(); ++k) {
                    const Rgba8 px = row[t.first + static_cast<int>(k)];
                    acc[0] += t.weights[k] * px.r;
                    acc[1] += t.weights[k] * px.g;
                    acc[2] += t.weights[k] * px.b;
                    acc[3] += t.weights[k] * px.a;
                }
                std::copy_n(acc, 4, &mid[(static_cast<std::size_t>(y) * width + x) * 4]);
            }
        }
    });
    ImageRgba8 out(width, height);
    parallel_chunks(height, [&](const int y0, const int y1, int) {
        for (int y = y0; y < y1; ++y) {
            const Tap& t = ty[static_cast<std::size_t>(y)];
            for (int x = 0; x < width; ++x) {
                float acc[4] = {0, 0, 0, 0};
                for (std::size_t k = 0; k < t.weights.size(); ++k) {
                    const float* m =
                        &mid[(static_cast<std::size_t>(t.first + static_cast<int>(k)) * width + x) *
                             4];
                    for (int c = 0; c < 4; ++c) acc[c] += t.weights[k] * m[c];
                }
                const auto q = [](const float v) {
                    return static_cast<std::uint8_t>(std::clamp(std::lround(v), 0L, 255L));
                };
                out.at(x, y) = Rgba8{q(acc[0]), q(acc[1]), q(acc[2]), q(acc[3])};
            }
        }
    });
    return out;
}

namespace {

/// One scale of the bidirectional dissimilarity: both images reduced by the integer factor f.
struct BdsScale {
    double distance = 0;  ///< (weighted completeness + coherence) / patch length
    /// For every patch of phase 0 of `a` (completeness) and of `b` (coherence): the source
    /// column (in the other image's pixels) of the centre of its nearest patch, to guide the
    /// next finer scale.
    std::vector<int> a_match, b_match;
    int wa = 0, wb = 0, h = 0, f = 1;
};

constexpr int kBdsRadius = 2, kBdsSide = 2 * kBdsRadius + 1, kBdsLen = kBdsSide * kBdsSide * 3;
/// A guided scale searches this many reduced columns either side of the coarser match.
constexpr int kBdsGuideRadius = 3;

/// `guide`: the coarser scale, or null for an exhaustive search along the rows.
BdsScale bds_scale(const ImageView<const Rgba8> a, const ImageView<const Rgba8> b,
                   const Mask* a_importance, const int f, const BdsScale* guide) {
    BdsScale out;
    out.f = f;
    const int h = std::max(1, a.height / f);
    out.h = h;
    const int phases = std::min(f, 4);
    const auto skip_of = [&](const ImageView<const Rgba8> img, const int phase) {
        return std::min(img.width - 1, (phase * f + phases / 2) / phases);
    };
    const auto reduce = [&](const ImageView<const Rgba8> img, const int phase) {
        const int skip = skip_of(img, phase);
        const int w = std::max(1, (img.width - skip) / f);
        const int used = std::min(img.width - skip, w * f);
        Image<Rgba8> rows(used, std::min(img.height, h * f));
        for (int y = 0; y < rows.height(); ++y) std::copy_n(img.row(y) + skip, used, rows.row(y));
        return resample_area(rows.view(), w, h);
    };
    std::vector<ImageRgba8> sa, sb;
    for (int k = 0; k < phases; ++k) {
        sa.push_back(reduce(a, k));
        sb.push_back(reduce(b, k));
    }
    const int wa = sa[0].width(), wb = sb[0].width();
    out.wa = wa;
    out.wb = wb;
    std::optional<Mask> level;
    if (a_importance) {
        // The levels of the columns and rows phase 0 of `a` covers.
        Mask used(std::min(a.width, wa * f), std::min(a.height, h * f));
        for (int y = 0; y < used.height(); ++y)
            std::copy_n(a_importance->view().row(y), used.width(), used.row(y));
        level = resample_discrete<std::uint8_t>(used.view(), wa, h);
    }
    // Every pixel's patch as a vector (borders clamped).
    const auto patches = [&](const ImageRgba8& img) {
        const int w = img.width();
        std::vector<float> v(static_cast<std::size_t>(w) * h * kBdsLen);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                float* p = &v[(static_cast<std::size_t>(y) * w + x) * kBdsLen];
                for (int dy = -kBdsRadius; dy <= kBdsRadius; ++dy)
                    for (int dx = -kBdsRadius; dx <= kBdsRadius; ++dx) {
                        const Rgba8 px =
                            img.at(std::clamp(x + dx, 0, w - 1), std::clamp(y + dy, 0, h - 1));
                        *p++ = px.r;
                        *p++ = px.g;
                        *p++ = px.b;
                    }
            }
        return v;
    };
    std::vector<std::vector<float>> pa, pb;
    for (int k = 0; k < phases; ++k) {
        pa.push_back(patches(sa[static_cast<std::size_t>(k)]));
        pb.push_back(patches(sb[static_cast<std::size_t>(k)]));
    }
    // For every patch of phase 0 of `from`: the least squared difference to a patch of any
    // phase of `to`, in rows y − 1 .. y + 1 (rows correspond), and the source column of that
    // patch's centre. Guided: only the columns within kBdsGuideRadius of the coarser scale's
    // match (Simakov et al.'s coarse-to-fine search; exhaustive at the finer scale would cost
    // 8 × the coarse one). Parallel over rows of `from`.
    const auto nearest = [&](const std::vector<float>& from, const int w_from,
                             const ImageView<const Rgba8> to_source,
                             const std::vector<ImageRgba8>& to_images,
                             const std::vector<std::vector<float>>& to,
                             const std::vector<int>* coarse_match, const int coarse_w,
                             const int coarse_h, const int coarse_f, std::vector<int>& match) {
        std::vector<float> best(static_cast<std::size_t>(w_from) * h,
                                std::numeric_limits<float>::max());
        match.assign(best.size(), 0);
        parallel_chunks(h, [&](const int y0, const int y1, int) {
            for (int y = y0; y < y1; ++y)
                for (int x = 0; x < w_from; ++x) {
                    const float* p = &from[(static_cast<std::size_t>(y) * w_from + x) * kBdsLen];
                    float& slot = best[static_cast<std::size_t>(y) * w_from + x];
                    int& where = match[static_cast<std::size_t>(y) * w_from + x];
                    int guess = -1;  // source column the coarser scale matched
                    if (coarse_match) {
                        const int cx = std::min(coarse_w - 1, (x * f + f / 2) / coarse_f);
                        const int cy = std::min(coarse_h - 1, (y * f + f / 2) / coarse_f);
                        guess = (*coarse_match)[static_cast<std::size_t>(cy) * coarse_w + cx];
                    }
                    for (std::size_t k = 0; k < to.size(); ++k) {
                        const int w_to = to_images[k].width();
                        const int skip = skip_of(to_source, static_cast<int>(k));
                        int lo = 0, hi = w_to - 1;
                        if (guess >= 0) {
                            const int centre = (guess - skip) / f;
                            lo = std::max(0, centre - kBdsGuideRadius);
                            hi = std::min(w_to - 1, centre + kBdsGuideRadius);
                            // Never an empty window (a match beyond the columns this phase
                            // holds): its nearest column then.
                            if (lo > hi) lo = hi = std::clamp(centre, 0, w_to - 1);
                        }
                        for (int d = -1; d <= 1; ++d) {
                            const int yt = y + d;
                            if (yt < 0 || yt >= h) continue;
                            for (int xt = lo; xt <= hi; ++xt) {
                                const float* q =
                                    &to[k][(static_cast<std::size_t>(yt) * w_to + xt) * kBdsLen];
                                float sum = 0;
                                for (int i = 0; i < kBdsLen; ++i) {
                                    const float e = p[i] - q[i];
                                    sum += e * e;
                                }
                                if (sum < slot) {
                                    slot = sum;
                                    where = skip + xt * f + f / 2;
                                }
                            }
                        }
                    }
                }
        });
        return best;
    };
    const std::vector<float> best_a =
        nearest(pa[0], wa, b, sb, pb, guide ? &guide->a_match : nullptr, guide ? guide->wa : 0,
                guide ? guide->h : 0, guide ? guide->f : 1, out.a_match);
    const std::vector<float> best_b =
        nearest(pb[0], wb, a, sa, pa, guide ? &guide->b_match : nullptr, guide ? guide->wb : 0,
                guide ? guide->h : 0, guide ? guide->f : 1, out.b_match);
    double complete = 0, weights = 0;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < wa; ++x) {
            const double wgt = 1.0 + (level ? level->at(x, y) / 16.0 : 0.0);
            complete += wgt * best_a[static_cast<std::size_t>(y) * wa + x];
            weights += wgt;
        }
    double coherent = 0;
    for (const float v : best_b) coherent += v;
    out.distance = (complete / weights + coherent / static_cast<double>(best_b.size())) / kBdsLen;
    return out;
}

}  // namespace

double bidirectional_dissimilarity(const ImageView<const Rgba8> a, const ImageView<const Rgba8> b,
                                   const Mask* a_importance, const int side) {
    check_image_size(a.width, a.height);
    check_image_size(b.width, b.height);
    if (a.height != b.height) invalid("bidirectional dissimilarity needs images of one height");
    if (a_importance)
        check_mask_size(a_importance->view(), a.width, a.height, "the importance map");
    // Both images are reduced by one integer factor f (so that `a` is at most about `side`
    // long) over whole groups of f columns: every reduced pixel covers exactly f × f source
    // pixels in both images, so a picture and a shifted or cropped copy of it are reduced at
    // one scale. (Reducing each width to round(width / f) gave each image its own scale, up to
    // 1 % apart: one picture between empty margins, cropped to the same width at offsets
    // 24 … 36, measured 2.4 to 15.9, and dropping its last column 2.7, where a crop of 30
    // plus 22 seams plus scaling measured 4.3: the automatic mix chose by sampling accidents.)
    // Each image is also reduced at min(f, 4) column phases (the first k·f/phases columns
    // dropped), and a patch's nearest is looked for among all phases of the other image, so
    // content shifted by part of f (a crop at any offset, the columns beside a seam) finds
    // itself.
    const int longest = std::max(a.width, a.height);
    const int f = std::max(1, (longest + side - 1) / side);
    const BdsScale coarse = bds_scale(a, b, a_importance, f, nullptr);
    // Simakov et al.'s measure is multi-scale. At `side` pixels alone a squeezed object's
    // patches still find their like (everything is a blur at that scale: on the benchmark's
    // fruit and aloe pot the measure preferred plain scaling to seams at half width, and the
    // result looked squeezed); at twice the resolution a squeezed edge no longer matches the
    // original's. The finer scale's nearest patches are searched around the coarse matches.
    // (A third scale, about 4 × `side` long, was tried: it took fruits.jpg at half width off
    // plain scaling but lowered three other cases and cost 1.7 × the time; see
    // docs/notes/retarget-quality.md.)
    const int fine_f = std::max(1, (longest + 2 * side - 1) / (2 * side));
    if (fine_f >= f) return coarse.distance;
    const BdsScale fine = bds_scale(a, b, a_importance, fine_f, &coarse);
    return (coarse.distance + fine.distance) / 2;
}

RetargetResult retarget(const ImageView<const Rgba8> image, const RetargetParams& p,
                        const CarveImplementation impl, const CarveProgress& progress) {
    validate(image, p);
    if (p.automatic || p.amount < 100) return retarget_mixed(image, p, impl, progress);
    if (impl == CarveImplementation::Cuda && !p.want_overlay && p.width <= image.width &&
        p.height <= image.height) {
        return shrink_on_device(image, p, progress);
    }
    auto [w, width_first] = detail::retarget_seams_only(
        image.width, image.height, p, [&] { return start(image, p); },
        decider(p.energy, impl, progress));
    const std::int64_t remove_left = w.remove ? count_selected(w.remove->view()) : 0;
    RetargetResult r = summarise(image, p, std::move(w.image), w.cost, w.protected_removed,
                                 remove_left, width_first);
    if (w.overlay) r.overlay = std::move(*w.overlay);
    return r;
}

RetargetResult retarget(ImageRgba8&& image, const RetargetParams& p, const CarveImplementation impl,
                        const CarveProgress& progress) {
    validate(image.view(), p);
    const bool seams_only_on_host = !p.automatic && p.amount >= 100 &&
                                    !(impl == CarveImplementation::Cuda && !p.want_overlay &&
                                      p.width <= image.width() && p.height <= image.height());
    if (!seams_only_on_host) return retarget(image.view(), p, impl, progress);
    const int width = image.width(), height = image.height();
    // retarget_seams_only asks for a fresh state once, or twice when both sides shrink (both
    // orders): the last one takes the caller's pixels, an earlier one copies them.
    const int fresh_states = width > p.width && height > p.height ? 2 : 1;
    int taken = 0;
    const auto fresh = [&] {
        std::optional<ImageRgba8> overlay;
        if (p.want_overlay) overlay = clone(image.view());
        ImageRgba8 pixels = ++taken == fresh_states ? std::move(image) : clone(image.view());
        return detail::start_working(std::move(pixels), width, height, p, std::move(overlay));
    };
    auto [w, width_first] =
        detail::retarget_seams_only(width, height, p, fresh, decider(p.energy, impl, progress));
    const std::int64_t remove_left = w.remove ? count_selected(w.remove->view()) : 0;
    RetargetResult r = detail::summarise_seams_only(width, height, p, w.cost, w.protected_removed,
                                                    remove_left, width_first);
    r.image = std::move(w.image);
    if (w.overlay) r.overlay = std::move(*w.overlay);
    return r;
}

}  // namespace lacuna::ops
