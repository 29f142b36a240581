#include "main_window.hpp"

#include "filter_panel.hpp"
#include <filter_tool.hpp>

#include "canvas.hpp"
#include "display_panel.hpp"
#include "document_actions.hpp"
#include "recovery_ui.hpp"
#include "video_panel.hpp"
#include "histogram_panel.hpp"
#include "kymograph_panel.hpp"
#include "object_removal_panel.hpp"
#include "regions_panel.hpp"
#include "retarget_panel.hpp"

#include <line_tool.hpp>
#include <remove_object_tool.hpp>
#include <retarget_tool.hpp>

#include <lacuna/core/display.hpp>
#include <lacuna/core/error.hpp>
#include <lacuna/io/image_io.hpp>
#include <lacuna/io/video_io.hpp>
#include <lacuna/version.hpp>

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QActionGroup>
#include <QDockWidget>
#include <QToolBar>
#include <QPushButton>
#include <QTimer>
#include <QElapsedTimer>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QKeyEvent>
#include <QKeySequence>
#include <QLabel>
#include <QCheckBox>
#include <QFileInfo>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QSpinBox>
#include <QDateTime>
#include <QDir>
#include <QStatusBar>

#include <cmath>
#include <cstdlib>
#include <vector>

// The resources live in a static library; without an explicit call the linker may drop them.
static void init_lacuna_resources() {
    Q_INIT_RESOURCE(lacuna);
}

namespace lacuna::editor {
namespace {
/// Undo keeps this many edits; each holds only the rectangle it changed.
constexpr int kUndoLimit = 64;
}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
    init_lacuna_resources();
    backend_ = select_backend(BackendRequest::Auto);
    // With a usable CUDA device the document lives on it and the canvas presents it through
    // CUDA–GL interop; the session falls back to the host by itself when that cannot work.
    session_ = std::make_unique<session::Session>(backend_.backend == Backend::Cuda);
    canvas_ = new Canvas(*session_, this);
    setCentralWidget(canvas_);
    session_->on_document_changed = [this] { document_changed(); };
    DocumentActions::Host& document_host = *this;
    RecoveryUi::Host& recovery_host = *this;
    documents_ = std::make_unique<DocumentActions>(*this, *session_, document_host);
    recovery_ = std::make_unique<RecoveryUi>(*this, *session_, *documents_, recovery_host);
    poll_timer_ = new QTimer(this);
    poll_timer_->setInterval(15);
    connect(poll_timer_, &QTimer::timeout, this, &MainWindow::poll);
    poll_timer_->start();
    build_object_removal_dock();
    build_retarget_dock();
    build_histogram_dock();
    build_display_dock();
    build_video_dock();
    build_regions_dock();
    build_kymograph_dock();
    build_filter_dock();
    build_menus();
    build_toolbar();
    build_status_bar();
    // Undo and Redo act on the Regions list while that tool is active, on the document's
    // history otherwise: whichever path selects a tool (menus, panels, tabs), they follow.
    session_->on_tool_selected = [this] { update_undo_actions(); };
    connect(canvas_, &Canvas::files_dropped, this,
            [this](const QStringList& paths) { open_file(paths.front()); });
    connect(canvas_, &Canvas::tool_input, this, [this] {
        if (session_->active_kind() == session::ToolKind::LineHistogram) {
            QElapsedTimer timer;
            timer.start();
            histogram_panel_->refresh();
            time_label_->setText(tr("histogram: %1 ms").arg(timer.nsecsElapsed() / 1e6, 0, 'f', 2));
        }
        if (session_->active_kind() == session::ToolKind::Regions) {
            regions_panel_->refresh();
            regions_revision_ = session_->regions().revision();
            update_undo_actions();
        }
        // The kymograph follows the selected region or the line: its dock says which.
        kymograph_panel_->update_path();
        show_notices();
    });
    QSettings settings;
    // A monitor profile chosen earlier; a file gone since falls back to sRGB, quietly.
    if (const QString profile = settings.value("display/profile").toString(); !profile.isEmpty())
        use_display_profile(profile, /*quiet=*/true);
    restoreGeometry(settings.value("window/geometry").toByteArray());
    if (!restoreState(settings.value("window/state").toByteArray())) {
        // First start: the first tool's panel in front.
        removal_dock_->raise();
    }
    if (!isMaximized() && settings.value("window/geometry").isNull()) resize(1280, 800);
    documents_->update_title();
}

MainWindow::~MainWindow() {
    // A running autosave finishes; the recovery file stays when there are unsaved edits (a
    // window closed by the user removed it in closeEvent).
    recovery_.reset();
    // The canvas (a child widget) refers to the session: let it go first.
    delete canvas_;
    canvas_ = nullptr;
}

