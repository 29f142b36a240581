// Validation, the search region and the driver loop shared by every inpainting implementation.
#include "fill_state.hpp"

#include <lacuna/core/error.hpp>
#include <lacuna/core/parallel.hpp>
#include <lacuna/ops/inpaint.hpp>
#include <lacuna/ops/inpaint_sources.hpp>
#include <lacuna/ops/inpaint_choice.hpp>
#include <lacuna/ops/inpaint_refill.hpp>
#include <lacuna/ops/inpaint_structure.hpp>
#include <lacuna/ops/patchmatch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <sstream>

namespace lacuna::ops {
namespace {

std::string patch_text(const int patch) {
    std::string text = std::to_string(patch);
    text += "×";
    text += std::to_string(patch);
    return text;
}

void check_params(const ImageView<const Rgba8> image, const Mask& mask,
                  const InpaintParams& params) {
    check_image_size(image.width, image.height);
    check_mask_size(mask.view(), image.width, image.height, "the inpainting mask");
    if (params.never_sample)
        check_mask_size(params.never_sample->view(), image.width, image.height,
                        "the never-sample mask");
    if (params.patch < kMinPatch || params.patch > kMaxPatch || params.patch % 2 == 0) {
        throw Error(ErrorCode::InvalidArgument,
                    "patch size must be odd and between 3 and 31 (got " +
                        std::to_string(params.patch) + ")");
    }
    if (params.patch > image.width || params.patch > image.height) {
        std::string message = "a " + patch_text(params.patch);
        message += " patch does not fit in a ";
        message += std::to_string(image.width) + "×" + std::to_string(image.height);
        message += " image";
        throw Error(ErrorCode::InvalidArgument, message);
    }
    if (!(params.window_factor >= 0.0) || !std::isfinite(params.window_factor)) {
        throw Error(ErrorCode::InvalidArgument, "the search window factor must be 0 or more");
    }
}

/// 1 where a complete patch centred there avoids the hole and the never-sample area, written for
/// the centres of `region` only (inside the image's interior: the patch lies in the image); other
/// pixels of `valid` are left as they are. Two sliding windows (along rows, then along columns
/// over the rows' answers), each split over threads: the same answer as a per-patch scan, in
/// O(region) and without an integral image.
void valid_sources_in(const Mask& hole, const Mask* never_sample, const int radius,
                      const SearchRect& region, Mask& valid) {
    const int rw = region.x1 - region.x0 + 1;
    const int rh = region.y1 - region.y0 + 1;
    if (rw <= 0 || rh <= 0) return;
    const int side = 2 * radius + 1;
    // near(i, x) = 1 when a forbidden pixel lies within `radius` of x in row region.y0 - radius +
    // i.
    const int near_rows = rh + 2 * radius;
    std::vector<std::uint8_t> near(static_cast<std::size_t>(rw) * near_rows);
    parallel_chunks(near_rows, [&](const int i0, const int i1, int) {
        for (int i = i0; i < i1; ++i) {
            const int y = region.y0 - radius + i;
            const std::uint8_t* holes = hole.row(y);
            const std::uint8_t* never = never_sample != nullptr ? never_sample->row(y) : nullptr;
            const auto forbidden = [&](const int x) {
                return (holes[x] != 0 || (never != nullptr && never[x] != 0)) ? 1 : 0;
            };
            std::uint8_t* out = near.data() + static_cast<std::size_t>(i) * rw;
            int count = 0;
            for (int x = region.x0 - radius; x <= region.x0 + radius; ++x) count += forbidden(x);
            for (int x = region.x0; x <= region.x1; ++x) {
                out[x - region.x0] = count > 0 ? 1 : 0;
                if (x < region.x1) count += forbidden(x + radius + 1) - forbidden(x - radius);
            }
        }
    });
    parallel_chunks(rw, [&](const int x0, const int x1, int) {
        std::vector<int> column(static_cast<std::size_t>(x1 - x0), 0);
        const auto add_row = [&](const int i, const int sign) {
            const std::uint8_t* in = near.data() + static_cast<std::size_t>(i) * rw;
            for (int x = x0; x < x1; ++x) column[static_cast<std::size_t>(x - x0)] += sign * in[x];
        };
        for (int i = 0; i < side; ++i) add_row(i, 1);
        for (int j = 0; j < rh; ++j) {
            std::uint8_t* out = valid.row(region.y0 + j) + region.x0;
            for (int x = x0; x < x1; ++x)
                out[x] = column[static_cast<std::size_t>(x - x0)] == 0 ? 1 : 0;
            if (j + 1 < rh) {
                add_row(j + side, 1);
                add_row(j, -1);
            }
        }
    });
}

SearchRect full_rect(const int width, const int height, const int radius) {
    return {radius, radius, width - 1 - radius, height - 1 - radius};
}

/// The valid source centres of the whole image (see valid_sources_in). Without a never-sample
/// mask only centres within `radius` of the hole's box can see a hole pixel: every other centre
/// of the interior is valid, so the windows slide over that grown box alone and a small hole in
/// a large image costs its box, not the image (the rest is one fill of ones).
Mask valid_sources(const Mask& hole, const Mask* never_sample, const int radius,
                   const SearchRect& hole_box) {
    const int w = hole.width();
    const int h = hole.height();
    Mask valid(w, h, 0);
    const int side = 2 * radius + 1;
    if (w < side || h < side) return valid;
    const SearchRect interior = full_rect(w, h, radius);
    if (never_sample != nullptr) {
        valid_sources_in(hole, never_sample, radius, interior, valid);
        return valid;
    }
    parallel_chunks(h - 2 * radius, [&](const int begin, const int end, int) {
        for (int y = radius + begin; y < radius + end; ++y)
            std::memset(valid.row(y) + radius, 1, static_cast<std::size_t>(w - 2 * radius));
    });
    const SearchRect near_hole{
        std::max(interior.x0, hole_box.x0 - radius), std::max(interior.y0, hole_box.y0 - radius),
        std::min(interior.x1, hole_box.x1 + radius), std::min(interior.y1, hole_box.y1 + radius)};
    valid_sources_in(hole, nullptr, radius, near_hole, valid);
    return valid;
}

/// Whether any pixel of `rect` is set (stops at the first: usually in the first rows).
bool any_in(const Mask& valid, const SearchRect& rect) {
    for (int y = rect.y0; y <= rect.y1; ++y) {
        const std::uint8_t* row = valid.row(y);
        for (int x = rect.x0; x <= rect.x1; ++x)
            if (row[x] != 0) return true;
    }
    return false;
}

SearchRect window_rect(const SearchRect& box, const int width, const int height, const int radius,
                       const int patch, const double alpha) {
    const int box_w = box.x1 - box.x0 + 1;
    const int box_h = box.y1 - box.y0 + 1;
    const int grow_x = std::max(static_cast<int>(std::ceil(alpha * box_w)), 2 * patch);
    const int grow_y = std::max(static_cast<int>(std::ceil(alpha * box_h)), 2 * patch);
    const SearchRect full = full_rect(width, height, radius);
    return {std::max(full.x0, box.x0 - grow_x), std::max(full.y0, box.y0 - grow_y),
            std::min(full.x1, box.x1 + grow_x), std::min(full.y1, box.y1 + grow_y)};
}

}  // namespace

InpaintProblem prepare_inpaint(const ImageView<const Rgba8> image, const Mask& mask,
                               const InpaintParams& params) {
    return prepare_inpaint(image, mask, params, PixelRect{0, 0, image.width - 1, image.height - 1});
}

InpaintProblem prepare_inpaint(const ImageView<const Rgba8> image, const Mask& mask,
                               const InpaintParams& params, const PixelRect& mask_box) {
    check_params(image, mask, params);
    // Only the rows and columns the caller says the mask's pixels lie in are read (the hole
    // Mask is zero elsewhere from its allocation).
    const PixelRect scan = clip(mask_box, image.width, image.height);
    InpaintProblem problem;
    problem.image = clone(image);
    problem.radius = params.patch / 2;
    problem.coherence = params.coherence;
    problem.method = params.method;
    problem.seed = params.seed;
    problem.hole = Mask(image.width, image.height);
    // The hole as 0/1, its pixel count and its box: rows split between threads (a 4K measurement
    // has 16 million of them), each thread's count and box combined after.
    struct Part {
        std::int64_t pixels = 0;
        SearchRect box;
    };
    std::vector<Part> parts(worker_count(), Part{0, {image.width, image.height, -1, -1}});
    parallel_chunks(scan.empty() ? 0 : scan.height(),
                    [&](const int y0, const int y1, const int worker) {
                        Part& part = parts[static_cast<std::size_t>(worker)];
                        for (int y = scan.y0 + y0; y < scan.y0 + y1; ++y) {
                            const std::uint8_t* in = mask.row(y);
                            std::uint8_t* out = problem.hole.row(y);
                            int first = -1, last = -1;
                            for (int x = scan.x0; x <= scan.x1; ++x) {
                                const std::uint8_t in_hole = in[x] != 0 ? 1 : 0;
                                out[x] = in_hole;
                                if (in_hole == 0) continue;
                                ++part.pixels;
                                if (first < 0) first = x;
                                last = x;
                            }
                            if (first < 0) continue;
                            part.box = {std::min(part.box.x0, first), std::min(part.box.y0, y),
                                        std::max(part.box.x1, last), std::max(part.box.y1, y)};
                        }
                    });
    SearchRect box{image.width, image.height, -1, -1};
    for (const Part& part : parts) {
        problem.hole_pixels += part.pixels;
        box = {std::min(box.x0, part.box.x0), std::min(box.y0, part.box.y0),
               std::max(box.x1, part.box.x1), std::max(box.y1, part.box.y1)};
    }
    problem.hole_box = box;
    if (problem.hole_pixels == 0) {
        problem.notes.emplace_back("the mask is empty: nothing to fill");
        return problem;
    }
    problem.valid_source =
        valid_sources(problem.hole, params.never_sample, problem.radius, problem.hole_box);
    const SearchRect full = full_rect(image.width, image.height, problem.radius);
    if (!any_in(problem.valid_source, full)) {
        std::string message = "the mask leaves no complete " + patch_text(params.patch);
        message += " source patch outside the hole";
        if (params.never_sample != nullptr) message += " and the never-sample area";
        message += ": use a smaller patch or a smaller mask";
        throw Error(ErrorCode::InvalidArgument, message);
    }
    // The colour prior narrows the valid sources here, so every filler (CPU, CUDA, the
    // editor's device filler, which uploads a host problem's narrower sources, and the
    // measurement fill) takes the same ones.
    if (params.source_colours && params.method == InpaintMethod::PatchMatch)
        restrict_sources(problem, source_prior_options(params));
    problem.window = full;
    if (params.search == InpaintSearch::Window) {
        problem.window = window_rect(box, image.width, image.height, problem.radius, params.patch,
                                     params.window_factor);
        if (!any_in(problem.valid_source, problem.window)) {
            problem.notes.emplace_back(
                "the search window around the hole has no complete source patch: searching the "
                "whole image");
            problem.window = full;
        }
    }
    return problem;
}

void Inpainter::throw_if_cancelled() const {
    if (cancelled_.load()) throw Error(ErrorCode::Cancelled, "inpainting was cancelled");
}

InpaintResult inpaint(const ImageView<const Rgba8> image, const Mask& mask,
                      const InpaintParams& params, const InpaintImplementation implementation,
                      const InpaintProgressCallback& progress) {
    const auto filler = make_inpainter(image, mask, params, implementation);
    // Steps of a few dozen iterations: often enough for a progress bar, rare enough that the
    // CUDA filler's one small read-back per step costs nothing.
    constexpr int kIterationsPerStep = 64;
    InpaintProgress state = filler->progress();
    while (!state.done()) {
        state = filler->advance(kIterationsPerStep);
        if (progress && !progress(state))
            throw Error(ErrorCode::Cancelled, "inpainting was cancelled");
    }
    // PatchMatch's result is blended in the gradient domain (see blend_fill), then, on a small
    // hole, compared per region with Criminisi's fill (choose_fill).
    // The fill before the blend, for keep_ring_colours at the end (only a PatchMatch fill of
    // pictures is blended: finished_image).
    std::optional<ImageRgba8> copy;
    if (params.keep_colours && params.method == InpaintMethod::PatchMatch) copy = filler->image();
    ImageRgba8 finished = finished_image(*filler);
    const std::optional<ImageRgba8> blended =
        copy ? std::optional<ImageRgba8>(finished) : std::nullopt;
    std::vector<std::string> notes = filler->problem().notes;
    const FillChoice choice = choose_regions(image, mask, params, implementation, finished);
    if (choice.criminisi_regions() > 0) {
        finished = compose_fills({&finished, &choice.criminisi}, choice.regions, choice.choice);
        notes.push_back(choice_note(choice));
    }
    RefillReport refilled;
    finished = refill_foreign(mask, params, implementation, std::move(finished), &refilled);
    if (const std::string note = refill_note(refilled); !note.empty()) notes.push_back(note);
    if (copy) finished = keep_ring_colours(*copy, *blended, mask, std::move(finished));
    return {std::move(finished), state, std::move(notes)};
}

LineContinuationOptions line_options(const InpaintParams& params) {
    LineContinuationOptions options;
    options.angle_degrees = params.line_angle;
    options.offset_pixels = params.line_offset;
    options.band = params.patch / 2;  // a patch wide: the patches next to it see all of it
    return options;
}

std::string to_string(const InpaintMethod method) {
    return method == InpaintMethod::PatchMatch ? "patchmatch" : "criminisi";
}

std::optional<InpaintMethod> parse_inpaint_method(const std::string& text) {
    if (text == "criminisi") return InpaintMethod::Criminisi;
    if (text == "patchmatch") return InpaintMethod::PatchMatch;
    return std::nullopt;
}

bool parse_inpaint_search(const std::string& text, InpaintParams& params) {
    if (text == "full") {
        params.search = InpaintSearch::Full;
        return true;
    }
    if (text == "window") {
        params.search = InpaintSearch::Window;
        return true;
    }
    const std::string prefix = "window:";
    if (text.rfind(prefix, 0) != 0) return false;
    const std::string number = text.substr(prefix.size());
    char* end = nullptr;
    const double alpha = std::strtod(number.c_str(), &end);
    if (number.empty() || end != number.c_str() + number.size() || !std::isfinite(alpha) ||
        alpha < 0.0)
        return false;
    params.search = InpaintSearch::Window;
    params.window_factor = alpha;
    return true;
}

std::string describe_search(const InpaintParams& params) {
    if (params.search == InpaintSearch::Full) return "full";
    std::ostringstream out;
    out << "window:" << params.window_factor;
    return out.str();
}

}  // namespace lacuna::ops

