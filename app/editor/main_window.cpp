#include "main_window.hpp"

#include "filter_panel.hpp"
#include <filter_tool.hpp>
#include <lacuna/video/smooth_video.hpp>

#include "canvas.hpp"
#include "display_panel.hpp"
#include "video_panel.hpp"
#include "histogram_panel.hpp"
#include "object_removal_panel.hpp"
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
constexpr int kMaxRecentFiles = 8;
/// Undo keeps this many edits; each holds only the rectangle it changed.
constexpr int kUndoLimit = 64;
const char* const kImageFilter =
    "Images (*.png *.jpg *.jpeg *.tif *.tiff *.webp *.bmp *.ppm *.pgm *.pfm *.dcm *.fits *.fit "
    "*.fts);;Videos (*.mp4 *.m4v *.mov *.avi *.mkv *.webm *.mpg *.mpeg);;All files (*)";
const char* const kVideoFilter = "Videos (*.mp4 *.mkv *.avi *.mov);;All files (*)";

/// The autosave interval: LACUNA_AUTOSAVE_MS (tests), else the setting recovery/autosave_minutes
/// (default 2). Zero or less turns the timed autosave off (writes after long operations stay).
int autosave_interval_ms() {
    if (const char* ms = std::getenv("LACUNA_AUTOSAVE_MS"); ms != nullptr && *ms != '\0')
        return std::atoi(ms);
    return static_cast<int>(QSettings().value("recovery/autosave_minutes", 2.0).toDouble() * 60000);
}
/// One button of a question: its words, its role, and the object name tests find it by.
struct Answer {
    QString text;
    QMessageBox::ButtonRole role;
    const char* name;
};

/// Asks a modal question whose dialog and buttons carry object names (the GUI tests answer it by
/// them); the first answer is the default, the last the one Escape gives. Returns the name of
/// the answer chosen.
QString ask(QWidget* parent, const char* dialog, const QMessageBox::Icon icon, const QString& title,
            const QString& text, const QString& informative, const std::vector<Answer>& answers) {
    QMessageBox box(icon, title, text, QMessageBox::NoButton, parent);
    box.setObjectName(dialog);
    box.setInformativeText(informative);
    std::vector<QPushButton*> buttons;
    for (const Answer& a : answers) {
        buttons.push_back(box.addButton(a.text, a.role));
        buttons.back()->setObjectName(a.name);
    }
    box.setDefaultButton(buttons.front());
    box.setEscapeButton(buttons.back());
    box.exec();
    return box.clickedButton() != nullptr ? box.clickedButton()->objectName()
                                          : QString(answers.back().name);
}
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
    poll_timer_ = new QTimer(this);
    poll_timer_->setInterval(15);
    connect(poll_timer_, &QTimer::timeout, this, &MainWindow::poll);
    poll_timer_->start();
    build_object_removal_dock();
    build_retarget_dock();
    build_histogram_dock();
    build_display_dock();
    build_video_dock();
    build_filter_dock();
    build_menus();
    build_toolbar();
    build_status_bar();
    connect(canvas_, &Canvas::files_dropped, this,
            [this](const QStringList& paths) { open_file(paths.front()); });
    connect(canvas_, &Canvas::tool_input, this, [this] {
        if (session_->active_kind() == session::ToolKind::LineHistogram) {
            QElapsedTimer timer;
            timer.start();
            histogram_panel_->refresh();
            time_label_->setText(tr("histogram: %1 ms").arg(timer.nsecsElapsed() / 1e6, 0, 'f', 2));
        }
        show_notices();
    });
    try {
        autosaver_ = std::make_unique<session::Autosaver>(session::recovery_directory());
    } catch (const Error& e) {
        // The editor works without it; the user is told once.
        statusBar()->showMessage(tr("Autosave is off: %1").arg(e.what()), 15000);
    }
    autosave_timer_ = new QTimer(this);
    connect(autosave_timer_, &QTimer::timeout, this, &MainWindow::autosave);
    if (const int interval = autosave_interval_ms(); autosaver_ && interval > 0)
        autosave_timer_->start(interval);
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
    update_title();
}

MainWindow::~MainWindow() {
    // A running smoothing export stops (its temporary file goes with it).
    if (smooth_worker_.joinable()) {
        smooth_cancel_ = true;
        smooth_worker_.join();
    }
    // A running autosave finishes; the recovery file stays when there are unsaved edits (a
    // window closed by the user removed it in closeEvent).
    if (autosaver_) autosaver_->wait();
    // The canvas (a child widget) refers to the session: let it go first.
    delete canvas_;
    canvas_ = nullptr;
}

