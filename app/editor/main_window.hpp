// The editor's main window: menus, status bar, the canvas; opening and saving documents.
#pragma once

#include "brush.hpp"
#include "canvas.hpp"

#include <lacuna/core/backend.hpp>
#include <lacuna/core/image.hpp>
#include <lacuna/ops/inpaint.hpp>

#include <QElapsedTimer>
#include <QMainWindow>
#include <QString>

#include <memory>

class QLabel;
class QMenu;
class QTimer;
class QUndoStack;
class QDockWidget;

namespace lacuna::editor {

class Canvas;
class ObjectRemovalPanel;
class RetargetPanel;
class HistogramPanel;
class RetargetSession;

class MainWindow : public QMainWindow {
    Q_OBJECT
  public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    /// Opens a file; on failure shows an error dialog and keeps the current document.
    bool open_file(const QString& path);
    /// Opens the sample photo bundled in the binary.
    bool open_sample();
    /// Saves to `path` (atomically); refuses to replace the file the document came from unless
    /// `allow_replace_source`.
    bool save_to(const QString& path, bool allow_replace_source = false);

    [[nodiscard]] Canvas* canvas() const { return canvas_; }
    [[nodiscard]] const QString& document_path() const { return document_path_; }
    [[nodiscard]] const BackendInfo& backend() const { return backend_; }
    [[nodiscard]] QUndoStack* undo_stack() const { return undo_stack_; }
    [[nodiscard]] ObjectRemovalPanel* removal_panel() const { return removal_panel_; }
    [[nodiscard]] RetargetPanel* retarget_panel() const { return retarget_panel_; }
    [[nodiscard]] HistogramPanel* histogram_panel() const { return histogram_panel_; }
    /// Switches every panel and the canvas to `tool` (toolbar, menu and shortcuts call this).
    void select_tool(CanvasTool tool);
    [[nodiscard]] RetargetSession* retarget_session() const { return retarget_session_; }
    /// Commits the retarget preview as an undoable edit; false (with a status) when none is
    /// ready.
    bool apply_retarget();

    /// Fills the masked pixels (coverage ≥ 50 %) in steps, showing the fill grow; returns false
    /// (with a message) when there is nothing to fill or the fill cannot start.
    bool start_fill();
    void cancel_fill();
    [[nodiscard]] bool fill_running() const { return filler_ != nullptr; }

  protected:
    void closeEvent(QCloseEvent* event) override;

  private:
    void build_menus();
    void build_status_bar();
    void show_document(ImageRgba8 image, const QString& path, const QStringList& notices);
    void show_error(const QString& title, const QString& message);
    void update_recent_menu();
    void remember_recent(const QString& path);
    void update_title();
    void choose_and_open();
    void choose_and_save();
    void build_object_removal_dock();
    void build_retarget_dock();
    void build_histogram_dock();
    void build_toolbar();
    void fill_step();
    void finish_fill();
    /// True when the user agreed to lose unsaved edits (or there are none).
    bool confirm_discard();

    Canvas* canvas_ = nullptr;
    QMenu* recent_menu_ = nullptr;
    QLabel* size_label_ = nullptr;
    QLabel* zoom_label_ = nullptr;
    QLabel* backend_label_ = nullptr;
    QLabel* time_label_ = nullptr;
    QString document_path_;
    BackendInfo backend_;
    QUndoStack* undo_stack_ = nullptr;
    ObjectRemovalPanel* removal_panel_ = nullptr;
    RetargetPanel* retarget_panel_ = nullptr;
    HistogramPanel* histogram_panel_ = nullptr;
    RetargetSession* retarget_session_ = nullptr;
    QDockWidget* removal_dock_ = nullptr;
    // The running fill: the filler, where it works, and what was there before (for undo/cancel).
    std::unique_ptr<ops::Inpainter> filler_;
    QTimer* fill_timer_ = nullptr;
    QElapsedTimer fill_clock_;
    int iterations_per_step_ = 8;
    PixelRect fill_rect_;
    ImageRgba8 fill_before_pixels_;
    Mask fill_before_mask_;
    QString fill_device_;
    std::uint64_t histogram_revision_ = ~0ull;  // the document revision the histogram samples
};

}  // namespace lacuna::editor
