#include "filter_tool.hpp"

#include "remove_object_tool.hpp"
#include "session.hpp"

#include <lacuna/core/backend.hpp>
#include <lacuna/core/parallel.hpp>

#include <lacuna/core/native_image.hpp>
#include <lacuna/ops/seam_carve.hpp>

#include <chrono>
#include <cmath>

namespace lacuna::session {

/// Device state, made on first use: the filters and their output and guide images, on the
/// document's stream (ordered after every edit the document has queued).
struct FilterTool::Device {
    explicit Device(const DeviceStream stream) : bilateral(stream), scaler(stream) {
        frame.set_stream(stream);
        guide.set_stream(stream);
    }
    ops::CudaBilateral bilateral;
    ops::CudaScaler scaler;
    DeviceImage<Rgba8> frame;
    DeviceImage<Rgba8> guide;
    bool guide_uploaded = false;
};

FilterTool::FilterTool(Session& session) : session_(session) {}
FilterTool::~FilterTool() = default;

bool FilterTool::begin(const FilterKind kind) {
    const Document& document = session_.document();
    if (document.empty()) {
        status_ = "Open a picture first.";
        return false;
    }
    if (document.measurement() && kind != FilterKind::Bilateral) {
        status_ = kind == FilterKind::Scale
                      ? "Scaling a measurement is not built into the editor: use `lacuna scale`, "
                        "which resamples the stored samples."
                      : "Temporal smoothing works on videos.";
        return false;
    }
    if (session_.document_held()) {
        status_ = "Wait for the fill to finish (or cancel it) before filtering.";
        return false;
    }
    if (kind == FilterKind::Temporal && session_.video() == nullptr) {
        status_ = "Temporal smoothing works on videos: open one with File ▸ Open.";
        return false;
    }
    if (guide_ && (guide_->width() != document.width() || guide_->height() != document.height()))
        clear_guide();
    if (scale_w_ <= 0 || scale_h_ <= 0) {
        scale_w_ = document.width();
        scale_h_ = document.height();
    }
    kind_ = kind;
    status_.clear();
    update();
    return true;
}

void FilterTool::cancel() {
    if (!kind_) return;
    kind_.reset();
    host_frame_ = ImageRgba8();
    ++serial_;
    session_.frame_changed();
}

void FilterTool::set_bilateral(const ops::BilateralParams& params) {
    // A bad value is refused before the preview changes.
    if (on_samples())
        ops::check_bilateral_native(params, NativeImage(1, 1, {SampleType::U8, 1}), {});
    else
        ops::check_bilateral(params, 1, 1);
    bilateral_ = params;
    if (kind_ == FilterKind::Bilateral) update();
}

bool FilterTool::set_guide(ImageRgba8 guide) {
    const Document& document = session_.document();
    if (guide.width() != document.width() || guide.height() != document.height()) {
        status_ = "The guide is " + std::to_string(guide.width()) + " × " +
                  std::to_string(guide.height()) + " but the picture is " +
                  std::to_string(document.width()) + " × " + std::to_string(document.height()) +
                  ": a guide must have the picture's size.";
        return false;
    }
    guide_ = std::move(guide);
    guide_samples_ = to_native(guide_->view());
    if (device_) device_->guide_uploaded = false;
    status_.clear();
    if (kind_ == FilterKind::Bilateral) update();
    return true;
}

void FilterTool::clear_guide() {
    guide_.reset();
    guide_samples_.reset();
    if (device_) device_->guide_uploaded = false;
    if (kind_ == FilterKind::Bilateral) update();
}

void FilterTool::set_scale(const int width, const int height, const ops::ScaleMethod method) {
    ops::check_scale(1, 1, width, height);
    scale_w_ = width;
    scale_h_ = height;
    method_ = method;
    if (kind_ == FilterKind::Scale) update();
}

void FilterTool::set_temporal(const int size, const double sigma_space, const double sigma_time) {
    (void)ops::gaussian_kernel(size, sigma_space, sigma_time);  // refused before anything changes
    temporal_.size = size;
    temporal_.sigma_space = sigma_space;
    temporal_.sigma_time = sigma_time;
    if (kind_ == FilterKind::Temporal) update();
}

video::SmoothVideoOptions FilterTool::prepare_temporal_export(
    const std::filesystem::path& output) const {
    const VideoClip* clip = session_.video();
    if (clip == nullptr) throw Error(ErrorCode::InvalidArgument, "no video is open");
    video::SmoothVideoOptions o = temporal_;
    o.input = clip->path();
    o.output = output;
    o.use_cuda = select_backend(BackendRequest::Auto).backend == Backend::Cuda;
    return o;
}

void FilterTool::update() {
    if (!kind_) return;
    using Clock = std::chrono::steady_clock;
    const auto start = Clock::now();
    if (*kind_ == FilterKind::Temporal) {
        // The frame shown with its neighbours, decoded from the clip's file.
        const VideoClip* clip = session_.video();
        if (clip == nullptr) {
            cancel();
            return;
        }
        video::SmoothVideoOptions o = temporal_;
        o.use_cuda = session_.on_device();
        try {
            host_frame_ = video::smoothed_frame(clip->path(), clip->current(), o);
        } catch (const Error& e) {
            if (!o.use_cuda || !falls_back_to_cpu(BackendRequest::Auto, e)) throw;
            o.use_cuda = false;  // the device failed: the CPU gives the same frame
            host_frame_ = video::smoothed_frame(clip->path(), clip->current(), o);
        }
        ran_on_ = o.use_cuda ? "GPU" : "CPU, " + std::to_string(worker_count()) + " threads";
    } else if (on_samples() && *kind_ == FilterKind::Bilateral) {
        run_samples();
        ran_on_ = "CPU, " + std::to_string(worker_count()) + " threads, stored samples";
    } else if (session_.on_device() && session_.guarded([&] { run_device(); })) {
        ran_on_ = "GPU";
    } else {
        run_host();
        ran_on_ = "CPU, " + std::to_string(worker_count()) + " threads";
    }
    last_ms_ = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    ++serial_;
    session_.frame_changed();
}

void FilterTool::run_device() {
    Document& document = session_.document();
    if (!device_) device_ = std::make_unique<Device>(document.stream());
    host_frame_ = ImageRgba8();
    const DeviceImage<Rgba8>& src = document.device_pixels();
    if (*kind_ == FilterKind::Bilateral) {
        if (guide_ && !device_->guide_uploaded) {
            device_->guide.resize(guide_->width(), guide_->height());
            device_->guide.upload(guide_->view());
            device_->guide_uploaded = true;
        }
        device_->bilateral.run(src, guide_ ? &device_->guide : nullptr, device_->frame, bilateral_);
    } else {
        device_->scaler.run(src, device_->frame, scale_w_, scale_h_, method_);
    }
    // The time shown is the filter's own: wait for it (a preview frame is presented next anyway).
    device_->frame.synchronize();
}

void FilterTool::run_host() {
    const ImageRgba8& pixels = session_.document().pixels();
    host_frame_ =
        *kind_ == FilterKind::Bilateral
            ? ops::bilateral_fast(pixels.view(), guide_ ? guide_->view() : ImageView<const Rgba8>{},
                                  bilateral_)
            : ops::scale_fast(pixels.view(), scale_w_, scale_h_, method_);
}

bool FilterTool::on_samples() const {
    return session_.document().measurement();
}

std::string FilterTool::range_unit() const {
    if (!on_samples()) return "levels";
    const Calibration& c = session_.document().calibration();
    if (!c.unit.empty()) return c.unit;
    return c.identity() ? "stored samples" : "calibrated values";
}

double FilterTool::suggested_sigma_range() const {
    const Document& document = session_.document();
    if (!document.measurement()) return ops::BilateralParams{}.sigma_range;
    const ImageF32 values = measurement_plane(document.samples(), document.calibration());
    const ValueStats stats = value_stats(values.view());
    const double span = 0.05 * (stats.max - stats.min);
    if (!(span > 0)) return 1;
    const double magnitude = std::pow(10.0, std::floor(std::log10(span)) - 1);
    return std::round(span / magnitude) * magnitude;
}

void FilterTool::run_samples() {
    // On the host: there is no device path for stored samples yet (the device samples stay
    // as they are; Apply writes the result to both sides).
    const Document& document = session_.document();
    const ops::NativeGuide guide =
        guide_samples_ ? ops::NativeGuide{&*guide_samples_, {}} : ops::NativeGuide{};
    filtered_samples_ = ops::bilateral_native(document.samples(), document.calibration(), guide,
                                              bilateral_, ops::BilateralImplementation::Fast);
    const auto [lo, hi] = document.proxy_range();
    host_frame_ = ops::carving_proxy(filtered_samples_, lo, hi).image;
}

const DeviceImage<Rgba8>* FilterTool::device_frame() const {
    return kind_ && device_ && host_frame_.empty() && !device_->frame.empty() ? &device_->frame
                                                                              : nullptr;
}

const ImageRgba8* FilterTool::host_frame() const {
    return kind_ && !host_frame_.empty() ? &host_frame_ : nullptr;
}

int FilterTool::frame_width() const {
    if (const ImageRgba8* h = host_frame()) return h->width();
    if (const DeviceImage<Rgba8>* d = device_frame()) return d->width();
    return session_.document().width();
}

int FilterTool::frame_height() const {
    if (const ImageRgba8* h = host_frame()) return h->height();
    if (const DeviceImage<Rgba8>* d = device_frame()) return d->height();
    return session_.document().height();
}

bool FilterTool::apply() {
    if (!kind_ || (host_frame() == nullptr && device_frame() == nullptr)) {
        status_ = "Nothing to apply: choose a filter first.";
        return false;
    }
    if (*kind_ == FilterKind::Temporal) {
        status_ = "Temporal smoothing changes the whole clip: use Export Smoothed Video….";
        return false;
    }
    if (session_.document_held()) {
        status_ = "Wait for the fill to finish (or cancel it) before applying.";
        return false;
    }
    Document& document = session_.document();
    Edit edit;
    if (*kind_ == FilterKind::Bilateral && on_samples()) {
        // The stored samples of the page shown; masks kept (a whole-picture rectangle edit).
        edit.label = "Bilateral Filter";
        edit.rect = {0, 0, document.width() - 1, document.height() - 1};
        edit.before.samples = document.samples();
        edit.after.samples = filtered_samples_;
        if (!session_.guarded([&] { document.write_samples(edit.rect, filtered_samples_); }))
            document.write_samples(edit.rect, filtered_samples_);  // now on the host path
        kind_.reset();
        host_frame_ = ImageRgba8();
        filtered_samples_ = NativeImage();
        ++serial_;
        status_.clear();
        session_.push(std::move(edit));
        return true;
    }
    const ImageRgba8 result =
        host_frame() != nullptr ? clone(host_frame_.view()) : device_->frame.download();
    if (*kind_ == FilterKind::Bilateral) {
        // Same size: a rectangle edit of the whole picture keeps the masks.
        edit.label = "Bilateral Filter";
        edit.rect = {0, 0, document.width() - 1, document.height() - 1};
        edit.before.pixels = clone(document.pixels().view());
        edit.after.pixels = result;
        if (!session_.guarded([&] { document.write_pixels(edit.rect, result); })) {
            document.write_pixels(edit.rect, result);  // now on the host path
        }
    } else {
        edit.label =
            "Scale to " + std::to_string(result.width()) + " × " + std::to_string(result.height());
        edit.whole_image = true;
        edit.image_before = clone(document.pixels().view());
        for (int layer = 0; layer < kMaskLayers; ++layer)
            edit.masks_before[static_cast<std::size_t>(layer)] =
                clone(document.mask(static_cast<MaskLayer>(layer)).view());
        std::array<Mask, kMaskLayers> cleared;
        for (Mask& m : cleared) m = Mask(result.width(), result.height(), 0);
        if (!session_.guarded([&] { document.replace(result, cleared); }))
            document.replace(result, cleared);
        edit.image_after = clone(document.pixels().view());
    }
    kind_.reset();
    host_frame_ = ImageRgba8();
    ++serial_;
    status_.clear();
    session_.push(std::move(edit));
    return true;
}

std::optional<PreviewFrame> FilterTool::preview(ToolKind) const {
    if (!previewing() || (device_frame() == nullptr && host_frame() == nullptr))
        return std::nullopt;
    return PreviewFrame{device_frame(), device_frame() ? nullptr : host_frame(), frame_width(),
                        frame_height(), serial_};
}

void FilterTool::document_changed(const DocumentChange change) {
    // A stack's page slider shows another page, or a new calibration moves σr's values: the
    // measurement preview follows.
    if (change == DocumentChange::Edit || change == DocumentChange::VideoFrame ||
        change == DocumentChange::Page || (change == DocumentChange::Calibration && on_samples()))
        document_changed();
}

void FilterTool::device_lost(bool) {
    device_lost();
}

void FilterTool::device_lost() {
    device_.reset();
    if (kind_) update();
}

void FilterTool::document_changed() {
    if (!kind_) return;
    const Document& document = session_.document();
    if (guide_ && (guide_->width() != document.width() || guide_->height() != document.height())) {
        guide_.reset();
        guide_samples_.reset();
    }
    update();
}

}  // namespace lacuna::session