void MainWindow::build_menus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Open…"), QKeySequence::Open, documents_.get(),
                    &DocumentActions::choose_and_open);
    QMenu* recent = file->addMenu(tr("Open &Recent"));
    file->addAction(tr("Open &Sample Image"), this, &MainWindow::open_sample);
    file->addAction(tr("Open Sample &Measurement (temperature, K)"), this,
                    &MainWindow::open_sample_measurement);
    file->addSeparator();
    QAction* save_action =
        file->addAction(tr("&Save"), QKeySequence::Save, this, &MainWindow::save);
    save_action->setObjectName("action_save");
    QAction* save_as =
        file->addAction(tr("Save &As…"), QKeySequence::SaveAs, this, &MainWindow::choose_and_save);
    save_as->setObjectName("action_save_as");
    file->addAction(tr("&Export Video…"), this, [this] {
        if (session_->video() == nullptr) {
            statusBar()->showMessage(tr("Open a video first (File ▸ Open)."), 5000);
            return;
        }
        const QString path = QFileDialog::getSaveFileName(
            this, tr("Export Video"),
            QSettings().value("paths/last_dir").toString() + "/retargeted.mp4", tr(kVideoFilter));
        if (!path.isEmpty() && video_panel_->export_to(path))
            statusBar()->showMessage(tr("Exporting the video to %1…").arg(path), 5000);
    });
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
    documents_->set_recent_menu(recent);

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    undo_action_ = edit->addAction(tr("&Undo"), this, &MainWindow::undo);
    undo_action_->setShortcuts(QKeySequence::Undo);
    redo_action_ = edit->addAction(tr("&Redo"), this, &MainWindow::redo);
    redo_action_->setShortcuts(QKeySequence::Redo);
    undo_action_->setEnabled(false);
    redo_action_->setEnabled(false);

    QMenu* image = menuBar()->addMenu(tr("&Image"));
    image->addAction(tr("&Auto Contrast"), QKeySequence(Qt::SHIFT | Qt::CTRL | Qt::Key_C), this,
                     [this] {
                         session_->auto_contrast();
                         display_panel_->refresh();
                         canvas_->update();
                     });
    image->addAction(tr("Convert to &8-bit Photo"), this, &MainWindow::convert_to_photo);

    QMenu* filters = menuBar()->addMenu(tr("Fi&lters"));
    filters->addAction(tr("&Bilateral (edge-preserving smoothing)…"), this,
                       [this] { open_filter(FilterPanel::BilateralPage); });
    filters->addAction(tr("&Scale…"), this, [this] { open_filter(FilterPanel::ScalePage); });
    filters->addAction(tr("&Temporal Smoothing (videos)…"), this,
                       [this] { open_filter(FilterPanel::TemporalPage); });

    QMenu* tools = menuBar()->addMenu(tr("&Tools"));
    tools->addAction(tr("&Pan"), QKeySequence(Qt::Key_H), this,
                     [this] { select_tool(CanvasTool::Pan); });
    tools->addAction(tr("&Line Histogram"), QKeySequence(Qt::Key_L), this,
                     [this] { select_tool(CanvasTool::Line); });
    tools->addAction(tr("&Regions (lines, polylines, rectangles)"), QKeySequence(Qt::Key_R), this,
                     [this] { select_tool(CanvasTool::Regions); });
    tools->addAction(tr("&Kymograph of the Line or Region (stacks, videos)"),
                     QKeySequence(Qt::CTRL | Qt::Key_K), this, &MainWindow::show_kymograph);
    tools->addAction(tr("&Brush (mask)"), QKeySequence(Qt::Key_B), this,
                     [this] { select_tool(CanvasTool::Brush); });
    tools->addAction(tr("&Eraser (mask)"), QKeySequence(Qt::Key_E), this,
                     [this] { select_tool(CanvasTool::Eraser); });
    // M, as a marquee is in other editors.
    tools->addAction(tr("Bo&x Select (mask)"), QKeySequence(Qt::Key_M), this,
                     [this] { select_tool(CanvasTool::Box); });
    tools->addAction(tr("&Scribble Select (mask)"), QKeySequence(Qt::Key_G), this,
                     [this] { select_tool(CanvasTool::Scribble); });
    tools->addAction(tr("&Fill Masked Area"), QKeySequence(Qt::CTRL | Qt::Key_Return), this,
                     &MainWindow::start_fill);

    // ImageJ's ROI Manager, as a menu: the list itself is the Regions dock.
    QMenu* regions = menuBar()->addMenu(tr("&Regions"));
    regions->addAction(tr("&Add Line [t]"), QKeySequence(Qt::Key_T), this,
                       &MainWindow::add_line_to_regions);
    regions->addAction(tr("&Delete Selected Region"), this, [this] {
        session_->regions().remove(session_->regions().selected());
        regions_panel_->refresh();
        canvas_->update();
    });
    regions->addSeparator();
    regions->addAction(tr("&Open Regions…"), this, [this] {
        const QString start =
            document_path().isEmpty() ? QString() : QFileInfo(document_path()).path();
        const QString path = QFileDialog::getOpenFileName(this, tr("Open Regions"), start,
                                                          tr("Regions (*.json);;All files (*)"));
        if (!path.isEmpty()) regions_panel_->open_from(path);
    });
    regions->addAction(tr("&Save Regions Beside Image"), this,
                       &MainWindow::save_regions_beside_image);
    regions->addAction(tr("Save Regions &As…"), this, [this] {
        const QString start =
            document_path().isEmpty()
                ? QStringLiteral("regions.json")
                : QString::fromStdString(
                      session::RegionsTool::sidecar(document_path().toStdString()).string());
        const QString path =
            QFileDialog::getSaveFileName(this, tr("Save Regions"), start, tr("Regions (*.json)"));
        if (!path.isEmpty()) regions_panel_->save_to(path);
    });
    regions->addAction(tr("&Export Profiles (CSV)…"), this, [this] {
        QString start = QStringLiteral("profiles.csv");
        if (!document_path().isEmpty()) {
            const QFileInfo info(document_path());
            start = info.path() + "/" + info.completeBaseName() + "-profiles.csv";
        }
        const QString path = QFileDialog::getSaveFileName(this, tr("Export Profiles (CSV)"), start,
                                                          tr("CSV (*.csv)"));
        if (!path.isEmpty())
            regions_panel_->export_csv(
                path, document_path().isEmpty() ? tr("the image") : document_path());
    });
    regions->addSeparator();
    show_regions_action_ = regions->addAction(tr("Show &All"));
    show_regions_action_->setCheckable(true);
    show_regions_action_->setChecked(true);
    connect(show_regions_action_, &QAction::toggled, this, [this](const bool on) {
        regions_panel_->findChild<QCheckBox*>("regions_show_all")->setChecked(on);
    });

    QMenu* view = menuBar()->addMenu(tr("&View"));
    view->addAction(tr("Zoom &In"), QKeySequence::ZoomIn, this, [this] { canvas_->zoom_by(1.25); });
    view->addAction(tr("Zoom &Out"), QKeySequence::ZoomOut, this,
                    [this] { canvas_->zoom_by(0.8); });
    view->addAction(tr("&Fit to Window"), QKeySequence(Qt::CTRL | Qt::Key_0), canvas_,
                    &Canvas::fit_to_window);
    view->addAction(tr("&Actual Size (1:1)"), QKeySequence(Qt::CTRL | Qt::Key_1), canvas_,
                    &Canvas::actual_size);
    view->addSeparator();
    view->addAction(tr("Display Colour &Profile…"), this, &MainWindow::choose_display_profile);
    view->addAction(tr("Display Profile: s&RGB"), this, [this] { use_display_profile({}); });

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About Lacuna"), this, [this] {
        QMessageBox::about(this, tr("About Lacuna"),
                           tr("<b>Lacuna %1</b><p>Content-aware image editing: seam carving, line "
                              "histograms and object removal, on the GPU with a CPU fallback.</p>"
                              "<p>Backend: %2</p>")
                               .arg(kVersion, QString::fromStdString(backend_.describe())));
    });
}

