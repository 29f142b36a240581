// The editor's canvas: a QOpenGLWidget that hands its context to the Qt-free renderer.
// Zoom with the wheel (about the cursor), pan by dragging, fit or 1:1 from the View menu.
#pragma once

#include "brush.hpp"

#include <lacuna/core/device_image.hpp>
#include <lacuna/core/image.hpp>
#include <lacuna/core/mask.hpp>
#include <lacuna/render/view.hpp>

#include <QOpenGLWidget>

#include <array>
#include <cstdint>
#include <optional>
#include <memory>

namespace lacuna::render {
class ImageRenderer;
}

namespace lacuna::editor {

/// What a left-button drag does: pan the view, or paint or erase the object-removal mask. The
/// middle button always pans.
enum class CanvasTool { Pan, Brush, Eraser, Line };

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

    /// The histogram line in pixel-centre coordinates ((0, 0) is the top-left pixel's centre, as
    /// the engine takes it). Shown while the Line tool is active.
    void set_line(render::PointF from, render::PointF to);
    [[nodiscard]] bool has_line() const { return has_line_; }
    [[nodiscard]] render::PointF line_from() const { return line_from_; }
    [[nodiscard]] render::PointF line_to() const { return line_to_; }
    /// Samples across the line, drawn as a band.
    void set_line_band(int samples);
    /// The plot's hover position as a fraction of the line (nullopt: none).
    void set_line_marker(std::optional<double> t);

    /// Change counters: listeners (seam maps, histogram planes) rebuild only what changed.
    [[nodiscard]] std::uint64_t image_revision() const { return image_revision_; }
    [[nodiscard]] std::uint64_t mask_revision(MaskLayer layer) const {
        return mask_revisions_[static_cast<std::size_t>(layer)];
    }

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
    /// Present through CUDA–GL interop (the displayed image is mirrored in device memory and a
    /// present kernel fills the display buffer) when `on`; falls back to the host upload by
    /// itself when interop fails, and says why in interop_status().
    void set_cuda_present(bool on);
    [[nodiscard]] QString interop_status() const { return interop_status_; }

  signals:
    void zoom_changed(double zoom);
    void files_dropped(const QStringList& paths);
    /// A brush or eraser stroke ended: the mask inside `rect` was `before` and is now `after`.
    /// The line was drawn or moved (pixel-centre coordinates); emitted while dragging.
    void line_changed(lacuna::render::PointF from, lacuna::render::PointF to);
    /// The pointer is over the line's band at fraction t (nullopt: it left).
    void line_hovered(std::optional<double> t);
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

    enum class LineDrag { None, From, To, Whole };
    bool line_press(const QPointF& widget_point);
    void line_move(const QPointF& widget_point, bool snap);
    [[nodiscard]] std::optional<double> line_fraction_at(const QPointF& widget_point) const;

    bool has_line_ = false;
    render::PointF line_from_;
    render::PointF line_to_;
    int line_band_ = 1;
    std::optional<double> line_marker_;
    LineDrag line_drag_ = LineDrag::None;
    render::PointF line_grab_;  // where the whole-line drag started (pixel-centre coordinates)
    render::PointF line_grab_from_, line_grab_to_;
    void upload_displayed_image();

    bool cuda_present_ = false;
    std::unique_ptr<DeviceImage<Rgba8>> device_image_;  // the displayed pixels, for interop
    QString interop_status_;
    ImageRgba8 preview_;
    bool previewing_ = false;
    void touch_mask(const MaskLayer layer) { ++mask_revisions_[static_cast<std::size_t>(layer)]; }

    std::array<Mask, kMaskLayers> masks_;
    std::uint64_t image_revision_ = 0;
    std::array<std::uint64_t, kMaskLayers> mask_revisions_{};
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
