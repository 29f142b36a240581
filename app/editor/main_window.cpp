#include "main_window.hpp"

#include "canvas.hpp"

#include <lacuna/core/error.hpp>
#include <lacuna/io/image_io.hpp>
#include <lacuna/version.hpp>

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
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
const char* const kImageFilter =
    "Images (*.png *.jpg *.jpeg *.tif *.tiff *.webp *.bmp *.ppm *.pgm);;All files (*)";
}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent), canvas_(new Canvas(this)) {
    init_lacuna_resources();
    setCentralWidget(canvas_);
    backend_ = select_backend(BackendRequest::Auto);
    build_menus();
    build_status_bar();
    connect(canvas_, &Canvas::files_dropped, this,
            [this](const QStringList& paths) { open_file(paths.front()); });
    QSettings settings;
    restoreGeometry(settings.value("window/geometry").toByteArray());
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
    canvas_->set_image(image.view());
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
    try {
        const auto notices = io::write_image(path.toStdString(), canvas_->image().view());
        QStringList text;
        for (const std::string& n : notices) text << QString::fromStdString(n);
        statusBar()->showMessage(
            tr("Saved %1%2").arg(path, text.isEmpty() ? "" : " (" + text.join("; ") + ")"), 8000);
        document_path_ = path;
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
    QSettings().setValue("window/geometry", saveGeometry());
    event->accept();
}

}  // namespace lacuna::editor
