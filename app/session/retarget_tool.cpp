#include "retarget_tool.hpp"

#include "background_job.hpp"
#include "remove_object_tool.hpp"
#include "session.hpp"

#include <lacuna/core/error.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

namespace lacuna::session {
namespace {

/// Seams to compute in one direction: enough to reach 10 % of the extent.
int seams_for(const int extent) {
    return std::max(0, std::min(extent - 1, extent - std::max(1, extent / 10)));
}

constexpr Rgba8 kRemovedSeam{255, 40, 40, 255};
constexpr Rgba8 kInsertedSeam{40, 220, 60, 255};

/// The same terms (switches, weights, detection size): the map stays valid.
bool same_terms(const ops::ImportanceParams& a, const ops::ImportanceParams& b) {
    return a.faces == b.faces && a.face_weight == b.face_weight && a.saliency == b.saliency &&
           a.saliency_weight == b.saliency_weight && a.lines == b.lines &&
           a.line_weight == b.line_weight && a.skin == b.skin && a.skin_weight == b.skin_weight &&
           a.detect_max_side == b.detect_max_side;
}

/// A per-pixel map scaled to `width` columns as the CLI's mix scales its masks: each output
/// column takes the largest value of the input columns it covers (a protected or important
/// pixel survives a squeeze), the nearest when growing.
Mask scale_width_max(const MaskView m, const int width) {
    Mask out(width, m.height, 0);
    for (int x = 0; x < width; ++x) {
        const int a = static_cast<int>(static_cast<std::int64_t>(x) * m.width / width);
        const int b = std::max(
            a + 1,
            static_cast<int>((static_cast<std::int64_t>(x + 1) * m.width + width - 1) / width));
        for (int y = 0; y < m.height; ++y) {
            const std::uint8_t* row = m.row(y);
            out.at(x, y) = *std::max_element(row + a, row + std::min(b, m.width));
        }
    }
    return out;
}

template <class T>
Image<T> transposed(const ImageView<const T> src) {
    Image<T> out(src.height, src.width);
    for (int y = 0; y < src.height; ++y)
        for (int x = 0; x < src.width; ++x) out.at(y, x) = src.row(y)[x];
    return out;
}

}  // namespace

/// The importance map of one document revision and set of terms, computed once, on the first
/// carve's background thread that needs it, from the host snapshot taken when the maps started
/// — or, for an unedited frame of a video, the map the export gives that frame (ClipImportance:
/// tracked faces, the other terms smoothed over the shot), so the preview shows what is written.
struct RetargetTool::Importance {
    ops::ImportanceParams params;
    std::uint64_t revision = 0;
    ImageRgba8 source;
    std::shared_ptr<ClipImportance> clip;  ///< set for a video frame
    int frame = 0;
    std::mutex mutex;
    std::optional<ops::ImportanceMap> map;
    std::string error;
    std::atomic<bool> ready{false};
    /// While the clip's maps are computed: 1 the face pass, 2 the shot's frames (0: neither).
    std::atomic<int> phase{0}, done{0}, total{0};

    /// The map, computed on the first call; null (with `error`) when detection failed. A
    /// cancelled clip map (`control` cancelled) throws Error(Cancelled) and stays to compute.
    const ops::ImportanceMap* get(const JobControl* control = nullptr) {
        const std::lock_guard lock(mutex);
        if (!ready.load()) {
            try {
                if (clip) {
                    map = *clip->map(frame,
                                     [&](const ClipImportance::Phase p, const int d, const int t) {
                                         phase.store(p == ClipImportance::Phase::Faces ? 1 : 2);
                                         done.store(d);
                                         total.store(t);
                                         return !(control && control->cancelled());
                                     });
                } else {
                    map = ops::importance_map(source.view(), params);
                }
            } catch (const Error& e) {
                phase.store(0);
                if (e.code() == ErrorCode::Cancelled) throw;
                error = e.what();
            } catch (const std::exception& e) {
                error = e.what();
            }
            phase.store(0);
            source = ImageRgba8();
            ready.store(true);
        }
        return map ? &*map : nullptr;
    }
    /// A video frame whose map the clip has already: ready at once (stepping back).
    void take_cached() {
        if (!clip) return;
        if (const auto hit = clip->cached(frame)) {
            map = *hit;
            ready.store(true);
        }
    }
    /// The levels the carvers take: null while not computed or when every level is 0.
    [[nodiscard]] const Mask* levels() const {
        return ready.load() && map && !map->empty() ? &map->levels : nullptr;
    }
};

/// A published map: on the device (device path) or on the host.
struct RetargetTool::Map {
    std::optional<ops::SeamOrder> host;
    std::optional<ops::DeviceSeamOrder> device;
    mutable std::optional<ops::SeamOrder> downloaded;  ///< the device map, when the host needs it
    /// Horizontal maps while mixing: the image they were carved on and its importance levels
    /// (automatic weighs its candidates against them).
    ImageRgba8 source;
    Mask levels;
    [[nodiscard]] int seams() const { return device ? device->seams : host->seams; }
};

/// One background carve: its inputs (owned snapshots, so the document may change meanwhile),
/// the result, and the job that computes it (progress, cancel; run_carve on its worker).
struct RetargetTool::Job {
    ImageRgba8 image;  ///< host inputs (empty on the device path until a CPU carve needs them)
    Mask protect, remove;
    std::unique_ptr<DeviceImage<Rgba8>> device_image;  ///< device snapshots
    std::unique_ptr<DeviceImage<std::uint8_t>> device_protect, device_remove;
    /// Importance: the document's map (vertical jobs compute it first if nobody has), or the
    /// levels that followed the vertical seams (horizontal jobs); uploaded for device carves.
    std::shared_ptr<Importance> importance;
    Mask levels;
    int importance_unit = 0;
    const Mask* levels_in = nullptr;
    std::unique_ptr<DeviceImage<std::uint8_t>> device_levels;
    int vseams = 0;       ///< horizontal jobs: the vertical seams their image had
    bool mixing = false;  ///< horizontal jobs: the image was scaled to the width
    /// Measurement documents on the device path (vertical exact carves): the 16-bit decision
    /// image, made on the device from the stored samples there.
    std::unique_ptr<DeviceImage<Rgba16>> device_decision;
    /// Measurement documents: the stored samples (after the vertical change, for horizontal
    /// jobs) and the document's range. An exact carve decides on their 16-bit decision image;
    /// approximate previews stay on the 8-bit proxy.
    std::optional<NativeImage> samples;
    std::pair<double, double> range{0, 0};
    SeamEnergy energy = SeamEnergy::Forward;
    ops::SeamDirection direction = ops::SeamDirection::Vertical;
    int seams = 0;
    int width = 0;            ///< horizontal jobs: the target width they belong to
    int factor = 1;           ///< > 1: approximate, on the image downscaled by this factor
    bool cuda = false;        ///< carve with CUDA
    bool device_map = false;  ///< leave the map on the device
    /// The document's stream (none off the device): a map left on the device is uploaded on
    /// it, as the previews that read the map run there.
    DeviceStream map_stream = nullptr;
    std::uint64_t generation = 0;
    bool handled = false;
    std::optional<ops::SeamOrder> host_result;
    std::optional<ops::DeviceSeamOrder> device_result;
    std::string error;
    std::string fallback;           ///< why CUDA failed (the CPU carved instead)
    JobControl* control = nullptr;  ///< the running job's, set on its worker
    /// Last, so it is destroyed first: cancelling and waiting before the inputs go.
    BackgroundJob<bool> work;

