#include "remove_object_tool.hpp"

#include <lacuna/ops/inpaint_choice.hpp>
#include <lacuna/ops/inpaint_refill.hpp>
#include <lacuna/ops/inpaint_structure.hpp>
#include <lacuna/ops/patchmatch.hpp>
#include <lacuna/ops/seam_carve.hpp>

#include "grabcut.hpp"
#include "session.hpp"

#include <lacuna/core/error.hpp>
#include <lacuna/core/parallel.hpp>
#include <lacuna/io/image_io.hpp>

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>

namespace lacuna::session {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(const Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

/// Where a host fill ran, as the end message says it: on a device document the user expects the
/// GPU, so the message says why the CPU filled instead (the line stage's image and smaller hole
/// are made on the host, and the device filler builds its hole from the document's coverage).
std::string host_fill_device(const Document& document) {
    return document.on_device() ? "CPU (lines are continued on the host, so the fill ran there)"
                                : "CPU";
}

/// The pixels a fill removes: mask coverage of at least one half.
Mask hole_from_coverage(const Mask& coverage) {
    Mask hole(coverage.width(), coverage.height(), 0);
    for (int y = 0; y < coverage.height(); ++y) {
        const std::uint8_t* in = coverage.row(y);
        std::uint8_t* out = hole.row(y);
        for (int x = 0; x < coverage.width(); ++x) out[x] = in[x] >= 128 ? 255 : 0;
    }
    return hole;
}

/// What a fill takes from the coverage, found in one read of it: the smallest rectangle holding
/// every non-zero value (the fill's rectangle: a brush's soft edge is cleared with it) and the
/// hole (coverage >= 128), written only inside that rectangle, with its pixel count.
struct CoverageHole {
    PixelRect painted;
    Mask hole;
    std::int64_t pixels = 0;
};

/// The first and last non-zero byte of a row (first = -1 when there is none), zero rows passed
/// eight bytes at a time: a small stroke in a large picture is mostly zero rows.
void row_extent(const std::uint8_t* row, const int width, int& first, int& last) {
    first = -1;
    last = -1;
    int x = 0;
    for (; x + 8 <= width; x += 8) {
        std::uint64_t word = 0;
        std::memcpy(&word, row + x, sizeof word);
        if (word != 0) break;
    }
    for (; x < width; ++x)
        if (row[x] != 0) {
            first = x;
            break;
        }
    if (first < 0) return;
    for (int e = width - 1; e >= first; --e)
        if (row[e] != 0) {
            last = e;
            return;
        }
}

CoverageHole hole_from_coverage_box(const Mask& coverage) {
    const int w = coverage.width();
    const int h = coverage.height();
    struct Part {
        PixelRect painted;
    };
    std::vector<Part> parts(worker_count());
    parallel_chunks(h, [&](const int y0, const int y1, const int worker) {
        PixelRect& painted = parts[static_cast<std::size_t>(worker)].painted;
        for (int y = y0; y < y1; ++y) {
            int first = 0, last = 0;
            row_extent(coverage.row(y), w, first, last);
            if (first >= 0) painted.unite({first, y, last, y});
        }
    });
    CoverageHole out;
    for (const Part& part : parts) out.painted.unite(part.painted);
    out.hole = Mask(w, h, 0);
    const PixelRect& b = out.painted;
    for (int y = b.y0; y <= b.y1; ++y) {
        const std::uint8_t* in = coverage.row(y);
        std::uint8_t* o = out.hole.row(y);
        for (int x = b.x0; x <= b.x1; ++x) {
            const bool selected = in[x] >= 128;
            o[x] = selected ? 255 : 0;
            out.pixels += selected ? 1 : 0;
        }
    }
    return out;
}

}  // namespace

RemoveObjectTool::~RemoveObjectTool() = default;

std::span<const ops::ParamSpec> RemoveObjectTool::params() const {
    return ops::inpaint_param_specs();
}

/// The pixels between two pointer positions (either corner first).
PixelRect box_between(const double ax, const double ay, const double bx, const double by) {
    return {static_cast<int>(std::floor(std::min(ax, bx))),
            static_cast<int>(std::floor(std::min(ay, by))),
            static_cast<int>(std::floor(std::max(ax, bx))),
            static_cast<int>(std::floor(std::max(ay, by)))};
}

bool RemoveObjectTool::press(const Pointer& p) {
    if (session_.document().empty()) return false;
    if (box_mode_) {
        box_x_ = p.x;
        box_y_ = p.y;
        box_ = box_between(p.x, p.y, p.x, p.y);
        return true;
    }
    if (scribble_mode_) {
        scribble_.assign(1, ScribblePoint{p.x, p.y});
        return true;
    }
    return brush_.press(session_, layer_, p);
}

void RemoveObjectTool::move(const Pointer& p) {
    hover(p);
    if (box_) {
        box_ = box_between(box_x_, box_y_, p.x, p.y);
        return;
    }
    if (!scribble_.empty()) {
        scribble_.push_back({p.x, p.y});
        return;
    }
    brush_.move(session_, p);
}

void RemoveObjectTool::release(const Pointer& p) {
    if (box_) {
        const PixelRect rect = box_between(box_x_, box_y_, p.x, p.y);
        box_.reset();
        if (!select_box(rect)) session_.notice(message_);
        return;
    }
    if (!scribble_.empty()) {
        scribble_.push_back({p.x, p.y});
        const std::vector<ScribblePoint> points = std::move(scribble_);
        scribble_.clear();
        if (!select_scribble(points, brush_.settings().radius)) session_.notice(message_);
        return;
    }
    brush_.finish(session_);
}

void RemoveObjectTool::hover(const Pointer&) {}

void RemoveObjectTool::deactivate() {
    // Switching tools never drops work: a stroke in progress becomes an edit; a fill runs on.
    // A box or scribble still being dragged was not released: no selection was asked for.
    brush_.finish(session_);
    box_.reset();
    scribble_.clear();
}

Overlay RemoveObjectTool::overlay() const {
    Overlay o;
    // While a fill runs its hole shows the estimate as it is computed (the coarse levels
    // upsampled, then full size), not under the fill mask's tint.
    if (!(filler_ && layer_ == MaskLayer::Fill)) o.mask_layer = static_cast<int>(layer_);
    if (!box_mode_) brush_.add_ring(o);
    o.box = box_;
    o.scribble = scribble_;
    o.scribble_radius = brush_.settings().radius;
    return o;
}

void RemoveObjectTool::replace_mask(const Mask& mask, const std::string& label) {
    Document& document = session_.document();
    const Mask& current = document.mask(layer_);
    // Only the rectangle where the masks differ becomes the edit (an undo snapshot of a grown
    // outline, not of the whole picture).
    PixelRect changed;
    for (int y = 0; y < mask.height(); ++y) {
        const std::uint8_t* a = current.row(y);
        const std::uint8_t* b = mask.row(y);
        for (int x = 0; x < mask.width(); ++x)
            if (a[x] != b[x]) changed.unite({x, y, x, y});
    }
    if (changed.empty()) return;
    Edit edit;
    edit.label = label;
    edit.rect = changed;
    edit.layer = layer_;
    edit.before.mask = copy_region(current, changed);
    edit.after.mask = copy_region(mask, changed);
    document.write_mask(layer_, changed, *edit.after.mask);
    session_.push(std::move(edit));
    session_.frame_changed();
}

bool RemoveObjectTool::grow_mask(const int pixels) {
    const Document& document = session_.document();
    if (document.empty() || !document.mask_painted(layer_)) {
        message_ = "Nothing to grow: paint or box-select a mask first.";
        return false;
    }
    if (pixels == 0 || std::abs(pixels) > ops::kMaxMaskGrow) {
        message_ = "Grow or shrink by 1 to " + std::to_string(ops::kMaxMaskGrow) + " pixels.";
        return false;
    }
    brush_.finish(session_);
    // What the fill takes (coverage ≥ ½) grown or shrunk: a brush's soft edge does not count
    // as selected and then grow twice as far.
    const Mask grown = lacuna::grow_mask(hole_from_coverage(document.mask(layer_)).view(), pixels);
    replace_mask(grown, (pixels > 0 ? "Grow Mask by " : "Shrink Mask by ") +
                            std::to_string(std::abs(pixels)) + " px");
    message_.clear();
    return true;
}

bool RemoveObjectTool::select_box(const PixelRect& rect) {
    const Document& document = session_.document();
    if (document.empty()) return false;
    brush_.finish(session_);
    Mask object;
    try {
        object = grabcut_mask(document.pixels().view(), rect);
    } catch (const Error& e) {
        message_ = e.what();
        return false;
    }
    const PixelRect box = clip(rect, document.width(), document.height());
    // GrabCut can label the whole box background: a small object whose colours the box's own
    // background shares (a grey tower in a box of sky and trees). Selecting nothing would look
    // like a drag that did not register, so the box itself is proposed, as a marquee would be.
    if (count_selected(object.view()) >= min_box_object_pixels(box)) {
        add_proposal(lacuna::grow_mask(object.view(), kBoxMargin), "Box Select");
        return true;
    }
    Mask whole_box(document.width(), document.height(), 0);
    for (int y = box.y0; y <= box.y1; ++y)
        std::fill(whole_box.row(y) + box.x0, whole_box.row(y) + box.x1 + 1, std::uint8_t{255});
    add_proposal(std::move(whole_box), "Box Select");
    message_ = "Box selection: no object stood out, so the whole box is selected.";
    session_.notice(message_);
    return true;
}

void RemoveObjectTool::add_proposal(Mask proposal, const std::string& label) {
    // Added to what is painted: several objects selected one after another are filled in one go.
    const Mask& current = session_.document().mask(layer_);
    for (int y = 0; y < proposal.height(); ++y) {
        std::uint8_t* out = proposal.row(y);
        const std::uint8_t* in = current.row(y);
        for (int x = 0; x < proposal.width(); ++x) out[x] = std::max(out[x], in[x]);
    }
    replace_mask(proposal, label);
    message_.clear();
}

bool RemoveObjectTool::select_scribble(const std::span<const ScribblePoint> points,
                                       const double radius) {
    const Document& document = session_.document();
    if (document.empty() || points.empty()) return false;
    brush_.finish(session_);
    // The strokes as seeds: discs of the brush's radius along the polyline (pixel centres at
    // half-integers, as the brush paints them).
    cv::Mat seeds(document.height(), document.width(), CV_8UC1, cv::Scalar(0));
    const int thickness = std::max(1, static_cast<int>(std::lround(2 * radius)));
    const auto pixel = [](const ScribblePoint& q) {
        return cv::Point(static_cast<int>(std::floor(q.x)), static_cast<int>(std::floor(q.y)));
    };
    for (std::size_t i = 0; i < points.size(); ++i) {
        const cv::Point a = pixel(points[i]);
        const cv::Point b = pixel(points[i + 1 < points.size() ? i + 1 : i]);
        cv::line(seeds, a, b, cv::Scalar(255), thickness, cv::LINE_8);
    }
    Mask seed_mask(document.width(), document.height(), 0);
    for (int y = 0; y < seeds.rows; ++y)
        std::copy_n(seeds.ptr<std::uint8_t>(y), seeds.cols, seed_mask.row(y));
    Mask proposal;
    try {
        proposal = lacuna::grow_mask(
            grabcut_scribble_mask(document.pixels().view(), seed_mask.view()).view(), kBoxMargin);
    } catch (const Error& e) {
        message_ = e.what();
        return false;
    }
    add_proposal(std::move(proposal), "Scribble Select");
    return true;
}

bool RemoveObjectTool::load_mask(const std::filesystem::path& path) {
    const Document& document = session_.document();
    if (document.empty()) return false;
    Mask mask;
    try {
        mask = io::read_mask(path);
        if (mask.width() != document.width() || mask.height() != document.height()) {
            std::ostringstream text;
            text << "Mask " << path.filename().string() << " is " << mask.width() << " × "
                 << mask.height() << " pixels; the picture is " << document.width() << " × "
                 << document.height() << ".";
            message_ = text.str();
            return false;
        }
    } catch (const Error& e) {
        message_ = e.what();
        return false;
    }
    brush_.finish(session_);
    replace_mask(mask, "Load Mask");
    message_.clear();
    return true;
}

bool RemoveObjectTool::save_mask(const std::filesystem::path& path) {
    const Document& document = session_.document();
    if (document.empty()) return false;
    brush_.finish(session_);
    // What the fill would take, in white: the file means the same to `lacuna inpaint --mask`.
    const Mask hole = hole_from_coverage(document.mask(layer_));
    ImageRgba8 image(hole.width(), hole.height());
    for (int y = 0; y < hole.height(); ++y) {
        const std::uint8_t* in = hole.row(y);
        Rgba8* out = image.row(y);
        for (int x = 0; x < hole.width(); ++x) out[x] = {in[x], in[x], in[x], 255};
    }
    try {
        (void)io::write_image(path, image.view());
    } catch (const Error& e) {
        message_ = e.what();
        return false;
    }
    message_.clear();
    return true;
}

void RemoveObjectTool::clear_mask() {
    const Document& document = session_.document();
    if (document.empty() || !document.mask_painted(layer_)) return;
    const PixelRect all{0, 0, document.width() - 1, document.height() - 1};
    Edit edit;
    edit.label = "Clear Mask";
    edit.rect = all;
    edit.layer = layer_;
    edit.before.mask = clone(document.mask(layer_).view());
    edit.after.mask = Mask(document.width(), document.height(), 0);
    session_.document().clear_mask(layer_, all);
    session_.push(std::move(edit));
    session_.frame_changed();
}

bool RemoveObjectTool::start_fill() {
    Document& document = session_.document();
    if (filler_ || document.empty()) return false;
    if (document.measurement() && fill_params_.method != ops::InpaintMethod::PatchMatch) {
        message_ = measurement_refusal(document);
        return false;
    }
    brush_.finish(session_);
    const Mask& coverage = document.mask(MaskLayer::Fill);
    // One read of the coverage; from here on only its painted rectangle is looked at, so a small
    // stroke in a large picture starts a fill at the cost of its box.
    CoverageHole covered = hole_from_coverage_box(coverage);
    Mask& hole = covered.hole;
    if (covered.pixels == 0) {
        message_ = "Nothing to fill: choose the Brush and paint over what should go.";
        return false;
    }
    // The sampling-area brush: where sources must not come from.
    ops::InpaintParams params = fill_params_;
    params.never_sample = document.mask_painted(MaskLayer::NeverSample)
                              ? &document.mask(MaskLayer::NeverSample)
                              : nullptr;
    choice_hole_.reset();
    if (params.method == ops::InpaintMethod::PatchMatch && params.choose && !skip_choice_ &&
        covered.pixels <= ops::kChoiceMaxPixels)
        choice_hole_ = clone(hole.view());
    refill_hole_.reset();
    if (params.method == ops::InpaintMethod::PatchMatch && params.refill_foreign)
        refill_hole_ = clone(hole.view());
    keep_hole_.reset();
    if (params.method == ops::InpaintMethod::PatchMatch && params.keep_colours)
        keep_hole_ = clone(hole.view());
    skip_choice_ = false;
    try {
        // Validated on the host mirror (current at rest): sizes, patch, sources.
        ops::InpaintProblem problem =
            ops::prepare_inpaint(document.pixels().view(), hole, params, covered.painted);
        device_filler_ = nullptr;
        // The problem is handed over, not copied (a 4K image's is over 100 MB); should the
        // device fail, the session is on the host then and the fill starts over there.
        if (document.measurement()) {
            // The line continuation decides its bands on the proxy as a picture's fill does;
            // the same copies move the samples the deep fill decides on (ops::inpaint of
            // samples), and PatchMatch fills the rest of the hole.
            bands_ = params.lines ? ops::continue_lines(problem, params.never_sample,
                                                        ops::line_options(params))
                                  : ops::empty_sources(document.width(), document.height());
            if (!start_deep_fill(std::move(problem))) return start_fill();
        } else {
            // Lines first, on the host, as make_inpainter does for every backend. A stroke with
            // no line to continue (most) keeps the device filler; one with bands gives the fill
            // an image and a smaller hole that the device filler cannot take from the document's
            // coverage, so it runs on the CPU, on a device document too (show_step then writes
            // the fill's rectangle to both sides).
            const bool with_bands =
                params.lines &&
                !ops::continue_lines(problem, params.never_sample, ops::line_options(params))
                     .empty();
            params.lines = false;  // applied above
            if (document.on_device() && !with_bands) {
                const bool ok = session_.guarded([&] {
                    // The filler starts from the document as its stream leaves it.
                    document.device_pixels().synchronize();
                    auto filler = ops::make_device_inpainter(document.device_pixels(),
                                                             document.device_mask(MaskLayer::Fill),
                                                             std::move(problem));
                    device_filler_ = filler.get();
                    filler_ = std::move(filler);
                });
                // The session is on the host now: the same fill, on the CPU.
                if (!ok) return start_fill();
                device_ = "GPU";
            } else {
                // The problem prepared above over the stroke's box, not prepared again.
                filler_ = ops::make_inpainter(std::move(problem), params,
                                              ops::InpaintImplementation::Fast);
                device_ = host_fill_device(document);
            }
        }
    } catch (const Error& e) {
        filler_.reset();
        device_filler_ = nullptr;
        message_ = e.what();
        return false;
    }
    fill_rect_ = covered.painted;
    band_pixels_ = covered.pixels - filler_->problem().hole_pixels;
    before_pixels_ = copy_region(document.pixels(), fill_rect_);
    before_samples_.reset();
    if (document.measurement()) {
        // The fill decides on the 16-bit decision image; its final vote's sources move the
        // samples. Its hole is the brushed one less the line stage's bands.
        hole_ = banded() ? clone(filler_->problem().hole.view()) : std::move(hole);
        radius_ = fill_params_.patch / 2;
        before_samples_ = copy_region(document.samples(), fill_rect_);
    }
    before_mask_ = copy_region(coverage, fill_rect_);
    progress_ = filler_->progress();
    iterations_per_batch_ = 8;
    started_ = Clock::now();
    message_.clear();
    return true;
}

bool RemoveObjectTool::start_deep_fill(ops::InpaintProblem problem) {
    // A measurement is filled deciding on every bit of its samples: patches are compared on the
    // 16-bit decision image over the proxy's range (an 8-bit image and its ×257 copy give the
    // same image, hence the same fill), and the final vote's sources then move the samples.
    Document& document = session_.document();
    const auto [lo, hi] = document.proxy_range();
    if (banded()) {
        // The bands' samples must be in the decision image: it is made on the host, and the
        // fill runs on the CPU, as a picture's fill with lines does (show_step writes its
        // rectangle to a device document). The image is made pixel by pixel, so only the
        // bands' box is made again from the samples with the bands moved in (a copy of the
        // whole samples was made for it before: 192 MiB for a 4096² float RGB measurement).
        Image<Rgba16> decision = ops::deep_carving_proxy(document.samples(), lo, hi).image;
        const PixelRect box{bands_.box.x0, bands_.box.y0, bands_.box.x1, bands_.box.y1};
        paste_region(decision, box,
                     ops::deep_carving_proxy(
                         ops::fill_region_from_sources(document.samples(), bands_, box), lo, hi)
                         .image);
        filler_ = ops::make_deep_patchmatch_inpainter(std::move(problem), std::move(decision),
                                                      ops::InpaintImplementation::Fast);
        device_ = host_fill_device(document);
        return true;
    }
    if (document.on_device()) {
        const bool ok = session_.guarded([&] {
            // Made on the device from the stored samples there: nothing crosses the bus but
            // the hole's box.
            const DeviceImage<Rgba16> decision = ops::deep_carving_proxy(
                document.device_samples(), document.format(), document.width(), lo, hi);
            auto filler = ops::make_deep_patchmatch_device_inpainter(std::move(problem), decision);
            device_filler_ = filler.get();
            filler_ = std::move(filler);
        });
        device_ = "GPU";
        return ok;
    }
    filler_ = ops::make_deep_patchmatch_inpainter(
        std::move(problem), ops::deep_carving_proxy(document.samples(), lo, hi).image,
        ops::InpaintImplementation::Fast);
    device_ = "CPU";
    return true;
}

void RemoveObjectTool::show_step() {
    Document& document = session_.document();
    if (device_filler_ != nullptr) {
        device_filler_->copy_filled(document.device_pixels(), fill_rect_);
        document.device_pixels_changed();
    } else if (document.on_device()) {
        // A host fill of a device document (the line continuation): its rectangle goes up.
        document.write_pixels(fill_rect_, copy_region(filler_->image(), fill_rect_));
    } else {
        // Only the hole's box changes: paste it instead of replacing the whole document.
        paste_region(document.host_pixels(), fill_rect_, copy_region(filler_->image(), fill_rect_));
        document.host_pixels_changed();
    }
    session_.frame_changed();
}

void RemoveObjectTool::advance(const int iterations) {
    if (!filler_) return;
    const bool ok = session_.guarded([&] {
        progress_ = filler_->advance(iterations);
        show_step();
    });
    if (ok && filler_ && progress_.done()) finish();
}

void RemoveObjectTool::step(const double budget_ms) {
    if (!filler_) return;
    const auto step_start = Clock::now();
    bool ok = true;
    try {
        ok = session_.guarded([&] {
            // Adapt the batch so a step takes about the budget whatever the image and device.
            while (!filler_->progress().done() && ms_since(step_start) < budget_ms) {
                const auto batch_start = Clock::now();
                // PatchMatch: a batch ends with its level and the step shows it, so every
                // coarse level appears on the canvas however fast the device is.
                const std::optional<ops::PatchMatchStage> stage = ops::patchmatch_stage(*filler_);
                const int batch = stage && stage->left > 0
                                      ? std::min(iterations_per_batch_, stage->left)
                                      : iterations_per_batch_;
                progress_ = filler_->advance(batch);
                const double batch_ms = ms_since(batch_start);
                if (batch_ms < budget_ms / 4)
                    iterations_per_batch_ *= 2;
                else if (batch_ms > budget_ms && iterations_per_batch_ > 1)
                    iterations_per_batch_ /= 2;
                if (stage && stage->left == batch && stage->next > 0) break;
            }
            show_step();
        });
    } catch (const Error& e) {
        // Not a device failure (those are handled by guarded): put the picture back.
        filler_.reset();
        device_filler_ = nullptr;
        restore_before();
        message_ = std::string("Fill failed: ") + e.what();
        session_.notice(message_);
        return;
    }
    if (ok && filler_ && progress_.done()) finish();
}

void RemoveObjectTool::restore_before() {
    Document& document = session_.document();
    if (fill_rect_.empty()) return;
    document.write_pixels(fill_rect_, before_pixels_);
    session_.frame_changed();
}

// The picture before the fill is the document with the box's old pixels put back (for a
// measurement, its proxy: what the fill was prepared on).
ImageRgba8 RemoveObjectTool::picture_before() const {
    ImageRgba8 before = clone(session_.document().pixels().view());
    paste_region(before, fill_rect_, before_pixels_);
    return before;
}

ops::InpaintParams RemoveObjectTool::params_with_never_sample() const {
    const Document& document = session_.document();
    ops::InpaintParams params = fill_params_;
    params.never_sample = document.mask_painted(MaskLayer::NeverSample)
                              ? &document.mask(MaskLayer::NeverSample)
                              : nullptr;
    return params;
}

RemoveObjectTool::ChoiceInput RemoveObjectTool::take_choice_input() {
    ChoiceInput in{picture_before(), params_with_never_sample(), std::move(*choice_hole_)};
    choice_hole_.reset();
    return in;
}

// The per-region choice after the blend, as ops::inpaint makes it: Criminisi fills the picture
// before the fill on the CPU (its CUDA fill is the same bytes) and the regions it wins are
// written into the box.
void RemoveObjectTool::choose_between_fills() {
    Document& document = session_.document();
    const ChoiceInput in = take_choice_input();
    std::vector<int> chosen;
    const ImageRgba8 result =
        ops::choose_fill(in.before.view(), in.hole, in.params, ops::InpaintImplementation::Fast,
                         clone(document.pixels().view()), &chosen);
    criminisi_regions_ = static_cast<int>(std::count(chosen.begin(), chosen.end(), 1));
    choice_regions_ = static_cast<int>(chosen.size());
    if (criminisi_regions_ > 0)
        write_at_end([&] { document.write_pixels(fill_rect_, copy_region(result, fill_rect_)); });
}

// The foreign-blob refill after the choice, as ops::inpaint makes it: on the finished pixels,
// with PatchMatch on the CPU (its CUDA fill is the same bytes); the blobs it keeps are written
// into the box.
void RemoveObjectTool::refill_foreign_blobs() {
    Document& document = session_.document();
    const Mask hole = std::move(*refill_hole_);
    refill_hole_.reset();
    ops::RefillReport report;
    const ImageRgba8 result =
        ops::refill_foreign(hole, params_with_never_sample(), ops::InpaintImplementation::Fast,
                            clone(document.pixels().view()), &report);
    refilled_blobs_ = report.kept;
    if (report.kept > 0)
        write_at_end([&] { document.write_pixels(fill_rect_, copy_region(result, fill_rect_)); });
}

// A measurement's choice, as ops::inpaint of samples makes it: decided on the proxy from the
// sources that moved the samples, and the regions Criminisi wins take the samples of its
// sources (the document's samples are still those before the fill).
ops::FillChoice RemoveObjectTool::choose_between_sources(const ops::FillSources& sources,
                                                         NativeImage& filled) {
    Document& document = session_.document();
    const ChoiceInput in = take_choice_input();
    ops::FillChoice choice = ops::choose_sources(
        in.before.view(), in.hole, in.params, ops::InpaintImplementation::Fast, sources, &bands_);
    ops::apply_choice(filled, fill_rect_, document.samples(), choice);
    criminisi_regions_ = choice.criminisi_regions();
    choice_regions_ = static_cast<int>(choice.choice.size());
    return choice;
}

// A measurement's refill, as ops::inpaint of samples makes it: decided on the proxy (the
// picture the same sources and choice show there), and the blobs that keep their refill take
// the samples at the refill's sources (the document's samples are still those before the fill;
// the sources lie outside the hole).
void RemoveObjectTool::refill_between_sources(const ops::FillSources& sources,
                                              const ops::FillChoice& choice, NativeImage& filled) {
    Document& document = session_.document();
    const Mask hole = std::move(*refill_hole_);
    refill_hole_.reset();
    const ops::RefillChoice refill =
        ops::refill_sources(picture_before().view(), hole, params_with_never_sample(),
                            ops::InpaintImplementation::Fast, sources, choice, &bands_);
    ops::apply_refill(filled, fill_rect_, document.samples(), refill);
    refilled_blobs_ = refill.report.kept;
}

void RemoveObjectTool::write_at_end(const std::function<void()>& write) {
    // A device failure leaves the session on the host with the document as it was (the host
    // side written first); the same write then lands there, as FilterTool::apply does, and the
    // fill ends with its result and its undo entry. Writes of whole rectangles: done twice they
    // leave what done once does.
    if (!session_.guarded(write)) write();
}

void RemoveObjectTool::finish() {
    Document& document = session_.document();
    const ops::InpaintProgress progress = filler_->progress();
    const bool on_device = device_filler_ != nullptr;
    std::optional<ops::FillSources> sources;
    if (before_samples_ && !session_.guarded([&] {
            // Bands that took the whole hole leave PatchMatch nothing to move.
            const std::optional<ops::PatchMatchField> field = ops::patchmatch_field(*filler_);
            sources = field && filler_->problem().hole_pixels > 0
                          ? ops::patchmatch_sources(*field, hole_, radius_)
                          : ops::empty_sources(document.width(), document.height());
        }))
        return;
    // A PatchMatch fill of pixels ends blended in the gradient domain, as ops::inpaint's does:
    // the CUDA filler blends where its pixels are (only the fill's rectangle comes back), any
    // other with ops::blend_fill on the host; the same bytes as the CLI on the same backend. (A
    // measurement's samples are moved by the sources instead, unblended.)
    const bool blends = !before_samples_ && fill_params_.method == ops::InpaintMethod::PatchMatch;
    // The fill before the blend, for ops::keep_ring_colours at the end (as ops::inpaint keeps
    // it); and the blended picture, which the choice and the refill may replace in places.
    // (The holes are taken only once the filler is gone: a step that fails before that runs
    // again, from the next step() or from the fill started over on the CPU.)
    std::optional<ImageRgba8> keep_copy, keep_blended;
    if (blends && keep_hole_ && !session_.guarded([&] { keep_copy = filler_->image(); })) return;
    bool blended_on_device = false;
    if (blends && on_device && !session_.guarded([&] {
            if (filler_->blend_in_place(ops::BlendOptions{})) {
                device_filler_->copy_filled(document.device_pixels(), fill_rect_);
                blended_on_device = true;
            }
        }))
        return;
    std::optional<ops::FillSources> blend;
    Mask blend_hole;
    if (blends && !blended_on_device && !session_.guarded([&] {
            const ops::InpaintProblem& problem = filler_->problem();
            if (const std::optional<ops::PatchMatchField> field = ops::patchmatch_field(*filler_)) {
                blend = ops::patchmatch_sources(*field, problem.hole, problem.radius);
                blend_hole = clone(problem.hole.view());
            }
        }))
        return;
    // The device's fill comes to the host mirror while the device filler is still held: should
    // the device fail here, device_lost() starts the fill over on the CPU (the mirror still
    // holds the picture before it), as it does for a failure during the fill.
    if (on_device && !session_.guarded([&] { document.pull_pixels(fill_rect_); })) return;
    // The notes the CLI prints (the problem's: lines continued, the window widened, …).
    fill_notes_ = filler_->problem().notes;
    filler_.reset();
    device_filler_ = nullptr;
    const std::optional<Mask> keep_hole = std::move(keep_hole_);
    keep_hole_.reset();
    // From here on every step runs on the host; only the writes reach a device document, and
    // write_at_end() lands each of them even should the device fail there.
    if (blend) {
        const ImageRgba8 blended = ops::blend_fill(document.pixels(), blend_hole, *blend);
        write_at_end([&] { document.write_pixels(fill_rect_, copy_region(blended, fill_rect_)); });
    }
    if (keep_copy) keep_blended = clone(document.pixels().view());
    criminisi_regions_ = choice_regions_ = 0;
    if (choice_hole_ && !sources) choose_between_fills();
    refilled_blobs_ = 0;
    if (refill_hole_ && !sources) refill_foreign_blobs();
    if (keep_copy) {
        const ImageRgba8 kept = ops::keep_ring_colours(*keep_copy, *keep_blended, *keep_hole,
                                                       clone(document.pixels().view()));
        write_at_end([&] { document.write_pixels(fill_rect_, copy_region(kept, fill_rect_)); });
    }
    if (sources) {
        // The sources' samples, blended in the data's own values (the display range sets what
        // counts as structure); only the fill's rectangle is made and written back (two copies
        // of the whole samples, 64 MB each for a 4096² float field, were made here before).
        // With lines, the bands' samples are moved in first and stay unblended (they are
        // outside hole_), as ops::inpaint of samples leaves them; read through the bands' map,
        // not from a copy of the samples with them moved in.
        NativeImage filled = ops::blend_samples_region(document.samples(), bands_, hole_, *sources,
                                                       document.proxy_range(), fill_rect_);
        // The blended samples, for ops::keep_ring_colours at the end (as ops::inpaint of samples
        // keeps them).
        std::optional<NativeImage> blended_samples;
        if (keep_hole) blended_samples = filled;
        // Then the per-region choice, before the samples are written (it reads them as they
        // were).
        ops::FillChoice choice;
        if (choice_hole_) choice = choose_between_sources(*sources, filled);
        // And the refill after it, as for a picture.
        if (refill_hole_) refill_between_sources(*sources, choice, filled);
        // Last, the blend's corrections kept to the ring's colours, judged on the proxy before
        // the fill (what the fill was prepared on).
        if (blended_samples)
            ops::keep_ring_colours(filled, fill_rect_, *blended_samples, document.samples(),
                                   *sources, picture_before(), *keep_hole, document.proxy_range());
        write_at_end([&] { document.write_samples(fill_rect_, filled); });
    }
    write_at_end([&] { document.clear_mask(MaskLayer::Fill, fill_rect_); });
    Edit edit;
    edit.label = "Fill";
    edit.rect = fill_rect_;
    edit.layer = MaskLayer::Fill;
    comparing_ = false;  // a key still held from the last fill compares with this one only anew
    last_before_ = clone(before_pixels_.view());
    last_rect_ = fill_rect_;
    edit.before.pixels = std::move(before_pixels_);
    edit.before.mask = std::move(before_mask_);
    edit.after.pixels = copy_region(document.pixels(), fill_rect_);
    edit.after.mask = Mask(fill_rect_.width(), fill_rect_.height(), 0);
    if (before_samples_) {
        edit.before.samples = std::move(*before_samples_);
        edit.after.samples = copy_region(document.samples(), fill_rect_);
        before_samples_.reset();
    }
    session_.push(std::move(edit));
    last_fill_index_ = static_cast<std::size_t>(session_.history().index());
    session_.frame_changed();
    std::ostringstream text;
    text << "Filled " << progress.total + band_pixels_ << " pixels";
    if (fill_params_.method == ops::InpaintMethod::PatchMatch)
        text << " by PatchMatch (seed " << fill_params_.seed << ", " << progress.iterations
             << " refinement passes)";
    if (band_pixels_ > 0) text << ", " << band_pixels_ << " of them along continued lines";
    if (criminisi_regions_ > 0)
        // Say so: where PatchMatch brought colours found nowhere around the hole, the user sees
        // Criminisi's pixels.
        text << ", Criminisi in " << criminisi_regions_ << " of " << choice_regions_
             << (choice_regions_ == 1 ? " region" : " regions");
    else if (fill_params_.method != ops::InpaintMethod::PatchMatch)
        text << " by Criminisi (" << progress.iterations << " patches)";
    if (refilled_blobs_ > 0)
        text << ", " << refilled_blobs_ << (refilled_blobs_ == 1 ? " blob" : " blobs")
             << " of foreign colours filled again";
    text << " in " << static_cast<long long>(ms_since(started_)) << " ms on the " << device_ << ".";
    if (!document.measurement()) text << " Hold \\ to see the picture before.";
    // The choice and the refill are said above; the problem's notes follow as the CLI prints
    // them, one line each.
    for (const std::string& note : fill_notes_) text << "\nNote: " << note << ".";
    message_ = text.str();
}

bool RemoveObjectTool::set_comparing(const bool on) {
    if (!on) {
        comparing_ = false;
        return false;
    }
    const Document& document = session_.document();
    if (!can_fill_again() || document.measurement() || last_rect_.empty()) {
        comparing_ = false;
        message_ = "Before/after compares right after a fill: fill first.";
        return false;
    }
    if (!comparing_) {
        // The document stays as it is; the canvas shows this copy instead.
        compare_image_ = clone(document.pixels().view());
        paste_region(compare_image_, last_rect_, last_before_);
        ++compare_serial_;
    }
    comparing_ = true;
    return true;
}

bool RemoveObjectTool::comparing() const {
    return comparing_ && can_fill_again();
}

int RemoveObjectTool::shown_level() const {
    if (!filler_) return -1;
    const std::optional<ops::PatchMatchStage> stage = ops::patchmatch_stage(*filler_);
    return stage ? stage->shown : -1;
}

bool RemoveObjectTool::can_fill_again() const {
    return !filler_ && last_fill_index_ > 0 &&
           static_cast<std::size_t>(session_.history().index()) == last_fill_index_;
}

bool RemoveObjectTool::fill_again() {
    if (!can_fill_again()) {
        message_ = "Fill again works right after a fill: paint and Fill first.";
        return false;
    }
    // The fill's undo puts the picture and the mask back; the next seed gives another result.
    if (!session_.undo()) return false;
    last_fill_index_ = 0;
    ++fill_params_.seed;
    skip_choice_ = true;
    return start_fill();
}

void RemoveObjectTool::cancel_fill() {
    if (!filler_) return;
    filler_->cancel();
    const bool on_device = device_filler_ != nullptr;
    filler_.reset();
    device_filler_ = nullptr;
    // On the device path the mirror was never touched: only the device box goes back.
    if (on_device) {
        session_.guarded([&] {
            session_.document().device_pixels().upload_region(fill_rect_, before_pixels_.view());
            session_.document().device_pixels_changed();
        });
        session_.frame_changed();
    } else {
        restore_before();
    }
    message_ = "Fill cancelled; the picture is as it was.";
}

bool RemoveObjectTool::poll() {
    if (!fill_running()) return false;
    step(30.0);
    return fill_running();
}

std::optional<PreviewFrame> RemoveObjectTool::preview(ToolKind) const {
    if (!comparing()) return std::nullopt;
    return PreviewFrame{nullptr, &compare_image_, compare_image_.width(), compare_image_.height(),
                        compare_serial_};
}

void RemoveObjectTool::device_lost() {
    brush_.device_lost(session_.document());
    if (device_filler_ == nullptr) return;
    // The mirror still holds the picture before the fill: start over on the CPU.
    filler_.reset();
    device_filler_ = nullptr;
    start_fill();
    device_ = "CPU (the GPU failed)";
}

}  // namespace lacuna::session