void MainWindow::build_menus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Open…"), QKeySequence::Open, this, &MainWindow::choose_and_open);
    recent_menu_ = file->addMenu(tr("Open &Recent"));
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
    update_recent_menu();

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
    tools->addAction(tr("&Brush (mask)"), QKeySequence(Qt::Key_B), this,
                     [this] { select_tool(CanvasTool::Brush); });
    tools->addAction(tr("&Eraser (mask)"), QKeySequence(Qt::Key_E), this,
                     [this] { select_tool(CanvasTool::Eraser); });
    // M, as a marquee is in other editors.
    tools->addAction(tr("Bo&x Select (mask)"), QKeySequence(Qt::Key_M), this,
                     [this] { select_tool(CanvasTool::Box); });
    tools->addAction(tr("&Fill Masked Area"), QKeySequence(Qt::CTRL | Qt::Key_Return), this,
                     &MainWindow::start_fill);

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
    removal_panel_ = new ObjectRemovalPanel(this);
    auto* dock = new QDockWidget(tr("Remove Object"), this);
    removal_dock_ = dock;
    dock->setObjectName("remove_object_dock");
    dock->setWidget(removal_panel_);
    dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
    addDockWidget(Qt::RightDockWidgetArea, dock);
    const auto set_brush = [this](const ops::BrushSettings& brush) {
        session::RemoveObjectTool& tool = session_->remove_object();
        const bool erase = tool.brush().erase;
        tool.set_brush(brush);
        tool.set_erase(erase);
        session_->retarget().set_brush(brush);
        canvas_->update();
    };
    set_brush(removal_panel_->brush());
    connect(removal_panel_, &ObjectRemovalPanel::tool_changed, this, [this](const CanvasTool tool) {
        if (tool == CanvasTool::Pan) {
            if (session_->active_kind() == session::ToolKind::RemoveObject) {
                session_->select(session::ToolKind::Pan);
                canvas_->set_tool(CanvasTool::Pan);
            }
            return;
        }
        // The toolbar shows the panel's brush, eraser or box as the active tool.
        const char* action_name = tool == CanvasTool::Eraser ? "action_tool_eraser"
                                  : tool == CanvasTool::Box  ? "action_tool_box"
                                                             : "action_tool_brush";
        if (auto* action = findChild<QAction*>(action_name)) action->setChecked(true);
        session_->remove_object().set_erase(tool == CanvasTool::Eraser);
        session_->remove_object().set_box_mode(tool == CanvasTool::Box);
        session_->remove_object().set_layer(removal_panel_->layer());
        session_->select(session::ToolKind::RemoveObject);
        canvas_->set_layer(removal_panel_->layer());
        canvas_->set_tool(tool);
        canvas_->document_changed();
    });
    connect(removal_panel_, &ObjectRemovalPanel::brush_changed, this, set_brush);
    connect(removal_panel_, &ObjectRemovalPanel::fill_requested, this, &MainWindow::start_fill);
    connect(removal_panel_, &ObjectRemovalPanel::fill_again_requested, this,
            &MainWindow::fill_again);
    connect(removal_panel_, &ObjectRemovalPanel::layer_changed, this,
            [this](const MaskLayer layer) {
                session_->remove_object().set_layer(layer);
                canvas_->set_layer(layer);
                canvas_->update();
            });
    connect(removal_panel_, &ObjectRemovalPanel::cancel_requested, this, &MainWindow::cancel_fill);
    connect(removal_panel_, &ObjectRemovalPanel::clear_mask_requested, this, [this] {
        session_->remove_object().clear_mask();
        canvas_->update();
    });
    connect(removal_panel_, &ObjectRemovalPanel::grow_requested, this, [this](const int pixels) {
        session::RemoveObjectTool& tool = session_->remove_object();
        removal_panel_->show_message(
            tool.grow_mask(pixels) ? QString() : QString::fromStdString(tool.message()));
        canvas_->document_changed();
    });
    connect(removal_panel_, &ObjectRemovalPanel::load_mask_requested, this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Load Mask"), {}, tr("Images (*.png *.tif *.tiff *.bmp *.jpg *.jpeg *.webp)"));
        if (!path.isEmpty()) load_mask(path);
    });
    connect(removal_panel_, &ObjectRemovalPanel::save_mask_requested, this, [this] {
        const QString path =
            QFileDialog::getSaveFileName(this, tr("Save Mask"), tr("mask.png"), tr("PNG (*.png)"));
        if (!path.isEmpty()) save_mask(path);
    });
}

bool MainWindow::load_mask(const QString& path) {
    session::RemoveObjectTool& tool = session_->remove_object();
    const bool ok = tool.load_mask(path.toStdString());
    removal_panel_->show_message(ok ? tr("Mask loaded from %1.").arg(QFileInfo(path).fileName())
                                    : QString::fromStdString(tool.message()));
    canvas_->document_changed();
    return ok;
}

bool MainWindow::save_mask(const QString& path) {
    session::RemoveObjectTool& tool = session_->remove_object();
    const bool ok = tool.save_mask(path.toStdString());
    removal_panel_->show_message(ok ? tr("Mask saved to %1.").arg(QFileInfo(path).fileName())
                                    : QString::fromStdString(tool.message()));
    return ok;
}

void MainWindow::select_tool(const CanvasTool tool) {
    // Keep the toolbar's checked tool in step with menus, shortcuts and panels.
    const char* names[] = {"pan", "brush", "eraser", "line", "box"};
    if (auto* action =
            findChild<QAction*>(QString("action_tool_%1").arg(names[static_cast<int>(tool)])))
        action->setChecked(true);
    if (tool == CanvasTool::Brush || tool == CanvasTool::Eraser || tool == CanvasTool::Box) {
        removal_dock_->raise();          // its settings: size, hardness, Fill
        removal_panel_->set_tool(tool);  // the object-removal mask
        return;
    }
    removal_panel_->set_tool(CanvasTool::Pan);
    if (tool == CanvasTool::Line) histogram_dock_->raise();
    session_->select(tool == CanvasTool::Line ? session::ToolKind::LineHistogram
                                              : session::ToolKind::Pan);
    canvas_->set_tool(tool);
    canvas_->document_changed();
}

bool MainWindow::undo() {
    const bool done = session_->undo();
    canvas_->document_changed();
    return done;
}

bool MainWindow::redo() {
    const bool done = session_->redo();
    canvas_->document_changed();
    return done;
}

void MainWindow::build_toolbar() {
    QToolBar* bar = addToolBar(tr("Tools"));
    bar->setObjectName("main_toolbar");
    bar->setToolButtonStyle(Qt::ToolButtonTextOnly);
    bar->addAction(tr("Open"), this, &MainWindow::choose_and_open);
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
    } tools[] = {{CanvasTool::Pan, QT_TR_NOOP("Pan")},
                 {CanvasTool::Line, QT_TR_NOOP("Line")},
                 {CanvasTool::Brush, QT_TR_NOOP("Brush")},
                 {CanvasTool::Eraser, QT_TR_NOOP("Eraser")},
                 {CanvasTool::Box, QT_TR_NOOP("Box")}};
    for (const auto& t : tools) {
        QAction* action = bar->addAction(tr(t.text));
        action->setCheckable(true);
        action->setChecked(t.tool == CanvasTool::Pan);
        action->setObjectName(QString("action_tool_%1").arg(QString(t.text).toLower()));
        group->addAction(action);
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
    connect(histogram_panel_, &HistogramPanel::export_csv_requested, this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export Histogram (CSV)"),
                                                          "histogram.csv", tr("CSV (*.csv)"));
        if (!path.isEmpty()) export_histogram_csv(path);
    });
    connect(histogram_panel_, &HistogramPanel::copied, this,
            [this](const QString& what) { statusBar()->showMessage(what, 5000); });
    connect(histogram_panel_, &HistogramPanel::scale_set, this, [this](const PixelSpacing& s) {
        session_->document().set_spacing(s);  // Save writes it (TIFF)
        statusBar()->showMessage(tr("Pixel size: %1").arg(QString::fromStdString(s.describe())),
                                 5000);
    });
    connect(histogram_panel_, &HistogramPanel::export_png_requested, this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export Histogram (PNG)"),
                                                          "histogram.png", tr("PNG (*.png)"));
        if (path.isEmpty()) return;
        if (histogram_panel_->export_png(path))
            statusBar()->showMessage(tr("Exported the plot to %1").arg(path), 8000);
        else
            show_error(tr("Cannot export"),
                       tr("Could not write %1 (draw a line first).").arg(path));
    });
}

