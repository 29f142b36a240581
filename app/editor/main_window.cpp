#include "main_window.hpp"

#include "canvas.hpp"
#include "object_removal_panel.hpp"
#include "region_command.hpp"
#include "histogram_panel.hpp"
#include "retarget_panel.hpp"
#include "retarget_session.hpp"

#include <lacuna/core/error.hpp>
#include <lacuna/io/image_io.hpp>
#include <lacuna/version.hpp>

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QActionGroup>
#include <QDockWidget>
#include <QToolBar>
#include <QPushButton>
#include <QTimer>
#include <QUndoStack>
#include <QElapsedTimer>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QKeySequence>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QStatusBar>

// The resources live in a static library; without an explicit call the linker may drop them.
static void init_lacuna_resources() {
    Q_INIT_RESOURCE(lacuna);
}

namespace lacuna::editor {
namespace {
constexpr int kMaxRecentFiles = 8;
/// Undo keeps this many edits; each holds only the rectangle it changed.
constexpr int kUndoLimit = 64;
/// A fill step takes about this long, so the canvas redraws the growing fill ~30 times a second.
constexpr int kFillStepBudgetMs = 30;
const char* const kImageFilter =
    "Images (*.png *.jpg *.jpeg *.tif *.tiff *.webp *.bmp *.ppm *.pgm);;All files (*)";
}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent), canvas_(new Canvas(this)) {
    init_lacuna_resources();
    setCentralWidget(canvas_);
    backend_ = select_backend(BackendRequest::Auto);
    // With a usable CUDA device the canvas presents through CUDA–GL interop.
    canvas_->set_cuda_present(backend_.backend == Backend::Cuda);
    undo_stack_ = new QUndoStack(this);
    undo_stack_->setUndoLimit(kUndoLimit);
    fill_timer_ = new QTimer(this);
    fill_timer_->setInterval(0);
    connect(fill_timer_, &QTimer::timeout, this, &MainWindow::fill_step);
    build_object_removal_dock();
    build_retarget_dock();
    build_histogram_dock();
    build_menus();
    build_toolbar();
    build_status_bar();
    connect(canvas_, &Canvas::files_dropped, this,
            [this](const QStringList& paths) { open_file(paths.front()); });
    QSettings settings;
    restoreGeometry(settings.value("window/geometry").toByteArray());
    restoreState(settings.value("window/state").toByteArray());
    if (!isMaximized() && settings.value("window/geometry").isNull()) resize(1280, 800);
    update_title();
}

MainWindow::~MainWindow() = default;

