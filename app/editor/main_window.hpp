// The editor's main window: menus, status bar, the canvas; opening and saving documents.
#pragma once

#include "canvas.hpp"

#include <lacuna/core/backend.hpp>
#include <lacuna/core/image.hpp>
#include <lacuna/io/image_io.hpp>

#include <recovery.hpp>
#include <retarget_tool.hpp>
#include <session.hpp>

#include <QMainWindow>
#include <QString>

#include <atomic>
#include <memory>
#include <thread>

class QLabel;
class QMenu;
class QAction;
class QTimer;
class QDockWidget;

namespace lacuna::editor {

class Canvas;
class ObjectRemovalPanel;
class RetargetPanel;
class FilterPanel;
class HistogramPanel;
class DisplayPanel;
class VideoPanel;

class MainWindow : public QMainWindow {
    Q_OBJECT
  public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    /// Opens a file (an image, or a video through open_video). With unsaved edits it first asks
    /// Save / Discard / Cancel; on failure it shows an error dialog and keeps the current
    /// document, its edits and their autosave.
    bool open_file(const QString& path);
    /// Opens the sample photo bundled in the binary (asking first, as open_file does).
    bool open_sample();
    /// The bundled temperature field (FITS in kelvin, from tools/make_sample_measurement.py),
    /// opened as a measurement document with the inferno LUT.
    bool open_sample_measurement();
    /// Opens loaded samples: a photo when they are 8-bit without calibration, else a
    /// measurement document.
    void show_loaded(io::LoadedNative loaded, const QString& path);
    /// Saves to `path` (atomically, with the opened file's metadata); asks before replacing the
    /// file the document came from unless `allow_replace_source`, and before saving with a
    /// retarget preview on screen (apply it, save without it, or cancel).
    bool save_to(const QString& path, bool allow_replace_source = false);
    /// File ▸ Save (Ctrl+S): writes the document to its own file without asking, unless that
    /// would lose something (save_losses): then it says what, once per document, and offers
    /// Save As. A document without a file of its own (a sample, a converted measurement, a
    /// video frame) goes to Save As. True when the document was saved.
    bool save();
    /// File ▸ Save As: a file dialog, then save_to. True when the document was saved.
    bool choose_and_save();
    /// What writing the document to `path` would lose: lossy re-encoding, the other pages of a
    /// stack, a format Lacuna cannot write, samples the format cannot hold. Empty: nothing.
    struct SaveCheck {
        QStringList losses;
        bool writable = true;  ///< false: only Save As can keep the document
    };
    [[nodiscard]] SaveCheck check_save(const QString& path) const;
    /// With unsaved edits, asks "Save / Discard / Cancel" before `next_action` ("opening
    /// x.png", "quitting"); Save saves (or Save As). True when the caller may go on: nothing
    /// unsaved, saved, or discarded. Cancel (or a failed save) returns false and changes nothing.
    bool resolve_unsaved(const QString& next_action);
    /// The labels Open Recent shows for `paths`: the file name, with as many parent folders as
    /// it takes to tell files of the same name apart.
    static QStringList recent_labels(const QStringList& paths);

    [[nodiscard]] Canvas* canvas() const { return canvas_; }
    [[nodiscard]] const QString& document_path() const { return document_path_; }
    [[nodiscard]] const BackendInfo& backend() const { return backend_; }
    [[nodiscard]] session::Session& session() { return *session_; }
    /// Undo and redo (menu, toolbar, shortcuts).
    bool undo();
    bool redo();
    [[nodiscard]] ObjectRemovalPanel* removal_panel() const { return removal_panel_; }
    /// Replace / write the Remove Object mask (white = fill); the outcome in the panel's status
    /// line. What the panel's Load… and Save… do after their file dialogs.
    bool load_mask(const QString& path);
    bool save_mask(const QString& path);
    [[nodiscard]] RetargetPanel* retarget_panel() const { return retarget_panel_; }
    [[nodiscard]] FilterPanel* filter_panel() const { return filter_panel_; }
    /// Filters ▸ Temporal Smoothing's export of the open clip to `path`, on a worker thread
    /// (progress in the Filters dock, Cancel leaves no file). False if it cannot start.
    bool export_smoothed_video_to(const QString& path);
    /// True while that export runs; its last message once it ended.
    [[nodiscard]] bool smoothing_export_running() const { return smooth_worker_.joinable(); }
    [[nodiscard]] const QString& smoothing_export_message() const { return smooth_message_; }
    [[nodiscard]] HistogramPanel* histogram_panel() const { return histogram_panel_; }
    /// Writes the line histogram as CSV and says so in the status bar (an error dialog when
    /// there is no line or the file cannot be written).
    bool export_histogram_csv(const QString& path);
    [[nodiscard]] DisplayPanel* display_panel() const { return display_panel_; }
    [[nodiscard]] VideoPanel* video_panel() const { return video_panel_; }
    /// Opens a video or image sequence: its first frame as the document, the Video dock raised.
    bool open_video(const QString& path);
    /// Replaces a measurement document by its 8-bit view (current window and LUT) as a photo
    /// that every tool can edit; the stored samples stay in their file.
    void convert_to_photo();
    /// Switches every panel and the canvas to `tool` (toolbar, menu and shortcuts call this).
    void select_tool(CanvasTool tool);
    [[nodiscard]] session::RetargetTool* retarget_session() const { return &session_->retarget(); }
    /// Commits the retarget preview as an undoable edit; false (with a status) when none is
    /// ready.
    bool apply_retarget();

    /// Fills the masked pixels (coverage ≥ 50 %) in steps, showing the fill grow; returns false
    /// (with a message) when there is nothing to fill or the fill cannot start.
    bool start_fill();
    void cancel_fill();
    /// Undoes the last fill and fills again with the next seed.
    bool fill_again();
    [[nodiscard]] bool fill_running() const;