void MainWindow::build_object_removal_dock() {
    removal_panel_ = new ObjectRemovalPanel(session_->remove_object(), this);
    auto* dock = new QDockWidget(tr("Remove Object"), this);
    removal_dock_ = dock;
    dock->setObjectName("remove_object_dock");
    dock->setWidget(removal_panel_);
    dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
    addDockWidget(Qt::RightDockWidgetArea, dock);
    // One brush size and hardness for every mask: the retarget tool's carving masks use the
    // Remove Object panel's brush too.
    const auto share_brush = [this](const ops::BrushSettings& brush) {
        session_->retarget().set_brush(brush);
        canvas_->update();
    };
    share_brush(removal_panel_->brush());
    connect(removal_panel_, &ObjectRemovalPanel::brush_changed, this, share_brush);
    connect(removal_panel_, &ObjectRemovalPanel::tool_changed, this, [this](const CanvasTool tool) {
        if (tool == CanvasTool::Pan) {
            if (session_->active_kind() == session::ToolKind::RemoveObject) {
                session_->select(session::ToolKind::Pan);
                canvas_->set_tool(CanvasTool::Pan);
            }
            return;
        }
        // The toolbar shows the panel's brush, eraser or box as the active tool.
        check_tool_action(tool);
        session_->remove_object().set_erase(tool == CanvasTool::Eraser);
        session_->remove_object().set_box_mode(tool == CanvasTool::Box);
        session_->remove_object().set_scribble_mode(tool == CanvasTool::Scribble);
        session_->remove_object().set_layer(removal_panel_->layer());
        session_->select(session::ToolKind::RemoveObject);
        canvas_->set_layer(removal_panel_->layer());
        canvas_->set_tool(tool);
        canvas_->document_changed();
    });
    connect(removal_panel_, &ObjectRemovalPanel::fill_running_changed, this,
            [this](const bool running) {
                // A step per event-loop turn while a fill runs.
                poll_timer_->setInterval(running ? 0 : 15);
                canvas_->update();
            });
    connect(removal_panel_, &ObjectRemovalPanel::fill_finished, this,
            [this](const QString& message) {
                // The status bar is one line: the fill's notes follow the summary there (the
                // panel shows them one a line).
                statusBar()->showMessage(QString(message).replace('\n', ' '), 8000);
                recovery_->request();
            });
    connect(removal_panel_, &ObjectRemovalPanel::error, this, &MainWindow::show_error);
    connect(removal_panel_, &ObjectRemovalPanel::layer_changed, this,
            [this](const MaskLayer layer) {
                canvas_->set_layer(layer);
                canvas_->update();
            });
    connect(removal_panel_, &ObjectRemovalPanel::mask_changed, canvas_, &Canvas::document_changed);
}

bool MainWindow::load_mask(const QString& path) {
    return removal_panel_->load_mask(path);
}

bool MainWindow::save_mask(const QString& path) {
    return removal_panel_->save_mask(path);
}

void MainWindow::select_tool(const CanvasTool tool) {
    // Keep the toolbar's checked tool in step with menus, shortcuts and panels.
    check_tool_action(tool);
    if (tool == CanvasTool::Brush || tool == CanvasTool::Eraser || tool == CanvasTool::Box ||
        tool == CanvasTool::Scribble) {
        removal_dock_->raise();          // its settings: size, hardness, Fill
        removal_panel_->set_tool(tool);  // the object-removal mask
        return;
    }
    removal_panel_->set_tool(CanvasTool::Pan);
    if (tool == CanvasTool::Line) histogram_dock_->raise();
    if (tool == CanvasTool::Regions) regions_dock_->raise();
    session_->select(tool == CanvasTool::Line      ? session::ToolKind::LineHistogram
                     : tool == CanvasTool::Regions ? session::ToolKind::Regions
                                                   : session::ToolKind::Pan);
    canvas_->set_tool(tool);
    canvas_->document_changed();
    update_undo_actions();
}

void MainWindow::check_tool_action(const CanvasTool tool) {
    if (QAction* action = tool_actions_[static_cast<std::size_t>(tool)]) action->setChecked(true);
}

bool MainWindow::undo() {
    if (session_->active_kind() == session::ToolKind::Regions) {
        // The region list has its own history: its edits never change the image.
        const bool done = session_->regions().undo();
        regions_panel_->refresh();
        update_undo_actions();
        canvas_->update();
        return done;
    }
    const bool done = session_->undo();
    canvas_->document_changed();
    return done;
}

bool MainWindow::redo() {
    if (session_->active_kind() == session::ToolKind::Regions) {
        const bool done = session_->regions().redo();
        regions_panel_->refresh();
        update_undo_actions();
        canvas_->update();
        return done;
    }
    const bool done = session_->redo();
    canvas_->document_changed();
    return done;
}

