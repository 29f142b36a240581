#include "kymograph_panel.hpp"

#include <line_tool.hpp>
#include <session.hpp>

#include <lacuna/core/error.hpp>

#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QProgressBar>
#include <QPushButton>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace lacuna::editor {
namespace {

constexpr int kLeft = 58, kBottom = 34, kTop = 6, kRight = 10;

/// Round tick steps (1, 2, 5 × 10^k) giving about `count` ticks over `span`.
double tick_step(const double span, const int count) {
    if (!(span > 0)) return 1;
    const double raw = span / count;
    const double p = std::pow(10.0, std::floor(std::log10(raw)));
    for (const double m : {1.0, 2.0, 5.0, 10.0})
        if (m * p >= raw) return m * p;
    return 10 * p;
}

QImage to_qimage(const ImageRgba8& image) {
    if (image.empty()) return {};
    QImage out(image.width(), image.height(), QImage::Format_RGBA8888);
    for (int y = 0; y < image.height(); ++y)
        std::memcpy(out.scanLine(y), image.row(y), static_cast<std::size_t>(image.width()) * 4);
    return out;
}

}  // namespace

KymographView::KymographView(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setObjectName("kymograph_view");
}

void KymographView::set_data(const QImage& image, const session::KymographResult* result) {
    image_ = image;
    result_ = result;
    update();
}

QRect KymographView::image_rect() const {
    return QRect(kLeft, kTop, std::max(1, width() - kLeft - kRight),
                 std::max(1, height() - kTop - kBottom));
}

void KymographView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().window());
    const QRect r = image_rect();
    if (image_.isNull() || result_ == nullptr) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap,
                   tr("On a stack or a video, draw a line with the Line tool or select a\nline, "
                      "polyline or rectangle region, then Compute."));
        return;
    }
    // Pixels stay pixels: nearest neighbour, whole image in the rectangle.
    p.setRenderHint(QPainter::SmoothPixmapTransform, false);
    p.drawImage(r, image_);
    p.setPen(palette().color(QPalette::WindowText));
    p.drawRect(r.adjusted(0, 0, -1, -1));
    const QFontMetrics fm(font());
    // Distance across: pixel centres at image x + 0.5, distance from the result's axis.
    const std::vector<double>& d = result_->distance;
    const int n = static_cast<int>(d.size());
    const double length = d.empty() ? 0 : d.back();
    const double step = tick_step(length, std::max(2, r.width() / 90));
    for (double v = 0; v <= length + 1e-9 * std::max(1.0, length); v += step) {
        // The position nearest this distance (distances grow along the path).
        const auto it = std::lower_bound(d.begin(), d.end(), v - 1e-9);
        const double pos = it == d.end() ? n - 1 : static_cast<double>(it - d.begin());
        const int x = r.left() + static_cast<int>((pos + 0.5) * r.width() / n);
        p.drawLine(x, r.bottom(), x, r.bottom() + 4);
        const QString label = QString::number(v, 'g', 5);
        p.drawText(x - fm.horizontalAdvance(label) / 2, r.bottom() + 5 + fm.ascent(), label);
    }
    const QString x_title = tr("distance (%1)").arg(QString::fromStdString(result_->distance_unit));
    p.drawText(r.left() + (r.width() - fm.horizontalAdvance(x_title)) / 2, height() - 3, x_title);
    // Time downwards: seconds where the interval is known, else frames.
    const int frames = result_->values.height();
    const std::optional<double> interval = result_->table.frame_interval;
    const double end = interval ? (frames - 1) * *interval : frames - 1;
    const double tstep = tick_step(end, std::max(3, r.height() / 28));
    for (double v = 0; v <= end + 1e-9 * std::max(1.0, end); v += tstep) {
        const double frame = interval ? v / *interval : v;
        const int y = r.top() + static_cast<int>((frame + 0.5) * r.height() / frames);
        p.drawLine(r.left() - 4, y, r.left(), y);
        const QString label = QString::number(v, 'g', 5);
        p.drawText(r.left() - 6 - fm.horizontalAdvance(label), y + fm.ascent() / 2, label);
    }
    p.save();
    p.translate(12, r.top() + r.height() / 2);
    p.rotate(-90);
    const QString y_title = interval ? tr("time (s)") : tr("frame");
    p.drawText(-fm.horizontalAdvance(y_title) / 2, 0, y_title);
    p.restore();
}

void KymographView::mouseMoveEvent(QMouseEvent* event) {
    const QRect r = image_rect();
    if (image_.isNull() || !r.contains(event->position().toPoint())) {
        emit hovered(std::nullopt);
        return;
    }
    const QPointF at((event->position().x() - r.left()) * image_.width() / r.width() - 0.5,
                     (event->position().y() - r.top()) * image_.height() / r.height() - 0.5);
    emit hovered(at);
}

void KymographView::leaveEvent(QEvent*) {
    emit hovered(std::nullopt);
}