void MainWindow::build_menus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Open…"), QKeySequence::Open, this, &MainWindow::choose_and_open);
    recent_menu_ = file->addMenu(tr("Open &Recent"));
    file->addAction(tr("Open &Sample Image"), this, &MainWindow::open_sample);
    file->addSeparator();
    file->addAction(tr("Save &As…"), QKeySequence::SaveAs, this, &MainWindow::choose_and_save);
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
    update_recent_menu();

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    QAction* undo = undo_stack_->createUndoAction(this, tr("&Undo"));
    undo->setShortcuts(QKeySequence::Undo);
    QAction* redo = undo_stack_->createRedoAction(this, tr("&Redo"));
    redo->setShortcuts(QKeySequence::Redo);
    edit->addAction(undo);
    edit->addAction(redo);

    QMenu* tools = menuBar()->addMenu(tr("&Tools"));
    tools->addAction(tr("&Pan"), QKeySequence(Qt::Key_H), this,
                     [this] { select_tool(CanvasTool::Pan); });
    tools->addAction(tr("&Line Histogram"), QKeySequence(Qt::Key_L), this,
                     [this] { select_tool(CanvasTool::Line); });
    tools->addAction(tr("&Brush (mask)"), QKeySequence(Qt::Key_B), this,
                     [this] { select_tool(CanvasTool::Brush); });
    tools->addAction(tr("&Eraser (mask)"), QKeySequence(Qt::Key_E), this,
                     [this] { select_tool(CanvasTool::Eraser); });
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
    canvas_->set_brush(removal_panel_->brush());
    connect(removal_panel_, &ObjectRemovalPanel::tool_changed, this, [this](const CanvasTool tool) {
        canvas_->clear_preview();
        canvas_->set_layer(MaskLayer::Fill);
        canvas_->set_tool(tool);
    });
    connect(removal_panel_, &ObjectRemovalPanel::brush_changed, canvas_, &Canvas::set_brush);
    connect(removal_panel_, &ObjectRemovalPanel::fill_requested, this, &MainWindow::start_fill);
    connect(removal_panel_, &ObjectRemovalPanel::cancel_requested, this, &MainWindow::cancel_fill);
    connect(removal_panel_, &ObjectRemovalPanel::clear_mask_requested, this, [this] {
        const Mask& mask = canvas_->mask();
        if (mask.empty() || count_selected(mask.view()) == 0) return;
        const PixelRect all{0, 0, mask.width() - 1, mask.height() - 1};
        RegionState before{std::nullopt, clone(mask.view()), canvas_->layer()};
        RegionState after{std::nullopt, Mask(mask.width(), mask.height(), 0), canvas_->layer()};
        canvas_->set_mask(*after.mask);
        undo_stack_->push(
            new RegionCommand(canvas_, tr("Clear Mask"), all, std::move(before), std::move(after)));
    });
    connect(canvas_, &Canvas::stroke_finished, this,
            [this](const MaskLayer layer, const PixelRect& rect, const Mask& before,
                   const Mask& after) {
                const QString text =
                    canvas_->tool() == CanvasTool::Eraser ? tr("Erase Mask") : tr("Paint Mask");
                undo_stack_->push(new RegionCommand(
                    canvas_, text, rect, RegionState{std::nullopt, clone(before.view()), layer},
                    RegionState{std::nullopt, clone(after.view()), layer}));
            });
}

void MainWindow::select_tool(const CanvasTool tool) {
    // Keep the toolbar's checked tool in step with menus, shortcuts and panels.
    const char* names[] = {"pan", "brush", "eraser", "line"};
    if (auto* action =
            findChild<QAction*>(QString("action_tool_%1").arg(names[static_cast<int>(tool)])))
        action->setChecked(true);
    if (tool == CanvasTool::Brush || tool == CanvasTool::Eraser) {
        removal_panel_->set_tool(tool);  // the object-removal mask
        return;
    }
    removal_panel_->set_tool(CanvasTool::Pan);
    if (tool == CanvasTool::Line) canvas_->clear_preview();
    canvas_->set_tool(tool);
}