void MainWindow::build_toolbar() {
    QToolBar* bar = addToolBar(tr("Tools"));
    bar->setObjectName("main_toolbar");
    bar->setToolButtonStyle(Qt::ToolButtonTextOnly);
    bar->addAction(tr("Open"), documents_.get(), &DocumentActions::choose_and_open);
    bar->addAction(tr("Save"), this, &MainWindow::save)->setToolTip(tr("Save (Ctrl+S)"));
    bar->addAction(tr("Save As"), this, &MainWindow::choose_and_save);
    bar->addSeparator();
    undo_button_ = bar->addAction(tr("Undo"), this, &MainWindow::undo);
    undo_button_->setObjectName("toolbar_undo");
    redo_button_ = bar->addAction(tr("Redo"), this, &MainWindow::redo);
    redo_button_->setObjectName("toolbar_redo");
    undo_button_->setEnabled(false);
    redo_button_->setEnabled(false);
    bar->addSeparator();
    auto* group = new QActionGroup(bar);
    const struct {
        CanvasTool tool;
        const char* text;
    } tools[] = {
        {CanvasTool::Pan, QT_TR_NOOP("Pan")},        {CanvasTool::Line, QT_TR_NOOP("Line")},
        {CanvasTool::Brush, QT_TR_NOOP("Brush")},    {CanvasTool::Eraser, QT_TR_NOOP("Eraser")},
        {CanvasTool::Box, QT_TR_NOOP("Box")},        {CanvasTool::Scribble, QT_TR_NOOP("Scribble")},
        {CanvasTool::Regions, QT_TR_NOOP("Regions")}};
    for (const auto& t : tools) {
        QAction* action = bar->addAction(tr(t.text));
        action->setCheckable(true);
        action->setChecked(t.tool == CanvasTool::Pan);
        action->setObjectName(QString("action_tool_%1").arg(QString(t.text).toLower()));
        group->addAction(action);
        tool_actions_[static_cast<std::size_t>(t.tool)] = action;
        const CanvasTool tool = t.tool;
        connect(action, &QAction::triggered, this, [this, tool] { select_tool(tool); });
    }
    bar->addSeparator();
    bar->addAction(tr("Fit"), canvas_, &Canvas::fit_to_window);
    bar->addAction(tr("1:1"), canvas_, &Canvas::actual_size);
}

void MainWindow::build_histogram_dock() {
    histogram_panel_ = new HistogramPanel(session_->line(), this);
    auto* dock = new QDockWidget(tr("Line Histogram"), this);
    dock->setObjectName("histogram_dock");
    dock->setWidget(histogram_panel_);
    dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
    addDockWidget(Qt::RightDockWidgetArea, dock);
    // A tab beside the others, so the plot has the dock's whole height (the Line tool raises
    // it), rather than the part left below the tallest settings panel.
    tabifyDockWidget(removal_dock_, dock);
    histogram_dock_ = dock;
    connect(histogram_panel_, &HistogramPanel::changed, canvas_, qOverload<>(&Canvas::update));
    connect(canvas_, &Canvas::line_hovered, histogram_panel_, &HistogramPanel::show_fraction);
    connect(histogram_panel_, &HistogramPanel::hovered_fraction, canvas_, &Canvas::set_line_marker);
    connect(histogram_panel_, &HistogramPanel::message, this,
            [this](const QString& text, const int ms) { statusBar()->showMessage(text, ms); });
    connect(histogram_panel_, &HistogramPanel::error, this, &MainWindow::show_error);
    connect(histogram_panel_, &HistogramPanel::copied, this,
            [this](const QString& what) { statusBar()->showMessage(what, 5000); });
    connect(histogram_panel_, &HistogramPanel::scale_set, this, [this](const PixelSpacing& s) {
        session_->set_spacing(s);  // undoable; Save writes it (TIFF, FITS); recovery keeps it
        statusBar()->showMessage(tr("Pixel size: %1").arg(QString::fromStdString(s.describe())),
                                 5000);
    });
}

bool MainWindow::export_histogram_csv(const QString& path) {
    return histogram_panel_->export_csv_reporting(path);
}

void MainWindow::build_regions_dock() {
    regions_panel_ = new RegionsPanel(session_->regions(), this);
    auto* dock = new QDockWidget(tr("Regions"), this);
    dock->setObjectName("regions_dock");
    dock->setWidget(regions_panel_);
    dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
    addDockWidget(Qt::RightDockWidgetArea, dock);
    tabifyDockWidget(removal_dock_, dock);
    regions_dock_ = dock;
    connect(regions_panel_, &RegionsPanel::changed, this, [this] {
        canvas_->set_show_regions(regions_panel_->show_all());
        if (show_regions_action_) show_regions_action_->setChecked(regions_panel_->show_all());
        regions_panel_->refresh();
        if (kymograph_panel_ != nullptr) kymograph_panel_->update_path();
        update_undo_actions();
        canvas_->update();
    });
    connect(regions_panel_, &RegionsPanel::add_line_requested, this,
            &MainWindow::add_line_to_regions);
    connect(regions_panel_, &RegionsPanel::message, this,
            [this](const QString& text, const int ms) { statusBar()->showMessage(text, ms); });
    connect(regions_panel_, &RegionsPanel::error, this, &MainWindow::show_error);
}

bool MainWindow::add_line_to_regions() {
    const int index = session_->regions().add_current_line();
    if (index < 0) {
        statusBar()->showMessage(tr("Draw a line with the Line tool (L) first, then add it (T)."),
                                 5000);
        return false;
    }
    regions_dock_->raise();
    regions_panel_->refresh();
    update_undo_actions();
    canvas_->update();
    statusBar()->showMessage(
        tr("Added '%1' to the regions.")
            .arg(QString::fromStdString(session_->regions().regions()[std::size_t(index)].name)),
        4000);
    return true;
}

bool MainWindow::save_regions_beside_image() {
    if (document_path().isEmpty()) {
        statusBar()->showMessage(
            tr("The image has no file yet: save it first, or use Regions ▸ Save Regions As."),
            6000);
        return false;
    }
    return regions_panel_->save_to(QString::fromStdString(
        session::RegionsTool::sidecar(document_path().toStdString()).string()));
}

void MainWindow::offer_sidecar_regions() {
    if (document_path().isEmpty() || session_->video() != nullptr) return;
    const QString sidecar = QString::fromStdString(
        session::RegionsTool::sidecar(document_path().toStdString()).string());
    if (!QFileInfo::exists(sidecar)) return;
    const QString answer =
        ask(this, "regions_sidecar_dialog", QMessageBox::Question, tr("Regions"),
            tr("Load the regions saved beside this image?"), sidecar,
            {{tr("Load Regions"), QMessageBox::AcceptRole, "regions_sidecar_load"},
             {tr("Not Now"), QMessageBox::RejectRole, "regions_sidecar_skip"}});
    if (answer == "regions_sidecar_load" && regions_panel_->open_from(sidecar))
        regions_dock_->raise();
}