bool MainWindow::export_histogram_csv(const QString& path) {
    if (!histogram_panel_->export_csv(path)) {
        show_error(tr("Cannot export"), tr("Could not write %1 (draw a line first).").arg(path));
        return false;
    }
    statusBar()->showMessage(tr("Exported the line histogram to %1").arg(path), 8000);
    return true;
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
}

bool MainWindow::open_video(const QString& path) {
    if (!resolve_unsaved(tr("opening %1").arg(QFileInfo(path).fileName()))) return false;
    return load_video(path);
}

bool MainWindow::load_video(const QString& path) {
    QElapsedTimer timer;
    timer.start();
    if (video_panel_->exporting()) {
        show_error(tr("Cannot open video"), tr("An export is running: cancel it or let it end."));
        return false;
    }
    try {
        cancel_fill();
        session_->open_video(path.toStdString());
    } catch (const Error& e) {
        show_error(tr("Cannot open video"), QString::fromStdString(e.what()));
        return false;
    }
    reset_for_new_document();
    canvas_->fit_to_window();
    document_path_ = path;
    remember_recent(path);
    video_panel_->refresh();
    video_dock_->raise();
    const session::VideoClip& clip = *session_->video();
    time_label_->setText(tr("opened in %1 ms").arg(timer.elapsed()));
    statusBar()->showMessage(tr("%1 × %2, %3 frames at %4 fps (%5): retarget a frame to preview; "
                                "Export Video writes them all")
                                 .arg(clip.info().width)
                                 .arg(clip.info().height)
                                 .arg(clip.frame_count())
                                 .arg(clip.info().fps, 0, 'f', 2)
                                 .arg(QString::fromStdString(clip.info().codec)),
                             10000);
    update_title();
    document_changed();
    request_autosave();
    return true;
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
    show_document(std::move(view), QString(),
                  {tr("Converted to an 8-bit photo through the window %1 .. %2 (%3 LUT)")
                       .arg(display.window.lo)
                       .arg(display.window.hi)
                       .arg(QString::fromUtf8(to_string(display.lut).data()))},
                  std::move(metadata));
    session_->history().mark_unsaved();  // nothing on disk holds the converted photo
    setWindowModified(true);
}

void MainWindow::build_filter_dock() {
    filter_panel_ = new FilterPanel(this);
    filter_dock_ = new QDockWidget(tr("Filters"), this);
    filter_dock_->setObjectName("filter_dock");
    filter_dock_->setWidget(filter_panel_);
    filter_dock_->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
    addDockWidget(Qt::RightDockWidgetArea, filter_dock_);
    tabifyDockWidget(removal_dock_, filter_dock_);
    session::FilterTool& tool = session_->filter();
    connect(filter_panel_, &FilterPanel::bilateral_changed, this, [this] {
        session::FilterTool& f = session_->filter();
        f.set_bilateral(filter_panel_->bilateral());
        if (f.kind() == session::FilterKind::Bilateral) filter_previewed();
    });
    connect(filter_panel_, &FilterPanel::scale_changed, this, [this] {
        session::FilterTool& f = session_->filter();
        f.set_scale(filter_panel_->scale_width(), filter_panel_->scale_height(),
                    filter_panel_->scale_method());
        if (f.kind() == session::FilterKind::Scale) filter_previewed();
    });
    connect(filter_panel_, &FilterPanel::guide_requested, this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Guide Image"), QSettings().value("paths/last_dir").toString(),
            tr(kImageFilter));
        if (path.isEmpty()) return;
        try {
            io::LoadedImage guide = io::read_image(path.toStdString());
            if (!session_->filter().set_guide(std::move(guide.image))) {
                filter_panel_->show_status(QString::fromStdString(session_->filter().status()));
                return;
            }
            filter_panel_->show_guide(QFileInfo(path).fileName());
            filter_previewed();
        } catch (const Error& e) {
            show_error(tr("Guide Image"), QString::fromUtf8(e.what()));
        }
    });
    connect(filter_panel_, &FilterPanel::guide_cleared, this, [this] {
        session_->filter().clear_guide();
        filter_panel_->show_guide({});
        filter_previewed();
    });
    connect(filter_panel_, &FilterPanel::apply_requested, this, [this] {
        session::FilterTool& f = session_->filter();
        QElapsedTimer timer;
        timer.start();
        if (!f.apply()) {
            filter_panel_->show_status(QString::fromStdString(f.status()));
            return;
        }
        filter_panel_->show_timing({});
        filter_panel_->show_status(
            tr("Applied (%1 ms). Undo with Ctrl+Z.").arg(timer.nsecsElapsed() / 1e6, 0, 'f', 1));
        canvas_->document_changed();
        request_autosave();
    });
    connect(filter_panel_, &FilterPanel::cancel_requested, this, [this] {
        session_->filter().cancel();
        filter_panel_->show_timing({});
        filter_panel_->show_status({});
        canvas_->document_changed();
    });
    connect(filter_panel_, &FilterPanel::temporal_changed, this, [this] {
        session::FilterTool& f = session_->filter();
        try {
            f.set_temporal(filter_panel_->temporal_size(), filter_panel_->temporal_sigma_space(),
                           filter_panel_->temporal_sigma_time());
        } catch (const Error& e) {
            filter_panel_->show_status(QString::fromUtf8(e.what()));
            return;
        }
        if (f.kind() == session::FilterKind::Temporal) filter_previewed();
    });
    connect(filter_panel_, &FilterPanel::export_requested, this, [this] {
        const QString path = QFileDialog::getSaveFileName(
            this, tr("Export Smoothed Video"),
            QSettings().value("paths/last_dir").toString() + "/smoothed.mp4", tr(kVideoFilter));
        if (!path.isEmpty()) export_smoothed_video_to(path);
    });
    connect(filter_panel_, &FilterPanel::export_cancel_requested, this,
            [this] { smooth_cancel_ = true; });
    smooth_timer_ = new QTimer(this);
    smooth_timer_->setInterval(100);
    connect(smooth_timer_, &QTimer::timeout, this, [this] {
        filter_panel_->show_export_progress(smooth_done_, std::max(smooth_total_.load(), 1));
        if (!smooth_finished_) return;
        smooth_worker_.join();
        smooth_timer_->stop();
        filter_panel_->show_export_progress(0, -1);
        filter_panel_->show_status(smooth_message_);
        statusBar()->showMessage(smooth_message_, 10000);
    });
    tool.set_bilateral(filter_panel_->bilateral());
}