void MainWindow::build_toolbar() {
    QToolBar* bar = addToolBar(tr("Tools"));
    bar->setObjectName("main_toolbar");
    bar->setToolButtonStyle(Qt::ToolButtonTextOnly);
    bar->addAction(tr("Open"), this, &MainWindow::choose_and_open);
    bar->addAction(tr("Save As"), this, &MainWindow::choose_and_save);
    bar->addSeparator();
    bar->addAction(undo_stack_->createUndoAction(bar, tr("Undo")));
    bar->addAction(undo_stack_->createRedoAction(bar, tr("Redo")));
    bar->addSeparator();
    auto* group = new QActionGroup(bar);
    const struct {
        CanvasTool tool;
        const char* text;
    } tools[] = {{CanvasTool::Pan, QT_TR_NOOP("Pan")},
                 {CanvasTool::Line, QT_TR_NOOP("Line")},
                 {CanvasTool::Brush, QT_TR_NOOP("Brush")},
                 {CanvasTool::Eraser, QT_TR_NOOP("Eraser")}};
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
    histogram_panel_ = new HistogramPanel(this);
    histogram_panel_->set_backend(backend_.backend);
    auto* dock = new QDockWidget(tr("Line Histogram"), this);
    dock->setObjectName("histogram_dock");
    dock->setWidget(histogram_panel_);
    dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
    addDockWidget(Qt::RightDockWidgetArea, dock);
    connect(
        canvas_, &Canvas::line_changed, this,
        [this](const render::PointF from, const render::PointF to) {
            QElapsedTimer timer;
            timer.start();
            histogram_panel_->set_line({from.x, from.y}, {to.x, to.y});
            time_label_->setText(tr("histogram: %1 ms").arg(timer.nsecsElapsed() / 1e6, 0, 'f', 2));
        });
    connect(histogram_panel_, &HistogramPanel::band_changed, canvas_, &Canvas::set_line_band);
    connect(canvas_, &Canvas::line_hovered, histogram_panel_, &HistogramPanel::show_fraction);
    connect(histogram_panel_, &HistogramPanel::hovered_fraction, canvas_, &Canvas::set_line_marker);
    connect(histogram_panel_, &HistogramPanel::export_csv_requested, this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export Histogram (CSV)"),
                                                          "histogram.csv", tr("CSV (*.csv)"));
        if (!path.isEmpty() && !histogram_panel_->export_csv(path))
            show_error(tr("Cannot export"),
                       tr("Could not write %1 (draw a line first).").arg(path));
    });
    connect(histogram_panel_, &HistogramPanel::export_png_requested, this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export Histogram (PNG)"),
                                                          "histogram.png", tr("PNG (*.png)"));
        if (!path.isEmpty() && !histogram_panel_->export_png(path))
            show_error(tr("Cannot export"),
                       tr("Could not write %1 (draw a line first).").arg(path));
    });
    // The histogram samples the document: rebuild its planes whenever the document changes.
    connect(undo_stack_, &QUndoStack::indexChanged, this, [this] {
        if (canvas_->image_revision() == histogram_revision_) return;  // a mask edit
        histogram_revision_ = canvas_->image_revision();
        histogram_panel_->set_image(canvas_->image());
        if (canvas_->has_line()) canvas_->set_line(canvas_->line_from(), canvas_->line_to());
    });
}

void MainWindow::build_retarget_dock() {
    retarget_panel_ = new RetargetPanel(this);
    auto* dock = new QDockWidget(tr("Retarget"), this);
    dock->setObjectName("retarget_dock");
    dock->setWidget(retarget_panel_);
    dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
    addDockWidget(Qt::RightDockWidgetArea, dock);
    tabifyDockWidget(removal_dock_, dock);
    retarget_session_ = new RetargetSession(canvas_, retarget_panel_, this);
    // Seam maps are carved on the GPU when the editor runs on CUDA.
    retarget_session_->set_backend(backend_.backend);
    connect(retarget_panel_, &RetargetPanel::target_changed, retarget_session_,
            &RetargetSession::update_preview);
    connect(retarget_panel_, &RetargetPanel::seams_overlay_toggled, retarget_session_,
            &RetargetSession::update_preview);
    connect(retarget_panel_, &RetargetPanel::energy_changed, retarget_session_,
            &RetargetSession::restart);
    connect(retarget_panel_, &RetargetPanel::apply_requested, this, &MainWindow::apply_retarget);
    connect(retarget_panel_, &RetargetPanel::reset_requested, this, [this] {
        retarget_panel_->set_target_width(canvas_->image().width());
        retarget_panel_->set_target_height(canvas_->image().height());
    });
    connect(retarget_panel_, &RetargetPanel::tool_changed, this,
            [this](const CanvasTool tool, const MaskLayer layer) {
                canvas_->set_tool(tool);
                if (tool == CanvasTool::Pan) {
                    retarget_session_->update_preview();
                    return;
                }
                // Masks are painted on the original, not on a preview.
                canvas_->clear_preview();
                canvas_->set_layer(layer);
            });
    // Any edit of the document or of the carving masks (including undo and redo) makes the
    // seam maps stale: rebuild them in the background.
    connect(undo_stack_, &QUndoStack::indexChanged, retarget_session_, &RetargetSession::refresh);
}

