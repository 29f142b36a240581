#include "canvas.hpp"

#include <line_tool.hpp>
#include <regions_tool.hpp>
#include <retarget_tool.hpp>

#include <lacuna/render/image_renderer.hpp>

#include <QDragEnterEvent>
#include <QDropEvent>
#include <QMimeData>
#include <QMouseEvent>
#include <QOpenGLContext>
#include <QPainter>
#include <QPolygonF>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace lacuna::editor {

Canvas::Canvas(session::Session& session, QWidget* parent)
    : QOpenGLWidget(parent),
      session_(session),
      renderer_(std::make_unique<render::ImageRenderer>()) {
    setAcceptDrops(true);
    setMouseTracking(true);
    setMinimumSize(320, 240);
    setFocusPolicy(Qt::StrongFocus);
    // Once a frame is on screen, map the interop textures for the next device present: the
    // mapping waits for GL, and that wait then happens before the user's next input. Connected
    // here, once: Qt refuses Qt::UniqueConnection for a lambda (it warned and connected
    // nothing when this was done in initializeGL, which may run again for a new context).
    connect(this, &QOpenGLWidget::frameSwapped, this, [this] {
        if (!session_.wants_map_ahead() || !renderer_->initialized()) return;
        makeCurrent();
        renderer_->map_ahead();
        doneCurrent();
    });
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
    // objects then; the document lives outside GL and is presented again.
    connect(context(), &QOpenGLContext::aboutToBeDestroyed, this, &Canvas::release_gl,
            Qt::ConnectionType(Qt::DirectConnection | Qt::UniqueConnection));
}

QSize Canvas::framebuffer_size() const {
    const qreal dpr = devicePixelRatioF();
    return {int(std::lround(width() * dpr)), int(std::lround(height() * dpr))};
}

bool Canvas::previewing() const {
    return session_.retarget().previewing();
}

void Canvas::document_changed() {
    const int w = session_.shown_width(), h = session_.shown_height();
    if ((w != shown_w_ || h != shown_h_) && fit_mode_) {
        shown_w_ = w;
        shown_h_ = h;
        fit_to_window();
    }
    shown_w_ = w;
    shown_h_ = h;
    update();
}

void Canvas::paintGL() {
    if (!renderer_->initialized()) {
        std::string error;
        if (!renderer_->initialize(error)) return;
    }
    // A context recreated since the last frame has empty textures: present everything again.
    session_.present(*renderer_);
    draw_overlay();
    const QSize fb = framebuffer_size();
    renderer_->render(defaultFramebufferObject(), fb.width(), fb.height(), view_);
    draw_box();
    draw_scribble();
    draw_regions();
}

