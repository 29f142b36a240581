// The editor's canvas: a QOpenGLWidget that hands its context to the Qt-free renderer.
// Zoom with the wheel (about the cursor), pan by dragging, fit or 1:1 from the View menu.
#pragma once

#include <lacuna/core/image.hpp>
#include <lacuna/render/view.hpp>

#include <QOpenGLWidget>

#include <memory>

namespace lacuna::render {
class ImageRenderer;
}

namespace lacuna::editor {

class Canvas : public QOpenGLWidget {
    Q_OBJECT
  public:
    explicit Canvas(QWidget* parent = nullptr);
    ~Canvas() override;

    /// Shows `image` (copied into the display texture at the next paint).
    void set_image(ImageView<const Rgba8> image);
    [[nodiscard]] const ImageRgba8& image() const { return image_; }

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

  protected:
    void initializeGL() override;
    void paintGL() override;
    void resizeGL(int w, int h) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

  private:
    void release_gl();
    [[nodiscard]] QSize framebuffer_size() const;

    std::unique_ptr<render::ImageRenderer> renderer_;
    ImageRgba8 image_;
    bool image_dirty_ = false;
    bool fit_mode_ = true;
    render::ViewTransform view_;
    QPointF last_drag_;
    bool dragging_ = false;
    QString gl_error_;
};

}  // namespace lacuna::editor
