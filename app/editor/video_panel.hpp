// The Video dock: the open clip's frame slider and time code, the temporal weight, and Export
// Video (the whole clip through the retarget pipeline at the Retarget panel's target) with a
// progress bar and Cancel. The export runs as a background job; the editor stays usable.
#pragma once

#include <background_job.hpp>

#include <lacuna/video/retarget_video.hpp>

#include <QString>
#include <QWidget>

#include <functional>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QSlider;
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

  signals:
    void frame_shown();
    void export_finished(bool ok, const QString& message);

  private:
    void poll_export();

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

    /// The export: the result line on success (its outcome's error or cancel otherwise).
    session::BackgroundJob<QString> export_;
};

}  // namespace lacuna::editor