    [[nodiscard]] bool approximate() const { return factor > 1; }
    [[nodiscard]] double fraction() const {
        const int t = work.total();
        const int expected = t > 0 ? t : seams / factor;
        return expected > 0 ? std::min(1.0, double(work.done()) / expected) : 0.0;
    }

    [[nodiscard]] ops::CarveProgress progress() {
        return [this](const int d, const int t) { return control->report(d, t); };
    }

    /// The CPU carvers and the approximate carve read host inputs; on the device path they are
    /// downloaded here, on this background thread.
    void ensure_host_inputs() {
        if (!image.empty() || !device_image) return;
        image = device_image->download();
        ensure_host_masks();
    }
    void ensure_host_masks() {
        if (device_protect && protect.empty()) protect = device_protect->download();
        if (device_remove && remove.empty()) remove = device_remove->download();
    }

    [[nodiscard]] bool deep() const { return samples.has_value() && !approximate(); }

    /// The exact carve of a measurement document, on every bit of its samples: the 16-bit
    /// decision image is made here, on the background thread.
    ops::SeamOrder carve_deep(const ops::CarveImplementation implementation) {
        ensure_host_masks();
        const ops::DeepCarvingProxy decision =
            ops::deep_carving_proxy(*samples, range.first, range.second);
        const ops::DeepCarveInput input{decision.image.view(), protect.empty() ? nullptr : &protect,
                                        remove.empty() ? nullptr : &remove, energy};
        return ops::seam_order(input, direction, seams, implementation, progress());
    }

    [[nodiscard]] ops::CarveInput host_input() const {
        ops::CarveInput in{image.view(), protect.empty() ? nullptr : &protect,
                           remove.empty() ? nullptr : &remove, energy};
        if (levels_in) {
            in.importance = levels_in;
            in.importance_unit = importance_unit;
        }
        return in;
    }

    /// The importance levels this carve takes (computing the document's map if needed).
    void resolve_levels() {
        if (importance) {
            importance->get(control);
            levels_in = importance->levels();
        } else if (!levels.empty()) {
            levels_in = &levels;
        }
    }

    [[nodiscard]] ops::DeviceCarveInput device_input() {
        ops::DeviceCarveInput in{device_image.get(), device_protect.get(), device_remove.get(),
                                 energy};
        if (levels_in) {
            // On the snapshot's stream (the document's): uploaded on this background thread.
            device_levels = std::make_unique<DeviceImage<std::uint8_t>>(levels_in->view(),
                                                                        device_image->stream());
            in.importance = device_levels.get();
            in.importance_unit = importance_unit;
        }
        return in;
    }

    ops::SeamOrder carve_host(const ops::CarveImplementation implementation) {
        if (approximate())
            return ops::seam_order_approximate(host_input(), direction, seams, factor,
                                               implementation, progress());
        return ops::seam_order(host_input(), direction, seams, implementation, progress());
    }

    void take(ops::SeamOrder order) {
        if (device_map)
            device_result = ops::upload_order(order, map_stream);
        else
            host_result = std::move(order);
    }

