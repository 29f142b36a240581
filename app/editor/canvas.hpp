// The editor's canvas: a QOpenGLWidget that shows the session's document (or the retarget
// preview) through the Qt-free renderer and forwards pointer input to the session's active tool.
// Zoom with the wheel (about the cursor), pan by dragging (the middle button always pans), fit or
// 1:1 from the View menu. No editing logic lives here.
#pragma once

#include <lacuna/core/image.hpp>
#include <lacuna/core/mask.hpp>
#include <lacuna/ops/line_histogram.hpp>
#include <lacuna/render/view.hpp>

#include <session.hpp>

#include <QOpenGLWidget>

#include <memory>
#include <optional>

namespace lacuna::render {
class ImageRenderer;
}

namespace lacuna::editor {

using session::MaskLayer;

/// What the toolbar offers: pan, the line histogram, or the brush / eraser of the active panel's
/// mask.
/// Box: drag a rectangle around an object for a GrabCut mask (the Remove Object panel).
/// Scribble: scribble strokes on an object for a GrabCut mask (the same panel).
/// Regions: draw and edit the region list's lines, polylines and rectangles (the Regions dock).
enum class CanvasTool { Pan, Brush, Eraser, Line, Box, Scribble, Regions };

class Canvas : public QOpenGLWidget {
    Q_OBJECT
  public:
    explicit Canvas(session::Session& session, QWidget* parent = nullptr);
    ~Canvas() override;

    /// The session changed what is shown (a new document size refits the view).
    void document_changed();

    // Test and screenshot conveniences: host copies of what the session holds.
    [[nodiscard]] const ImageRgba8& image() const { return session_.document().pixels(); }
    [[nodiscard]] ImageRgba8 preview() const { return session_.shown_image(); }
    [[nodiscard]] bool previewing() const;
    [[nodiscard]] const Mask& mask() const { return session_.document().mask(layer_); }
    [[nodiscard]] const Mask& mask(MaskLayer layer) const {
        return session_.document().mask(layer);
    }
    /// The mask the toolbar's brush paints (the active panel's).
    void set_layer(MaskLayer layer) { layer_ = layer; }
    [[nodiscard]] MaskLayer layer() const { return layer_; }

    void set_line(render::PointF from, render::PointF to);
    [[nodiscard]] bool has_line() const;
    [[nodiscard]] render::PointF line_from() const;
    [[nodiscard]] render::PointF line_to() const;
    void set_line_marker(std::optional<double> t);

    void set_tool(CanvasTool tool);
    /// Draw the region list while another tool is active (the Regions dock's Show all).
    void set_show_regions(bool on) {
        show_regions_ = on;
        update();
    }
    [[nodiscard]] CanvasTool tool() const { return tool_; }

    void fit_to_window();
    void actual_size();
    void zoom_by(double factor);
    [[nodiscard]] double zoom() const { return view_.zoom; }
    [[nodiscard]] const render::ViewTransform& view() const { return view_; }
    /// Empty when GL initialised; otherwise why it did not.
    [[nodiscard]] QString gl_error() const { return gl_error_; }

  signals:
    void zoom_changed(double zoom);
    void files_dropped(const QStringList& paths);
    /// The active tool took pointer input (panels refresh: the histogram, the status).
    void tool_input();
    /// The pointer is over the line's band at fraction t (nullopt: it left).
    void line_hovered(std::optional<double> t);
    /// The pointer is over image position (x, y) (pixel units, top-left corner 0, 0); nullopt
    /// when it left the canvas.
    void image_hovered(std::optional<render::PointF> position);

  protected:
    void initializeGL() override;
    void paintGL() override;
    void resizeGL(int w, int h) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;
    void leaveEvent(QEvent* event) override;

  private:
    void release_gl();
    [[nodiscard]] QSize framebuffer_size() const;
    [[nodiscard]] session::Pointer pointer(const QMouseEvent* event) const;
    void draw_overlay();
    /// The box selection's rectangle while it is dragged.
    void draw_box();
    /// The strokes of a scribble selection while they are drawn.
    void draw_scribble();
    /// The region list: each region's path (and band) in its colour, its name, and the selected
    /// one's handles.
    void draw_regions();

    session::Session& session_;
    std::unique_ptr<render::ImageRenderer> renderer_;
    CanvasTool tool_ = CanvasTool::Pan;
    MaskLayer layer_ = MaskLayer::Fill;
    bool tool_drag_ = false;  ///< the active tool owns the current left-button drag
    bool dragging_ = false;   ///< panning
    QPointF last_drag_;
    QPointF cursor_;  // widget coordinates, for the brush ring
    bool cursor_inside_ = false;
    bool show_regions_ = true;
    int shown_w_ = 0, shown_h_ = 0;
    bool fit_mode_ = true;
    render::ViewTransform view_;
    QString gl_error_;
};

}  // namespace lacuna::editor