    // ---- crash recovery ----
    /// If an editor that is no longer running left unsaved edits, asks whether to restore them
    /// (Restore / Discard / Decide Later; LACUNA_RECOVERY_ANSWER=restore|discard|later answers
    /// without asking). True when a document was restored.
    bool offer_recovery();
    /// Writes the recovery file now when there are unsaved changes it does not hold yet
    /// (otherwise removes it); the write runs on a worker thread.
    void autosave();
    /// This editor's recovery file (empty when autosave is off).
    [[nodiscard]] QString recovery_file() const;
    /// SIGTERM, SIGINT or SIGHUP: the last autosave is written (unsaved edits are kept for the
    /// next start, which offers them) and the editor quits without asking.
    void end_on_signal();

    /// Before/after: while `on` (the backslash key held), the canvas shows the picture before
    /// the last fill; off, the result. False when there is no fill to compare with.
    bool compare_before(bool on);

  signals:
    /// A seam-order map is in use for the retarget preview: approximate first, then exact.
    void map_published(bool vertical, bool exact);

  protected:
    void closeEvent(QCloseEvent* event) override;
    /// Backslash held: before/after (compare_before). Keys the focused widget did not take
    /// arrive here.
    void keyPressEvent(QKeyEvent* event) override;
    void keyReleaseEvent(QKeyEvent* event) override;

  private:
    /// open_file and open_video without the question (the caller asked).
    bool load_file(const QString& path);
    bool load_video(const QString& path);
    /// Every panel, the plot and the status bar forget the previous document.
    void reset_for_new_document();
    /// The retarget tool (the Retarget panel's Pan) becomes the active tool, so its preview
    /// shows.
    void activate_retarget_tool();
    void build_menus();
    void build_status_bar();
    void show_document(ImageRgba8 image, const QString& path, const QStringList& notices,
                       io::Metadata metadata = {});
    void show_error(const QString& title, const QString& message);
    void update_recent_menu();
    void remember_recent(const QString& path);
    void update_title();
    /// The display's ICC profile file ("" for sRGB): given to the session, remembered in the
    /// settings, and what the view converts shown in the status bar. False (with a message) for
    /// a file that is not a usable profile; the previous one stays.
    bool use_display_profile(const QString& path, bool quiet = false);
    void choose_display_profile();
    void update_colour_label();
    void choose_and_open();
    void build_object_removal_dock();
    void build_retarget_dock();
    void build_filter_dock();
    /// Filters ▸ Bilateral / Scale: the Filters dock on that page, previewing.
    void open_filter(int page);
    void filter_previewed();
    void build_histogram_dock();
    void build_video_dock();
    void build_display_dock();
    void show_readout(std::optional<render::PointF> position);
    void build_toolbar();
    /// The poll timer: background maps, fill steps, notices, panels.
    void poll();
    /// After every edit, undo and redo: title, undo actions, size, panels.
    void document_changed();
    void show_notices();

    /// After open, a finished fill or an applied retarget: autosave on the next poll.
    void request_autosave() { autosave_pending_ = true; }
    void show_autosave_outcome();
    void restore_panels(const session::ToolState& tools);

    std::unique_ptr<session::Session> session_;
    std::unique_ptr<session::Autosaver> autosaver_;
    QTimer* autosave_timer_ = nullptr;
    bool autosave_pending_ = false;
    bool ending_on_signal_ = false;
    Canvas* canvas_ = nullptr;
    QMenu* recent_menu_ = nullptr;
    QLabel* size_label_ = nullptr;
    QLabel* zoom_label_ = nullptr;
    QLabel* backend_label_ = nullptr;
    QLabel* time_label_ = nullptr;
    QString document_path_;
    BackendInfo backend_;
    QAction* undo_action_ = nullptr;
    QAction* redo_action_ = nullptr;
    /// The toolbar's Undo and Redo: fixed words (the label is in the tooltip), so the buttons
    /// after them do not move when the label changes.
    QAction* undo_button_ = nullptr;
    QAction* redo_button_ = nullptr;
    /// The user has been told what a Save over this document's own file loses, and agreed.
    bool save_losses_accepted_ = false;
    QTimer* poll_timer_ = nullptr;
    std::uint64_t painted_revision_ = 0;
    bool fill_was_running_ = false;
    int panel_source_w_ = -1, panel_source_h_ = -1;
    ObjectRemovalPanel* removal_panel_ = nullptr;
    RetargetPanel* retarget_panel_ = nullptr;
    FilterPanel* filter_panel_ = nullptr;
    /// The temporal smoothing export: its thread, progress and outcome (set by the thread, read
    /// by a timer on the GUI thread once `smooth_finished_` is set).
    std::thread smooth_worker_;
    std::atomic<int> smooth_done_{0};
    std::atomic<int> smooth_total_{0};
    std::atomic<bool> smooth_cancel_{false};
    std::atomic<bool> smooth_finished_{false};
    QString smooth_message_;
    QTimer* smooth_timer_ = nullptr;
    QDockWidget* filter_dock_ = nullptr;
    HistogramPanel* histogram_panel_ = nullptr;
    DisplayPanel* display_panel_ = nullptr;
    QLabel* value_label_ = nullptr;
    QLabel* colour_label_ = nullptr;
    QDockWidget* removal_dock_ = nullptr;
    QDockWidget* histogram_dock_ = nullptr;
    QDockWidget* display_dock_ = nullptr;
    QDockWidget* video_dock_ = nullptr;
    VideoPanel* video_panel_ = nullptr;
};

}  // namespace lacuna::editor
