// The editor's main window: menus, docks, the toolbar, the status bar and the canvas. What
// happens to the document as a file is DocumentActions' (open, save, recent, the unsaved-changes
// questions); crash recovery is RecoveryUi's; both call back through their Host interfaces,
// which the window implements. The file methods here forward to them (menus, tests, main).
#pragma once

#include "canvas.hpp"
#include "document_actions.hpp"
#include "recovery_ui.hpp"

#include <lacuna/core/backend.hpp>
#include <lacuna/core/image.hpp>
#include <lacuna/io/image_io.hpp>

#include <background_job.hpp>
#include <recovery.hpp>
#include <retarget_tool.hpp>
#include <session.hpp>

#include <QMainWindow>
#include <QString>

#include <array>
#include <memory>

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
class KymographPanel;
class DisplayPanel;
class VideoPanel;
class RegionsPanel;

class MainWindow : public QMainWindow, private DocumentActions::Host, private RecoveryUi::Host {
    Q_OBJECT
  public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // ---- the document as a file (DocumentActions; see there) ----
    bool open_file(const QString& path);
    bool open_sample();
    bool open_sample_measurement();
    void show_loaded(io::LoadedNative loaded, const QString& path);
    bool save_to(const QString& path, bool allow_replace_source = false);
    bool save();
    bool choose_and_save();
    using SaveCheck = DocumentActions::SaveCheck;
    [[nodiscard]] SaveCheck check_save(const QString& path) const;
    bool resolve_unsaved(const QString& next_action);
    static QStringList recent_labels(const QStringList& paths);
    [[nodiscard]] const QString& document_path() const;
    [[nodiscard]] DocumentActions& documents() { return *documents_; }

    [[nodiscard]] Canvas* canvas() const { return canvas_; }
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
    [[nodiscard]] bool smoothing_export_running() const;
    [[nodiscard]] const QString& smoothing_export_message() const;
    [[nodiscard]] HistogramPanel* histogram_panel() const { return histogram_panel_; }
    [[nodiscard]] KymographPanel* kymograph_panel() const { return kymograph_panel_; }
    /// Tools ▸ Kymograph: computes the current line's kymograph and shows its dock.
    void show_kymograph();
    /// Writes the line histogram as CSV and says so in the status bar (an error dialog when
    /// there is no line or the file cannot be written): the Line Histogram panel's.
    bool export_histogram_csv(const QString& path);
    [[nodiscard]] DisplayPanel* display_panel() const { return display_panel_; }
    [[nodiscard]] RegionsPanel* regions_panel() const { return regions_panel_; }
    /// Regions ▸ Add [t]: the Line tool's line as a new region (false, with a message, when
    /// there is none).
    bool add_line_to_regions();
    /// Regions ▸ Save Beside Image: the list to the document's sidecar file
    /// (RegionsTool::sidecar). False, with a message, without a document file.
    bool save_regions_beside_image();
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
    /// ready: the Retarget panel's.
    bool apply_retarget() override;

    /// Fills the masked pixels (coverage ≥ 50 %) in steps, showing the fill grow; returns false
    /// (with a message) when there is nothing to fill or the fill cannot start. The Remove
    /// Object panel's fill (these forward to it).
    bool start_fill();
    void cancel_fill();
    /// Undoes the last fill and fills again with the next seed.
    bool fill_again();
    [[nodiscard]] bool fill_running() const;

    // ---- crash recovery (RecoveryUi; see there) ----
    bool offer_recovery();
    void autosave();
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
    // DocumentActions::Host and RecoveryUi::Host.
    bool prepare_open(bool video) override;
    void document_opened(Opened kind, const QString& message) override;
    void document_saved() override;
    void display_changed() override;
    void show_message(const QString& text, int milliseconds) override;
    void show_error(const QString& title, const QString& message) override;
    void show_timing(const QString& text) override;
    void document_restored(const session::ToolState& tools, const QString& message) override;

    /// Every panel, the plot and the status bar forget the previous document.
    void reset_for_new_document();
    void build_menus();
    void build_status_bar();
    /// The display's ICC profile file ("" for sRGB): given to the session, remembered in the
    /// settings, and what the view converts shown in the status bar. False (with a message) for
    /// a file that is not a usable profile; the previous one stays.
    bool use_display_profile(const QString& path, bool quiet = false);
    void choose_display_profile();
    void update_colour_label();
    void build_object_removal_dock();
    void build_retarget_dock();
    void build_filter_dock();
    /// Filters ▸ Bilateral / Scale: the Filters dock on that page, previewing.
    void open_filter(int page);
    void build_histogram_dock();
    void build_video_dock();
    void build_display_dock();
    void build_regions_dock();
    /// With the document's sidecar regions file present, offers to load it.
    void offer_sidecar_regions();
    /// Undo/Redo's words and state: the region list's while the Regions tool is active, the
    /// document's otherwise.
    void update_undo_actions();
    void show_readout(std::optional<render::PointF> position);
    void build_toolbar();
    /// The toolbar shows `tool` as the checked one.
    void check_tool_action(CanvasTool tool);
    /// The poll timer: background maps, fill steps, notices, panels.
    void poll();
    /// After every edit, undo and redo: title, undo actions, size, panels.
    void document_changed();
    /// The retarget tool's progress in the status bar while its panel is hidden (stepping a
    /// video's frames on the Video tab).
    void show_retarget_progress();
    void show_notices();
    void restore_panels(const session::ToolState& tools);

    std::unique_ptr<session::Session> session_;
    // After the session: they refer to it and go first.
    std::unique_ptr<DocumentActions> documents_;
    std::unique_ptr<RecoveryUi> recovery_;
    bool ending_on_signal_ = false;
    Canvas* canvas_ = nullptr;
    QLabel* size_label_ = nullptr;
    QLabel* zoom_label_ = nullptr;
    QLabel* backend_label_ = nullptr;
    QLabel* time_label_ = nullptr;
    BackendInfo backend_;
    /// The toolbar's tool actions, by CanvasTool.
    std::array<QAction*, 7> tool_actions_{};  // one per CanvasTool
    QAction* undo_action_ = nullptr;
    QAction* redo_action_ = nullptr;
    /// The toolbar's Undo and Redo: fixed words (the label is in the tooltip), so the buttons
    /// after them do not move when the label changes.
    QAction* undo_button_ = nullptr;
    QAction* redo_button_ = nullptr;
    QTimer* poll_timer_ = nullptr;
    std::uint64_t painted_revision_ = 0;
    int panel_source_w_ = -1, panel_source_h_ = -1;
    ObjectRemovalPanel* removal_panel_ = nullptr;
    RetargetPanel* retarget_panel_ = nullptr;
    FilterPanel* filter_panel_ = nullptr;
    QDockWidget* filter_dock_ = nullptr;
    HistogramPanel* histogram_panel_ = nullptr;
    KymographPanel* kymograph_panel_ = nullptr;
    QDockWidget* kymograph_dock_ = nullptr;
    void build_kymograph_dock();
    DisplayPanel* display_panel_ = nullptr;
    QLabel* value_label_ = nullptr;
    QLabel* colour_label_ = nullptr;
    QDockWidget* removal_dock_ = nullptr;
    QDockWidget* histogram_dock_ = nullptr;
    QDockWidget* display_dock_ = nullptr;
    QDockWidget* video_dock_ = nullptr;
    QDockWidget* regions_dock_ = nullptr;
    RegionsPanel* regions_panel_ = nullptr;
    QAction* show_regions_action_ = nullptr;
    std::uint64_t regions_revision_ = 0;
    VideoPanel* video_panel_ = nullptr;
};

}  // namespace lacuna::editor
