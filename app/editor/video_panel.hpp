// The Video dock: the open clip's frame slider and time code, the temporal weight, and Export
// Video (the whole clip through the retarget pipeline at the Retarget panel's target) with a
// progress bar and Cancel. The export runs as a background job; the editor stays usable.
// Object removal: in its mode the Remove Object tool paints the shown frame's mask (brush, box,
// scribble); that frame becomes a key frame (marked under the slider); Track carries the keys'
// masks to every frame (session::VideoRemoval, a background job); scrubbing shows each frame's
// mask as the fill mask's tint; a repainted frame is a new key; In/Out set the range of frames
// Track, Preview Fill and Fill & Export process; Preview Fill fills the shown frame's shot (the
// frames Fill & Export would write for it) and shows the filled frames while scrubbing (hold the
// backslash key for the original); scene cuts are marked under the slider; Fill & Export runs the
// flow-guided video fill. The logic is session::VideoRemoval's; this panel binds it.
#pragma once

#include <background_job.hpp>

#include <lacuna/video/inpaint_video.hpp>
#include <lacuna/video/retarget_video.hpp>

#include <QString>
#include <QWidget>

#include <cstdint>
#include <functional>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QSlider;
class QSpinBox;
class QTimer;

namespace lacuna::session {
class Session;
}

namespace lacuna::editor {

class VideoPanel : public QWidget {
    Q_OBJECT
  public:
    VideoPanel(session::Session& session, QWidget* parent = nullptr);
    ~VideoPanel() override;

    /// After a document opened: the slider's range and the time code follow the clip (or the
    /// panel says there is none).
    void refresh();
    /// Starts exporting to `path`; false (and a message in the status line) if no clip is open,
    /// an export is running, or the settings are refused.
    bool export_to(const QString& path);
    [[nodiscard]] bool exporting() const { return export_.started(); }
    void cancel_export();
    /// The last export's result line, or its error.
    [[nodiscard]] QString status() const;
    /// Asked before another frame replaces the shown one (whose edits belong to it): false
    /// keeps the frame and puts the slider back. Unset: always allowed.
    std::function<bool(int frame)> may_leave_frame;
    /// Shows frame `index` (0-based) as the slider does.
    void show_frame(int index);

    // ---- object removal ----
    /// Turns the object-removal mode on or off (the main window activates Remove Object).
    void set_removal_mode(bool on);
    [[nodiscard]] bool removal_mode() const;
    /// Takes the shown frame's painted mask as its key mask.
    void set_key();
    void remove_key();
    void undo_key();
    /// Starts tracking (the shown frame's edited mask becomes a key first); false with a
    /// status line when refused.
    bool track();
    /// Starts Fill & Export to `path`; false with a status line when refused.
    bool fill_export_to(const QString& path);
    /// Starts the fill preview of the shown frame (its shot); false with a status line when
    /// refused. When it ends, the filled frame is shown (Show fill on).
    bool preview_fill();
    /// The range of frames processed, 0-based [first, end); false with a status line when
    /// refused.
    bool set_range(int first, int end);
    /// The fill's parameters as Fill & Export and Preview Fill use them (the Object Removal
    /// panel's settings, the grow, CPU key fills).
    [[nodiscard]] video::VideoInpaintParams fill_params() const;
    [[nodiscard]] bool removal_busy() const;

  signals:
    void frame_shown();
    void export_finished(bool ok, const QString& message);
    void removal_mode_changed(bool on);
    /// One of the mask tools below the mode was pressed (an editor::CanvasTool: Brush, Eraser,
    /// Box or Scribble).
    void mask_tool_requested(int tool);
    void removal_finished(bool ok, const QString& message);
    /// Fill & Export… was pressed: the window asks for the file and calls fill_export_to.
    void fill_export_requested();

  private:
    void poll_export();
    void poll_removal();
    void refresh_removal();
    /// The range spin boxes show the model's range.
    void refresh_range();
    /// In removal mode, the shown frame's edited mask becomes its key (before leaving it).
    void commit_shown_mask();

    session::Session& session_;
    QSlider* slider_ = nullptr;
    QLabel* time_code_ = nullptr;
    QDoubleSpinBox* temporal_ = nullptr;
    QComboBox* term_ = nullptr;
    QComboBox* seams_ = nullptr;
    QCheckBox* faces_ = nullptr;
    QPushButton* export_button_ = nullptr;
    QPushButton* cancel_button_ = nullptr;
    QProgressBar* progress_ = nullptr;
    QLabel* status_ = nullptr;
    QTimer* timer_ = nullptr;

    QCheckBox* removal_mode_ = nullptr;
    QCheckBox* still_ = nullptr;
    QWidget* mask_tools_ = nullptr;
    QWidget* key_marks_ = nullptr;
    QLabel* keys_ = nullptr;
    QPushButton* set_key_ = nullptr;
    QPushButton* remove_key_ = nullptr;
    QPushButton* undo_key_ = nullptr;
    QPushButton* track_ = nullptr;
    QPushButton* fill_export_ = nullptr;
    QCheckBox* grabcut_ = nullptr;
    QSpinBox* grow_ = nullptr;
    QSpinBox* range_in_ = nullptr;
    QSpinBox* range_out_ = nullptr;
    QPushButton* set_in_ = nullptr;
    QPushButton* set_out_ = nullptr;
    QPushButton* whole_clip_ = nullptr;
    QPushButton* preview_ = nullptr;
    QCheckBox* show_fill_ = nullptr;
    QLabel* fill_state_ = nullptr;
    QTimer* removal_timer_ = nullptr;
    /// The fill mask's revision when a Track started: painted on during it, the shown mask is
    /// kept (and taken as a key) instead of being replaced by the tracked one.
    std::uint64_t mask_revision_at_track_ = 0;

    /// The export: the result line on success (its outcome's error or cancel otherwise).
    session::BackgroundJob<QString> export_;
};

}  // namespace lacuna::editor