bool MainWindow::apply_retarget() {
    const std::optional<ImageRgba8> frame = retarget_session_->frame();
    if (!frame || frame->width() != retarget_panel_->target_width() ||
        frame->height() != retarget_panel_->target_height()) {
        retarget_panel_->show_status(
            tr("Nothing to apply yet: move a slider, and wait for the "
               "seams if they are still being computed."));
        return false;
    }
    std::array<Mask, kMaskLayers> masks;
    for (int layer = 0; layer < kMaskLayers; ++layer)
        masks[static_cast<std::size_t>(layer)] =
            clone(canvas_->mask(static_cast<MaskLayer>(layer)).view());
    ImageRgba8 before = clone(canvas_->image().view());
    const QString text = tr("Retarget to %1 × %2").arg(frame->width()).arg(frame->height());
    canvas_->clear_preview();
    canvas_->set_image(frame->view());
    size_label_->setText(tr("%1 × %2 px").arg(frame->width()).arg(frame->height()));
    // Pushing restarts the session on the new image (indexChanged).
    undo_stack_->push(new ReplaceImageCommand(canvas_, text, std::move(before),
                                              clone(frame->view()), std::move(masks)));
    statusBar()->showMessage(text, 6000);
    return true;
}

namespace {

/// The pixels a fill removes: mask coverage of at least one half.
Mask hole_from_coverage(const Mask& coverage) {
    Mask hole(coverage.width(), coverage.height(), 0);
    for (int y = 0; y < coverage.height(); ++y)
        for (int x = 0; x < coverage.width(); ++x)
            hole.at(x, y) = coverage.at(x, y) >= 128 ? 255 : 0;
    return hole;
}

/// Smallest rectangle holding every non-zero value.
PixelRect nonzero_box(const Mask& mask) {
    PixelRect box;
    for (int y = 0; y < mask.height(); ++y)
        for (int x = 0; x < mask.width(); ++x)
            if (mask.at(x, y) != 0) box.unite({x, y, x, y});
    return box;
}

}  // namespace

bool MainWindow::start_fill() {
    if (filler_ || canvas_->image().empty()) return false;
    const Mask hole = hole_from_coverage(canvas_->mask(MaskLayer::Fill));
    if (count_selected(hole.view()) == 0) {
        removal_panel_->show_fill_idle(
            tr("Nothing to fill: choose the Brush and paint over what should go."));
        return false;
    }
    const ops::InpaintParams params = removal_panel_->fill_params();
    const bool cuda = backend_.backend == Backend::Cuda;
    try {
        try {
            filler_ = ops::make_inpainter(
                canvas_->image().view(), hole, params,
                cuda ? ops::InpaintImplementation::Cuda : ops::InpaintImplementation::Fast);
            fill_device_ = cuda ? tr("GPU") : tr("CPU");
        } catch (const Error& e) {
            if (!cuda || (e.code() != ErrorCode::CudaUnavailable &&
                          e.code() != ErrorCode::OutOfMemory && e.code() != ErrorCode::DeviceError))
                throw;
            // The GPU could not take it (memory, driver): the CPU gives the same result.
            filler_ = ops::make_inpainter(canvas_->image().view(), hole, params,
                                          ops::InpaintImplementation::Fast);
            fill_device_ = tr("CPU (GPU failed: %1)").arg(QString::fromStdString(e.what()));
        }
    } catch (const Error& e) {
        filler_.reset();
        show_error(tr("Cannot fill"), QString::fromStdString(e.what()));
        return false;
    }
    fill_rect_ = nonzero_box(canvas_->mask(MaskLayer::Fill));
    fill_before_pixels_ = copy_region(canvas_->image(), fill_rect_);
    fill_before_mask_ = copy_region(canvas_->mask(MaskLayer::Fill), fill_rect_);
    iterations_per_step_ = 8;
    fill_clock_.start();
    removal_panel_->show_fill_running(0, filler_->progress().total);
    fill_timer_->start();
    return true;
}