void MainWindow::update_undo_actions() {
    const bool regions = session_->active_kind() == session::ToolKind::Regions;
    const session::History& history = session_->history();
    const session::RegionsTool& list = session_->regions();
    const bool can_undo = regions ? list.can_undo() : history.can_undo();
    const bool can_redo = regions ? list.can_redo() : history.can_redo();
    const QString undo_label =
        QString::fromStdString(regions ? list.undo_label() : history.undo_label());
    const QString redo_label =
        QString::fromStdString(regions ? list.redo_label() : history.redo_label());
    undo_action_->setEnabled(can_undo);
    redo_action_->setEnabled(can_redo);
    undo_action_->setText(can_undo ? tr("&Undo %1").arg(undo_label) : tr("&Undo"));
    redo_action_->setText(can_redo ? tr("&Redo %1").arg(redo_label) : tr("&Redo"));
    undo_button_->setEnabled(can_undo);
    redo_button_->setEnabled(can_redo);
    undo_button_->setToolTip(can_undo ? tr("Undo %1 (Ctrl+Z)").arg(undo_label)
                                      : tr("Nothing to undo"));
    redo_button_->setToolTip(can_redo ? tr("Redo %1 (Ctrl+Shift+Z)").arg(redo_label)
                                      : tr("Nothing to redo"));
}

void MainWindow::build_video_dock() {
    video_panel_ = new VideoPanel(*session_, this);
    auto* dock = new QDockWidget(tr("Video"), this);
    dock->setObjectName("video_dock");
    dock->setWidget(video_panel_);
    dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
    addDockWidget(Qt::RightDockWidgetArea, dock);
    tabifyDockWidget(removal_dock_, dock);
    video_dock_ = dock;
    removal_dock_->raise();
    // Edits belong to the frame they were made on: another frame replaces the document.
    video_panel_->may_leave_frame = [this](const int frame) {
        return resolve_unsaved(tr("showing frame %1").arg(frame + 1));
    };
    connect(video_panel_, &VideoPanel::frame_shown, this, [this] {
        canvas_->update();
        document_changed();
    });
    connect(video_panel_, &VideoPanel::export_finished, this,
            [this](bool, const QString& message) { statusBar()->showMessage(message, 10000); });
    // Object removal: the Remove Object tool's brush paints the shown frame's key mask (its
    // box and scribble selections, set in the Object Removal panel, work the same).
    // The Video dock stays in front (its keys, Track, Fill): the tool changes without raising
    // the Object Removal panel, whose brush size and hardness apply.
    const auto mask_tool = [this](const CanvasTool tool) {
        check_tool_action(tool);
        removal_panel_->set_tool(tool);
    };
    connect(video_panel_, &VideoPanel::removal_mode_changed, this, [mask_tool](const bool on) {
        if (on) mask_tool(CanvasTool::Brush);
    });
    connect(video_panel_, &VideoPanel::mask_tool_requested, this,
            [mask_tool](const int tool) { mask_tool(static_cast<CanvasTool>(tool)); });
    connect(video_panel_, &VideoPanel::removal_finished, this,
            [this](bool, const QString& message) { statusBar()->showMessage(message, 10000); });
    connect(video_panel_, &VideoPanel::fill_export_requested, this, [this] {
        const QString path = QFileDialog::getSaveFileName(
            this, tr("Fill and Export Video"),
            QSettings().value("paths/last_dir").toString() + "/removed.mp4", tr(kVideoFilter));
        if (!path.isEmpty() && video_panel_->fill_export_to(path))
            statusBar()->showMessage(tr("Filling the video into %1…").arg(path), 5000);
    });
}

void MainWindow::build_kymograph_dock() {
    kymograph_panel_ = new KymographPanel(*session_, this);
    auto* dock = new QDockWidget(tr("Kymograph"), this);
    dock->setObjectName("kymograph_dock");
    dock->setWidget(kymograph_panel_);
    dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable |
                      QDockWidget::DockWidgetClosable);
    // Below the image: a kymograph is wide (positions across), and stays in view beside the
    // image and the line's histogram. Hidden until asked for.
    addDockWidget(Qt::BottomDockWidgetArea, dock);
    dock->hide();
    kymograph_dock_ = dock;
    connect(kymograph_panel_, &KymographPanel::message, this,
            [this](const QString& text, const int ms) { statusBar()->showMessage(text, ms); });
}

void MainWindow::show_kymograph() {
    kymograph_dock_->show();
    kymograph_dock_->raise();
    if (const QString why = kymograph_panel_->compute(); !why.isEmpty())
        statusBar()->showMessage(why, 8000);
}

void MainWindow::build_display_dock() {
    display_panel_ = new DisplayPanel(*session_, this);
    auto* dock = new QDockWidget(tr("Display"), this);
    dock->setObjectName("display_dock");
    dock->setWidget(display_panel_);
    dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
    addDockWidget(Qt::RightDockWidgetArea, dock);
    tabifyDockWidget(removal_dock_, dock);
    display_dock_ = dock;
    removal_dock_->raise();  // photos first; a measurement document raises Display
    connect(display_panel_, &DisplayPanel::changed, canvas_, qOverload<>(&Canvas::update));
    // The kymograph is shown through the document's LUT and window.
    connect(display_panel_, &DisplayPanel::changed, this, [this] {
        if (kymograph_panel_ != nullptr) kymograph_panel_->refresh();
    });
    connect(display_panel_, &DisplayPanel::calibration_changed, this, [this] {
        histogram_panel_->set_measurement(
            session_->document().measurement(),
            QString::fromStdString(session_->document().calibration().unit));
        histogram_panel_->refresh();
    });
}

