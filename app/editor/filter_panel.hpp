// The "Filters" dock: Bilateral (spatial and range sigma, radius, an optional guide image),
// Scale (width, height, aspect lock, method) and Temporal Smoothing (videos), each previewed
// live on the canvas while the values change, with the time the preview took, then Apply (one
// undoable edit) or Cancel; Temporal exports the whole clip as a background job. The panel
// binds to the session's FilterTool and wires its own controls; the window hears what it shows
// through the signals below.
#pragma once

#include <background_job.hpp>

#include <lacuna/ops/bilateral.hpp>
#include <lacuna/ops/scale.hpp>

#include <QString>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QStackedWidget;
class QTimer;

namespace lacuna::session {
class Session;
}

namespace lacuna::editor {

class FilterPanel : public QWidget {
    Q_OBJECT
  public:
    enum Page { BilateralPage = 0, ScalePage = 1, TemporalPage = 2 };
    explicit FilterPanel(session::Session& session, QWidget* parent = nullptr);

    /// Filters ▸ Bilateral / Scale / Temporal: this page, previewing with its values (the
    /// scale fields start at the document's size). A refusal is shown in the status line.
    void open(Page page);
    /// The document changed (a new one when `new_document`): the range box's unit and the
    /// "Filters" line follow it.
    void refresh_document(bool new_document);
    /// Exports the open clip smoothed with the Temporal page's values to `path`, in the
    /// background (progress here, Cancel Export leaves no file). False if it cannot start: no
    /// clip, one running, the clip itself as output, or values refused.
    bool export_to(const QString& path);
    [[nodiscard]] bool exporting() const { return export_job_.started(); }
    /// The last export's result line, or why it ended.
    [[nodiscard]] const QString& export_message() const { return export_message_; }

    void show_page(Page page);
    [[nodiscard]] Page page() const;
    /// The document's size: the scale fields start from it.
    void set_source_size(int width, int height);
    [[nodiscard]] ops::BilateralParams bilateral() const;
    [[nodiscard]] int scale_width() const;
    [[nodiscard]] int scale_height() const;
    [[nodiscard]] ops::ScaleMethod scale_method() const;
    [[nodiscard]] int temporal_size() const;
    [[nodiscard]] double temporal_sigma_space() const;
    [[nodiscard]] double temporal_sigma_time() const;
    /// Progress of a running export (done == total: finished); hidden when total < 0.
    void show_export_progress(int done, int total);
    /// "Guide: name" or none.
    void show_guide(const QString& name);
    /// "Preview: 0.53 ms (GPU)"; an empty text hides it.
    void show_timing(const QString& text);
    void show_status(const QString& text);

    [[nodiscard]] QDoubleSpinBox* sigma_range_box() const { return sigma_range_; }
    [[nodiscard]] QSpinBox* width_box() const { return width_; }
    [[nodiscard]] QPushButton* apply_button() const { return apply_; }
    [[nodiscard]] QPushButton* cancel_button() const { return cancel_; }
    [[nodiscard]] QSpinBox* temporal_size_box() const { return temporal_size_; }

  signals:
    /// What the canvas shows changed (a preview, its end, an applied filter).
    void view_changed();
    /// A preview was made in `milliseconds`.
    void previewed(double milliseconds);
    /// A filter was applied as an edit (the window autosaves).
    void applied();
    /// A line for the status bar (an export's outcome).
    void message(const QString& text);
    /// An error dialog's title and text (a guide image that cannot be read).
    void error(const QString& title, const QString& text);

    // The controls' own changes (the panel acts on them itself).
    void bilateral_changed();
    void scale_changed();
    void guide_requested();
    void guide_cleared();
    void apply_requested();
    void temporal_changed();
    void export_requested();
    void export_cancel_requested();
    void cancel_requested();

  private:
    void width_edited();
    void height_edited();
    /// Wires the controls to the tool.
    void bind();
    /// After the tool made a preview: timing line, signals.
    void show_previewed();
    void choose_guide();
    /// The range sigma's box for the document: levels 0.1..1000 for a photo; for a measurement
    /// the data's unit (HU, K, stored samples), any value above 0, starting from
    /// FilterTool::suggested_sigma_range() when the unit changes; and which page it filters.
    /// True when the unit changed (the box then holds a new value the tool must take).
    bool fit_range_box();
    void show_applies_to();
    void apply();
    void cancel();
    void poll_export();

    session::Session& session_;
    session::BackgroundJob<QString> export_job_;
    QString export_message_;
    QTimer* export_timer_ = nullptr;

    int source_width_ = 1, source_height_ = 1;
    bool syncing_ = false;
    QStackedWidget* pages_ = nullptr;
    QDoubleSpinBox* sigma_space_ = nullptr;
    QDoubleSpinBox* sigma_range_ = nullptr;
    QSpinBox* radius_ = nullptr;
    QLabel* guide_ = nullptr;
    QLabel* applies_to_ = nullptr;  ///< "the whole picture", or a stack's page
    QString range_unit_;            ///< the unit the range box is in now
    QSpinBox* width_ = nullptr;
    QSpinBox* height_ = nullptr;
    QCheckBox* keep_aspect_ = nullptr;
    QComboBox* method_ = nullptr;
    QSpinBox* temporal_size_ = nullptr;
    QDoubleSpinBox* temporal_space_ = nullptr;
    QDoubleSpinBox* temporal_time_ = nullptr;
    QPushButton* export_ = nullptr;
    QPushButton* export_cancel_ = nullptr;
    QProgressBar* export_progress_ = nullptr;
    QLabel* timing_ = nullptr;
    QLabel* status_ = nullptr;
    QPushButton* apply_ = nullptr;
    QPushButton* cancel_ = nullptr;
};

}  // namespace lacuna::editor