bool MainWindow::export_smoothed_video_to(const QString& path) {
    if (smooth_worker_.joinable()) return false;
    video::SmoothVideoOptions options;
    try {
        session_->filter().set_temporal(filter_panel_->temporal_size(),
                                        filter_panel_->temporal_sigma_space(),
                                        filter_panel_->temporal_sigma_time());
        options = session_->filter().prepare_temporal_export(path.toStdString());
        if (io::same_file(options.input, options.output))
            throw Error(ErrorCode::InvalidArgument, "refusing to overwrite the clip itself");
    } catch (const Error& e) {
        filter_panel_->show_status(QString::fromUtf8(e.what()));
        return false;
    }
    smooth_done_ = 0;
    smooth_total_ = session_->video()->frame_count();
    smooth_cancel_ = false;
    smooth_finished_ = false;
    filter_panel_->show_status(tr("Smoothing %1 frames…").arg(smooth_total_.load()));
    smooth_worker_ = std::thread([this, options] {
        QString message;
        try {
            const video::SmoothVideoResult r =
                video::smooth_video(options, [this](const video::VideoProgress& p) {
                    smooth_done_ = p.frame;
                    if (p.total > 0) smooth_total_ = p.total;
                    return !smooth_cancel_.load();
                });
            message = tr("Exported %1 smoothed frames (%2) in %3 s on the %4.")
                          .arg(r.frames)
                          .arg(QString::fromStdString(r.output_codec))
                          .arg(r.seconds, 0, 'f', 1)
                          .arg(r.backend == "cuda" ? tr("GPU") : tr("CPU"));
        } catch (const Error& e) {
            message = e.code() == ErrorCode::Cancelled
                          ? tr("Export cancelled: nothing was written.")
                          : tr("Export failed: %1").arg(QString::fromUtf8(e.what()));
        } catch (const std::exception& e) {
            message = tr("Export failed: %1").arg(QString::fromUtf8(e.what()));
        }
        smooth_message_ = message;  // read only after smooth_finished_ is seen
        smooth_finished_ = true;
    });
    smooth_timer_->start();
    return true;
}

void MainWindow::open_filter(const int page) {
    filter_dock_->show();
    filter_dock_->raise();
    filter_panel_->show_page(static_cast<FilterPanel::Page>(page));
    session::FilterTool& f = session_->filter();
    f.set_bilateral(filter_panel_->bilateral());
    if (page == FilterPanel::TemporalPage)
        f.set_temporal(filter_panel_->temporal_size(), filter_panel_->temporal_sigma_space(),
                       filter_panel_->temporal_sigma_time());
    if (page == FilterPanel::ScalePage) {
        if (filter_panel_->scale_width() <= 1 && filter_panel_->scale_height() <= 1)
            filter_panel_->set_source_size(session_->document().width(),
                                           session_->document().height());
        f.set_scale(filter_panel_->scale_width(), filter_panel_->scale_height(),
                    filter_panel_->scale_method());
    }
    const session::FilterKind kind = page == FilterPanel::ScalePage ? session::FilterKind::Scale
                                     : page == FilterPanel::TemporalPage
                                         ? session::FilterKind::Temporal
                                         : session::FilterKind::Bilateral;
    bool started = false;
    try {
        started = f.begin(kind);
    } catch (const Error& e) {
        filter_panel_->show_status(QString::fromUtf8(e.what()));
        return;
    }
    if (!started) {
        filter_panel_->show_status(QString::fromStdString(f.status()));
        return;
    }
    filter_panel_->show_status({});
    filter_previewed();
}

void MainWindow::filter_previewed() {
    const session::FilterTool& f = session_->filter();
    if (!f.previewing()) return;
    const QString timing = tr("Preview %1 × %2: %3 ms (%4)")
                               .arg(f.frame_width())
                               .arg(f.frame_height())
                               .arg(f.last_ms(), 0, 'f', f.last_ms() < 10 ? 2 : 0)
                               .arg(QString::fromStdString(f.ran_on()));
    filter_panel_->show_timing(timing);
    time_label_->setText(tr("filter: %1 ms").arg(f.last_ms(), 0, 'f', f.last_ms() < 10 ? 2 : 0));
    show_notices();
    canvas_->document_changed();
}

void MainWindow::build_retarget_dock() {
    retarget_panel_ = new RetargetPanel(this);
    auto* dock = new QDockWidget(tr("Retarget"), this);
    dock->setObjectName("retarget_dock");
    dock->setWidget(retarget_panel_);
    dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
    addDockWidget(Qt::RightDockWidgetArea, dock);
    tabifyDockWidget(removal_dock_, dock);
    session::RetargetTool& tool = session_->retarget();
    tool.on_map_published = [this](const bool vertical, const bool exact) {
        emit map_published(vertical, exact);
    };
    tool.on_preview_changed = [this] {
        retarget_panel_->show_status(QString::fromStdString(session_->retarget().status()));
        canvas_->document_changed();
    };
    connect(retarget_panel_, &RetargetPanel::target_changed, this, [this](int width, int height) {
        // A preview the user asks for is shown: a tool that shows the document instead (the
        // line, the fill brush) gives way to the retarget tool.
        const session::Document& document = session_->document();
        const bool resized = width != document.width() || height != document.height();
        const session::ToolKind active = session_->active_kind();
        if (resized && active != session::ToolKind::Pan && active != session::ToolKind::Retarget)
            activate_retarget_tool();
        session_->retarget().set_target(width, height);
        canvas_->document_changed();
        retarget_panel_->show_status(QString::fromStdString(session_->retarget().status()));
    });
    connect(retarget_panel_, &RetargetPanel::seams_overlay_toggled, this, [this](bool on) {
        session_->retarget().set_show_seams(on);
        canvas_->document_changed();
    });
    connect(retarget_panel_, &RetargetPanel::energy_changed, this, [this] {
        session_->retarget().set_energy(retarget_panel_->energy());
        canvas_->document_changed();
    });
    tool.set_energy(retarget_panel_->energy());
    connect(retarget_panel_, &RetargetPanel::apply_requested, this, &MainWindow::apply_retarget);
    connect(retarget_panel_, &RetargetPanel::limit_reached, this,
            [this](const QString& message) { statusBar()->showMessage(message, 8000); });
    // Choosing the Retarget tab shows its preview.
    connect(dock, &QDockWidget::visibilityChanged, this, [this](const bool visible) {
        const session::ToolKind active = session_->active_kind();
        if (visible && session_->retarget().previewing() && active != session::ToolKind::Pan &&
            active != session::ToolKind::Retarget)
            activate_retarget_tool();
    });
    connect(retarget_panel_, &RetargetPanel::reset_requested, this, [this] {
        retarget_panel_->set_target_width(session_->document().width());
        retarget_panel_->set_target_height(session_->document().height());
    });
    connect(retarget_panel_, &RetargetPanel::tool_changed, this,
            [this](const CanvasTool tool, const MaskLayer layer) {
                removal_panel_->set_tool(CanvasTool::Pan);
                session_->select(session::ToolKind::Retarget);
                canvas_->set_tool(tool);
                // Masks are painted on the original, not on a preview.
                if (tool == CanvasTool::Pan) {
                    session_->retarget().set_mask_brush(std::nullopt);
                } else {
                    session_->retarget().set_mask_brush(layer, tool == CanvasTool::Eraser);
                    canvas_->set_layer(layer);
                }
                canvas_->document_changed();
            });
}