void MainWindow::show_readout(const std::optional<render::PointF> position) {
    const auto r = position ? session_->readout(position->x, position->y) : std::nullopt;
    if (!r) {
        value_label_->clear();
        return;
    }
    const session::Document& document = session_->document();
    QStringList raw;
    for (int c = 0; c < r->channels; ++c) raw << QString::number(r->raw[std::size_t(c)], 'g', 8);
    const QString unit = QString::fromStdString(r->unit);
    QString text = tr("x %1, y %2: %3").arg(r->x).arg(r->y).arg(raw.join(", "));
    if (std::isnan(r->value))
        text += tr(" (NaN: no value)");
    else if (!document.calibration().identity())
        text += tr(" → %1 %2").arg(r->value, 0, 'g', 8).arg(unit);
    else if (!unit.isEmpty())
        text += " " + unit;
    value_label_->setText(text);
}

void MainWindow::convert_to_photo() {
    session::Document& document = session_->document();
    if (!document.measurement()) return;
    ImageRgba8 view = session_->shown_image();
    const session::Session::Display display = session_->display();
    // The camera data stays; the ICC profile does not describe colours made by a LUT.
    io::Metadata metadata = session_->metadata();
    metadata.icc.clear();
    documents_->show_document(
        std::move(view), QString(),
        {tr("Converted to an 8-bit photo through the window %1 .. %2 (%3 LUT)")
             .arg(display.window.lo)
             .arg(display.window.hi)
             .arg(QString::fromUtf8(to_string(display.lut).data()))},
        std::move(metadata));
    session_->history().mark_unsaved();  // nothing on disk holds the converted photo
    setWindowModified(true);
}

void MainWindow::build_filter_dock() {
    filter_panel_ = new FilterPanel(*session_, this);
    filter_dock_ = new QDockWidget(tr("Filters"), this);
    filter_dock_->setObjectName("filter_dock");
    filter_dock_->setWidget(filter_panel_);
    filter_dock_->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
    addDockWidget(Qt::RightDockWidgetArea, filter_dock_);
    tabifyDockWidget(removal_dock_, filter_dock_);
    connect(filter_panel_, &FilterPanel::view_changed, canvas_, &Canvas::document_changed);
    connect(filter_panel_, &FilterPanel::previewed, this, [this](const double ms) {
        time_label_->setText(tr("filter: %1 ms").arg(ms, 0, 'f', ms < 10 ? 2 : 0));
        show_notices();
    });
    connect(filter_panel_, &FilterPanel::applied, this, [this] { recovery_->request(); });
    connect(filter_panel_, &FilterPanel::message, this,
            [this](const QString& text) { statusBar()->showMessage(text, 10000); });
    connect(filter_panel_, &FilterPanel::error, this, &MainWindow::show_error);
}

bool MainWindow::export_smoothed_video_to(const QString& path) {
    return filter_panel_->export_to(path);
}

bool MainWindow::smoothing_export_running() const {
    return filter_panel_->exporting();
}

const QString& MainWindow::smoothing_export_message() const {
    return filter_panel_->export_message();
}

void MainWindow::open_filter(const int page) {
    filter_dock_->show();
    filter_dock_->raise();
    filter_panel_->open(static_cast<FilterPanel::Page>(page));
}

void MainWindow::build_retarget_dock() {
    retarget_panel_ = new RetargetPanel(*session_, this);
    auto* dock = new QDockWidget(tr("Retarget"), this);
    dock->setObjectName("retarget_dock");
    dock->setWidget(retarget_panel_);
    dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
    addDockWidget(Qt::RightDockWidgetArea, dock);
    tabifyDockWidget(removal_dock_, dock);
    // Choosing the Retarget tab shows its preview.
    connect(dock, &QDockWidget::visibilityChanged, retarget_panel_,
            &RetargetPanel::dock_visibility_changed);
    connect(retarget_panel_, &RetargetPanel::map_published, this, &MainWindow::map_published);
    connect(retarget_panel_, &RetargetPanel::view_changed, canvas_, &Canvas::document_changed);
    connect(retarget_panel_, &RetargetPanel::activated, this, [this] {
        check_tool_action(CanvasTool::Pan);
        removal_panel_->set_tool(CanvasTool::Pan);
        canvas_->set_tool(CanvasTool::Pan);
        canvas_->document_changed();
    });
    connect(retarget_panel_, &RetargetPanel::tool_changed, this,
            [this](const CanvasTool tool, const MaskLayer layer) {
                removal_panel_->set_tool(CanvasTool::Pan);
                canvas_->set_tool(tool);
                if (tool != CanvasTool::Pan) canvas_->set_layer(layer);
                canvas_->document_changed();
            });
    connect(retarget_panel_, &RetargetPanel::edited, this, [this] { recovery_->request(); });
    connect(retarget_panel_, &RetargetPanel::message, this,
            [this](const QString& text, const int ms) { statusBar()->showMessage(text, ms); });
    connect(retarget_panel_, &RetargetPanel::limit_reached, this,
            [this](const QString& message) { statusBar()->showMessage(message, 8000); });
}

bool MainWindow::apply_retarget() {
    return retarget_panel_->apply();
}

bool MainWindow::fill_running() const {
    return removal_panel_->fill_running();
}

bool MainWindow::start_fill() {
    return removal_panel_->start_fill();
}

bool MainWindow::fill_again() {
    return removal_panel_->fill_again();
}

void MainWindow::cancel_fill() {
    removal_panel_->cancel_fill();
}

void MainWindow::poll() {
    session_->poll();
    removal_panel_->poll_fill();
    retarget_panel_->poll();
    show_retarget_progress();
    show_notices();
    recovery_->poll();
    if (session_->regions().revision() != regions_revision_) {
        // The list or its profiles changed (a polyline following the pointer, an edit).
        regions_revision_ = session_->regions().revision();
        regions_panel_->refresh();
        update_undo_actions();
    }
    if (session_->frame_revision() != painted_revision_) {
        painted_revision_ = session_->frame_revision();
        canvas_->document_changed();
    }
}