void MainWindow::fill_step() {
    if (!filler_) {
        fill_timer_->stop();
        return;
    }
    QElapsedTimer step;
    step.start();
    try {
        // Adapt the batch so a step takes about the budget whatever the image and device.
        while (!filler_->progress().done() && step.elapsed() < kFillStepBudgetMs) {
            QElapsedTimer batch;
            batch.start();
            filler_->advance(iterations_per_step_);
            if (batch.elapsed() < kFillStepBudgetMs / 4)
                iterations_per_step_ *= 2;
            else if (batch.elapsed() > kFillStepBudgetMs && iterations_per_step_ > 1)
                iterations_per_step_ /= 2;
        }
        // Only the hole's box changes: paste it instead of replacing the whole document.
        const ImageRgba8 region = copy_region(filler_->image(), fill_rect_);
        canvas_->restore_region(fill_rect_, &region, nullptr);
    } catch (const Error& e) {
        fill_timer_->stop();
        filler_.reset();
        canvas_->restore_region(fill_rect_, &fill_before_pixels_, &fill_before_mask_);
        removal_panel_->show_fill_idle(QString());
        show_error(tr("Fill failed"), QString::fromStdString(e.what()));
        return;
    }
    const ops::InpaintProgress progress = filler_->progress();
    removal_panel_->show_fill_running(progress.filled, progress.total);
    if (progress.done()) finish_fill();
}

void MainWindow::finish_fill() {
    fill_timer_->stop();
    const ops::InpaintProgress progress = filler_->progress();
    filler_.reset();
    const qint64 ms = fill_clock_.elapsed();
    // The mask is used up: clear it where the fill happened.
    Mask cleared(fill_rect_.width(), fill_rect_.height(), 0);
    canvas_->restore_region(fill_rect_, nullptr, &cleared);
    RegionState before{std::move(fill_before_pixels_), std::move(fill_before_mask_)};
    RegionState after{copy_region(canvas_->image(), fill_rect_), std::move(cleared)};
    undo_stack_->push(
        new RegionCommand(canvas_, tr("Fill"), fill_rect_, std::move(before), std::move(after)));
    const QString message = tr("Filled %1 pixels with %2 patches in %3 ms on the %4.")
                                .arg(progress.total)
                                .arg(progress.iterations)
                                .arg(ms)
                                .arg(fill_device_);
    removal_panel_->show_fill_idle(message);
    time_label_->setText(tr("fill: %1 ms").arg(ms));
    statusBar()->showMessage(message, 8000);
}

void MainWindow::cancel_fill() {
    if (!filler_) return;
    filler_->cancel();
    fill_timer_->stop();
    filler_.reset();
    canvas_->restore_region(fill_rect_, &fill_before_pixels_, &fill_before_mask_);
    removal_panel_->show_fill_idle(tr("Fill cancelled; the picture is as it was."));
}

bool MainWindow::confirm_discard() {
    if (undo_stack_->isClean()) return true;
    const auto answer = QMessageBox::question(
        this, tr("Unsaved changes"), tr("The image has unsaved changes. Discard them?"),
        QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Cancel);
    return answer == QMessageBox::Discard;
}

void MainWindow::build_status_bar() {
    size_label_ = new QLabel(this);
    zoom_label_ = new QLabel(this);
    backend_label_ = new QLabel(QString::fromStdString(backend_.describe()), this);
    time_label_ = new QLabel(this);
    backend_label_->setToolTip(tr("The device that runs Lacuna's operations"));
    statusBar()->addWidget(size_label_);
    statusBar()->addWidget(zoom_label_);
    statusBar()->addPermanentWidget(time_label_);
    statusBar()->addPermanentWidget(backend_label_);
    connect(canvas_, &Canvas::zoom_changed, this, [this](const double zoom) {
        zoom_label_->setText(tr("%1 %").arg(zoom * 100.0, 0, 'f', 0));
    });
}

