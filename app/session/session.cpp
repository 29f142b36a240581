#include "session.hpp"

#include "line_tool.hpp"
#include "remove_object_tool.hpp"
#include "retarget_tool.hpp"

#include <lacuna/core/backend.hpp>
#include <lacuna/render/image_renderer.hpp>

#include <utility>

namespace lacuna::session {

bool is_device_failure(const Error& e) {
    return e.code() == ErrorCode::DeviceError || e.code() == ErrorCode::OutOfMemory ||
           e.code() == ErrorCode::CudaUnavailable;
}

/// What the renderer holds, so present() uploads only what changed.
struct Session::Presented {
    bool valid = false;
    bool preview = false;
    std::uint64_t image_key = 0;
    std::optional<int> mask_layer;
    std::uint64_t mask_key = 0;
};

Session::Session(const bool use_device)
    : use_device_(use_device),
      remove_object_(std::make_unique<RemoveObjectTool>(*this)),
      retarget_(std::make_unique<RetargetTool>(*this)),
      line_(std::make_unique<LineTool>(*this)),
      presented_(std::make_unique<Presented>()) {
    retarget_->set_carve_backend(select_backend(BackendRequest::Auto).backend);
}

Session::~Session() {
    remove_object_->cancel_fill();
}

void Session::open(ImageRgba8 pixels) {
    if (pixels.empty()) throw Error(ErrorCode::EmptyImage, "the image is empty");
    remove_object_->cancel_fill();
    const bool device =
        use_device_ && select_backend(BackendRequest::Auto).backend == Backend::Cuda;
    try {
        document_.open(clone(pixels.view()), device);
    } catch (const Error& e) {
        if (!is_device_failure(e)) throw;
        // The next document tries the device again (a smaller image may fit).
        notice(std::string("The GPU cannot hold this image (") + e.what() +
               "); editing on the CPU.");
        document_.open(std::move(pixels), false);
    }
    if (document_.on_device()) retarget_->set_carve_backend(Backend::Cuda);
    history_.clear();
    line_->reset();
    retarget_->restart();
    presented_->valid = false;
    frame_changed();
    if (on_document_changed) on_document_changed();
}

void Session::select(const ToolKind kind) {
    if (kind == active_) return;
    if (Tool* tool = active_tool()) tool->deactivate();
    active_ = kind;
    if (Tool* tool = active_tool()) tool->activate();
    frame_changed();
}

Tool* Session::active_tool() {
    switch (active_) {
        case ToolKind::RemoveObject:
            return remove_object_.get();
        case ToolKind::Retarget:
            return retarget_.get();
        case ToolKind::LineHistogram:
            return line_.get();
        case ToolKind::Pan:
            return nullptr;
    }
    return nullptr;
}

namespace {
void after_edit(Session& session, RetargetTool& retarget, LineTool& line) {
    retarget.refresh();
    line.document_changed();
    session.frame_changed();
    if (session.on_document_changed) session.on_document_changed();
}
}  // namespace

void Session::push(Edit edit) {
    history_.push(std::move(edit));
    after_edit(*this, *retarget_, *line_);
}

bool Session::undo() {
    if (remove_object_->fill_running()) return false;  // the fill owns the pixels until it ends
    bool done = false;
    guarded([&] { done = history_.undo(document_); });
    after_edit(*this, *retarget_, *line_);
    return done;
}

bool Session::redo() {
    if (remove_object_->fill_running()) return false;
    bool done = false;
    guarded([&] { done = history_.redo(document_); });
    after_edit(*this, *retarget_, *line_);
    return done;
}

bool Session::poll() {
    bool running = retarget_->poll();
    if (remove_object_->fill_running()) {
        remove_object_->step(30.0);
        running = running || remove_object_->fill_running();
    }
    return running;
}

bool Session::guarded(const std::function<void()>& work) {
    if (inject_failure_ && on_device()) {
        inject_failure_ = false;
        leave_device("simulated device failure");
        return false;
    }
    try {
        work();
        return true;
    } catch (const Error& e) {
        if (!on_device() || !is_device_failure(e)) throw;
        leave_device(e.what());
        return false;
    }
}

void Session::leave_device(const std::string& reason, const bool gpu_still_usable) {
    if (!on_device()) return;
    document_.leave_device();
    // Without interop no later document can be presented from the device either; after a
    // device error the next document tries again.
    if (gpu_still_usable) use_device_ = false;
    notice(gpu_still_usable
               ? "Editing on the host (" + reason + "); seam maps are still carved on the GPU."
               : "The GPU failed (" + reason +
                     "); editing continues on the CPU with the document intact.");
    remove_object_->device_lost();
    retarget_->set_carve_backend(gpu_still_usable ? Backend::Cuda : Backend::Cpu);
    retarget_->device_lost();
    line_->device_lost();
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
    return on_device() && (active_ == ToolKind::RemoveObject || active_ == ToolKind::Retarget ||
                           remove_object_->fill_running());
}

bool Session::showing_preview() const {
    return retarget_->previewing() && (active_ == ToolKind::Pan || active_ == ToolKind::Retarget);
}

int Session::shown_width() const {
    return showing_preview() ? retarget_->frame_width() : document_.width();
}

int Session::shown_height() const {
    return showing_preview() ? retarget_->frame_height() : document_.height();
}

ImageRgba8 Session::shown_image() const {
    if (showing_preview()) {
        if (const DeviceImage<Rgba8>* frame = retarget_->device_frame()) return frame->download();
        if (const ImageRgba8* frame = retarget_->host_frame()) return clone(frame->view());
    }
    return clone(document_.pixels().view());
}

void Session::present(render::ImageRenderer& renderer) {
    Presented& p = *presented_;
    const bool preview = showing_preview();
    const std::uint64_t image_key =
        preview ? retarget_->preview_serial() : document_.pixels_revision();
    // The tint: the active tool's mask layer, never over a preview.
    std::optional<int> layer;
    if (!preview) {
        if (const Tool* tool = const_cast<Session*>(this)->active_tool())
            layer = tool->overlay().mask_layer;
    }
    const std::uint64_t mask_key =
        layer ? document_.mask_revision(static_cast<MaskLayer>(*layer)) : 0;
    const bool image_stale = !p.valid || p.preview != preview || p.image_key != image_key;
    const bool mask_stale =
        !p.valid || p.mask_layer != layer || p.mask_key != mask_key || image_stale;
    if (!image_stale && !mask_stale) return;
    if (document_.empty()) {
        renderer.set_image(ImageView<const Rgba8>{});
        renderer.set_mask(ImageView<const std::uint8_t>{});
        return;
    }
    if (on_device()) {
        std::string error;
        bool ok = true;
        if (image_stale) {
            const DeviceImage<Rgba8>* frame = preview ? retarget_->device_frame() : nullptr;
            if (frame == nullptr) frame = &document_.device_pixels();
            ok = renderer.set_image(*frame, error);
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
        if (image_stale) {
            const ImageRgba8* frame = preview ? retarget_->host_frame() : &document_.pixels();
            renderer.set_image(frame != nullptr ? frame->view() : document_.pixels().view());
        }
        if (mask_stale)
            renderer.set_mask(layer ? document_.mask(static_cast<MaskLayer>(*layer)).view()
                                    : ImageView<const std::uint8_t>{});
    }
    p.valid = true;
    p.preview = preview;
    p.image_key = image_key;
    p.mask_layer = layer;
    p.mask_key = mask_key;
}

}  // namespace lacuna::session