#include "factories.hpp"

namespace lacuna::ops {

std::unique_ptr<Inpainter> make_inpainter(const ImageView<const Rgba8> image, const Mask& mask,
                                          const InpaintParams& params,
                                          const InpaintImplementation implementation) {
    return make_inpainter(prepare_inpaint(image, mask, params), params, implementation);
}

std::unique_ptr<Inpainter> make_inpainter(InpaintProblem problem, const InpaintParams& params,
                                          const InpaintImplementation implementation) {
    if (params.method == InpaintMethod::PatchMatch) {
        // Lines first, on the host, so every backend fills the same smaller hole.
        if (params.lines) continue_lines(problem, params.never_sample, line_options(params));
        // PatchMatch has no separate single-threaded reference: Reference runs the Fast filler
        // (see lacuna/ops/patchmatch.hpp).
        if (implementation == InpaintImplementation::Cuda)
            return detail::make_patchmatch_cuda_inpainter(std::move(problem));
        return detail::make_patchmatch_inpainter(std::move(problem));
    }
    switch (implementation) {
        case InpaintImplementation::Reference:
            return detail::make_reference_inpainter(std::move(problem));
        case InpaintImplementation::Fast:
            return detail::make_fast_inpainter(std::move(problem));
        case InpaintImplementation::Cuda:
            return detail::make_cuda_inpainter(std::move(problem));
    }
    throw Error(ErrorCode::InvalidArgument, "unknown inpainting implementation");
}

std::unique_ptr<Inpainter> make_deep_patchmatch_inpainter(
    InpaintProblem problem, Image<Rgba16> decision, const InpaintImplementation implementation) {
    if (problem.method != InpaintMethod::PatchMatch)
        throw Error(ErrorCode::InvalidArgument,
                    "a fill on every bit of a measurement is a PatchMatch fill");
    if (implementation == InpaintImplementation::Cuda)
        return detail::make_deep_patchmatch_cuda_inpainter(std::move(problem), std::move(decision));
    return detail::make_deep_patchmatch_cpu_inpainter(std::move(problem), std::move(decision));
}

std::unique_ptr<DeviceInpainter> make_deep_patchmatch_device_inpainter(InpaintProblem problem,
                                                                       Image<Rgba16> decision) {
    if (problem.method != InpaintMethod::PatchMatch)
        throw Error(ErrorCode::InvalidArgument,
                    "a fill on every bit of a measurement is a PatchMatch fill");
    return detail::make_deep_patchmatch_cuda_inpainter(std::move(problem), std::move(decision));
}

std::unique_ptr<DeviceInpainter> make_deep_patchmatch_device_inpainter(
    InpaintProblem problem, const DeviceImage<Rgba16>& decision) {
    if (problem.method != InpaintMethod::PatchMatch)
        throw Error(ErrorCode::InvalidArgument,
                    "a fill on every bit of a measurement is a PatchMatch fill");
    return detail::make_deep_patchmatch_cuda_inpainter(std::move(problem), decision);
}

}  // namespace lacuna::ops
