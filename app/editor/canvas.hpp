// The editor's canvas: a QOpenGLWidget that hands its context to the Qt-free renderer.
// Zoom with the wheel (about the cursor), pan by dragging, fit or 1:1 from the View menu.
#pragma once

#include "brush.hpp"

#include <lacuna/core/image.hpp>
#include <lacuna/core/mask.hpp>
#include <lacuna/render/view.hpp>

#include <QOpenGLWidget>

#include <array>
#include <memory>

namespace lacuna::render {
class ImageRenderer;
}

namespace lacuna::editor {

/// What a left-button drag does: pan the view, or paint or erase the object-removal mask. The
/// middle button always pans.
enum class CanvasTool { Pan, Brush, Eraser };

/// The masks a document has: what object removal fills, and what seam carving must keep or take
/// first. The brush paints the active one; each has its own tint.
enum class MaskLayer { Fill = 0, Protect = 1, CarveRemove = 2 };
inline constexpr int kMaskLayers = 3;

class Canvas : public QOpenGLWidget {
    Q_OBJECT
  public:
    explicit Canvas(QWidget* parent = nullptr);
    ~Canvas() override;

    /// Shows `image` (copied into the display texture at the next paint). A new size clears the
    /// mask.
    void set_image(ImageView<const Rgba8> image);
    [[nodiscard]] const ImageRgba8& image() const { return image_; }

    /// Shows `preview` instead of the document (the retarget slider's frames); masks are hidden
    /// and the brush is off until clear_preview().
    void set_preview(ImageView<const Rgba8> preview);
    void clear_preview();
    [[nodiscard]] bool previewing() const { return previewing_; }
    [[nodiscard]] const ImageRgba8& preview() const { return preview_; }

    /// The active mask (coverage 0..255, the image's size) and the others by layer.
    [[nodiscard]] const Mask& mask() const { return mask(layer_); }
    [[nodiscard]] const Mask& mask(MaskLayer layer) const {
        return masks_[static_cast<std::size_t>(layer)];
    }
    void set_mask(const Mask& mask) { set_mask(layer_, mask); }
    void set_mask(MaskLayer layer, const Mask& mask);
    /// Which mask the brush paints and the tint shows.
    void set_layer(MaskLayer layer);
    [[nodiscard]] MaskLayer layer() const { return layer_; }
    /// Undo and redo: put pixels and/or one layer's mask values back inside `rect`.
    void restore_region(const PixelRect& rect, const ImageRgba8* pixels, const Mask* mask,
                        MaskLayer layer = MaskLayer::Fill);

    void set_tool(CanvasTool tool);
    [[nodiscard]] CanvasTool tool() const { return tool_; }
    void set_brush(const BrushSettings& brush);
    [[nodiscard]] const BrushSettings& brush() const { return brush_; }

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
    /// A brush or eraser stroke ended: the mask inside `rect` was `before` and is now `after`.
    void stroke_finished(lacuna::editor::MaskLayer layer, const lacuna::editor::PixelRect& rect,
                         const lacuna::Mask& before, const lacuna::Mask& after);

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
    void leaveEvent(QEvent* event) override;

  private:
    void release_gl();
    [[nodiscard]] QSize framebuffer_size() const;
    [[nodiscard]] render::PointF image_point(const QPointF& widget_point) const;
    void paint_to(const QPointF& widget_point);

    [[nodiscard]] Mask& active_mask() { return masks_[static_cast<std::size_t>(layer_)]; }

    ImageRgba8 preview_;
    bool previewing_ = false;
    std::array<Mask, kMaskLayers> masks_;
    MaskLayer layer_ = MaskLayer::Fill;
    bool mask_dirty_ = false;
    CanvasTool tool_ = CanvasTool::Pan;
    BrushSettings brush_;
    bool painting_ = false;
    Mask stroke_before_;  // the whole mask when the stroke began; freed when it ends
    PixelRect stroke_rect_;
    render::PointF last_paint_;
    QPointF cursor_;  // widget coordinates, for the brush ring
    bool cursor_inside_ = false;

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
