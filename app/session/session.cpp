#include "session.hpp"

#include "filter_tool.hpp"
#include "line_tool.hpp"
#include "regions_tool.hpp"
#include "remove_object_tool.hpp"
#include "retarget_tool.hpp"

#include <lacuna/core/backend.hpp>
#include <lacuna/render/image_renderer.hpp>

#include <algorithm>
#include <utility>

namespace lacuna::session {

/// What the renderer holds, so present() uploads only what changed.
struct Session::Presented {
    bool valid = false;
    bool preview = false;
    std::uint64_t image_key = 0;
    std::optional<int> mask_layer;
    std::uint64_t mask_key = 0;
    std::uint64_t display_lut_serial = 0;  ///< the colour table the renderer holds
};

Session::Session(const bool use_device)
    : use_device_(use_device), presented_(std::make_unique<Presented>()) {
    // The order is the previews' precedence (tools()).
    tools_.push_back(std::make_unique<FilterTool>(*this));
    tools_.push_back(std::make_unique<RetargetTool>(*this));
    tools_.push_back(std::make_unique<RemoveObjectTool>(*this));
    tools_.push_back(std::make_unique<LineTool>(*this));
    tools_.push_back(std::make_unique<RegionsTool>(*this));
    retarget().set_carve_backend(select_backend(BackendRequest::Auto).backend);
}

Session::~Session() {
    for (const auto& tool : tools_) tool->document_closing();
}

Tool& Session::tool(const ToolKind kind) const {
    for (const auto& tool : tools_)
        if (tool->kind() == kind) return *tool;
    throw Error(ErrorCode::InvalidArgument, "the session has no such tool");
}

RemoveObjectTool& Session::remove_object() {
    return static_cast<RemoveObjectTool&>(tool(ToolKind::RemoveObject));
}

RetargetTool& Session::retarget() {
    return static_cast<RetargetTool&>(tool(ToolKind::Retarget));
}

RegionsTool& Session::regions() {
    return static_cast<RegionsTool&>(tool(ToolKind::Regions));
}

LineTool& Session::line() {
    return static_cast<LineTool&>(tool(ToolKind::LineHistogram));
}

FilterTool& Session::filter() {
    return static_cast<FilterTool&>(tool(ToolKind::Filter));
}

const FilterTool& Session::filter() const {
    return static_cast<const FilterTool&>(tool(ToolKind::Filter));
}

bool Session::document_held() const {
    return std::any_of(tools_.begin(), tools_.end(),
                       [](const auto& tool) { return tool->holds_document(); });
}

void Session::open(ImageRgba8 pixels, io::Metadata metadata) {
    open_document(std::move(pixels), std::move(metadata), nullptr);
}

void Session::open_document(ImageRgba8 pixels, io::Metadata metadata,
                            std::unique_ptr<VideoClip> clip) {
    if (pixels.empty()) throw Error(ErrorCode::EmptyImage, "the image is empty");
    for (const auto& tool : tools_) tool->document_closing();
    const bool device =
        use_device_ && select_backend(BackendRequest::Auto).backend == Backend::Cuda;
    try {
        document_.open(clone(pixels.view()), device);
    } catch (const Error& e) {
        // The editor lets Lacuna choose the device: the fallback policy's Auto.
        if (!falls_back_to_cpu(BackendRequest::Auto, e)) throw;
        // The next document tries the device again (a smaller image may fit).
        notice(std::string("The GPU cannot hold this image (") + e.what() +
               "); editing on the CPU.");
        document_.open(std::move(pixels), false);
    }
    metadata_ = std::move(metadata);
    pages_.clear();
    page_ = 0;
    // The clip is there before the tools hear of the document: the retarget tool's maps of
    // its first frame take the clip's importance at once.
    video_removal_.reset();
    clip_importance_.reset();
    if (clip)
        video_removal_ = std::make_unique<VideoRemoval>(clip->path(), clip->frame_count(),
                                                        clip->current_frame().width(),
                                                        clip->current_frame().height());
    video_ = std::move(clip);
    video_frame_revision_ = document_.pixels_revision();
    after_open();
}

std::vector<std::string> Session::save(const std::filesystem::path& path,
                                       io::WriteOptions options) const {
    options.metadata = &metadata_;
    // Formats that hold a calibration store it (io::format_keeps_calibration); others ignore it.
    if (document_.measurement()) {
        options.calibration = &document_.calibration();
        options.spacing = &document_.spacing();  // TIFF carries the pixel size
    }
    return document_.measurement() ? io::write_native(path, document_.samples(), options)
                                   : io::write_image(path, document_.pixels().view(), options);
}

void Session::open_video(const std::filesystem::path& path) {
    auto clip = std::make_unique<VideoClip>(path);
    ImageRgba8 first = clone(clip->current_frame().view());
    open_document(std::move(first), {}, std::move(clip));
}

void Session::set_video_faces(const bool on) {
    VideoExportSettings settings = video_export_;
    settings.faces = on;
    set_video_export_settings(settings);
}

void Session::set_video_export_settings(const VideoExportSettings& settings) {
    if (settings == video_export_) return;
    const bool faces_changed = settings.faces != video_export_.faces;
    video_export_ = settings;
    if (!video_) return;
    // The faces change the frame's map (and with it the seams); the rest only what the export
    // carves with it.
    if (faces_changed)
        retarget().importance_inputs_changed();
    else
        retarget().export_settings_changed();
}

Session::VideoExport Session::prepare_video_export(const std::filesystem::path& output) const {
    return prepare_video_export(output, video_export_.temporal, video_export_.approximate,
                                video_export_.term, video_export_.faces);
}

std::shared_ptr<ClipImportance> Session::shown_clip_importance() {
    if (!video_ || document_.empty() || document_.measurement() ||
        document_.pixels_revision() != video_frame_revision_)
        return nullptr;
    // The export's own settings for the importance (prepare_video_export), so the preview
    // cannot drift from what is written.
    const ClipImportanceSettings settings =
        clip_importance_settings(prepare_video_export({}).options);
    if (!clip_importance_ || !clip_importance_->settings().same(settings))
        clip_importance_ = std::make_shared<ClipImportance>(settings);
    return clip_importance_;
}

Mask Session::shown_removal_mask() const {
    const Mask& coverage = document_.mask(MaskLayer::Fill);
    Mask hole(coverage.width(), coverage.height(), 0);
    for (int y = 0; y < coverage.height(); ++y) {
        const std::uint8_t* in = coverage.row(y);
        std::uint8_t* out = hole.row(y);
        for (int x = 0; x < coverage.width(); ++x) out[x] = in[x] >= 128 ? 255 : 0;
    }
    return hole;
}

bool Session::removal_mask_edited() const {
    if (!video_ || !video_removal_) return false;
    const Mask shown = shown_removal_mask();
    const Mask* model = video_removal_->mask_at(video_->current());
    if (model == nullptr) return count_selected(shown.view()) > 0;
    for (int y = 0; y < shown.height(); ++y)
        for (int x = 0; x < shown.width(); ++x)
            if ((shown.at(x, y) != 0) != (model->at(x, y) != 0)) return true;
    return false;
}

void Session::take_removal_key() {
    if (!video_ || !video_removal_) return;
    // A still mask lives on its first key: editing it on any frame edits that one.
    const std::vector<int> keys = video_removal_->key_frames();
    const int frame = video_removal_->still() && !keys.empty() ? keys.front() : video_->current();
    video_removal_->set_key(frame, shown_removal_mask());
}

void Session::show_removal_mask() {
    if (!video_ || !video_removal_ || document_.empty()) return;
    const Mask* model = video_removal_->mask_at(video_->current());
    const int w = document_.width(), h = document_.height();
    const Mask region = model != nullptr && model->width() == w && model->height() == h
                            ? clone(model->view())
                            : Mask(w, h, std::uint8_t{0});
    document_.write_mask(MaskLayer::Fill, {0, 0, w - 1, h - 1}, region);
    video_fill_mask_revision_ = document_.mask_revision(MaskLayer::Fill);
    frame_changed();
}

void Session::set_video_fill_shown(const bool on) {
    video_fill_on_ = on;
    if (on) video_fill_mask_revision_ = document_.mask_revision(MaskLayer::Fill);
    frame_changed();
}

void Session::set_video_fill_compare(const bool on) {
    video_fill_compare_ = on;
    frame_changed();
}

const ImageRgba8* Session::video_fill_frame() const {
    if (!video_fill_on_ || !video_ || !video_removal_ || document_.empty()) return nullptr;
    // Painted on since the model's mask was put there: the stroke is shown, not the preview.
    if (document_.mask_revision(MaskLayer::Fill) != video_fill_mask_revision_) return nullptr;
    const ImageRgba8* filled = video_removal_->preview_at(video_->current());
    if (filled == nullptr) return nullptr;
    return video_fill_compare_ ? &video_->current_frame() : filled;
}

void Session::show_video_frame(const int index) {
    if (!video_) return;
    const int before = video_->current();
    const ImageRgba8& frame = video_->seek(index);
    if (video_->current() == before) return;
    for (const auto& tool : tools_) tool->document_closing();
    std::array<Mask, kMaskLayers> masks;
    for (int i = 0; i < kMaskLayers; ++i)
        masks[static_cast<std::size_t>(i)] =
            clone(document_.mask(static_cast<MaskLayer>(i)).view());
    // A device failure moves the session to the host; the frame is then replaced there.
    if (!guarded([&] { document_.replace(frame, masks); })) document_.replace(frame, masks);
    video_frame_revision_ = document_.pixels_revision();
    history_.clear();
    // A temporal smoothing preview follows the frame; the line's histogram is measured again.
    for (const auto& tool : tools_) tool->document_changed(DocumentChange::VideoFrame);
    frame_changed();
}

Session::VideoExport Session::prepare_video_export(const std::filesystem::path& output,
                                                   const double temporal, const int approximate,
                                                   const ops::TemporalTerm term,
                                                   const bool faces) const {
    if (!video_) throw Error(ErrorCode::InvalidArgument, "no video is open");
    VideoExport job;
    video::RetargetVideoOptions& o = job.options;
    o.input = video_->path();
    o.output = output;
    const RetargetTool& retarget = static_cast<const RetargetTool&>(tool(ToolKind::Retarget));
    o.params.width = retarget.target_width();
    o.params.height = retarget.target_height();
    o.params.energy = retarget.energy();
    o.params.temporal = temporal;
    o.params.approximate = approximate;
    o.params.term = term;
    o.importance = retarget.mix().importance;
    o.importance.faces = faces;
    o.params.importance_unit = ops::importance_unit(o.params.energy);
    if (document_.mask_painted(MaskLayer::Protect)) {
        job.protect =
            std::make_shared<const Mask>(clone(document_.mask(MaskLayer::Protect).view()));
        o.params.protect = job.protect.get();
    }
    o.implementation = select_backend(BackendRequest::Auto).backend == Backend::Cuda
                           ? ops::CarveImplementation::Cuda
                           : ops::CarveImplementation::Fast;
    return job;
}

video::RetargetVideoResult Session::export_video(const std::filesystem::path& output,
                                                 const double temporal,
                                                 const video::VideoProgressFn& progress,
                                                 const int approximate,
                                                 const ops::TemporalTerm term, const bool faces) {
    const VideoExport job = prepare_video_export(output, temporal, approximate, term, faces);
    return video::retarget_video(job.options, progress);
}

void Session::set_display_profile(std::vector<std::uint8_t> profile) {
    // Little CMS must accept it before it replaces the one in use.
    if (!profile.empty()) (void)render::profile_description(profile);
    display_profile_ = std::move(profile);
    display_lut_stale_ = true;
    frame_changed();
}

void Session::refresh_display_lut() {
    if (!display_lut_stale_) return;
    display_lut_stale_ = false;
    ++display_lut_serial_;
    display_lut_.reset();
    // Measurement documents are coloured by their LUT, not by a profile; photos convert.
    if (document_.empty() || document_.measurement() || metadata_.icc.empty()) return;
    try {
        display_lut_ = render::make_display_lut(metadata_.icc, display_profile_);
    } catch (const Error& e) {
        notice(std::string("The image's colour profile cannot be used (") + e.what() +
               "); colours are shown as stored.");
    }
}

std::string Session::colour_conversion() {
    refresh_display_lut();
    return display_lut_ ? display_lut_->description : std::string();
}

void Session::after_open() {
    display_lut_stale_ = true;
    frame_interval_.reset();
    history_.clear();
    for (const auto& tool : tools_) tool->document_opened();
    presented_->valid = false;
    frame_changed();
    if (on_document_changed) on_document_changed();
}

void Session::open_measurement(std::vector<NativeImage> pages, Calibration calibration,
                               const std::optional<DisplayWindow> window, io::Metadata metadata) {
    if (pages.empty() || pages.front().empty())
        throw Error(ErrorCode::EmptyImage, "the image is empty");
    for (const auto& tool : tools_) tool->document_closing();
    const bool device =
        use_device_ && select_backend(BackendRequest::Auto).backend == Backend::Cuda;
    // A single page moves into the document: the stack is kept only when there is one, so a
    // plain measurement is held once.
    const bool stack = pages.size() > 1;
    try {
        document_.open_measurement(stack ? pages.front() : std::move(pages.front()), calibration,
                                   device);
    } catch (const Error& e) {
        if (!device) throw;
        // Out of device memory, or rows too wide for a device image: the host can hold it. The
        // document takes its samples before the device part, so they are there unless a stack's
        // copy failed.
        notice(std::string("The GPU cannot hold this image (") + e.what() +
               "); editing on the CPU.");
        document_.leave_device();
        if (!document_.measurement()) document_.open_measurement(pages.front(), calibration, false);
    }
    metadata_ = std::move(metadata);
    pages_.clear();
    if (stack) pages_ = std::move(pages);
    page_ = 0;
    video_.reset();
    video_removal_.reset();
    clip_importance_.reset();
    if (window) {
        display_.window = *window;
    } else {
        const ImageF32 values = measurement_plane(document_.samples(), document_.calibration());
        const auto [lo, hi] = auto_window(values.view());
        display_.window = {lo, hi};
    }
    display_.lut = Lut::Grey;
    after_open();
}

void Session::show_page(const int index) {
    if (pages_.size() < 2) return;
    const int clamped = std::clamp(index, 0, page_count() - 1);
    if (clamped == page_) return;
    const NativeImage& next = pages_[static_cast<std::size_t>(clamped)];
    // A device failure moves the session to the host; the page is then replaced there.
    if (!guarded([&] { document_.replace_samples(next); })) document_.replace_samples(next);
    page_ = clamped;
    for (const auto& tool : tools_) tool->document_changed(DocumentChange::Page);
    frame_changed();
}

void Session::set_window(const DisplayWindow window) {
    display_.window = window;
    frame_changed();
}

void Session::set_lut(const Lut lut) {
    display_.lut = lut;
    frame_changed();
}

void Session::set_mark_clipped(const bool on) {
    display_.mark_clipped = on;
    frame_changed();
}

void Session::auto_contrast(const double saturated) {
    if (document_.empty()) return;
    const ImageF32 values = document_.measurement()
                                ? measurement_plane(document_.samples(), document_.calibration())
                                : measurement_plane(to_native(document_.pixels().view()));
    const auto [lo, hi] = auto_window(values.view(), saturated);
    set_window({lo, hi});
}

void Session::set_calibration(Calibration calibration) {
    // The window shows the same stored samples under the new calibration.
    const Calibration& old = document_.calibration();
    const auto to_sample = [&](const double v) { return (v - old.intercept) / old.slope; };
    DisplayWindow window{calibration.apply(to_sample(display_.window.lo)),
                         calibration.apply(to_sample(display_.window.hi))};
    if (window.hi < window.lo) std::swap(window.lo, window.hi);
    document_.set_calibration(std::move(calibration));
    display_.window = window;
    for (const auto& tool : tools_) tool->document_changed(DocumentChange::Calibration);
    frame_changed();
}

void Session::set_spacing(PixelSpacing spacing) {
    Edit edit;
    edit.label = "Set Scale";
    edit.spacing = std::array<PixelSpacing, 2>{document_.spacing(), spacing};
    document_.set_spacing(std::move(spacing));
    push(std::move(edit));
}

std::optional<Session::Readout> Session::readout(const double x, const double y) const {
    if (document_.empty() || x < 0 || y < 0) return std::nullopt;
    const int ix = static_cast<int>(x), iy = static_cast<int>(y);
    if (ix >= document_.width() || iy >= document_.height()) return std::nullopt;
    Readout r;
    r.x = ix;
    r.y = iy;
    if (document_.measurement()) {
        const NativeImage& s = document_.samples();
        r.channels = s.channels();
        for (int c = 0; c < r.channels; ++c) r.raw[std::size_t(c)] = s.sample(ix, iy, c);
    } else {
        const Rgba8 p = document_.pixels().at(ix, iy);
        r.channels = 4;
        r.raw = {double(p.r), double(p.g), double(p.b), double(p.a)};
    }
    const double measured =
        r.channels == 1 ? r.raw[0] : 0.2126 * r.raw[0] + 0.7152 * r.raw[1] + 0.0722 * r.raw[2];
    r.value = document_.calibration().apply(measured);
    r.unit = document_.calibration().unit;
    return r;
}

void Session::select(const ToolKind kind) {
    if (kind == active_ || kind == ToolKind::Filter) return;
    if (Tool* tool = active_tool()) tool->deactivate();
    active_ = kind;
    if (Tool* tool = active_tool()) tool->activate();
    frame_changed();
    if (on_tool_selected) on_tool_selected();
}

Tool* Session::active_tool() const {
    return active_ == ToolKind::Pan ? nullptr : &tool(active_);
}

void Session::changed(const DocumentChange change) {
    for (const auto& tool : tools_) tool->document_changed(change);
    frame_changed();
    if (on_document_changed) on_document_changed();
}

void Session::sync_pages() {
    if (!document_.measurement() || pages_.size() < 2) return;
    const NativeImage& shown = document_.samples();
    if (shown.width() == pages_.front().width() && shown.height() == pages_.front().height()) {
        // A fill (or its undo) edits the page on show: flipping away and back keeps it.
        pages_[static_cast<std::size_t>(page_)] = shown;
        return;
    }
    // A retarget changed the size: the other pages cannot be shown beside it any more. The file
    // on disk keeps them all.
    notice("Retargeting page " + std::to_string(page_ + 1) + " closed the stack's other " +
           std::to_string(pages_.size() - 1) + " pages; the file still holds them.");
    pages_.clear();  // a single image now: held once, by the document
    page_ = 0;
}

void Session::push(Edit edit) {
    history_.push(std::move(edit));
    sync_pages();
    changed(DocumentChange::Edit);
}

bool Session::undo() {
    if (document_held()) return false;  // a running fill owns the pixels until it ends
    bool done = false;
    // After a device failure the session is on the host with the document intact: the same
    // undo lands there (History applies an edit before it moves its index).
    if (!guarded([&] { done = history_.undo(document_); })) done = history_.undo(document_);
    sync_pages();
    changed(DocumentChange::Edit);
    return done;
}

bool Session::redo() {
    if (document_held()) return false;
    bool done = false;
    // After a device failure the session is on the host with the document intact: the same
    // redo lands there (History applies an edit before it moves its index).
    if (!guarded([&] { done = history_.redo(document_); })) done = history_.redo(document_);
    sync_pages();
    changed(DocumentChange::Edit);
    return done;
}

bool Session::poll() {
    bool running = false;
    for (const auto& tool : tools_) running = tool->poll() || running;
    return running;
}

bool Session::guarded(const std::function<void()>& work) {
    if (inject_after_ >= 0 && on_device() && inject_after_-- == 0) {
        leave_device("simulated device failure");
        return false;
    }
    try {
        work();
        return true;
    } catch (const Error& e) {
        if (!on_device() || !falls_back_to_cpu(BackendRequest::Auto, e)) throw;
        leave_device(e.what());
        return false;
    }
}

void Session::leave_device(const std::string& reason, const bool gpu_still_usable) {
    if (!on_device()) return;
    for (const auto& tool : tools_) tool->device_copy_ending();
    document_.leave_device();
    // Without interop no later document can be presented from the device either; after a
    // device error the next document tries again.
    if (gpu_still_usable) use_device_ = false;
    notice(gpu_still_usable
               ? "Editing on the host (" + reason + "); seam maps are still carved on the GPU."
               : "The GPU failed (" + reason +
                     "); editing continues on the CPU with the document intact.");
    for (const auto& tool : tools_) tool->device_lost(gpu_still_usable);
    presented_->valid = false;
    frame_changed();
}

std::vector<std::string> Session::take_notices() {
    return std::exchange(notices_, {});
}

void Session::notice(std::string text) {
    notices_.push_back(std::move(text));
}

bool Session::wants_map_ahead() const {
    return on_device() && std::any_of(tools_.begin(), tools_.end(), [&](const auto& tool) {
               return tool->wants_map_ahead(active_);
           });
}

std::optional<PreviewFrame> Session::shown_preview() const {
    for (std::size_t i = 0; i < tools_.size(); ++i)
        if (std::optional<PreviewFrame> frame = tools_[i]->preview(active_)) {
            // The top bits say which tool (1 + its place), so two tools' frames never share a
            // key in what the renderer holds; the document's revision keeps them clear.
            frame->serial ^= static_cast<std::uint64_t>(i + 1) << 58;
            return frame;
        }
    // The Video dock's fill preview (after the tools: a filter preview open stays in front).
    if (const ImageRgba8* filled = video_fill_frame()) {
        PreviewFrame frame;
        frame.host = filled;
        frame.width = filled->width();
        frame.height = filled->height();
        frame.serial = (video_removal_->preview_serial() << 24) ^
                       (static_cast<std::uint64_t>(video_->current()) << 1) ^
                       (video_fill_compare_ ? 1u : 0u) ^
                       (static_cast<std::uint64_t>(tools_.size() + 1) << 58);
        return frame;
    }
    return std::nullopt;
}

bool Session::proxy_shown(const bool previewing) const {
    return previewing || (document_.measurement() &&
                          std::any_of(tools_.begin(), tools_.end(),
                                      [](const auto& tool) { return tool->shows_proxy(); }));
}

int Session::shown_width() const {
    const std::optional<PreviewFrame> frame = shown_preview();
    return frame ? frame->width : document_.width();
}

int Session::shown_height() const {
    const std::optional<PreviewFrame> frame = shown_preview();
    return frame ? frame->height : document_.height();
}

namespace {

// A proxy frame's levels as 8-bit samples: the red channel of a grey measurement, or R, G, B.
NativeImage proxy_levels(const ImageRgba8& frame, const int channels) {
    NativeImage levels(frame.width(), frame.height(), {SampleType::U8, channels});
    for (int y = 0; y < frame.height(); ++y)
        for (int x = 0; x < frame.width(); ++x) {
            const Rgba8 p = frame.at(x, y);
            const std::uint8_t rgb[3] = {p.r, p.g, p.b};
            for (int c = 0; c < channels; ++c) levels.set_sample(x, y, c, rgb[c]);
        }
    return levels;
}

}  // namespace

ImageRgba8 Session::shown_image() const {
    const std::optional<PreviewFrame> preview = shown_preview();
    const auto frame_pixels = [](const PreviewFrame& frame) {
        return frame.device != nullptr ? frame.device->download() : clone(frame.host->view());
    };
    if (!document_.measurement())
        return preview ? frame_pixels(*preview) : clone(document_.pixels().view());
    if (!proxy_shown(preview.has_value()))
        return render_display(document_.samples(), document_.calibration(), display_.window,
                              display_.lut, display_.mark_clipped);
    // A preview, or the proxy a running fill paints: 8-bit levels through the proxy's
    // calibration.
    const ImageRgba8 frame = preview ? frame_pixels(*preview)
                             : on_device()
                                 ? const_cast<Document&>(document_).device_pixels().download()
                                 : clone(document_.pixels().view());
    const int channels = document_.samples().channels() == 1 ? 1 : 3;
    return render_display(proxy_levels(frame, channels), document_.proxy_calibration(),
                          display_.window, display_.lut, display_.mark_clipped);
}

void Session::present(render::ImageRenderer& renderer) {
    Presented& p = *presented_;
    const std::optional<PreviewFrame> shown = shown_preview();
    const bool preview = shown.has_value();
    const std::uint64_t image_key = preview ? shown->serial : document_.pixels_revision();
    // The tint: the active tool's mask layer, never over a preview.
    std::optional<int> layer;
    if (!preview) {
        if (const Tool* tool = active_tool()) layer = tool->overlay().mask_layer;
    }
    const std::uint64_t mask_key =
        layer ? document_.mask_revision(static_cast<MaskLayer>(*layer)) : 0;
    // While a fill runs on a measurement, the filler paints the proxy: that is shown until its
    // samples land. A preview of a measurement is made of proxy pixels too.
    const bool proxy_view = proxy_shown(preview);
    const bool image_stale = !p.valid || p.preview != proxy_view || p.image_key != image_key;
    const bool mask_stale =
        !p.valid || p.mask_layer != layer || p.mask_key != mask_key || image_stale;
    // The window and LUT are uniforms: set every frame, never a reason to upload. Proxy levels
    // map through the proxy's calibration to the same values.
    const bool measurement = document_.measurement();
    if (measurement)
        renderer.set_sample_mapping(
            {proxy_view ? document_.proxy_calibration() : document_.calibration(), display_.window,
             display_.lut, display_.mark_clipped});
    const int proxy_channels = document_.samples().channels() == 1 ? 1 : 3;
    // The colour table is a texture of its own: set when the document or display changes.
    refresh_display_lut();
    if (!p.valid || p.display_lut_serial != display_lut_serial_) {
        renderer.set_display_lut(display_lut_ ? &*display_lut_ : nullptr);
        p.display_lut_serial = display_lut_serial_;
    }
    if (!image_stale && !mask_stale) return;
    if (document_.empty()) {
        renderer.set_image(ImageView<const Rgba8>{});
        renderer.set_mask(ImageView<const std::uint8_t>{});
        return;
    }
    if (on_device()) {
        std::string error;
        bool ok = true;
        if (image_stale && measurement && !proxy_view) {
            // Device samples straight into the texture; 3-channel textures cannot be
            // registered with CUDA, so those come from the host copy (only when they change).
            if (!renderer.set_samples(document_.device_samples(), document_.format(),
                                      document_.width(), error)) {
                // Only when the samples change (open, a page): the view itself stays a uniform
                // change. Said once, so a missing interop path is visible.
                const PixelFormat f = document_.format();
                const bool expected = f.channels == 3 || f.sample == SampleType::I16;
                if (!expected && !samples_from_host_noted_) {
                    notice("Measurement samples are presented from the host copy (" + error + ").");
                    samples_from_host_noted_ = true;
                }
                renderer.set_samples(document_.samples());
            }
        } else if (image_stale) {
            if (preview && shown->device == nullptr && shown->host != nullptr) {
                // A frame made on the host (the picture before a fill, uploaded once per press;
                // a filter that ran on the host after the device failed during it).
                renderer.set_image(shown->host->view());
            } else {
                const DeviceImage<Rgba8>* frame = preview && shown->device != nullptr
                                                      ? shown->device
                                                      : &document_.device_pixels();
                ok = renderer.set_image(*frame, error);
            }
            if (ok && measurement) renderer.set_image_as_samples(proxy_channels);
        }
        if (ok && mask_stale) {
            if (layer)
                ok =
                    renderer.set_mask(document_.device_mask(static_cast<MaskLayer>(*layer)), error);
            else
                renderer.set_mask(ImageView<const std::uint8_t>{});
        }
        if (!ok) {
            // Without interop the device document would have to be downloaded for every frame:
            // the host path is faster then, and gives the same pixels.
            leave_device("CUDA–GL interop is not available: " + error, true);
            present(renderer);
            return;
        }
    } else {
        if (image_stale && measurement && !proxy_view) {
            renderer.set_samples(document_.samples());
        } else if (image_stale) {
            const ImageRgba8* frame =
                preview && shown->host != nullptr ? shown->host : &document_.pixels();
            renderer.set_image(frame->view());
            if (measurement) renderer.set_image_as_samples(proxy_channels);
        }
        if (mask_stale)
            renderer.set_mask(layer ? document_.mask(static_cast<MaskLayer>(*layer)).view()
                                    : ImageView<const std::uint8_t>{});
    }
    p.valid = true;
    p.preview = proxy_view;
    p.image_key = image_key;
    p.mask_layer = layer;
    p.mask_key = mask_key;
}

}  // namespace lacuna::session