bool MainWindow::apply_retarget() {
    session::RetargetTool& tool = session_->retarget();
    if (!tool.apply()) {
        retarget_panel_->show_status(QString::fromStdString(tool.status()));
        return false;
    }
    const QString text = QString::fromStdString(session_->history().undo_label());
    statusBar()->showMessage(text, 6000);
    request_autosave();
    return true;
}

bool MainWindow::fill_running() const {
    return session_->remove_object().fill_running();
}

bool MainWindow::start_fill() {
    session::RemoveObjectTool& tool = session_->remove_object();
    tool.set_fill_params(removal_panel_->fill_params());
    if (!tool.start_fill()) {
        const QString message = QString::fromStdString(tool.message());
        removal_panel_->show_fill_idle(message, /*finished=*/false);
        if (!message.startsWith("Nothing to fill")) show_error(tr("Cannot fill"), message);
        return false;
    }
    fill_was_running_ = true;
    removal_panel_->show_fill_running(0, tool.fill_progress().total);
    poll_timer_->setInterval(0);  // a step per event-loop turn while the fill runs
    canvas_->update();
    return true;
}

bool MainWindow::fill_again() {
    session::RemoveObjectTool& tool = session_->remove_object();
    if (!tool.fill_again()) {
        removal_panel_->show_fill_idle(QString::fromStdString(tool.message()), /*finished=*/false);
        return false;
    }
    fill_was_running_ = true;
    removal_panel_->show_fill_running(0, tool.fill_progress().total);
    poll_timer_->setInterval(0);
    canvas_->update();
    return true;
}

void MainWindow::cancel_fill() {
    session::RemoveObjectTool& tool = session_->remove_object();
    if (!tool.fill_running()) return;
    tool.cancel_fill();
    fill_was_running_ = false;
    poll_timer_->setInterval(15);
    removal_panel_->show_fill_idle(QString::fromStdString(tool.message()), /*finished=*/false);
    canvas_->update();
}

void MainWindow::poll() {
    session_->poll();
    session::RemoveObjectTool& fill = session_->remove_object();
    if (fill.fill_running()) {
        removal_panel_->show_fill_running(fill.fill_progress().filled, fill.fill_progress().total);
    } else if (fill_was_running_) {
        fill_was_running_ = false;
        removal_panel_->show_fill_running(fill.fill_progress().filled, fill.fill_progress().total);
        poll_timer_->setInterval(15);
        const QString message = QString::fromStdString(fill.message());
        removal_panel_->show_fill_idle(message, /*finished=*/true);
        removal_panel_->set_fill_again_enabled(fill.can_fill_again());
        statusBar()->showMessage(message, 8000);
        request_autosave();
    }
    const session::RetargetTool::Progress progress = session_->retarget().progress();
    retarget_panel_->show_progress(QString::fromStdString(progress.what), progress.done,
                                   progress.total);
    retarget_panel_->show_status(QString::fromStdString(session_->retarget().status()));
    show_notices();
    if (autosaver_) {
        show_autosave_outcome();
        if (autosave_pending_ && !autosaver_->writing()) autosave();
    }
    if (session_->frame_revision() != painted_revision_) {
        painted_revision_ = session_->frame_revision();
        canvas_->document_changed();
    }
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
    undo_action_->setEnabled(history.can_undo());
    redo_action_->setEnabled(history.can_redo());
    undo_action_->setText(history.can_undo()
                              ? tr("&Undo %1").arg(QString::fromStdString(history.undo_label()))
                              : tr("&Undo"));
    redo_action_->setText(history.can_redo()
                              ? tr("&Redo %1").arg(QString::fromStdString(history.redo_label()))
                              : tr("&Redo"));
    undo_button_->setEnabled(history.can_undo());
    redo_button_->setEnabled(history.can_redo());
    undo_button_->setToolTip(
        history.can_undo()
            ? tr("Undo %1 (Ctrl+Z)").arg(QString::fromStdString(history.undo_label()))
            : tr("Nothing to undo"));
    redo_button_->setToolTip(
        history.can_redo()
            ? tr("Redo %1 (Ctrl+Shift+Z)").arg(QString::fromStdString(history.redo_label()))
            : tr("Nothing to redo"));
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
    display_panel_->refresh();
    removal_panel_->set_fill_again_enabled(session_->remove_object().can_fill_again());
    setWindowModified(!history.is_clean());
    canvas_->document_changed();
}

bool MainWindow::resolve_unsaved(const QString& next_action) {
    if (session_->history().is_clean()) return true;
    const QString name =
        document_path_.isEmpty() ? tr("The image") : QFileInfo(document_path_).fileName();
    const QString answer =
        ask(this, "lacuna_unsaved_dialog", QMessageBox::Warning, tr("Unsaved changes"),
            tr("%1 has changes that are not saved.").arg(name),
            tr("Save them before %1? If you don't, the changes are lost.").arg(next_action),
            {{tr("Save"), QMessageBox::AcceptRole, "unsaved_save"},
             {tr("Discard"), QMessageBox::DestructiveRole, "unsaved_discard"},
             {tr("Cancel"), QMessageBox::RejectRole, "unsaved_cancel"}});
    if (answer == "unsaved_discard") return true;
    return answer == "unsaved_save" && save();
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
    save_losses_accepted_ = false;
    // The retarget and scale targets start at the new document's size even when it has the
    // old one's.
    panel_source_w_ = panel_source_h_ = -1;
    if (session_->filter().previewing()) session_->filter().cancel();
    filter_panel_->show_status({});
    filter_panel_->show_timing({});
    removal_panel_->reset();
    retarget_panel_->show_status({});
    histogram_panel_->reset_range();
    time_label_->clear();
    value_label_->clear();
    update_colour_label();
    document_changed();
}

void MainWindow::activate_retarget_tool() {
    if (auto* action = findChild<QAction*>("action_tool_pan")) action->setChecked(true);
    removal_panel_->set_tool(CanvasTool::Pan);
    retarget_panel_->set_pan_tool();
    session_->retarget().set_mask_brush(std::nullopt);
    session_->select(session::ToolKind::Retarget);
    canvas_->set_tool(CanvasTool::Pan);
    canvas_->document_changed();
}