void MainWindow::show_retarget_progress() {
    // Stepping a video's frames on the Video tab hides the Retarget panel and its progress bar
    // while the canvas waits for the frame's preview (the first frames wait for the face pass
    // or the shot's importance): the status bar says what it waits for.
    const session::RetargetTool& tool = session_->retarget();
    // (A tabified dock behind another stays "visible" to Qt; its visible region is empty.)
    if (!retarget_panel_->visibleRegion().isEmpty() || session_->video() == nullptr ||
        (session_->active_kind() != session::ToolKind::Retarget &&
         session_->active_kind() != session::ToolKind::Pan) ||
        !tool.busy())
        return;
    const session::RetargetTool::Progress p = tool.progress();
    if (p.total <= 0 || p.done >= p.total) return;
    statusBar()->showMessage(
        tr("Retarget preview of this frame — %1: %2 of %3 %4")
            .arg(QString::fromStdString(p.what))
            .arg(p.done)
            .arg(p.total)
            .arg(p.unit.empty() ? tr("seams") : QString::fromStdString(p.unit)),
        1000);
}

void MainWindow::show_notices() {
    const std::vector<std::string> notices = session_->take_notices();
    if (notices.empty()) return;
    QStringList text;
    for (const std::string& n : notices) text << QString::fromStdString(n);
    statusBar()->showMessage(text.join("; "), 12000);
    backend_label_->setText(
        session_->on_device()
            ? QString::fromStdString(backend_.describe())
            : tr("%1 — editing on the host").arg(QString::fromStdString(backend_.describe())));
}

void MainWindow::document_changed() {
    if (video_panel_) video_panel_->refresh();
    const session::History& history = session_->history();
    update_undo_actions();
    const session::Document& document = session_->document();
    size_label_->setText(tr("%1 × %2 px").arg(document.width()).arg(document.height()));
    if (panel_source_w_ != document.width() || panel_source_h_ != document.height()) {
        retarget_panel_->set_source_size(document.width(), document.height());
        filter_panel_->set_source_size(document.width(), document.height());
        panel_source_w_ = document.width();
        panel_source_h_ = document.height();
    }
    histogram_panel_->set_measurement(document.measurement(),
                                      QString::fromStdString(document.calibration().unit));
    histogram_panel_->set_spacing(document.spacing());
    histogram_panel_->refresh();
    filter_panel_->refresh_document(false);
    display_panel_->refresh();
    removal_panel_->set_fill_again_enabled(session_->remove_object().can_fill_again());
    setWindowModified(!history.is_clean());
    canvas_->document_changed();
}

void MainWindow::build_status_bar() {
    size_label_ = new QLabel(this);
    zoom_label_ = new QLabel(this);
    backend_label_ = new QLabel(QString::fromStdString(backend_.describe()), this);
    time_label_ = new QLabel(this);
    backend_label_->setToolTip(tr("The device that runs Lacuna's operations"));
    statusBar()->addWidget(size_label_);
    statusBar()->addWidget(zoom_label_);
    value_label_ = new QLabel(this);
    value_label_->setObjectName("value_label");
    value_label_->setToolTip(tr("The stored samples under the pointer, and the calibrated value"));
    statusBar()->addWidget(value_label_);
    connect(canvas_, &Canvas::image_hovered, this, &MainWindow::show_readout);
    colour_label_ = new QLabel(this);
    colour_label_->setObjectName("colour_label");
    colour_label_->setToolTip(
        tr("The view converts the image's colour profile to the display's "
           "(View ▸ Display Colour Profile); the pixels keep their values"));
    statusBar()->addPermanentWidget(colour_label_);
    statusBar()->addPermanentWidget(time_label_);
    statusBar()->addPermanentWidget(backend_label_);
    connect(canvas_, &Canvas::zoom_changed, this, [this](const double zoom) {
        zoom_label_->setText(tr("%1 %").arg(zoom * 100.0, 0, 'f', 0));
    });
}

void MainWindow::reset_for_new_document() {
    // The retarget and scale targets start at the new document's size even when it has the
    // old one's.
    panel_source_w_ = panel_source_h_ = -1;
    if (session_->filter().previewing()) session_->filter().cancel();
    filter_panel_->show_status({});
    filter_panel_->show_timing({});
    filter_panel_->refresh_document(true);
    removal_panel_->reset();
    retarget_panel_->show_status({});
    histogram_panel_->reset_range();
    regions_panel_->set_document_path(document_path());
    regions_panel_->refresh();
    time_label_->clear();
    value_label_->clear();
    update_colour_label();
    document_changed();
}

void MainWindow::show_error(const QString& title, const QString& message) {
    // Non-modal, so the event loop (and tests) keep running; one dialog per failure.
    auto* box = new QMessageBox(QMessageBox::Warning, title, message, QMessageBox::Ok, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setObjectName("lacuna_error_dialog");
    box->open();
}

bool MainWindow::use_display_profile(const QString& path, const bool quiet) {
    std::vector<std::uint8_t> bytes;
    if (!path.isEmpty()) {
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly)) {
            if (!quiet)
                show_error(tr("Cannot use the display profile"),
                           tr("%1 cannot be read: %2").arg(path, file.errorString()));
            return false;
        }
        const QByteArray data = file.readAll();
        bytes.assign(data.begin(), data.end());
    }
    try {
        session_->set_display_profile(std::move(bytes));
    } catch (const Error& e) {
        if (!quiet)
            show_error(tr("Cannot use the display profile"),
                       tr("%1: %2").arg(path, QString::fromStdString(e.what())));
        return false;
    }
    QSettings().setValue("display/profile", path);
    update_colour_label();
    if (canvas_) canvas_->update();
    return true;
}

void MainWindow::choose_display_profile() {
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Display Colour Profile"), QStringLiteral("/usr/share/color/icc"),
        tr("ICC profiles (*.icc *.icm *.ICC *.ICM);;All files (*)"));
    if (!path.isEmpty()) use_display_profile(path);
}

void MainWindow::update_colour_label() {
    if (!colour_label_) return;
    const std::string conversion = session_->colour_conversion();
    colour_label_->setText(
        conversion.empty() ? QString() : tr("colour: %1").arg(QString::fromStdString(conversion)));
    show_notices();
}