void MainWindow::show_error(const QString& title, const QString& message) {
    // Non-modal, so the event loop (and tests) keep running; one dialog per failure.
    auto* box = new QMessageBox(QMessageBox::Warning, title, message, QMessageBox::Ok, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setObjectName("lacuna_error_dialog");
    box->open();
}

void MainWindow::show_document(ImageRgba8 image, const QString& path, const QStringList& notices) {
    cancel_fill();
    canvas_->set_image(image.view());
    for (int layer = 0; layer < kMaskLayers; ++layer)
        canvas_->set_mask(static_cast<MaskLayer>(layer), Mask(image.width(), image.height(), 0));
    undo_stack_->clear();
    retarget_session_->restart();
    histogram_revision_ = canvas_->image_revision();
    histogram_panel_->set_image(canvas_->image());
    document_path_ = path;
    size_label_->setText(tr("%1 × %2 px").arg(image.width()).arg(image.height()));
    if (!notices.isEmpty()) statusBar()->showMessage(notices.join("; "), 8000);
    update_title();
}

bool MainWindow::open_file(const QString& path) {
    QElapsedTimer timer;
    timer.start();
    try {
        io::LoadedImage loaded = io::read_image(path.toStdString());
        QStringList notices;
        for (const std::string& n : loaded.notices) notices << QString::fromStdString(n);
        show_document(std::move(loaded.image), path, notices);
        remember_recent(path);
        time_label_->setText(tr("opened in %1 ms").arg(timer.elapsed()));
        return true;
    } catch (const Error& e) {
        show_error(tr("Cannot open image"), QString::fromStdString(e.what()));
        return false;
    }
}

bool MainWindow::open_sample() {
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
        setWindowTitle(tr("Sample image (fruits.jpg) — Lacuna"));
        return true;
    } catch (const Error& e) {
        show_error(tr("Cannot open sample"), QString::fromStdString(e.what()));
        return false;
    }
}

bool MainWindow::save_to(const QString& path, const bool allow_replace_source) {
    if (canvas_->image().empty()) return false;
    if (!allow_replace_source && !document_path_.isEmpty() &&
        io::same_file(document_path_.toStdString(), path.toStdString())) {
        const auto answer = QMessageBox::question(
            this, tr("Replace the original?"),
            tr("%1 is the file this image was opened from. Replace it?").arg(path));
        if (answer != QMessageBox::Yes) return false;
    }
    // What is on screen is what gets saved: a pending retarget preview is applied first.
    if (canvas_->previewing()) apply_retarget();
    try {
        const auto notices = io::write_image(path.toStdString(), canvas_->image().view());
        QStringList text;
        for (const std::string& n : notices) text << QString::fromStdString(n);
        statusBar()->showMessage(
            tr("Saved %1%2").arg(path, text.isEmpty() ? "" : " (" + text.join("; ") + ")"), 8000);
        document_path_ = path;
        undo_stack_->setClean();
        remember_recent(path);
        update_title();
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

void MainWindow::choose_and_save() {
    QSettings settings;
    const QString suggested = document_path_.isEmpty()
                                  ? settings.value("paths/last_dir").toString() + "/untitled.png"
                                  : document_path_;
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Save Image As"), suggested, tr(kImageFilter));
    if (!path.isEmpty()) save_to(path, /*allow_replace_source=*/false);
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

void MainWindow::update_recent_menu() {
    recent_menu_->clear();
    const QStringList recent = QSettings().value("recent_files").toStringList();
    for (const QString& path : recent) {
        recent_menu_->addAction(QFileInfo(path).fileName(), this, [this, path] { open_file(path); })
            ->setToolTip(path);
    }
    recent_menu_->setEnabled(!recent.isEmpty());
}

void MainWindow::update_title() {
    setWindowTitle(document_path_.isEmpty()
                       ? tr("Lacuna")
                       : tr("%1 — Lacuna").arg(QFileInfo(document_path_).fileName()));
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (!confirm_discard()) {
        event->ignore();
        return;
    }
    cancel_fill();
    QSettings settings;
    settings.setValue("window/geometry", saveGeometry());
    settings.setValue("window/state", saveState());
    event->accept();
}

}  // namespace lacuna::editor