void MainWindow::show_error(const QString& title, const QString& message) {
    // Non-modal, so the event loop (and tests) keep running; one dialog per failure.
    auto* box = new QMessageBox(QMessageBox::Warning, title, message, QMessageBox::Ok, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setObjectName("lacuna_error_dialog");
    box->open();
}

void MainWindow::show_document(ImageRgba8 image, const QString& path, const QStringList& notices,
                               io::Metadata metadata) {
    cancel_fill();
    session_->open(std::move(image), std::move(metadata));
    reset_for_new_document();
    canvas_->fit_to_window();
    document_path_ = path;
    if (!notices.isEmpty()) statusBar()->showMessage(notices.join("; "), 8000);
    video_panel_->refresh();
    update_title();
    update_colour_label();
    request_autosave();
}

bool MainWindow::open_file(const QString& path) {
    if (!resolve_unsaved(tr("opening %1").arg(QFileInfo(path).fileName()))) return false;
    return load_file(path);
}

bool MainWindow::load_file(const QString& path) {
    if (io::is_video_path(path.toStdString())) return load_video(path);
    QElapsedTimer timer;
    timer.start();
    try {
        show_loaded(io::read_native(path.toStdString()), path);
        remember_recent(path);
        time_label_->setText(tr("opened in %1 ms").arg(timer.elapsed()));
        return true;
    } catch (const Error& e) {
        show_error(tr("Cannot open image"), QString::fromStdString(e.what()));
        return false;
    }
}

void MainWindow::show_loaded(io::LoadedNative loaded, const QString& path) {
    QStringList notices;
    for (const std::string& n : loaded.notices) notices << QString::fromStdString(n);
    const NativeImage& first = loaded.pages.front();
    // 8-bit colour (and grey) files without a calibration are photos; everything else is a
    // measurement, kept as stored.
    const bool photo = first.sample_type() == SampleType::U8 && loaded.pages.size() == 1 &&
                       loaded.calibration.identity() && loaded.calibration.unit.empty() &&
                       loaded.info.format != io::ImageFormat::Dicom &&
                       loaded.info.format != io::ImageFormat::Fits;
    if (photo) {
        show_document(to_rgba8(convert(first, {SampleType::U8, 4})), path, notices,
                      std::move(loaded.metadata));
        return;
    }
    cancel_fill();
    std::optional<DisplayWindow> window;
    if (loaded.window) window = DisplayWindow{loaded.window->first, loaded.window->second};
    const PixelSpacing spacing = loaded.spacing;
    session_->open_measurement(std::move(loaded.pages), loaded.calibration, window,
                               std::move(loaded.metadata));
    session_->document().set_spacing(spacing);
    reset_for_new_document();
    display_dock_->raise();
    canvas_->fit_to_window();
    document_path_ = path;
    if (!notices.isEmpty()) statusBar()->showMessage(notices.join("; "), 8000);
    update_title();
    document_changed();
    request_autosave();
}

bool MainWindow::open_sample_measurement() {
    if (!resolve_unsaved(tr("opening the sample measurement"))) return false;
    QFile file(":/lacuna/sample/temperature.fits");
    if (!file.open(QIODevice::ReadOnly)) {
        show_error(tr("Cannot open sample"), tr("The bundled measurement sample is missing."));
        return false;
    }
    const QByteArray data = file.readAll();
    try {
        show_loaded(io::decode_native(std::vector<std::uint8_t>(data.begin(), data.end()),
                                      "temperature.fits"),
                    QString());
        session_->set_lut(Lut::Inferno);
        display_panel_->refresh();
        canvas_->update();
        setWindowTitle(tr("Sample measurement (temperature.fits, kelvin)[*] — Lacuna"));
        return true;
    } catch (const Error& e) {
        show_error(tr("Cannot open sample"), QString::fromStdString(e.what()));
        return false;
    }
}

bool MainWindow::open_sample() {
    if (!resolve_unsaved(tr("opening the sample image"))) return false;
    QFile file(":/lacuna/sample/fruits.jpg");
    if (!file.open(QIODevice::ReadOnly)) {
        show_error(tr("Cannot open sample"), tr("The bundled sample image is missing."));
        return false;
    }
    const QByteArray data = file.readAll();
    try {
        io::LoadedImage loaded =
            io::decode_image(std::vector<std::uint8_t>(data.begin(), data.end()), "sample image");
        show_document(std::move(loaded.image), QString(), {});
        setWindowTitle(tr("Sample image (fruits.jpg)[*] — Lacuna"));
        return true;
    } catch (const Error& e) {
        show_error(tr("Cannot open sample"), QString::fromStdString(e.what()));
        return false;
    }
}

bool MainWindow::save_to(const QString& path, const bool allow_replace_source) {
    if (session_->document().empty()) return false;
    if (!allow_replace_source && !document_path_.isEmpty() &&
        io::same_file(document_path_.toStdString(), path.toStdString())) {
        const auto answer = QMessageBox::question(
            this, tr("Replace the original?"),
            tr("%1 is the file this image was opened from. Replace it?").arg(path));
        if (answer != QMessageBox::Yes) return false;
    }
    session::RetargetTool& retarget = session_->retarget();
    if (retarget.previewing()) {
        // A preview is not an edit: the user decides whether the file gets it.
        const QString answer =
            ask(this, "lacuna_preview_dialog", QMessageBox::Question,
                tr("Retarget preview not applied"),
                tr("The retarget preview (%1 × %2 px) is not part of the image yet.")
                    .arg(retarget.target_width())
                    .arg(retarget.target_height()),
                tr("Apply it and save the result, or save the image as it is (%1 × %2 px)?")
                    .arg(session_->document().width())
                    .arg(session_->document().height()),
                {{tr("Apply and Save"), QMessageBox::AcceptRole, "preview_apply"},
                 {tr("Save Without It"), QMessageBox::DestructiveRole, "preview_without"},
                 {tr("Cancel"), QMessageBox::RejectRole, "preview_cancel"}});
        if (answer == "preview_apply") {
            if (!apply_retarget()) {
                show_error(
                    tr("Cannot apply the retarget preview"),
                    tr("%1\n\nNothing was saved.").arg(QString::fromStdString(retarget.status())));
                return false;
            }
        } else if (answer != "preview_without") {
            return false;
        }
    }
    try {
        // A measurement document saves its stored samples (same depth where the format holds
        // it; otherwise the notice says what was converted); both keep the opened file's
        // metadata.
        const auto notices = session_->save(path.toStdString());
        QStringList text;
        for (const std::string& n : notices) text << QString::fromStdString(n);
        statusBar()->showMessage(
            tr("Saved %1%2").arg(path, text.isEmpty() ? "" : " (" + text.join("; ") + ")"), 8000);
        if (!io::same_file(document_path_.toStdString(), path.toStdString()))
            save_losses_accepted_ = false;  // a new file of its own: its own losses, asked anew
        document_path_ = path;
        session_->history().set_clean();
        if (autosaver_) autosaver_->remove();  // the file on disk holds every edit now
        remember_recent(path);
        update_title();
        setWindowModified(false);
        return true;
    } catch (const Error& e) {
        show_error(tr("Cannot save image"), QString::fromStdString(e.what()));
        return false;
    }
}

void MainWindow::choose_and_open() {
    QSettings settings;
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open Image"), settings.value("paths/last_dir").toString(), tr(kImageFilter));
    if (path.isEmpty()) return;
    settings.setValue("paths/last_dir", QFileInfo(path).absolutePath());
    open_file(path);
}

bool MainWindow::choose_and_save() {
    if (session_->document().empty()) return false;
    QSettings settings;
    QString suggested = document_path_;
    if (suggested.isEmpty()) {
        suggested = settings.value("paths/last_dir").toString() + "/untitled.png";
    } else if (const session::VideoClip* clip = session_->video()) {
        // A frame of a video: the clip's name with the frame number, as a PNG beside it.
        const QFileInfo info(document_path_);
        suggested = info.absolutePath() + "/" + info.completeBaseName() +
                    QString("-frame%1.png").arg(clip->current() + 1, 4, 10, QChar('0'));
    } else if (!check_save(document_path_).writable) {
        const QFileInfo info(document_path_);
        suggested = info.absolutePath() + "/" + info.completeBaseName() +
                    (session_->document().measurement() ? ".tif" : ".png");
    }
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Save Image As"), suggested, tr(kImageFilter));
    if (path.isEmpty()) return false;
    settings.setValue("paths/last_dir", QFileInfo(path).absolutePath());
    return save_to(path, /*allow_replace_source=*/false);
}

MainWindow::SaveCheck MainWindow::check_save(const QString& path) const {
    SaveCheck check;
    io::ImageFormat format = io::ImageFormat::Png;
    try {
        format = io::format_for_path(path.toStdString());
    } catch (const Error&) {
        check.writable = false;
        check.losses << tr("Lacuna cannot write %1 files; Save As keeps the image in another "
                           "format.")
                            .arg(QFileInfo(path).suffix().toUpper());
        return check;
    }
    const io::WriteOptions defaults;
    if (format == io::ImageFormat::Jpeg)
        check.losses << tr("JPEG stores the image lossily: saving encodes it again (quality %1), "
                           "and some detail is lost each time.")
                            .arg(defaults.jpeg_quality);
    if (format == io::ImageFormat::Webp && !defaults.webp_lossless)
        check.losses << tr("WebP is written lossily here: some detail is lost.");
    if (const int pages = session_->page_count(); pages > 1)
        check.losses << tr("The file has %1 pages; only the page shown (%2) would be written, "
                           "and the other %3 lost.")
                            .arg(pages)
                            .arg(session_->page() + 1)
                            .arg(pages - 1);
    const session::Document& document = session_->document();
    if (document.measurement()) {
        const NativeImage& samples = document.samples();
        if (!io::format_holds(format, samples.sample_type(), samples.channels()))
            check.losses << tr("%1 cannot hold these %2 samples: they would be narrowed to 8 bits.")
                                .arg(QString::fromUtf8(io::to_string(format).data()))
                                .arg(QString::fromUtf8(to_string(samples.sample_type()).data()));
        if ((!document.calibration().identity() || !document.calibration().unit.empty()) &&
            !io::format_keeps_calibration(format))
            check.losses << tr("The calibration (%1) is not stored in %2 files.")
                                .arg(QString::fromStdString(document.calibration().unit))
                                .arg(QString::fromUtf8(io::to_string(format).data()));
    }
    return check;
}

bool MainWindow::save() {
    if (session_->document().empty()) return false;
    // No file of its own to write: a sample, a converted measurement, or a frame of a video.
    if (document_path_.isEmpty() || session_->video() != nullptr) return choose_and_save();
    const SaveCheck check = check_save(document_path_);
    if (!check.losses.isEmpty() && (!save_losses_accepted_ || !check.writable)) {
        const QString file = QFileInfo(document_path_).fileName();
        // Save As first: the choice that loses nothing.
        std::vector<Answer> answers{{tr("Save As…"), QMessageBox::ActionRole, "loss_save_as"}};
        if (check.writable) answers.push_back({tr("Save"), QMessageBox::AcceptRole, "loss_save"});
        answers.push_back({tr("Cancel"), QMessageBox::RejectRole, "loss_cancel"});
        const QString answer =
            ask(this, "lacuna_save_loss_dialog", QMessageBox::Warning, tr("Save"),
                check.writable ? tr("Saving over %1 loses something:").arg(file)
                               : tr("%1 cannot be saved in its own format.").arg(file),
                "• " + check.losses.join("\n• "), answers);
        if (answer == "loss_save_as") return choose_and_save();
        if (answer != "loss_save") return false;
        save_losses_accepted_ = true;  // said once for this document
    }
    return save_to(document_path_, /*allow_replace_source=*/true);
}

void MainWindow::remember_recent(const QString& path) {
    QSettings settings;
    QStringList recent = settings.value("recent_files").toStringList();
    const QString absolute = QFileInfo(path).absoluteFilePath();
    recent.removeAll(absolute);
    recent.prepend(absolute);
    while (recent.size() > kMaxRecentFiles) recent.removeLast();
    settings.setValue("recent_files", recent);
    update_recent_menu();
}

QStringList MainWindow::recent_labels(const QStringList& paths) {
    // Each label grows by one parent folder at a time while another path ends the same way.
    const auto parts_of = [](const QString& path) {
        return QDir::fromNativeSeparators(path).split('/', Qt::SkipEmptyParts);
    };
    const auto tail = [](const QStringList& parts, const qsizetype n) {
        return parts.mid(std::max<qsizetype>(0, parts.size() - n)).join('/');
    };
    QStringList labels;
    for (const QString& path : paths) {
        const QStringList parts = parts_of(path);
        qsizetype n = 1;
        const auto clashes = [&] {
            for (const QString& other : paths)
                if (other != path && tail(parts_of(other), n) == tail(parts, n)) return true;
            return false;
        };
        while (n < parts.size() && clashes()) ++n;
        const QString name = parts.isEmpty() ? path : parts.back();
        labels << (n == 1 ? name
                          : tr("%1 — %2").arg(name, tail(parts, n).chopped(name.size() + 1)));
    }
    return labels;
}

void MainWindow::update_recent_menu() {
    recent_menu_->clear();
    const QStringList recent = QSettings().value("recent_files").toStringList();
    const QStringList labels = recent_labels(recent);
    for (qsizetype i = 0; i < recent.size(); ++i) {
        const QString path = recent[i];
        recent_menu_->addAction(labels[i], this, [this, path] { open_file(path); })
            ->setToolTip(path);
    }
    recent_menu_->setEnabled(!recent.isEmpty());
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

void MainWindow::update_title() {
    setWindowTitle(document_path_.isEmpty()
                       ? tr("Lacuna[*]")
                       : tr("%1[*] — Lacuna").arg(QFileInfo(document_path_).fileName()));
}

bool MainWindow::compare_before(const bool on) {
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
    if (autosaver_) autosaver_->remove();
    QSettings settings;
    settings.setValue("window/geometry", saveGeometry());
    settings.setValue("window/state", saveState());
    event->accept();
}

// ---- crash recovery ----------------------------------------------------------------------------

void MainWindow::autosave() {
    autosave_pending_ = false;
    if (!autosaver_) return;
    try {
        if (autosaver_->request(*session_, document_path_.toStdString()) ==
            session::Autosaver::Request::Busy)
            autosave_pending_ = true;  // a stroke, a fill or the last write: the next poll tries
    } catch (const Error& e) {
        statusBar()->showMessage(tr("Autosave failed: %1").arg(e.what()), 12000);
    }
}

void MainWindow::show_autosave_outcome() {
    const std::optional<session::Autosaver::Outcome> outcome = autosaver_->poll();
    if (!outcome) return;
    if (!outcome->ok)
        statusBar()->showMessage(
            tr("Autosave failed: %1").arg(QString::fromStdString(outcome->message)), 12000);
}

QString MainWindow::recovery_file() const {
    return autosaver_ ? QString::fromStdString(autosaver_->file().string()) : QString();
}

void MainWindow::end_on_signal() {
    cancel_fill();
    if (autosaver_) {
        try {
            autosaver_->request_and_wait(*session_, document_path_.toStdString());
        } catch (const Error&) {
            // The file of the last successful autosave stays; nothing more can be done here.
        }
    }
    ending_on_signal_ = true;
    close();
}

bool MainWindow::offer_recovery() {
    if (!autosaver_) return false;
    const session::RecoverySlot& slot = autosaver_->slot();
    const std::vector<std::filesystem::path> orphans = slot.orphans();
    if (orphans.empty()) return false;
    // The newest first; older ones are offered at later starts, never deleted unasked.
    const std::filesystem::path& file = orphans.front();
    const QString name = QString::fromStdString(file.string());
    session::RecoverySnapshot snapshot;
    try {
        snapshot = session::read_recovery(file);
    } catch (const Error& e) {
        const std::filesystem::path aside = slot.set_aside(file);
        show_error(tr("Cannot restore unsaved edits"),
                   tr("%1\n\nThe file is kept as %2 and not offered again.")
                       .arg(e.what(), QString::fromStdString(aside.string())));
        return false;
    }
    const QString what = snapshot.document_path.empty()
                             ? tr("an image")
                             : QFileInfo(QString::fromStdString(snapshot.document_path)).fileName();
    const QDateTime when = QFileInfo(name).lastModified();
    QString answer = qEnvironmentVariable("LACUNA_RECOVERY_ANSWER").toLower();
    if (answer.isEmpty()) {
        QMessageBox box(QMessageBox::Question, tr("Restore unsaved edits?"),
                        tr("Lacuna did not close properly. Edits of %1 (%2 × %3 px) that were "
                           "not saved were kept at %4.\n\nRestore them?")
                            .arg(what)
                            .arg(snapshot.width())
                            .arg(snapshot.height())
                            .arg(QLocale().toString(when, QLocale::ShortFormat)),
                        QMessageBox::NoButton, this);
        box.setObjectName("lacuna_recovery_dialog");
        QPushButton* restore = box.addButton(tr("Restore"), QMessageBox::AcceptRole);
        QPushButton* discard = box.addButton(tr("Discard"), QMessageBox::DestructiveRole);
        box.addButton(tr("Decide Later"), QMessageBox::RejectRole);
        box.setDefaultButton(restore);
        box.exec();
        answer = box.clickedButton() == restore   ? "restore"
                 : box.clickedButton() == discard ? "discard"
                                                  : "later";
    }
    if (answer == "discard") {
        slot.discard(file);
        statusBar()->showMessage(tr("Discarded the unsaved edits of %1.").arg(what), 8000);
        return false;
    }
    if (answer != "restore") return false;  // kept for the next start
    try {
        cancel_fill();
        const std::vector<std::string> notices = session::restore_snapshot(*session_, snapshot);
        // Ours now: the next autosave replaces it, a clean exit removes it.
        slot.adopt(file);
        document_path_ = QString::fromStdString(snapshot.document_path);
        document_changed();
        restore_panels(snapshot.tools);
        canvas_->fit_to_window();
        update_title();
        setWindowModified(true);
        QStringList text{tr("Restored the unsaved edits of %1; save them to keep them.").arg(what)};
        for (const std::string& n : notices) text << QString::fromStdString(n);
        statusBar()->showMessage(text.join("; "), 15000);
        request_autosave();
        return true;
    } catch (const Error& e) {
        const std::filesystem::path aside = slot.set_aside(file);
        show_error(tr("Cannot restore unsaved edits"),
                   tr("%1\n\nThe file is kept as %2.")
                       .arg(e.what(), QString::fromStdString(aside.string())));
        return false;
    }
}

void MainWindow::restore_panels(const session::ToolState& tools) {
    // The panels send their values to the session when they change: set them first, then the
    // session's tools once more from the file, so both show what was saved.
    retarget_panel_->set_target_width(tools.retarget_width);
    retarget_panel_->set_target_height(tools.retarget_height);
    if (auto* band = histogram_panel_->findChild<QSpinBox*>("histogram_band"))
        band->setValue(tools.line_band);
    if (auto* bins = histogram_panel_->findChild<QSpinBox*>("histogram_bins"))
        bins->setValue(tools.line_bins);
    switch (tools.active) {
        case session::ToolKind::RemoveObject:
            select_tool(tools.brush.erase ? CanvasTool::Eraser : CanvasTool::Brush);
            break;
        case session::ToolKind::LineHistogram:
            select_tool(CanvasTool::Line);
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