void Canvas::draw_regions() {
    // Drawn by QPainter over the GL frame, like the box: a dark outline under the region's
    // colour so it reads on any picture; the band's edges dashed; the selected region's
    // vertices or corners as handles.
    const session::RegionsTool& tool = session_.regions();
    const bool active = session_.active_tool() == &tool;
    if (tool.count() == 0 || (!active && !show_regions_)) return;
    const session::Overlay overlay = tool.overlay();
    const qreal dpr = devicePixelRatioF();
    const auto screen = [&](const double x, const double y) {
        const render::PointF p = view_.to_screen({x, y});
        return QPointF(p.x / dpr, p.y / dpr);
    };
    const double scale = view_.zoom / dpr;  // screen pixels per image pixel
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    for (const session::Overlay::Region& r : overlay.regions) {
        const QColor colour(r.rgb[0], r.rgb[1], r.rgb[2]);
        QPolygonF path;
        for (const session::ScribblePoint& p : r.path) path << screen(p.x, p.y);
        if (r.closed) path << path.front();
        const double width = r.selected && active ? 3.0 : 2.0;
        painter.setPen(
            QPen(QColor(0, 0, 0, 150), width + 2, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
        painter.drawPolyline(path);
        painter.setPen(QPen(colour, width, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
        painter.drawPolyline(path);
        if (!r.closed && r.band > 1) {
            // Each segment's band edges, along its own normal (as the profile samples it).
            painter.setPen(QPen(colour, 1, Qt::DashLine));
            const double half = r.band / 2.0 * scale;
            for (int i = 1; i < path.size(); ++i) {
                const QPointF d = path[i] - path[i - 1];
                const double length = std::hypot(d.x(), d.y());
                if (length < 1e-9) continue;
                const QPointF n(-d.y() / length * half, d.x() / length * half);
                painter.drawLine(path[i - 1] + n, path[i] + n);
                painter.drawLine(path[i - 1] - n, path[i] - n);
            }
        }
        if (r.selected && active) {
            painter.setPen(QPen(Qt::black, 1));
            painter.setBrush(Qt::white);
            for (int i = 0; i < int(r.path.size()); ++i)
                painter.drawRect(QRectF(path[i] - QPointF(3.5, 3.5), QSizeF(7, 7)));
            painter.setBrush(Qt::NoBrush);
        }
        // The name beside the first vertex (a rectangle's top-left corner), on a dark tag.
        const QString name = QString::fromStdString(r.name);
        const QFontMetrics fm(font());
        const QPointF at = path.front() + QPointF(4, -6);
        const QRectF tag(at.x() - 2, at.y() - fm.ascent() - 1, fm.horizontalAdvance(name) + 4,
                         fm.height() + 2);
        painter.fillRect(tag, QColor(0, 0, 0, 150));
        painter.setPen(colour);
        painter.drawText(at, name);
    }
}

void Canvas::draw_scribble() {
    // The strokes of a scribble selection being drawn: an opaque green band of the brush's width
    // along the pointer's path, drawn by QPainter over the GL frame like the box.
    const session::Tool* tool = session_.active_tool();
    if (tool == nullptr) return;
    const session::Overlay overlay = tool->overlay();
    if (overlay.scribble.empty()) return;
    const qreal dpr = devicePixelRatioF();
    QPolygonF path;
    for (const session::ScribblePoint& p : overlay.scribble) {
        const render::PointF s = view_.to_screen({p.x, p.y});
        path << QPointF(s.x / dpr, s.y / dpr);
    }
    const render::PointF o = view_.to_screen({0.0, 0.0});
    const render::PointF r = view_.to_screen({overlay.scribble_radius, 0.0});
    const qreal width = std::max<qreal>(2.0, 2 * (r.x - o.x) / dpr);
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setPen(QPen(QColor(40, 220, 90), width, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
    painter.drawPolyline(path);
}

void Canvas::draw_box() {
    // The rectangle of a box selection being dragged: dashed black on white, visible on any
    // picture. Drawn by QPainter over the GL frame (the renderer has no rectangle overlay).
    const session::Tool* tool = session_.active_tool();
    if (tool == nullptr) return;
    const session::Overlay overlay = tool->overlay();
    const qreal dpr = devicePixelRatioF();
    if (!overlay.ellipses.empty() || !overlay.segments.empty()) {
        // Detections (the Retarget tool's faces and lines): yellow on a dark outline.
        const auto screen = [&](const double x, const double y) {
            const render::PointF p = view_.to_screen({x, y});
            return QPointF(p.x / dpr, p.y / dpr);
        };
        QPainter painter(this);
        painter.setRenderHint(QPainter::Antialiasing);
        for (const QPen& pen : {QPen(QColor(0, 0, 0, 160), 4), QPen(QColor(255, 220, 40), 2)}) {
            painter.setPen(pen);
            for (const PixelRect& e : overlay.ellipses)
                painter.drawEllipse(QRectF(screen(e.x0, e.y0), screen(e.x1 + 1, e.y1 + 1)));
            for (const std::array<float, 4>& l : overlay.segments)
                painter.drawLine(screen(l[0], l[1]), screen(l[2], l[3]));
        }
    }
    const std::optional<PixelRect> box = overlay.box;
    if (!box) return;
    const render::PointF a =
        view_.to_screen({static_cast<double>(box->x0), static_cast<double>(box->y0)});
    const render::PointF b =
        view_.to_screen({static_cast<double>(box->x1 + 1), static_cast<double>(box->y1 + 1)});
    const QRectF rect(QPointF(a.x / dpr, a.y / dpr), QPointF(b.x / dpr, b.y / dpr));
    QPainter painter(this);
    // Black dashes on white gaps (opaque background mode): visible on light and dark pictures.
    painter.setPen(QPen(Qt::black, 1, Qt::DashLine));
    painter.setBackgroundMode(Qt::OpaqueMode);
    painter.setBackground(Qt::white);
    painter.drawRect(rect);
}

void Canvas::draw_overlay() {
    const session::Tool* tool = session_.active_tool();
    const session::Overlay overlay = tool != nullptr ? tool->overlay() : session::Overlay{};
    // Red: remove (fill, or carve first); green: protect.
    const bool protect = overlay.mask_layer == static_cast<int>(MaskLayer::Protect);
    renderer_->set_mask_tint(
        protect ? render::Rgb{0.1f, 0.9f, 0.3f} : render::Rgb{1.0f, 0.15f, 0.35f}, 0.55f);
    const qreal dpr = devicePixelRatioF();
    renderer_->set_brush(overlay.brush_ring && cursor_inside_ && tool_ != CanvasTool::Pan,
                         {cursor_.x() * dpr, cursor_.y() * dpr}, overlay.brush_radius * view_.zoom);
    render::LineOverlay line;
    line.visible = overlay.line;
    if (line.visible) {
        // Pixel-centre coordinates → the continuous image plane (+0.5) → framebuffer pixels.
        line.from = view_.to_screen({overlay.line_from_x + 0.5, overlay.line_from_y + 0.5});
        line.to = view_.to_screen({overlay.line_to_x + 0.5, overlay.line_to_y + 0.5});
        line.band_half_width = overlay.line_band > 1 ? overlay.line_band * view_.zoom / 2.0 : 0.0;
        line.marker_visible = overlay.line_marker.has_value();
        line.marker_t = overlay.line_marker.value_or(0.0);
    }
    renderer_->set_line_overlay(line);
}

void Canvas::resizeGL(int, int) {
    if (fit_mode_) fit_to_window();
}

void Canvas::set_line(const render::PointF from, const render::PointF to) {
    session_.line().set_line({from.x, from.y}, {to.x, to.y});
    update();
    emit tool_input();
}

bool Canvas::has_line() const {
    return session_.line().has_line();
}

render::PointF Canvas::line_from() const {
    return {session_.line().from().x, session_.line().from().y};
}

render::PointF Canvas::line_to() const {
    return {session_.line().to().x, session_.line().to().y};
}

void Canvas::set_line_marker(const std::optional<double> t) {
    session_.line().set_marker(t);
    update();
}

void Canvas::set_tool(const CanvasTool tool) {
    tool_ = tool;
    setCursor(tool == CanvasTool::Pan ? Qt::OpenHandCursor : Qt::CrossCursor);
    update();
}

session::Pointer Canvas::pointer(const QMouseEvent* event) const {
    const qreal dpr = devicePixelRatioF();
    const render::PointF p =
        view_.to_image({event->position().x() * dpr, event->position().y() * dpr});
    return {p.x, p.y, (event->modifiers() & Qt::ShiftModifier) != 0, 1.0 / (view_.zoom * dpr)};
}

void Canvas::leaveEvent(QEvent*) {
    cursor_inside_ = false;
    emit image_hovered(std::nullopt);
    update();
}

void Canvas::fit_to_window() {
    fit_mode_ = true;
    const QSize fb = framebuffer_size();
    view_ =
        render::fit_view(session_.shown_width(), session_.shown_height(), fb.width(), fb.height());
    emit zoom_changed(view_.zoom);
    update();
}

void Canvas::actual_size() {
    fit_mode_ = false;
    const QSize fb = framebuffer_size();
    view_ = render::actual_size_view(session_.shown_width(), session_.shown_height(), fb.width(),
                                     fb.height());
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
    session::Tool* tool = session_.active_tool();
    if (event->button() == Qt::LeftButton && tool_ != CanvasTool::Pan && tool != nullptr &&
        tool->press(pointer(event))) {
        tool_drag_ = true;
        update();
        emit tool_input();
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
    const session::Pointer at = pointer(event);
    emit image_hovered(render::PointF{at.x, at.y});
    session::Tool* tool = session_.active_tool();
    if (tool_drag_ && tool != nullptr) {
        tool->move(pointer(event));
        update();
        emit tool_input();
        return;
    }
    if (tool != nullptr && tool_ != CanvasTool::Pan) {
        tool->hover(pointer(event));
        if (tool == &session_.line()) emit line_hovered(session_.line().hovered());
        update();  // move the brush ring
    }
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
    if (tool_drag_ && event->button() == Qt::LeftButton) {
        tool_drag_ = false;
        if (session::Tool* tool = session_.active_tool()) tool->release(pointer(event));
        update();
        emit tool_input();
        return;
    }
    dragging_ = false;
    setCursor(tool_ == CanvasTool::Pan ? Qt::OpenHandCursor : Qt::CrossCursor);
}

void Canvas::mouseDoubleClickEvent(QMouseEvent* event) {
    // A polyline ends with a double click; elsewhere it is a second press, as Qt's default.
    session::Tool* tool = session_.active_tool();
    if (event->button() == Qt::LeftButton && tool_ != CanvasTool::Pan && tool != nullptr &&
        tool->double_click(pointer(event))) {
        update();
        emit tool_input();
        return;
    }
    mousePressEvent(event);
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