    void run_carve() {
        resolve_levels();
        if (cuda) {
            try {
                if (deep() && device_decision) {
                    device_result = ops::seam_order_cuda(
                        ops::DeepDeviceCarveInput{device_decision.get(), device_protect.get(),
                                                  device_remove.get(), energy},
                        direction, seams, progress());
                } else if (deep()) {
                    take(carve_deep(ops::CarveImplementation::Cuda));
                } else if (approximate() || !device_image) {
                    ensure_host_inputs();
                    take(carve_host(ops::CarveImplementation::Cuda));
                } else {
                    device_result =
                        ops::seam_order_cuda(device_input(), direction, seams, progress());
                }
                return;
            } catch (const Error& e) {
                if (e.code() == ErrorCode::Cancelled) throw;
                fallback = e.what();
            } catch (const std::exception& e) {
                fallback = e.what();
            }
            control->report(0, 0);
        }
        if (deep()) {
            take(carve_deep(ops::CarveImplementation::Fast));
            return;
        }
        ensure_host_inputs();
        take(carve_host(ops::CarveImplementation::Fast));
    }
};

/// Matching the shown video frame's preview to the exported frame: the export's options taken
/// when it started (they own the protect mask), the clip's maps, and the chain that carves.
struct RetargetTool::ChainJob {
    int frame = 0, width = 0, height = 0;
    Session::VideoExport job;
    std::shared_ptr<ClipImportance> maps;  ///< null when no importance term is on
    std::shared_ptr<ExportChain> chain;
    /// Last, so it is destroyed first: cancelling and waiting before the inputs go.
    BackgroundJob<std::optional<ImageRgba8>> work;
};

RetargetTool::RetargetTool(Session& session) : session_(session) {}

RetargetTool::~RetargetTool() {
    for (const auto& job : {vertical_job_, horizontal_job_})
        if (job) job->work.cancel();
    cancel_match();
    for (const auto& job : retired_) job->work.cancel();
}

std::span<const ops::ParamSpec> RetargetTool::params() const {
    return ops::seam_param_specs();
}

bool RetargetTool::use_device() const {
    return session_.on_device();
}

// ---- input: the carving masks' brush ----

void RetargetTool::set_mask_brush(const std::optional<MaskLayer> layer, const bool erase) {
    brush_.finish(session_, "Paint Mask");
    brush_layer_ = layer;
    brush_.set_erase(erase);
    // Masks are painted on the original, not on a preview.
    if (layer)
        clear_preview();
    else
        update_preview();
}

bool RetargetTool::press(const Pointer& p) {
    if (!brush_layer_) return false;
    return brush_.press(session_, *brush_layer_, p);
}

void RetargetTool::move(const Pointer& p) {
    hover(p);
    brush_.move(session_, p);
}

void RetargetTool::release(const Pointer&) {
    brush_.finish(session_);
}

void RetargetTool::hover(const Pointer&) {}

void RetargetTool::activate() {
    refresh();
}

void RetargetTool::deactivate() {
    brush_.finish(session_);
}

Overlay RetargetTool::overlay() const {
    Overlay o;
    if (previewing_) return o;
    if (show_detections_) {
        if (const ops::ImportanceMap* map = importance()) {
            for (const ops::FaceBox& f : map->faces)
                o.ellipses.push_back({f.x, f.y, f.x + f.width - 1, f.y + f.height - 1});
            for (const ops::LineSegment& l : map->lines)
                o.segments.push_back({l.x0, l.y0, l.x1, l.y1});
        }
    }
    if (!brush_layer_) return o;
    o.mask_layer = static_cast<int>(*brush_layer_);
    brush_.add_ring(o);
    return o;
}

void RetargetTool::document_opened() {
    if (session_.on_device()) set_carve_backend(Backend::Cuda);
    // Another clip (or the same file opened again): the chain's frames and cuts are not its.
    cancel_match();
    chain_.reset();
    restart();
}

void RetargetTool::document_changed(const DocumentChange change) {
    // Another frame of a video replaces the pixels as an edit does (the target stays).
    if (change != DocumentChange::Edit && change != DocumentChange::VideoFrame) return;
    if (change == DocumentChange::VideoFrame && previewing_ && !show_seams_ && in_use())
        preview_held_ = true;
    // Maps and the importance map cost a snapshot of the document and seconds of background work
    // (a 4K undo took 69 ms with them restarted): while another tool edits, they are only set
    // aside, and start again when retargeting is asked for.
    if (in_use())
        refresh();
    else
        set_aside();
}

bool RetargetTool::in_use() const {
    const ToolKind active = session_.active_kind();
    return active == ToolKind::Retarget || (active == ToolKind::Pan && previewing_);
}

bool RetargetTool::stale() const {
    const Document& document = session_.document();
    return document.pixels_revision() != source_revision_ ||
           document.mask_revision(MaskLayer::Protect) != protect_revision_ ||
           document.mask_revision(MaskLayer::CarveRemove) != remove_revision_;
}

void RetargetTool::set_aside() {
    if (!stale()) return;
    // The revisions stay those of the old maps, so refresh() starts over when asked.
    if (session_.document().pixels_revision() != source_revision_) importance_.reset();
    drop_maps();
}

std::optional<PreviewFrame> RetargetTool::preview(const ToolKind active) const {
    if (!previewing_ || (active != ToolKind::Pan && active != ToolKind::Retarget))
        return std::nullopt;
    if (device_frame() == nullptr && host_frame() == nullptr) return std::nullopt;
    return PreviewFrame{device_frame(), host_frame(), frame_w_, frame_h_, preview_serial_};
}

void RetargetTool::device_copy_ending() {
    // Cancelled and joined before the copy goes: a carve of a device snapshot enqueues on the
    // document's stream (event records, uploads), and a destroyed stream crashes the driver.
    for (std::shared_ptr<Job>* job : {&vertical_job_, &horizontal_job_}) {
        if (!*job) continue;
        (*job)->work.cancel();
        (void)(*job)->work.wait();
        job->reset();
        // Its map is lost with it: the next refresh() starts over.
        source_revision_ = ~0ull;
    }
}

void RetargetTool::document_closing() {
    if (session_.on_device()) device_copy_ending();
}

void RetargetTool::device_lost(const bool gpu_still_usable) {
    set_carve_backend(gpu_still_usable ? Backend::Cuda : Backend::Cpu);
    device_lost();
}

// ---- settings ----

void RetargetTool::set_energy(const SeamEnergy energy) {
    if (energy == energy_) return;
    energy_ = energy;
    restart();
}

void RetargetTool::set_target(const int width, const int height) {
    refresh();
    target_w_ = width;
    target_h_ = height;
    update_preview();
}

void RetargetTool::set_mix(const ops::RetargetMix& mix) {
    const bool terms_changed = !same_terms(mix.importance, mix_.importance);
    mix_ = mix;
    if (terms_changed) {
        importance_.reset();
        restart();
    } else {
        refresh();
        update_preview();
    }
}

const ops::ImportanceMap* RetargetTool::importance() const {
    return importance_ && importance_->ready.load() && importance_->map ? &*importance_->map
                                                                        : nullptr;
}

void RetargetTool::set_show_detections(const bool on) {
    show_detections_ = on;
    session_.frame_changed();
    if (on_preview_changed) on_preview_changed();
}

bool RetargetTool::protect_detections() {
    refresh();
    Document& document = session_.document();
    const ops::ImportanceMap* map = importance();
    if (document.empty() || !map) {
        status_ = "No detections yet: switch on faces or lines and wait for the map.";
        if (on_preview_changed) on_preview_changed();
        return false;
    }
    brush_.finish(session_);
    const Mask& current = document.mask(MaskLayer::Protect);
    Mask next = clone(current.view());
    PixelRect changed;
    for (int y = 0; y < next.height(); ++y)
        for (int x = 0; x < next.width(); ++x)
            if (map->levels.at(x, y) >= ops::kCropKeepLevel && next.at(x, y) != 255) {
                next.at(x, y) = 255;
                changed.unite({x, y, x, y});
            }
    if (changed.empty()) {
        status_ = "The map rates nothing high enough to protect (level " +
                  std::to_string(ops::kCropKeepLevel) + " or more), or it is protected already.";
        if (on_preview_changed) on_preview_changed();
        return false;
    }
    Edit edit;
    edit.label = "Protect Detections";
    edit.rect = changed;
    edit.layer = MaskLayer::Protect;
    edit.before.mask = copy_region(current, changed);
    edit.after.mask = copy_region(next, changed);
    document.write_mask(MaskLayer::Protect, changed, *edit.after.mask);
    session_.push(std::move(edit));
    session_.frame_changed();
    return true;
}

void RetargetTool::set_show_seams(const bool on) {
    refresh();
    show_seams_ = on;
    update_preview();
}

// ---- maps ----

bool RetargetTool::busy() const {
    const auto running = [this](const std::shared_ptr<Job>& job) {
        if (!job || job->handled) return false;
        if (job->work.running()) return true;
        // Finished but not collected yet: poll() publishes it next (a job that ends between
        // poll()'s collect and this test is still work to do), unless it is held or belongs to
        // maps that were replaced (collect() leaves those).
        const bool held = hold_exact_ && !job->approximate();
        const bool outdated =
            job->direction == ops::SeamDirection::Horizontal && job->generation != generation_;
        return job->work.finished() && !held && !outdated;
    };
    return running(vertical_job_) || running(horizontal_job_) || pending_horizontal_width_ >= 0 ||
           matching_export();
}

bool RetargetTool::horizontal_ready_for(const int width) const {
    return horizontal_.has_value() && horizontal_width_ == width && vertical_ &&
           horizontal_vseams_ == vertical_seams(width, amount_w_);
}

void RetargetTool::importance_inputs_changed() {
    importance_.reset();
    if (in_use()) {
        restart();
    } else {
        drop_maps();
        source_revision_ = ~0ull;  // refresh() starts over when retargeting is asked for
    }
}

void RetargetTool::export_settings_changed() {
    cancel_match();
    exported_.reset();
    if (previewing_ && !preview_held_) update_preview();
}

void RetargetTool::refresh() {
    if (stale()) restart();
}

void RetargetTool::restart() {
    const Document& document = session_.document();
    source_revision_ = document.pixels_revision();
    protect_revision_ = document.mask_revision(MaskLayer::Protect);
    remove_revision_ = document.mask_revision(MaskLayer::CarveRemove);
    // The importance map belongs to the pixels and the terms: mask edits keep it. A video's
    // unedited frame takes the export's map of that frame (its terms: the faces as the Video
    // dock's switch sets them for the export).
    const std::shared_ptr<ClipImportance> clip =
        document.empty() ? nullptr : session_.shown_clip_importance();
    const bool any = clip ? ops::any_importance(clip->settings().importance)
                          : ops::any_importance(mix_.importance);
    if (document.empty() || document.measurement() || !any) {
        importance_.reset();
    } else if (!importance_ || importance_->revision != source_revision_ ||
               importance_->clip != clip) {
        importance_ = std::make_shared<Importance>();
        importance_->params = mix_.importance;
        importance_->revision = source_revision_;
        if (clip) {
            importance_->clip = clip;
            importance_->frame = session_.video()->current();
            importance_->take_cached();
        } else {
            importance_->source = clone(document.pixels().view());
        }
    }
    drop_maps();
    notice_.clear();
    status_.clear();
    // Mask or energy edits keep the size and the chosen target; a new size resets it.
    if (source_w_ != document.width() || source_h_ != document.height()) {
        source_w_ = document.width();
        source_h_ = document.height();
        target_w_ = source_w_;
        target_h_ = source_h_;
    }
    // Measurement documents are carved on their proxy (pixels()); apply moves their samples.
    if (!document.empty()) start_vertical(false);
}

void RetargetTool::drop_maps() {
    // A video frame step keeps the previous frame's picture up until this frame's is ready
    // (the canvas would otherwise flash the uncarved frame at every step).
    if (!preview_held_) clear_preview();
    cancel_match();
    exported_.reset();
    if (vertical_job_) vertical_job_->work.cancel();
    vertical_job_.reset();
    vertical_.reset();
    vertical_holder_.reset();
    vertical_exact_ = false;
    ++generation_;
    drop_horizontal();
}

void RetargetTool::drop_horizontal() {
    if (horizontal_job_) horizontal_job_->work.cancel();
    horizontal_job_.reset();
    horizontal_.reset();
    horizontal_holder_.reset();
    horizontal_exact_ = false;
    horizontal_width_ = -1;
    pending_horizontal_width_ = -1;
}

void RetargetTool::plan_approximate(Job& job) const {
    const int w = job.direction == ops::SeamDirection::Vertical ? source_w_
                  : mixing()                                    ? job.width
                                                                : source_w_ + job.vseams;
    const int h = source_h_;
    const int factor = ops::approximate_factor(w, h);
    if (factor < 2) return;
    // The downscaled image allows fewer seams: (its extent − 1) × factor at most.
    const int extent = job.direction == ops::SeamDirection::Vertical ? w : h;
    const int seams = std::min(job.seams, (extent / factor - 1) * factor) / factor * factor;
    if (seams < factor) return;
    job.factor = factor;
    job.seams = seams;
}

void RetargetTool::start_vertical(const bool exact) {
    Document& document = session_.document();
    auto job = std::make_shared<Job>();
    job->map_stream = document.stream();
    job->energy = energy_;
    job->direction = ops::SeamDirection::Vertical;
    job->seams = seams_for(source_w_);
    job->importance = importance_;
    job->importance_unit = importance_unit();
    if (!exact) plan_approximate(*job);
    const bool protect = document.mask_painted(MaskLayer::Protect);
    const bool remove = document.mask_painted(MaskLayer::CarveRemove);
    bool on_device = use_device();
    if (on_device) {
        job->cuda = !cpu_only_;
        job->device_map = true;
        if (job->cuda && !job->approximate()) {
            // Snapshots on the device, so the document may change while the carve runs.
            on_device = session_.guarded([&] {
                // On the document's stream, after the edits it has queued.
                const auto snapshot = [](const auto& source) {
                    auto copy = std::make_unique<std::remove_cvref_t<decltype(source)>>();
                    copy->set_stream(source.stream());
                    copy->copy_from(source);
                    copy->synchronize();
                    return copy;
                };
                job->device_image = snapshot(document.device_pixels());
                if (document.measurement()) {
                    // A fresh image, so a snapshot too: the seams are decided on every bit of
                    // the samples without their crossing the bus.
                    const auto [lo, hi] = document.proxy_range();
                    job->device_decision = std::make_unique<DeviceImage<Rgba16>>(
                        ops::deep_carving_proxy(document.device_samples(), document.format(),
                                                document.width(), lo, hi));
                    job->device_decision->synchronize();
                }
                if (protect)
                    job->device_protect = snapshot(document.device_mask(MaskLayer::Protect));
                if (remove)
                    job->device_remove = snapshot(document.device_mask(MaskLayer::CarveRemove));
            });
            if (!on_device) return;  // device_lost() restarted everything on the host
        }
    }
    if (!on_device) job->cuda = carve_on_gpu_ && !cpu_only_;
    if (document.measurement() && !job->approximate()) {
        job->samples = document.samples();
        job->range = document.proxy_range();
    }
    if (job->image.empty() && !job->device_image) {
        // The host mirror is current at rest: the approximate and CPU carves start from it.
        job->image = clone(document.pixels().view());
        if (protect) job->protect = clone(document.mask(MaskLayer::Protect).view());
        if (remove) job->remove = clone(document.mask(MaskLayer::CarveRemove).view());
    }
    launch(std::move(job), true);
}

void RetargetTool::start_horizontal(const int width, const bool exact) {
    if (!vertical_) return;
    if (horizontal_job_ && horizontal_job_->work.running() && horizontal_job_->width == width &&
        horizontal_job_->vseams == vertical_seams(width, amount_w_) &&
        horizontal_job_->mixing == mixing())
        return;
    if (horizontal_job_) horizontal_job_->work.cancel();
    horizontal_job_.reset();
    Document& document = session_.document();
    auto job = std::make_shared<Job>();
    job->map_stream = document.stream();
    job->energy = energy_;
    job->direction = ops::SeamDirection::Horizontal;
    job->seams = seams_for(source_h_);
    job->width = width;
    const int change = vertical_seams(width, amount_w_);
    job->vseams = change;
    job->mixing = mixing();
    job->importance_unit = importance_unit();
    if (!exact) plan_approximate(*job);
    const bool protect = document.mask_painted(MaskLayer::Protect);
    const bool remove = document.mask_painted(MaskLayer::CarveRemove);
    const bool levels = importance_ && importance_->levels() != nullptr;
    if (mixing()) {
        // Scaled to the width after the seams: composed on the host (the area filter is the
        // CLI's; the CUDA scaler has none), carved wherever the maps are carved.
        Narrowed n = narrowed_host(width, protect, remove);
        job->image = std::move(n.image);
        job->protect = std::move(n.protect);
        job->remove = std::move(n.remove);
        job->levels = std::move(n.levels);
        job->cuda = (use_device() || carve_on_gpu_) && !cpu_only_;
        job->device_map = use_device() && vertical_holder_->device.has_value();
    } else if (use_device() && vertical_holder_->device) {
        if (levels) job->levels = narrowed_host(width, false, false, false).levels;
        job->cuda = !cpu_only_;
        job->device_map = true;
        const ops::DeviceSeamOrder& order = *vertical_holder_->device;
        const bool ok = session_.guarded([&] {
            // The narrowed image and the masks that follow its pixels, made on the device.
            document.device_pixels().synchronize();
            job->device_image = std::make_unique<DeviceImage<Rgba8>>();
            job->device_image->set_stream(document.stream());
            if (change < 0)
                ops::remove_seams(document.device_pixels(), order, -change, *job->device_image);
            else
                ops::insert_seams(document.device_pixels(), order, change, *job->device_image);
            const auto follow = [&](const MaskLayer layer) {
                auto mask = std::make_unique<DeviceImage<std::uint8_t>>();
                mask->set_stream(document.stream());
                if (change < 0)
                    ops::remove_seams(document.device_mask(layer), order, -change, *mask);
                else
                    ops::insert_seams_nearest(document.device_mask(layer), order, change, *mask);
                mask->synchronize();
                return mask;
            };
            if (protect) job->device_protect = follow(MaskLayer::Protect);
            if (remove) job->device_remove = follow(MaskLayer::CarveRemove);
            job->device_image->synchronize();
        });
        if (!ok) return;
    } else if (vertical_holder_->host) {
        job->cuda = carve_on_gpu_ && !cpu_only_;
        Narrowed n = narrowed_host(width, protect, remove);
        job->image = std::move(n.image);
        job->protect = std::move(n.protect);
        job->remove = std::move(n.remove);
        job->levels = std::move(n.levels);
    } else {
        return;
    }
    if (document.measurement() && !job->approximate()) {
        // The exact horizontal carve decides on the samples the vertical change leaves.
        const bool ok = session_.guarded([&] {
            const ops::SeamOrder columns = vertical_holder_->host
                                               ? *vertical_holder_->host
                                               : ops::download_order(*vertical_holder_->device);
            const NativeImage& samples = document.samples();
            job->samples = change < 0   ? ops::remove_seams(samples, columns, -change)
                           : change > 0 ? ops::insert_seams(samples, columns, change)
                                        : samples;
            job->range = document.proxy_range();
        });
        if (!ok) return;
    }
    launch(std::move(job), false);
}

void RetargetTool::launch(std::shared_ptr<Job> job, const bool vertical) {
    job->generation = generation_;
    Job* raw = job.get();
    job->work.start([raw](JobControl& control) {
        raw->control = &control;
        raw->run_carve();
        return true;
    });
    (vertical ? vertical_job_ : horizontal_job_) = std::move(job);
}

void RetargetTool::hold_exact_maps(const bool held) {
    hold_exact_ = held;
    if (held) {
        cancel_match();
        return;
    }
    poll();
    if (previewing_ && !preview_held_ && !exported()) match_export();
}

void RetargetTool::add_notice(const std::string& text) {
    if (text.empty() || notice_.find(text) != std::string::npos) return;
    notice_ += (notice_.empty() ? "" : "\n") + text;
}

void RetargetTool::collect(std::shared_ptr<Job>& job, const bool vertical) {
    if (!job || job->handled || !job->work.finished()) return;
    if (hold_exact_ && !job->approximate()) return;
    if (!vertical && job->generation != generation_) return;
    job->handled = true;
    // A cancelled carve says nothing; an error is shown as the notice.
    if (const auto outcome = job->work.take(); outcome && !outcome->cancelled)
        job->error = outcome->error;
    publish(*job, vertical);
}

void RetargetTool::publish(Job& job, const bool vertical) {
    if (!job.fallback.empty() && !cpu_only_) {
        cpu_only_ = true;
        add_notice("The GPU could not carve (" + job.fallback + "); the CPU carves instead.");
    }
    add_notice(job.error);
    if (importance_ && importance_->ready.load()) {
        add_notice(importance_->error.empty() ? "" : "Importance: " + importance_->error);
        if (importance_->map)
            for (const std::string& note : importance_->map->notes) add_notice(note);
    }
    const bool have = job.device_result.has_value() || job.host_result.has_value();
    if (have) {
        auto map = std::make_unique<Map>();
        map->device = std::move(job.device_result);
        map->host = std::move(job.host_result);
        ++maps_published_;
        if (vertical) {
            vertical_ = map->seams();
            vertical_holder_ = std::move(map);
            vertical_exact_ = !job.approximate();
            vertical_factor_ = job.factor;
            ++generation_;
            // Horizontal maps belong to the image the previous vertical map narrowed.
            drop_horizontal();
        } else {
            horizontal_ = map->seams();
            if (job.mixing) {
                map->source = std::move(job.image);
                map->levels = std::move(job.levels);
            }
            horizontal_holder_ = std::move(map);
            horizontal_exact_ = !job.approximate();
            horizontal_factor_ = job.factor;
            horizontal_width_ = job.width;
            horizontal_vseams_ = job.vseams;
        }
    }
    const bool approximate = job.approximate();
    const int width = job.width;
    if (have && on_map_published) on_map_published(vertical, !approximate);
    if (vertical) {
        vertical_job_.reset();
        // The approximate map is up: now the exact one.
        if (approximate) start_vertical(true);
    } else {
        horizontal_job_.reset();
        // The exact map for the same narrowed image, unless the width has moved on.
        if (approximate && width == target_w_ && have) start_horizontal(width, true);
    }
    session_.frame_changed();
    update_preview();
}

bool RetargetTool::poll() {
    collect(vertical_job_, true);
    collect(horizontal_job_, false);
    collect_match();
    if (pending_horizontal_width_ >= 0 && vertical_) {
        const int width = pending_horizontal_width_;
        pending_horizontal_width_ = -1;
        if (width == target_w_ && !horizontal_ready_for(width)) start_horizontal(width, false);
    }
    return busy();
}

void RetargetTool::wait() {
    refresh();
    while (poll()) std::this_thread::sleep_for(std::chrono::milliseconds(2));
}

// ---- preview ----

int RetargetTool::vertical_change(const int width) const {
    const int change = width - source_w_;
    // An approximate map holds fewer seams than the target may need: it serves what it can.
    return change < 0 ? -std::min(-change, *vertical_) : std::min(change, *vertical_);
}

void RetargetTool::clear_preview() {
    preview_held_ = false;
    if (!previewing_) return;
    previewing_ = false;
    frame_w_ = frame_h_ = 0;
    ++preview_serial_;
    session_.frame_changed();
    if (on_preview_changed) on_preview_changed();
}

const DeviceImage<Rgba8>* RetargetTool::device_frame() const {
    return previewing_ && device_frame_ && use_device() ? device_frame_.get() : nullptr;
}

const ImageRgba8* RetargetTool::host_frame() const {
    return previewing_ && !use_device() ? &host_frame_ : nullptr;
}

bool RetargetTool::mixing() const {
    // Measurement documents are carved on every bit of their samples; scaling would resample
    // them, so they keep seams only.
    return (mix_.automatic || mix_.amount < 100) && !session_.document().measurement();
}

int RetargetTool::vertical_seams(const int width, const double amount) const {
    if (!vertical_) return 0;
    if (amount >= 100) return vertical_change(width);
    const int change = width - source_w_;
    const int k =
        std::min(*vertical_, static_cast<int>(std::lround(amount / 100.0 * std::abs(change))));
    return change < 0 ? -k : k;
}

int RetargetTool::horizontal_seams(const int height, const double amount) const {
    if (!horizontal_) return 0;
    const int change = height - source_h_;
    const int wanted = amount >= 100
                           ? std::abs(change)
                           : static_cast<int>(std::lround(amount / 100.0 * std::abs(change)));
    const int k = std::min(*horizontal_, wanted);
    return change < 0 ? -k : k;
}

const ops::SeamOrder& RetargetTool::host_order(const Map& map) const {
    if (map.host) return *map.host;
    if (!map.downloaded) map.downloaded = ops::download_order(*map.device);
    return *map.downloaded;
}

RetargetTool::Narrowed RetargetTool::narrowed_host(const int width, const bool protect,
                                                   const bool remove, const bool image) const {
    const Document& document = session_.document();
    const ops::SeamOrder& order = host_order(*vertical_holder_);
    const int change = vertical_seams(width, amount_w_);
    const auto follow = [&](const MaskView mask) {
        return change < 0   ? ops::remove_seams<std::uint8_t>(mask, order, -change)
               : change > 0 ? ops::insert_seams_nearest<std::uint8_t>(mask, order, change)
                            : clone(mask);
    };
    Narrowed n;
    const ImageRgba8& source = document.pixels();
    if (image)
        n.image = change < 0   ? ops::remove_seams<Rgba8>(source.view(), order, -change)
                  : change > 0 ? ops::insert_seams(source.view(), order, change)
                               : clone(source.view());
    if (protect) n.protect = follow(document.mask(MaskLayer::Protect).view());
    if (remove) n.remove = follow(document.mask(MaskLayer::CarveRemove).view());
    if (const Mask* levels = importance_ ? importance_->levels() : nullptr)
        n.levels = follow(levels->view());
    if (mixing() && source_w_ + change != width) {
        if (image) n.image = ops::resample_area(n.image.view(), width, source_h_);
        for (Mask* m : {&n.protect, &n.remove, &n.levels})
            if (!m->empty()) *m = scale_width_max(m->view(), width);
    }
    return n;
}

double RetargetTool::choose_amount(const ImageRgba8& image, const ops::SeamOrder& order,
                                   const int available, const int target,
                                   const Mask* levels) const {
    // As vertical work: a horizontal side is the transposed problem.
    const bool vertical = order.direction == ops::SeamDirection::Vertical;
    const ImageRgba8 upright = vertical ? ImageRgba8() : transposed<Rgba8>(image.view());
    const ImageRgba8& img = vertical ? image : upright;
    const Image<std::int32_t> turned =
        vertical ? Image<std::int32_t>() : transposed<std::int32_t>(order.order.view());
    const Image<std::int32_t>& ord = vertical ? order.order : turned;
    const Mask turned_levels =
        levels && !vertical ? transposed<std::uint8_t>(levels->view()) : Mask();
    const Mask* lv = levels ? (vertical ? levels : &turned_levels) : nullptr;
    // Seams act on each row alone, so every r-th row of the image and of the order is exactly
    // those rows of each candidate: the measure (taken on a copy 64 pixels long) is computed on
    // about 96 rows instead of all of them, and the slider stays live.
    const int W = img.width(), H = img.height();
    const int step = std::max(1, H / 96);
    const int rows = (H + step - 1) / step;
    ImageRgba8 sub(W, rows);
    ops::SeamOrder sub_order;
    sub_order.direction = ops::SeamDirection::Vertical;
    sub_order.width = W;
    sub_order.height = rows;
    sub_order.seams = order.seams;
    sub_order.order = Image<std::int32_t>(W, rows);
    Mask sub_levels = lv ? Mask(W, rows, 0) : Mask();
    for (int r = 0; r < rows; ++r) {
        std::copy_n(img.row(r * step), W, sub.row(r));
        std::copy_n(ord.row(r * step), W, sub_order.order.row(r));
        if (lv) std::copy_n(lv->row(r * step), W, sub_levels.row(r));
    }
    const int change = std::abs(target - W);
    double best_amount = 100, best = std::numeric_limits<double>::infinity();
    int last_k = -1;
    for (int s = 0; s <= 4; ++s) {
        const double amount = 25.0 * s;
        const int k = std::min(available, static_cast<int>(std::lround(amount / 100 * change)));
        if (k == last_k) continue;
        last_k = k;
        ImageRgba8 result = target < W ? ops::remove_seams<Rgba8>(sub.view(), sub_order, k)
                                       : ops::insert_seams(sub.view(), sub_order, k);
        if (result.width() != target) result = ops::resample_area(result.view(), target, rows);
        const double d =
            ops::bidirectional_dissimilarity(sub.view(), result.view(), lv ? &sub_levels : nullptr);
        if (d < best) {  // the first of equals: the least seams
            best = d;
            best_amount = amount;
        }
    }
    return best_amount;
}

double RetargetTool::choose_width_amount(const int width) const {
    if (!mixing()) return 100;
    if (!mix_.automatic) return mix_.amount;
    if (width == source_w_ || !vertical_) return 100;
    const Mask* levels = importance_ ? importance_->levels() : nullptr;
    return choose_amount(session_.document().pixels(), host_order(*vertical_holder_), *vertical_,
                         width, levels);
}

void RetargetTool::update_preview() {
    const Document& document = session_.document();
    if (document.empty()) return;
    preview_approximate_ = false;
    status_.clear();
    if (brush_layer_ || (target_w_ == source_w_ && target_h_ == source_h_)) {
        clear_preview();
        if (on_preview_changed) on_preview_changed();
        return;
    }
    if (!vertical_) {
        status_ = "Computing the seams… the preview follows when they are ready.";
        clear_preview();
        if (on_preview_changed) on_preview_changed();
        return;
    }
    const int width = target_w_, height = target_h_;
    const bool mix = mixing();
    amount_w_ = choose_width_amount(width);
    preview_approximate_ = !vertical_exact_;
    preview_factor_ = vertical_exact_ ? 1 : vertical_factor_;
    const int change = vertical_seams(width, amount_w_);
    const bool horizontal_step = height != source_h_ && !show_seams_ && horizontal_ready_for(width);
    int count_h = 0;
    amount_h_ = mix ? mix_.amount : 100;
    if (horizontal_step) {
        if (mix && mix_.automatic)
            amount_h_ = horizontal_holder_->source.empty()
                            ? 100
                            : choose_amount(horizontal_holder_->source,
                                            host_order(*horizontal_holder_), *horizontal_, height,
                                            horizontal_holder_->levels.empty()
                                                ? nullptr
                                                : &horizontal_holder_->levels);
        count_h = std::abs(horizontal_seams(height, amount_h_));
        preview_approximate_ = preview_approximate_ || !horizontal_exact_;
        if (!horizontal_exact_) preview_factor_ = std::max(preview_factor_, horizontal_factor_);
    }
    const bool shrink_h = height < source_h_;
    const Exported* settled = exported();
    if (settled && settled->image) {
        // The export's frame (its seams follow the shot's earlier frames): what Export writes.
        if (!show_host_frame(clone(settled->image->view()))) return;
    } else if (use_device() && vertical_holder_->device && !mix) {
        Document& doc = session_.document();
        const bool ok = session_.guarded([&] {
            if (!device_frame_) {
                device_frame_ = std::make_unique<DeviceImage<Rgba8>>();
                device_narrowed_ = std::make_unique<DeviceImage<Rgba8>>();
            }
            device_frame_->set_stream(doc.stream());
            device_narrowed_->set_stream(doc.stream());
            const ops::DeviceSeamOrder& order = *vertical_holder_->device;
            const DeviceImage<Rgba8>& source = doc.device_pixels();
            if (show_seams_) {
                ops::paint_seams(source, order, std::abs(change),
                                 width < source_w_ ? kRemovedSeam : kInsertedSeam, *device_frame_);
                return;
            }
            DeviceImage<Rgba8>& narrowed = horizontal_step ? *device_narrowed_ : *device_frame_;
            if (change < 0)
                ops::remove_seams(source, order, -change, narrowed);
            else if (change > 0)
                ops::insert_seams(source, order, change, narrowed);
            else
                narrowed.copy_from(source);
            if (horizontal_step) {
                const ops::DeviceSeamOrder& rows = *horizontal_holder_->device;
                if (shrink_h)
                    ops::remove_seams(narrowed, rows, count_h, *device_frame_);
                else
                    ops::insert_seams(narrowed, rows, count_h, *device_frame_);
            }
        });
        if (!ok) return;  // device_lost() restarted on the host
        frame_w_ = device_frame_->width();
        frame_h_ = device_frame_->height();
    } else if (vertical_holder_->host || vertical_holder_->device) {
        // The host composition; mixing on the device path too (the area filter is the CLI's;
        // the frame is uploaded once composed).
        const ImageRgba8& source = document.pixels();
        ImageRgba8 frame;
        if (show_seams_) {
            frame = ops::paint_seams(source.view(), host_order(*vertical_holder_), std::abs(change),
                                     width < source_w_ ? kRemovedSeam : kInsertedSeam);
        } else {
            const ops::SeamOrder& order = host_order(*vertical_holder_);
            ImageRgba8 narrowed = change < 0
                                      ? ops::remove_seams<Rgba8>(source.view(), order, -change)
                                  : change > 0 ? ops::insert_seams(source.view(), order, change)
                                               : clone(source.view());
            if (mix && narrowed.width() != width)
                narrowed = ops::resample_area(narrowed.view(), width, narrowed.height());
            if (horizontal_step && count_h > 0) {
                const ops::SeamOrder& rows = host_order(*horizontal_holder_);
                narrowed = shrink_h ? ops::remove_seams<Rgba8>(narrowed.view(), rows, count_h)
                                    : ops::insert_seams(narrowed.view(), rows, count_h);
            }
            // Mixing reaches the target at once: scaling makes what the seams (or a map not yet
            // computed) leave.
            if (mix && narrowed.height() != height)
                narrowed = ops::resample_area(narrowed.view(), width, height);
            frame = std::move(narrowed);
        }
        if (!show_host_frame(std::move(frame))) return;
    } else {
        return;
    }
    previewing_ = true;
    preview_held_ = false;
    ++preview_serial_;
    if (show_seams_) {
        status_ = "Red: seams removed; green: seams duplicated.";
    } else if (height != source_h_ && !horizontal_step) {
        // Horizontal seams belong to the narrowed image: computed once the width settles.
        if (!horizontal_job_ || horizontal_job_->width != width ||
            horizontal_job_->vseams != change || horizontal_job_->mixing != mix)
            pending_horizontal_width_ = width;
        status_ = "Computing horizontal seams for this width…";
    } else if (frame_w_ != width || frame_h_ != height) {
        status_ = std::string(preview_approximate_ ? "The quick preview reaches only "
                                                   : "The seams reach only ") +
                  std::to_string(frame_w_) + " × " + std::to_string(frame_h_) + " px" +
                  (preview_approximate_ ? "; the exact map will reach the target." : ".");
    } else if (mix) {
        std::string sides;
        const auto side = [&](const char* what, const bool changed, const double amount) {
            if (!changed) return;
            sides += (sides.empty() ? "" : ", ") + std::string(what) + " " +
                     std::to_string(static_cast<int>(amount)) + " % seams";
        };
        side("width", width != source_w_, amount_w_);
        side("height", height != source_h_, amount_h_);
        status_ = std::string(mix_.automatic ? "Automatic: " : "") + sides + "; the rest scaled.";
    }
    if (!settled) match_export();
    session_.frame_changed();
    if (on_preview_changed) on_preview_changed();
}

bool RetargetTool::show_host_frame(ImageRgba8 frame) {
    if (use_device()) {
        Document& doc = session_.document();
        const bool ok = session_.guarded([&] {
            if (!device_frame_) {
                device_frame_ = std::make_unique<DeviceImage<Rgba8>>();
                device_narrowed_ = std::make_unique<DeviceImage<Rgba8>>();
            }
            *device_frame_ = DeviceImage<Rgba8>(frame.view(), doc.stream());
        });
        if (!ok) return false;
    }
    host_frame_ = std::move(frame);
    frame_w_ = host_frame_.width();
    frame_h_ = host_frame_.height();
    return true;
}

// ---- matching the export (a video frame with a temporal term) ----

const RetargetTool::Exported* RetargetTool::exported() const {
    const VideoClip* clip = session_.video();
    if (!exported_ || !clip || show_seams_ || brush_layer_ || mixing()) return nullptr;
    if (exported_->frame != clip->current() || exported_->width != target_w_ ||
        exported_->height != target_h_)
        return nullptr;
    return &*exported_;
}

bool RetargetTool::matching_export() const {
    return chain_job_ != nullptr;
}

bool RetargetTool::matches_export() const {
    const Exported* e = exported();
    return e && !e->failed;
}

void RetargetTool::cancel_match() {
    if (!chain_job_) return;
    chain_job_->work.cancel();
    retired_.push_back(std::move(chain_job_));
}

void RetargetTool::match_export() {
    const VideoClip* clip = session_.video();
    // The export carves seams only, to the whole target; the single-frame preview must be
    // exact and complete first (the approximate-first slider frames stay as they are).
    const bool exact = previewing_ && !preview_held_ && vertical_exact_ && frame_w_ == target_w_ &&
                       frame_h_ == target_h_ && (target_h_ == source_h_ || horizontal_exact_);
    const std::shared_ptr<ClipImportance> maps =
        clip && exact && !show_seams_ && !brush_layer_ && !mixing() && !hold_exact_
            ? session_.shown_clip_importance()
            : nullptr;
    // Null too for an edited frame: the export reads the file's frame, not the edit.
    if (!maps) {
        cancel_match();
        return;
    }
    const int frame = clip->current();
    if (chain_job_ && chain_job_->frame == frame && chain_job_->width == target_w_ &&
        chain_job_->height == target_h_)
        return;  // under way
    cancel_match();
    auto job = std::make_unique<ChainJob>();
    job->job = session_.prepare_video_export({});
    const video::RetargetVideoOptions& options = job->job.options;
    if (!chain_ || chain_->input() != options.input)
        chain_ = std::make_shared<ExportChain>(options.input);
    if (!chain_->differs_from_single_frame(options, frame)) {
        // No temporal term (or a shot's first frame): the exact preview is the export's frame.
        exported_ = Exported{frame, target_w_, target_h_, std::nullopt};
        return;
    }
    job->frame = frame;
    job->width = target_w_;
    job->height = target_h_;
    if (ops::any_importance(options.importance)) job->maps = maps;
    job->chain = chain_;
    ChainJob* raw = job.get();
    job->work.start([raw](JobControl& control) {
        return raw->chain->frame(raw->job.options, raw->maps.get(), raw->frame,
                                 [&control](const int done, const int total) {
                                     // (0, 0): reading the clip, nothing counted yet — only a
                                     // chance to cancel.
                                     return total > 0 ? control.report(done, total)
                                                      : !control.cancelled();
                                 });
    });
    chain_job_ = std::move(job);
}

void RetargetTool::collect_match() {
    std::erase_if(retired_,
                  [](const std::unique_ptr<ChainJob>& job) { return job->work.finished(); });
    if (!chain_job_ || !chain_job_->work.finished()) return;
    const std::unique_ptr<ChainJob> job = std::move(chain_job_);
    std::optional<JobOutcome<std::optional<ImageRgba8>>> outcome = job->work.take();
    if (!outcome || outcome->cancelled) return;
    Exported result{job->frame, job->width, job->height, std::nullopt};
    if (outcome->ok()) {
        result.image = std::move(*outcome->value);
    } else {
        // Not tried again for this frame and target; the single-frame preview stays.
        result.failed = true;
        add_notice("Matching the export failed: " + outcome->error);
    }
    exported_ = std::move(result);
    update_preview();
}

std::string RetargetTool::status() const {
    std::string text = notice_;
    const auto add = [&](const std::string& part) {
        if (part.empty()) return;
        text += (text.empty() ? "" : "\n") + part;
    };
    add(status_);
    if (preview_held_) add("Showing the previous frame's preview until this frame's is ready.");
    if (chain_job_) {
        const int total = chain_job_->work.total();
        add(total > 0 ? "Matching the export: frame " +
                            std::to_string(std::min(total, chain_job_->work.done() + 1)) + " of " +
                            std::to_string(total) +
                            " (the export's seams follow those of the shot's earlier frames)."
                      : "Matching the export: reading the clip up to this frame…");
    } else if (previewing_ && !preview_held_ && matches_export() && exported()->image) {
        add("The exported frame: what Export Video writes for it (its seams follow the shot's "
            "earlier frames).");
    }
    if (const int phase = importance_ ? importance_->phase.load() : 0; phase != 0)
        add(phase == 1 ? "Tracking faces over the whole clip, as the export does (once per clip "
                         "and terms); the preview follows."
                       : "Smoothing saliency, lines and skin over the shot up to this frame, as "
                         "the export does (later frames are a step each); the preview follows.");
    if (session_.video() && mix_.importance.faces && mix_.importance.face_weight > 0 &&
        !session_.video_faces())
        add("Video: faces are tracked (and protected) only with the Video dock's Faces switch, as "
            "the export does.");
    if (previewing_ && preview_approximate_) {
        // The exact map being computed for what is shown: vertical first, then horizontal.
        const Job* exact = nullptr;
        if (!vertical_exact_) {
            if (vertical_job_ && !vertical_job_->approximate()) exact = vertical_job_.get();
        } else if (horizontal_job_ && !horizontal_job_->approximate()) {
            exact = horizontal_job_.get();
        }
        std::string quick = "Approximate preview (1/" + std::to_string(preview_factor_) + " size)";
        if (exact)
            quick +=
                " — exact map " + std::to_string(static_cast<int>(100 * exact->fraction())) + " %";
        add(quick);
    }
    return text;
}

RetargetTool::Progress RetargetTool::progress() const {
    const auto phase = [](const Job& job, const char* exact, const char* quick) {
        Progress p;
        p.what = job.approximate() ? quick : exact;
        p.done = job.work.done();
        p.total = job.work.total() > 0 ? job.work.total() : job.seams / job.factor;
        return p;
    };
    if (importance_ && importance_->phase.load() != 0) {
        // A video frame's map: the export's face pass over the clip, then the shot's frames
        // up to this one through the smoother (cached: later frames cost one step each).
        Progress p;
        p.what = importance_->phase.load() == 1 ? "Faces over the clip (as the export tracks them)"
                                                : "Importance over the shot up to this frame";
        p.unit = "frames";
        p.done = importance_->done.load();
        p.total = std::max(1, importance_->total.load());
        return p;
    }
    if (vertical_job_ && vertical_job_->work.running())
        return phase(*vertical_job_, "Vertical seams", "Vertical seams (quick preview)");
    if (chain_job_) {
        // The export's carver over the shot up to this frame (after the exact seams).
        Progress p;
        p.what = "Matching the export";
        p.unit = "frames";
        p.done = chain_job_->work.done();
        p.total = chain_job_->work.total();
        return p;
    }
    if (horizontal_job_ && horizontal_job_->work.running())
        return phase(*horizontal_job_, "Horizontal seams", "Horizontal seams (quick preview)");
    // Set aside after an edit with another tool: nothing computed, nothing running.
    if (!vertical_ && !session_.document().empty() && stale())
        return {"Seams: computed again when you retarget", 0, 0};
    return {"Seams", 1, 1};
}

NativeImage RetargetTool::carve_samples(const NativeImage& samples) const {
    // The preview's composition (update_preview), applied to the stored samples with the same
    // maps: the vertical change, then the horizontal seams of the narrowed image.
    const auto host_order = [](const Map& map) {
        return map.host ? *map.host : ops::download_order(*map.device);
    };
    const int change = vertical_change(target_w_);
    const ops::SeamOrder columns = host_order(*vertical_holder_);
    NativeImage narrowed = change < 0   ? ops::remove_seams(samples, columns, -change)
                           : change > 0 ? ops::insert_seams(samples, columns, change)
                                        : samples;
    if (target_h_ != source_h_ && horizontal_ready_for(target_w_)) {
        const int count = std::min(std::abs(target_h_ - source_h_), *horizontal_);
        const ops::SeamOrder rows = host_order(*horizontal_holder_);
        narrowed = target_h_ < source_h_ ? ops::remove_seams(narrowed, rows, count)
                                         : ops::insert_seams(narrowed, rows, count);
    }
    return narrowed;
}

bool RetargetTool::apply() {
    Document& document = session_.document();
    // A running fill owns the pixels until it ends (undo waits for it too): replacing the
    // picture under it would let its next step, cancel or end write its rectangle of the old
    // picture into the new one, and record that for undo.
    if (session_.remove_object().fill_running()) {
        status_ = "Wait for the fill to finish (or cancel it) before applying.";
        return false;
    }
    if (preview_held_) {
        status_ = "The preview is still the previous frame's: wait for this frame's seams.";
        return false;
    }
    if (matching_export()) {
        status_ = "The preview is being matched to the exported frame: wait for it.";
        return false;
    }
    if (!previewing_ || show_seams_ || frame_w_ != target_w_ || frame_h_ != target_h_) {
        status_ =
            "Nothing to apply yet: move a slider, and wait for the seams if they are still being "
            "computed.";
        return false;
    }
    Edit edit;
    edit.label = "Retarget to " + std::to_string(frame_w_) + " × " + std::to_string(frame_h_);
    edit.whole_image = true;
    edit.image_before = clone(document.pixels().view());
    for (int layer = 0; layer < kMaskLayers; ++layer)
        edit.masks_before[static_cast<std::size_t>(layer)] =
            clone(document.mask(static_cast<MaskLayer>(layer)).view());
    if (document.measurement()) {
        // The stored samples move along the seams the preview showed; the proxy follows.
        std::optional<NativeImage> carved;
        if (!session_.guarded([&] { carved = carve_samples(document.samples()); })) return false;
        edit.samples_before = document.samples();
        std::array<Mask, kMaskLayers> cleared;
        for (Mask& m : cleared) m = Mask(carved->width(), carved->height(), 0);
        document.replace_measurement(*carved, cleared);
        edit.samples_after = document.samples();
        edit.image_after = clone(document.pixels().view());
        previewing_ = false;
        session_.push(std::move(edit));
        return true;
    }
    if (const DeviceImage<Rgba8>* frame = device_frame()) {
        if (!session_.guarded([&] { document.replace_from_device(*frame); })) return false;
    } else {
        std::array<Mask, kMaskLayers> cleared;
        for (Mask& m : cleared) m = Mask(host_frame_.width(), host_frame_.height(), 0);
        document.replace(host_frame_, cleared);
    }
    edit.image_after = clone(document.pixels().view());
    previewing_ = false;
    // Pushing refreshes the tools: the maps start over on the new image.
    session_.push(std::move(edit));
    return true;
}

void RetargetTool::device_lost() {
    brush_.device_lost(session_.document());
    for (const auto& job : {vertical_job_, horizontal_job_})
        if (job) job->work.cancel();
    vertical_job_.reset();
    horizontal_job_.reset();
    device_frame_.reset();
    device_narrowed_.reset();
    source_revision_ = ~0ull;
    restart();
}

}  // namespace lacuna::session