KymographPanel::KymographPanel(session::Session& session, QWidget* parent)
    : QWidget(parent), session_(session), kymographer_(session) {
    auto* layout = new QVBoxLayout(this);
    auto* row = new QHBoxLayout;
    compute_ = new QPushButton(tr("Compute"), this);
    compute_->setObjectName("kymograph_compute");
    compute_->setToolTip(
        tr("The values along the selected region (Regions tool), else the Line tool's line, "
           "averaged across its band, through every page or frame"));
    cancel_ = new QPushButton(tr("Cancel"), this);
    export_ = new QPushButton(tr("Export…"), this);
    export_->setObjectName("kymograph_export");
    export_->setToolTip(tr("Float TIFF and CSV, as lacuna kymograph writes them"));
    progress_ = new QProgressBar(this);
    progress_->setTextVisible(true);
    row->addWidget(compute_);
    row->addWidget(cancel_);
    row->addWidget(progress_, 1);
    row->addWidget(export_);
    layout->addLayout(row);
    path_ = new QLabel(this);
    path_->setObjectName("kymograph_path");
    layout->addWidget(path_);
    view_ = new KymographView(this);
    layout->addWidget(view_, 1);
    readout_ = new QLabel(this);
    readout_->setObjectName("kymograph_readout");
    status_ = new QLabel(this);
    status_->setWordWrap(true);
    layout->addWidget(readout_);
    layout->addWidget(status_);
    timer_ = new QTimer(this);
    timer_->setInterval(30);
    connect(timer_, &QTimer::timeout, this, &KymographPanel::poll);
    connect(compute_, &QPushButton::clicked, this, [this] { compute(); });
    connect(cancel_, &QPushButton::clicked, this, [this] { kymographer_.cancel(); });
    connect(export_, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getSaveFileName(
            this, tr("Export Kymograph"), QString(),
            tr("Float TIFF (*.tif *.tiff);;FITS (*.fits);;PFM (*.pfm)"));
        if (path.isEmpty()) return;
        if (const QString error = export_to(path); !error.isEmpty()) status_->setText(error);
    });
    connect(view_, &KymographView::hovered, this, [this](const std::optional<QPointF> at) {
        readout_->setText(at ? QString::fromStdString(kymographer_.readout_text(at->x(), at->y()))
                             : QString());
    });
    update_controls();
    update_path();
}

KymographPanel::~KymographPanel() = default;

void KymographPanel::update_path() {
    const std::optional<session::KymographPath> p = kymographer_.path();
    const QString text =
        p ? tr("Along %1, band of %2")
                .arg(QString::fromStdString(p->what))
                .arg(p->params.band_width)
          : tr("Along: nothing yet — draw a line (Line tool) or select a region (Regions tool)");
    if (path_->text() != text) path_->setText(text);
}

QString KymographPanel::path_text() const {
    return path_->text();
}

QString KymographPanel::compute() {
    update_path();
    try {
        kymographer_.start();
    } catch (const Error& e) {
        status_->setText(QString::fromUtf8(e.what()));
        update_controls();
        return status_->text();
    }
    status_->setText(tr("Computing…"));
    timer_->start();
    update_controls();
    return {};
}

void KymographPanel::poll() {
    if (kymographer_.poll()) {
        timer_->stop();
        if (const session::KymographResult* r = kymographer_.result();
            r != nullptr && kymographer_.message().empty()) {
            status_->setText(tr("%1 positions × %2 frames of the %3 along %4, band of %5; %6")
                                 .arg(r->values.width())
                                 .arg(r->values.height())
                                 .arg(QString::fromStdString(r->source))
                                 .arg(QString::fromStdString(r->path))
                                 .arg(r->plan.band())
                                 .arg(r->backend == Backend::Cuda ? tr("computed on the GPU")
                                                                  : tr("computed on the CPU")));
        } else {
            status_->setText(QString::fromStdString(kymographer_.message()));
        }
        refresh();
    }
    update_controls();
}

void KymographPanel::refresh() {
    view_->set_data(to_qimage(kymographer_.render()), kymographer_.result());
}

void KymographPanel::update_controls() {
    const bool running = kymographer_.running();
    compute_->setEnabled(!running);
    cancel_->setEnabled(running);
    export_->setEnabled(!running && kymographer_.result() != nullptr);
    progress_->setVisible(running);
    progress_->setRange(0, std::max(1, kymographer_.total()));
    progress_->setValue(kymographer_.done());
}

QString KymographPanel::export_to(const QString& tif) {
    const QFileInfo info(tif);
    const QString csv = info.dir().filePath(info.completeBaseName() + ".csv");
    try {
        const std::vector<std::string> notices =
            kymographer_.export_to(tif.toStdString(), csv.toStdString());
        QString text = tr("Exported %1 and %2").arg(info.fileName(), QFileInfo(csv).fileName());
        for (const std::string& n : notices) text += "; " + QString::fromStdString(n);
        status_->setText(text);
        emit message(text, 8000);
        return {};
    } catch (const Error& e) {
        return QString::fromUtf8(e.what());
    }
}

QString KymographPanel::readout() const {
    return readout_->text();
}

QString KymographPanel::status() const {
    return status_->text();
}

}  // namespace lacuna::editor