bool MainWindow::compare_before(const bool on) {
    // The Video dock's fill preview: the original frame while the key is held.
    if (session_->video_fill_frame() != nullptr) {
        session_->set_video_fill_compare(on);
        statusBar()->showMessage(
            on ? tr("The original frame (release \\ for the fill)") : tr("The filled frame"),
            on ? 0 : 2000);
        canvas_->update();
        return on;
    }
    session::RemoveObjectTool& tool = session_->remove_object();
    const bool was = tool.comparing();
    const bool now = tool.set_comparing(on);
    if (now)
        statusBar()->showMessage(tr("Before the fill (release \\ for the result)"));
    else if (was)
        statusBar()->showMessage(tr("After the fill"), 2000);
    canvas_->update();
    return now;
}

void MainWindow::keyPressEvent(QKeyEvent* event) {
    if (event->key() == Qt::Key_Backslash) {
        if (!event->isAutoRepeat()) compare_before(true);
        event->accept();
        return;
    }
    QMainWindow::keyPressEvent(event);
}

void MainWindow::keyReleaseEvent(QKeyEvent* event) {
    if (event->key() == Qt::Key_Backslash) {
        if (!event->isAutoRepeat()) compare_before(false);
        event->accept();
        return;
    }
    QMainWindow::keyReleaseEvent(event);
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (ending_on_signal_) {
        // end_on_signal wrote the last autosave: unsaved edits wait in it for the next start.
        event->accept();
        return;
    }
    if (!resolve_unsaved(tr("quitting"))) {
        event->ignore();
        return;
    }
    cancel_fill();
    // Nothing unsaved, or the user agreed to lose it: no recovery file outlives the window.
    recovery_->remove();
    QSettings settings;
    settings.setValue("window/geometry", saveGeometry());
    settings.setValue("window/state", saveState());
    event->accept();
}

// ---- documents and recovery: what the window does around them ------------------------------

bool MainWindow::open_file(const QString& path) {
    return documents_->open_file(path);
}

bool MainWindow::open_sample() {
    return documents_->open_sample();
}

bool MainWindow::open_sample_measurement() {
    return documents_->open_sample_measurement();
}

void MainWindow::show_loaded(io::LoadedNative loaded, const QString& path) {
    documents_->show_loaded(std::move(loaded), path);
}

bool MainWindow::save_to(const QString& path, const bool allow_replace_source) {
    return documents_->save_to(path, allow_replace_source);
}

bool MainWindow::save() {
    return documents_->save();
}

bool MainWindow::choose_and_save() {
    return documents_->choose_and_save();
}

MainWindow::SaveCheck MainWindow::check_save(const QString& path) const {
    return documents_->check_save(path);
}

bool MainWindow::resolve_unsaved(const QString& next_action) {
    return documents_->resolve_unsaved(next_action);
}

QStringList MainWindow::recent_labels(const QStringList& paths) {
    return DocumentActions::recent_labels(paths);
}

const QString& MainWindow::document_path() const {
    return documents_->path();
}

bool MainWindow::open_video(const QString& path) {
    return documents_->open_video(path);
}

bool MainWindow::offer_recovery() {
    return recovery_->offer();
}

void MainWindow::autosave() {
    recovery_->autosave();
}

QString MainWindow::recovery_file() const {
    return recovery_->file();
}

void MainWindow::end_on_signal() {
    cancel_fill();
    recovery_->write_last();
    ending_on_signal_ = true;
    close();
}

bool MainWindow::prepare_open(const bool video) {
    if (video && video_panel_->exporting()) {
        show_error(tr("Cannot open video"), tr("An export is running: cancel it or let it end."));
        return false;
    }
    if (video_panel_->removal_busy()) {
        show_error(tr("Cannot open"),
                   tr("The video's tracking or fill is running: cancel it or let it end."));
        return false;
    }
    cancel_fill();
    return true;
}

void MainWindow::document_opened(const Opened kind, const QString& message) {
    reset_for_new_document();
    canvas_->fit_to_window();
    if (kind == Opened::Measurement) display_dock_->raise();
    if (kind == Opened::Video) video_dock_->raise();
    if (!message.isEmpty()) statusBar()->showMessage(message, kind == Opened::Video ? 10000 : 8000);
    video_panel_->refresh();
    document_changed();
    recovery_->request();
    offer_sidecar_regions();
}

void MainWindow::document_saved() {
    recovery_->remove();
    setWindowModified(false);
}

void MainWindow::display_changed() {
    display_panel_->refresh();
    canvas_->update();
}

void MainWindow::show_message(const QString& text, const int milliseconds) {
    statusBar()->showMessage(text, milliseconds);
}

void MainWindow::show_timing(const QString& text) {
    time_label_->setText(text);
}

void MainWindow::document_restored(const session::ToolState& tools, const QString& message) {
    document_changed();
    restore_panels(tools);
    canvas_->fit_to_window();
    setWindowModified(true);
    statusBar()->showMessage(message, 15000);
}

void MainWindow::restore_panels(const session::ToolState& tools) {
    // The panels send their values to the session when they change: set them first, then the
    // session's tools once more from the file, so both show what was saved.
    retarget_panel_->set_target_width(tools.retarget_width);
    retarget_panel_->set_target_height(tools.retarget_height);
    retarget_panel_->show_mix(tools.retarget_mix);
    retarget_panel_->show_energy_and_seams(tools.energy, tools.show_seams);
    histogram_panel_->show_band_and_bins(tools.line_band, tools.line_bins);
    switch (tools.active) {
        case session::ToolKind::RemoveObject:
            select_tool(tools.brush.erase ? CanvasTool::Eraser : CanvasTool::Brush);
            break;
        case session::ToolKind::LineHistogram:
            select_tool(CanvasTool::Line);
            break;
        case session::ToolKind::Regions:
            select_tool(CanvasTool::Regions);
            break;
        default:
            select_tool(CanvasTool::Pan);
            break;
    }
    session::apply_tool_state(*session_, tools);
    histogram_panel_->refresh();
    canvas_->document_changed();
}

}  // namespace lacuna::editor
