// The "Remove Object" dock: brush and eraser (size, hardness), the fill's patch size and search
// area, Fill with a progress bar and Cancel, and the mask actions (clear, grow, shrink, load,
// save). The panel binds to the session's RemoveObjectTool: its brush, layer and mask actions go
// to the tool directly, and it starts, follows and cancels fills (the session's poll steps them
// on the window's timer); the window switches the active tool.
#pragma once

#include <lacuna/ops/brush.hpp>

#include <lacuna/ops/inpaint.hpp>

#include <QWidget>

class QButtonGroup;
class QCheckBox;
class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QSlider;
class QSpinBox;

namespace lacuna::session {
enum class MaskLayer;
class RemoveObjectTool;
}  // namespace lacuna::session

namespace lacuna::editor {

enum class CanvasTool;
using session::MaskLayer;

class ObjectRemovalPanel : public QWidget {
    Q_OBJECT
  public:
    explicit ObjectRemovalPanel(session::RemoveObjectTool& remove_object,
                                QWidget* parent = nullptr);

    [[nodiscard]] CanvasTool tool() const;
    void set_tool(CanvasTool tool);
    [[nodiscard]] ops::BrushSettings brush() const;
    /// The mask the brush paints: what to remove, or where never to copy from.
    [[nodiscard]] MaskLayer layer() const;
    void set_fill_again_enabled(bool on);
    /// Patch size and search area for the next fill.
    [[nodiscard]] ops::InpaintParams fill_params() const;

    /// While a fill runs: Fill disabled, Cancel enabled, the bar shows filled / total pixels.
    void show_fill_running(std::int64_t filled, std::int64_t total);
    /// No fill running: `message` in the status line; the progress bar says "done" only when a
    /// fill `finished`, else it is empty ("idle").
    void show_fill_idle(const QString& message, bool finished);
    /// A new document: no message, an empty progress bar, nothing to fill again.
    void reset();

    /// A one-line outcome of a mask action (a refused file, a box too small) in the status line.
    void show_message(const QString& message);
    /// Pixels the Grow and Shrink buttons move the mask's edge by.
    [[nodiscard]] int grow_pixels() const;
    /// Replace / write the painted mask (white = fill); the outcome in the status line. What
    /// Load… and Save… do after their file dialogs.
    bool load_mask(const QString& path);
    bool save_mask(const QString& path);

    /// Fills the masked pixels (coverage ≥ 50 %) with the panel's settings, in steps that the
    /// session's poll advances; false (the reason in the status line, and an error() unless
    /// there is simply nothing to fill) when it cannot start.
    bool start_fill();
    /// Undoes the last fill and fills again with the next seed.
    bool fill_again();
    /// Stops a running fill and puts the picture back.
    void cancel_fill();
    [[nodiscard]] bool fill_running() const;
    /// After the session's poll: the progress of a running fill, and its outcome once it ended.
    void poll_fill();

    [[nodiscard]] QPushButton* fill_button() const { return fill_; }
    [[nodiscard]] QPushButton* cancel_button() const { return cancel_; }
    [[nodiscard]] QProgressBar* progress_bar() const { return progress_; }

  signals:
    /// A fill started (true), or ended or was cancelled (false): the window polls every
    /// event-loop turn while one runs.
    void fill_running_changed(bool running);
    /// A fill ended by itself; `message` says how (for the status bar). The window autosaves.
    void fill_finished(const QString& message);
    /// An error dialog's title and text (a fill that cannot start).
    void error(const QString& title, const QString& text);
    /// The mask changed (cleared, grown, loaded): the canvas shows it again.
    void mask_changed();
    void tool_changed(lacuna::editor::CanvasTool tool);
    void brush_changed(const lacuna::ops::BrushSettings& brush);
    void fill_requested();
    void fill_again_requested();
    void layer_changed(lacuna::session::MaskLayer layer);
    void cancel_requested();
    void clear_mask_requested();
    /// Grow (pixels > 0) or shrink (< 0) the mask.
    void grow_requested(int pixels);
    void load_mask_requested();
    void save_mask_requested();

  private:
    /// Wires the mask actions and the brush to the tool.
    void bind();
    /// The brush and fill settings kept between sessions: versioned name=value text
    /// (lacuna/ops/params.hpp) under remove_object/settings; the one-key-per-widget form of
    /// earlier versions is read when that text is missing.
    void load_settings();
    void save_settings() const;
    void show_settings(const ops::BrushSettings& brush, const ops::InpaintParams& fill);
    /// A fill was started (start_fill, fill_again): running shown, the window told.
    void fill_started();

    session::RemoveObjectTool& tool_;
    QButtonGroup* tools_ = nullptr;
    QSlider* size_ = nullptr;
    QSlider* hardness_ = nullptr;
    QLabel* size_value_ = nullptr;
    QLabel* hardness_value_ = nullptr;
    QSpinBox* patch_ = nullptr;
    QSpinBox* grow_ = nullptr;
    QComboBox* method_ = nullptr;
    QComboBox* target_ = nullptr;
    QPushButton* again_ = nullptr;
    QComboBox* search_ = nullptr;
    QCheckBox* lines_ = nullptr;  ///< PatchMatch's line continuation (the "lines" parameter)
    QCheckBox* source_colours_ = nullptr;  ///< the colour prior ("source-colours")
    QCheckBox* choose_ = nullptr;          ///< the per-region choice (the "choose" parameter)
    QCheckBox* refill_foreign_ = nullptr;  ///< the foreign-blob refill ("refill-foreign")
    QCheckBox* keep_colours_ = nullptr;  ///< the blend kept to the ring's colours ("keep-colours")
    QPushButton* fill_ = nullptr;
    QPushButton* cancel_ = nullptr;
    QProgressBar* progress_ = nullptr;
    QLabel* status_ = nullptr;
    /// A fill ran at the last poll (its end is noticed once).
    bool fill_was_running_ = false;
};

}  // namespace lacuna::editor
