#include "canvas.hpp"

#include <lacuna/core/error.hpp>
#include <lacuna/render/image_renderer.hpp>

#include <QDragEnterEvent>
#include <QDropEvent>
#include <QMimeData>
#include <QMouseEvent>
#include <QOpenGLContext>
#include <QWheelEvent>

#include <cmath>

namespace lacuna::editor {

Canvas::Canvas(QWidget* parent)
    : QOpenGLWidget(parent), renderer_(std::make_unique<render::ImageRenderer>()) {
    setAcceptDrops(true);
    setMouseTracking(true);
    setMinimumSize(320, 240);
    setFocusPolicy(Qt::StrongFocus);
}

Canvas::~Canvas() {
    // GL objects must die with their context current. QOpenGLWidget destroys the context after
    // our members are gone, so stop listening to it first.
    release_gl();
    if (context() != nullptr) disconnect(context(), nullptr, this, nullptr);
}

void Canvas::release_gl() {
    if (!renderer_ || !renderer_->initialized()) return;
    if (context() == nullptr) return;
    makeCurrent();
    renderer_->release();
    doneCurrent();
}

void Canvas::initializeGL() {
    std::string error;
    if (!renderer_->initialize(error)) {
        gl_error_ = QString::fromStdString(error);
        return;
    }
    // The context can be destroyed and recreated (re-parenting, screen change): free our GL
    // objects then; the document itself lives outside GL and is uploaded again.
    connect(context(), &QOpenGLContext::aboutToBeDestroyed, this, &Canvas::release_gl,
            Qt::ConnectionType(Qt::DirectConnection | Qt::UniqueConnection));
    image_dirty_ = true;
}

QSize Canvas::framebuffer_size() const {
    const qreal dpr = devicePixelRatioF();
    return {int(std::lround(width() * dpr)), int(std::lround(height() * dpr))};
}

void Canvas::paintGL() {
    if (!renderer_->initialized()) {
        std::string error;
        if (!renderer_->initialize(error)) return;
        image_dirty_ = true;
    }
    if (image_dirty_) {
        upload_displayed_image();
        image_dirty_ = false;
        mask_dirty_ = true;
    }
    if (mask_dirty_) {
        renderer_->set_mask(previewing_ ? ImageView<const std::uint8_t>{} : mask().view());
        mask_dirty_ = false;
    }
    const qreal dpr = devicePixelRatioF();
    const bool brush_tool = tool_ != CanvasTool::Pan && !previewing_;
    renderer_->set_brush(brush_tool && cursor_inside_, {cursor_.x() * dpr, cursor_.y() * dpr},
                         brush_.radius * view_.zoom);
    render::LineOverlay line;
    line.visible = has_line_ && tool_ == CanvasTool::Line && !previewing_;
    if (line.visible) {
        // Pixel-centre coordinates → the continuous image plane (+0.5) → framebuffer pixels.
        line.from = view_.to_screen({line_from_.x + 0.5, line_from_.y + 0.5});
        line.to = view_.to_screen({line_to_.x + 0.5, line_to_.y + 0.5});
        line.band_half_width = line_band_ > 1 ? line_band_ * view_.zoom / 2.0 : 0.0;
        line.marker_visible = line_marker_.has_value();
        line.marker_t = line_marker_.value_or(0.0);
    }
    renderer_->set_line_overlay(line);
    const QSize fb = framebuffer_size();
    renderer_->render(defaultFramebufferObject(), fb.width(), fb.height(), view_);
}

void Canvas::resizeGL(int, int) {
    if (fit_mode_) fit_to_window();
}

void Canvas::set_image(const ImageView<const Rgba8> image) {
    const bool size_changed = image.width != image_.width() || image.height != image_.height();
    image_ = clone(image);
    ++image_revision_;
    image_dirty_ = true;
    for (int layer = 0; layer < kMaskLayers; ++layer) {
        Mask& m = masks_[static_cast<std::size_t>(layer)];
        if (m.width() == image_.width() && m.height() == image_.height()) continue;
        m = Mask(image_.width(), image_.height(), 0);
        touch_mask(static_cast<MaskLayer>(layer));
    }
    mask_dirty_ = true;
    if (size_changed && fit_mode_) fit_to_window();
    update();
}

void Canvas::set_cuda_present(const bool on) {
    cuda_present_ = on;
    interop_status_ = on ? tr("CUDA–GL interop requested") : tr("host upload");
    image_dirty_ = true;
    update();
}

void Canvas::upload_displayed_image() {
    const ImageRgba8& shown = previewing_ ? preview_ : image_;
    if (cuda_present_ && !shown.empty()) {
        try {
            // The device copy has grow-only capacity, so slider frames do not reallocate.
            if (!device_image_) device_image_ = std::make_unique<DeviceImage<Rgba8>>();
            device_image_->resize(shown.width(), shown.height());
            device_image_->upload(shown.view());
            std::string error;
            if (renderer_->set_image(*device_image_, error)) {
                interop_status_ = tr("CUDA–GL interop");
                return;
            }
            interop_status_ =
                tr("host upload (interop unavailable: %1)").arg(QString::fromStdString(error));
        } catch (const Error& e) {
            interop_status_ = tr("host upload (%1)").arg(QString::fromStdString(e.what()));
        }
        cuda_present_ = false;  // do not retry every frame; the host path gives the same pixels
    }
    renderer_->set_image(shown.view());
}

void Canvas::set_preview(const ImageView<const Rgba8> preview) {
    preview_ = clone(preview);
    previewing_ = true;
    image_dirty_ = true;
    update();
}

void Canvas::clear_preview() {
    if (!previewing_) return;
    previewing_ = false;
    preview_ = ImageRgba8();
    image_dirty_ = true;
    update();
}

void Canvas::set_mask(const MaskLayer layer, const Mask& mask) {
    masks_[static_cast<std::size_t>(layer)] = clone(mask.view());
    touch_mask(layer);
    mask_dirty_ = true;
    update();
}

void Canvas::set_layer(const MaskLayer layer) {
    layer_ = layer;
    // Red: remove (fill, or carve first); green: protect.
    renderer_->set_mask_tint(layer == MaskLayer::Protect ? render::Rgb{0.1f, 0.9f, 0.3f}
                                                         : render::Rgb{1.0f, 0.15f, 0.35f},
                             0.55f);
    mask_dirty_ = true;
    update();
}

void Canvas::restore_region(const PixelRect& rect, const ImageRgba8* pixels, const Mask* mask,
                            const MaskLayer layer) {
    if (pixels != nullptr) {
        paste_region(image_, rect, *pixels);
        ++image_revision_;
        image_dirty_ = true;
    }
    if (mask != nullptr) {
        paste_region(masks_[static_cast<std::size_t>(layer)], rect, *mask);
        touch_mask(layer);
        mask_dirty_ = true;
    }
    update();
}

void Canvas::set_line(const render::PointF from, const render::PointF to) {
    line_from_ = from;
    line_to_ = to;
    has_line_ = true;
    update();
    emit line_changed(from, to);
}

void Canvas::set_line_band(const int samples) {
    line_band_ = std::max(1, samples);
    update();
}

void Canvas::set_line_marker(const std::optional<double> t) {
    line_marker_ = t;
    update();
}

std::optional<double> Canvas::line_fraction_at(const QPointF& widget_point) const {
    if (!has_line_) return std::nullopt;
    const render::PointF p = image_point(widget_point);
    const double px = p.x - 0.5, py = p.y - 0.5;
    const double dx = line_to_.x - line_from_.x, dy = line_to_.y - line_from_.y;
    const double length2 = dx * dx + dy * dy;
    if (length2 < 1e-12) return std::nullopt;
    const double t = ((px - line_from_.x) * dx + (py - line_from_.y) * dy) / length2;
    if (t < 0 || t > 1) return std::nullopt;
    const double distance =
        std::abs((px - line_from_.x) * dy - (py - line_from_.y) * dx) / std::sqrt(length2);
    // Within the band, or a few screen pixels of a thin line.
    const double reach = std::max(line_band_ / 2.0, 6.0 / view_.zoom);
    return distance <= reach ? std::optional<double>(t) : std::nullopt;
}

bool Canvas::line_press(const QPointF& widget_point) {
    const render::PointF p = image_point(widget_point);
    const render::PointF centre{p.x - 0.5, p.y - 0.5};
    const auto near = [&](const render::PointF end) {
        const render::PointF s = view_.to_screen({end.x + 0.5, end.y + 0.5});
        const qreal dpr = devicePixelRatioF();
        return std::hypot(s.x - widget_point.x() * dpr, s.y - widget_point.y() * dpr) <= 8.0 * dpr;
    };
    if (has_line_ && near(line_to_)) {
        line_drag_ = LineDrag::To;
    } else if (has_line_ && near(line_from_)) {
        line_drag_ = LineDrag::From;
    } else if (line_fraction_at(widget_point)) {
        line_drag_ = LineDrag::Whole;
        line_grab_ = centre;
        line_grab_from_ = line_from_;
        line_grab_to_ = line_to_;
    } else {
        // A new line starts here; dragging moves its far end.
        line_from_ = centre;
        line_to_ = centre;
        has_line_ = true;
        line_drag_ = LineDrag::To;
    }
    return true;
}

void Canvas::line_move(const QPointF& widget_point, const bool snap) {
    const render::PointF p = image_point(widget_point);
    render::PointF centre{p.x - 0.5, p.y - 0.5};
    if (line_drag_ == LineDrag::Whole) {
        const double dx = centre.x - line_grab_.x, dy = centre.y - line_grab_.y;
        line_from_ = {line_grab_from_.x + dx, line_grab_from_.y + dy};
        line_to_ = {line_grab_to_.x + dx, line_grab_to_.y + dy};
    } else {
        const render::PointF anchor = line_drag_ == LineDrag::To ? line_from_ : line_to_;
        if (snap) {
            // Shift: the nearest multiple of 45°, keeping the length.
            const double dx = centre.x - anchor.x, dy = centre.y - anchor.y;
            const double length = std::hypot(dx, dy);
            const double step = 3.14159265358979323846 / 4;
            const double angle = std::round(std::atan2(dy, dx) / step) * step;
            centre = {anchor.x + length * std::cos(angle), anchor.y + length * std::sin(angle)};
            // Axis-aligned ends land on exact pixel centres.
            if (std::abs(std::sin(angle)) < 1e-9) centre.y = anchor.y;
            if (std::abs(std::cos(angle)) < 1e-9) centre.x = anchor.x;
        }
        (line_drag_ == LineDrag::To ? line_to_ : line_from_) = centre;
    }
    update();
    emit line_changed(line_from_, line_to_);
}

void Canvas::set_tool(const CanvasTool tool) {
    tool_ = tool;
    setCursor(tool == CanvasTool::Pan ? Qt::OpenHandCursor : Qt::CrossCursor);
    if (tool != CanvasTool::Line) line_drag_ = LineDrag::None;
    update();
}

void Canvas::set_brush(const BrushSettings& brush) {
    brush_ = brush;
    update();
}

render::PointF Canvas::image_point(const QPointF& widget_point) const {
    const qreal dpr = devicePixelRatioF();
    return view_.to_image({widget_point.x() * dpr, widget_point.y() * dpr});
}

void Canvas::paint_to(const QPointF& widget_point) {
    const render::PointF p = image_point(widget_point);
    BrushSettings brush = brush_;
    brush.erase = tool_ == CanvasTool::Eraser;
    stroke_rect_.unite(paint_segment(active_mask(), last_paint_.x, last_paint_.y, p.x, p.y, brush));
    last_paint_ = p;
    mask_dirty_ = true;
    update();
}

void Canvas::leaveEvent(QEvent*) {
    cursor_inside_ = false;
    update();
}

void Canvas::fit_to_window() {
    fit_mode_ = true;
    const QSize fb = framebuffer_size();
    view_ = render::fit_view(image_.width(), image_.height(), fb.width(), fb.height());
    emit zoom_changed(view_.zoom);
    update();
}

void Canvas::actual_size() {
    fit_mode_ = false;
    const QSize fb = framebuffer_size();
    view_ = render::actual_size_view(image_.width(), image_.height(), fb.width(), fb.height());
    emit zoom_changed(view_.zoom);
    update();
}

void Canvas::zoom_by(const double factor) {
    fit_mode_ = false;
    const QSize fb = framebuffer_size();
    view_.zoom_about({fb.width() / 2.0, fb.height() / 2.0}, factor);
    emit zoom_changed(view_.zoom);
    update();
}

void Canvas::wheelEvent(QWheelEvent* event) {
    const double steps = event->angleDelta().y() / 120.0;
    if (steps == 0) return;
    fit_mode_ = false;
    const qreal dpr = devicePixelRatioF();
    const QPointF p = event->position() * dpr;
    view_.zoom_about({p.x(), p.y()}, std::pow(1.25, steps));
    emit zoom_changed(view_.zoom);
    update();
    event->accept();
}

void Canvas::mousePressEvent(QMouseEvent* event) {
    if (event->button() == Qt::LeftButton && tool_ == CanvasTool::Line && !image_.empty()) {
        line_press(event->position());
        line_move(event->position(), event->modifiers() & Qt::ShiftModifier);
        return;
    }
    if (event->button() == Qt::LeftButton && tool_ != CanvasTool::Pan && !image_.empty() &&
        !previewing_) {
        painting_ = true;
        stroke_before_ = clone(ImageView<const std::uint8_t>(active_mask().view()));
        stroke_rect_ = {};
        const render::PointF p = image_point(event->position());
        BrushSettings brush = brush_;
        brush.erase = tool_ == CanvasTool::Eraser;
        stroke_rect_.unite(paint_dab(active_mask(), p.x, p.y, brush));
        last_paint_ = p;
        mask_dirty_ = true;
        update();
        return;
    }
    if (event->button() == Qt::LeftButton || event->button() == Qt::MiddleButton) {
        dragging_ = true;
        last_drag_ = event->position();
        setCursor(Qt::ClosedHandCursor);
    }
}

void Canvas::mouseMoveEvent(QMouseEvent* event) {
    cursor_ = event->position();
    cursor_inside_ = true;
    if (painting_) {
        paint_to(event->position());
        return;
    }
    if (tool_ == CanvasTool::Line) {
        if (line_drag_ != LineDrag::None) {
            line_move(event->position(), event->modifiers() & Qt::ShiftModifier);
        } else {
            emit line_hovered(line_fraction_at(event->position()));
        }
        return;
    }
    if (tool_ != CanvasTool::Pan) update();  // move the brush ring
    if (!dragging_) return;
    const qreal dpr = devicePixelRatioF();
    const QPointF delta = (event->position() - last_drag_) * dpr;
    last_drag_ = event->position();
    fit_mode_ = false;
    view_.origin_x += delta.x();
    view_.origin_y += delta.y();
    update();
}

void Canvas::mouseReleaseEvent(QMouseEvent* event) {
    if (line_drag_ != LineDrag::None && event->button() == Qt::LeftButton) {
        line_drag_ = LineDrag::None;
        return;
    }
    if (painting_ && event->button() == Qt::LeftButton) {
        painting_ = false;
        if (!stroke_rect_.empty()) {
            const Mask before = copy_region(stroke_before_, stroke_rect_);
            const Mask after = copy_region(active_mask(), stroke_rect_);
            touch_mask(layer_);
            emit stroke_finished(layer_, stroke_rect_, before, after);
        }
        stroke_before_ = Mask();
        return;
    }
    dragging_ = false;
    setCursor(tool_ == CanvasTool::Pan ? Qt::OpenHandCursor : Qt::CrossCursor);
}

void Canvas::dragEnterEvent(QDragEnterEvent* event) {
    if (event->mimeData()->hasUrls()) event->acceptProposedAction();
}

void Canvas::dropEvent(QDropEvent* event) {
    QStringList paths;
    for (const QUrl& url : event->mimeData()->urls()) {
        if (url.isLocalFile()) paths << url.toLocalFile();
    }
    if (!paths.isEmpty()) emit files_dropped(paths);
    event->acceptProposedAction();
}

}  // namespace lacuna::editor
