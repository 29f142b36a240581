#include "histogram_panel.hpp"

#include <lacuna/core/colormap.hpp>
#include <lacuna/core/error.hpp>

#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFile>
#include <QFileDialog>
#include <QFontMetrics>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QMimeData>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QPushButton>
#include <QSpinBox>
#include <QScrollArea>
#include <QScrollBar>
#include <QSplitter>
#include <QTextStream>
#include <QVBoxLayout>

#include <array>
#include <cmath>

namespace lacuna::editor {
namespace {

QColor channel_colour(const ops::HistogramChannel channel) {
    switch (channel) {
        case ops::HistogramChannel::Red:
            return {255, 90, 90};
        case ops::HistogramChannel::Green:
            return {90, 230, 110};
        case ops::HistogramChannel::Blue:
            return {110, 150, 255};
        default:
            return {235, 235, 235};
    }
}

/// Heat map of one channel: positions across, bins upwards (bin 0 at the bottom).
QImage heat_image(const ops::LineHistogram& h, const ops::ChannelHistogram& c,
                  const bool log_scale) {
    QImage image(h.positions, h.bins, QImage::Format_RGB32);
    std::uint32_t peak = 0;
    for (const std::uint32_t v : c.counts) peak = std::max(peak, v);
    const double norm = peak == 0 ? 0.0 : (log_scale ? 1.0 / std::log1p(double(peak)) : 1.0 / peak);
    for (int b = 0; b < h.bins; ++b) {
        auto* row = reinterpret_cast<QRgb*>(image.scanLine(h.bins - 1 - b));
        for (int p = 0; p < h.positions; ++p) {
            const std::uint32_t v = c.count(b, p, h.bins);
            const double t = log_scale ? std::log1p(double(v)) * norm : v * norm;
            const Rgba8 c = v == 0 ? kHeatmapEmpty : inferno(0.15 + 0.85 * t);
            row[p] = qRgb(c.r, c.g, c.b);
        }
    }
    return image;
}

}  // namespace

HistogramPlot::HistogramPlot(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setMinimumSize(240, 200);
    setObjectName("histogram_plot");
}

void HistogramPlot::set_data(const ops::LineHistogram* histogram, const bool log_scale,
                             const Curves curves) {
    histogram_ = histogram;
    curves_ = curves;
    heat_ = histogram != nullptr && !histogram->channels.empty() && histogram->positions > 0
                ? heat_image(*histogram, histogram->channels.front(), log_scale)
                : QImage();
    update();
}

void HistogramPlot::set_marker(const std::optional<int> position) {
    marker_ = position;
    marker_from_pointer_ = false;
    update();
}

QRect HistogramPlot::plot_rect() const {
    // Room on the left for the widest axis label (kelvin and HU values need more than bytes).
    int left = 36;
    if (histogram_ != nullptr) {
        const QFontMetrics metrics = fontMetrics();
        for (const float v : {histogram_->range_lo, histogram_->range_hi})
            left = std::max(left, metrics.horizontalAdvance(QString::number(v, 'g', 5)) + 8);
        left = std::max(left, metrics.horizontalAdvance(unit_) + 8);
    }
    // Two lines above the plot: the legend, and the readout of the hovered position, so
    // neither covers the curves.
    const int header = 2 * fontMetrics().lineSpacing() + 8;
    return rect().adjusted(left, header, -8, -22);
}

void HistogramPlot::draw_legend(QPainter& painter, const QRect& strip) const {
    const QColor colour = histogram_ != nullptr && !histogram_->channels.empty()
                              ? channel_colour(histogram_->channels.front().channel)
                              : QColor(235, 235, 235);
    int x = strip.left();
    const int y = strip.center().y();
    const auto entry = [&](const bool shown, const Qt::PenStyle style, const QString& name) {
        if (!shown) return;
        painter.setPen(QPen(colour, 1.5, style));
        painter.drawLine(x, y, x + 22, y);
        x += 26;
        painter.setPen(QColor(220, 220, 220));
        const int width = painter.fontMetrics().horizontalAdvance(name);
        painter.drawText(QRect(x, strip.top(), width + 2, strip.height()), Qt::AlignVCenter, name);
        x += width + 14;
    };
    entry(curves_.mean, Qt::SolidLine, tr("mean"));
    entry(curves_.median, Qt::DashLine, tr("median"));
    entry(curves_.max, Qt::DotLine, tr("max"));
    painter.setPen(QColor(170, 170, 170));
    painter.drawText(QRect(x, strip.top(), std::max(0, strip.right() - x), strip.height()),
                     Qt::AlignVCenter | Qt::AlignRight, tr("colour: counts per bin"));
}

namespace {
/// The distance between two neighbouring positions of the line, in the spacing's unit: measured
/// in physical space (an anisotropic image's diagonal is not its pixel count × one size).
double physical_step(const ops::LineHistogram& h, const PixelSpacing& spacing) {
    return spacing.length(h.geometry.step_x, h.geometry.step_y);
}
}  // namespace

QString HistogramPlot::readout() const {
    if (histogram_ == nullptr || !marker_ || *marker_ < 0 || *marker_ >= histogram_->positions ||
        histogram_->channels.empty())
        return {};
    const ops::ChannelHistogram& c = histogram_->channels.front();
    const std::size_t p = static_cast<std::size_t>(*marker_);
    const QString unit = unit_.isEmpty() ? QString() : " " + unit_;
    const QString where = spacing_.known()
                              ? tr("%1 (%2 %3)")
                                    .arg(*marker_)
                                    .arg(*marker_ * physical_step(*histogram_, spacing_), 0, 'g', 6)
                                    .arg(QString::fromStdString(spacing_.unit))
                              : QString::number(*marker_);
    QString text = tr("position %1: mean %2%4, median %3%4")
                       .arg(where)
                       .arg(double(c.mean[p]), 0, 'g', 6)
                       .arg(double(c.median[p]), 0, 'g', 6)
                       .arg(unit);
    if (curves_.max) text += tr(", max %1%2").arg(double(c.max[p]), 0, 'g', 6).arg(unit);
    return text;
}

void HistogramPlot::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    painter.fillRect(rect(), QColor(24, 24, 28));
    const QRect area = plot_rect();
    painter.setPen(QColor(200, 200, 200));
    if (!histogram_ || heat_.isNull()) {
        painter.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap,
                         tr("Choose the Line tool and drag across the image."));
        return;
    }
    painter.drawImage(area, heat_);
    const int line = fontMetrics().lineSpacing();
    draw_legend(painter, QRect(area.left(), 4, area.width(), line));
    const ops::LineHistogram& h = *histogram_;
    const double span = double(h.range_hi) - double(h.range_lo);
    const auto y_of = [&](const double value) {
        return area.bottom() - (value - h.range_lo) / (span > 0 ? span : 1) * area.height();
    };
    const auto x_of = [&](const int position) {
        return area.left() + (position + 0.5) * area.width() / h.positions;
    };
    painter.setRenderHint(QPainter::Antialiasing);
    for (const ops::ChannelHistogram& c : h.channels) {
        const QColor colour = channel_colour(c.channel);
        const auto draw = [&](const std::vector<float>& values, const Qt::PenStyle style) {
            QPainterPath path;
            bool open = false;
            for (int p = 0; p < h.positions; ++p) {
                if (std::isnan(values[static_cast<std::size_t>(p)])) {
                    open = false;
                    continue;
                }
                const QPointF point(x_of(p), y_of(values[static_cast<std::size_t>(p)]));
                if (open)
                    path.lineTo(point);
                else
                    path.moveTo(point);
                open = true;
            }
            painter.setPen(QPen(colour, 1.5, style));
            painter.drawPath(path);
        };
        if (curves_.mean) draw(c.mean, Qt::SolidLine);
        if (curves_.median) draw(c.median, Qt::DashLine);
        if (curves_.max) draw(c.max, Qt::DotLine);
    }
    painter.setRenderHint(QPainter::Antialiasing, false);
    painter.setPen(QColor(200, 200, 200));
    painter.drawRect(area.adjusted(0, 0, -1, -1));
    const QString unit = unit_.isEmpty() ? QString() : " " + unit_;
    painter.drawText(QRect(0, area.top(), area.left() - 4, 14), Qt::AlignRight,
                     QString::number(h.range_hi, 'g', 5));
    painter.drawText(QRect(0, area.bottom() - 12, area.left() - 4, 14), Qt::AlignRight,
                     QString::number(h.range_lo, 'g', 5));
    if (!unit_.isEmpty())
        painter.drawText(QRect(0, area.center().y() - 7, area.left() - 4, 14), Qt::AlignRight,
                         unit_);
    painter.drawText(QRect(area.left(), area.bottom() + 4, area.width(), 16), Qt::AlignLeft,
                     tr("0"));
    painter.drawText(QRect(area.left(), area.bottom() + 4, area.width(), 16), Qt::AlignRight,
                     spacing_.known()
                         ? tr("%1 positions, %2 %3")
                               .arg(h.positions)
                               .arg((h.positions - 1) * physical_step(h, spacing_), 0, 'g', 6)
                               .arg(QString::fromStdString(spacing_.unit))
                         : tr("%1 positions").arg(h.positions));
    if (marker_ && *marker_ >= 0 && *marker_ < h.positions) {
        const int x = static_cast<int>(x_of(*marker_));
        painter.setPen(QPen(QColor(60, 230, 255), 1));
        painter.drawLine(x, area.top(), x, area.bottom());
        painter.setPen(QColor(60, 230, 255));
        painter.drawText(QRect(area.left(), 4 + line, area.width(), line),
                         Qt::AlignLeft | Qt::AlignVCenter, readout());
    } else {
        painter.setPen(QColor(140, 140, 140));
        painter.drawText(QRect(area.left(), 4 + line, area.width(), line),
                         Qt::AlignLeft | Qt::AlignVCenter,
                         tr("Hover the plot or the line for the values at a position"));
    }
}

void HistogramPlot::set_unit(const QString& unit) {
    unit_ = unit;
    update();
}

void HistogramPlot::set_spacing(const PixelSpacing& spacing) {
    spacing_ = spacing;
    update();
}

void HistogramPlot::mouseMoveEvent(QMouseEvent* event) {
    if (!histogram_ || histogram_->positions <= 0) return;
    const QRect area = plot_rect();
    const double x = event->position().x() - area.left();
    if (x < 0 || x >= area.width()) {
        set_marker(std::nullopt);
        emit hovered(std::nullopt);
        return;
    }
    const int position = std::min(histogram_->positions - 1,
                                  static_cast<int>(x * histogram_->positions / area.width()));
    set_marker(position);
    marker_from_pointer_ = true;
    emit hovered(position);
}

void HistogramPlot::leaveEvent(QEvent*) {
    // Only the crosshair the pointer put here goes: one that hovering the line on the image set
    // stays (the window system may report leaving the plot after the pointer reached the image).
    if (!marker_from_pointer_) return;
    set_marker(std::nullopt);
    emit hovered(std::nullopt);
}

HistogramPanel::HistogramPanel(session::LineTool& tool, QWidget* parent)
    : QWidget(parent), tool_(tool) {
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    // The plot and the settings share the dock through a splitter the user drags, the plot
    // getting the room first.
    auto* splitter = new QSplitter(Qt::Vertical);
    splitter->setObjectName("histogram_splitter");
    splitter->setChildrenCollapsible(false);
    outer->addWidget(splitter);
    plot_ = new HistogramPlot;
    splitter->addWidget(plot_);
    // The settings scroll when the user drags the plot taller than the dock leaves room for.
    auto* controls = new QWidget;
    auto* scroll = new QScrollArea;
    scroll->setObjectName("histogram_settings");
    scroll->setWidget(controls);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    splitter->addWidget(scroll);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 0);
    auto* layout = new QVBoxLayout(controls);
    auto* form = new QFormLayout;
    // The band's range, default and help come from the operation's declared parameters.
    const ops::ParamSpec& band_spec = ops::param(tool.params(), "band");
    band_ = new QSpinBox;
    band_->setRange(static_cast<int>(band_spec.min), static_cast<int>(band_spec.max));
    band_->setValue(static_cast<int>(band_spec.default_value));
    band_->setSuffix(tr(" px wide"));
    band_->setObjectName("histogram_band");
    band_->setToolTip(QString::fromUtf8(band_spec.help.data(), qsizetype(band_spec.help.size())));
    form->addRow(QString::fromUtf8(band_spec.label.data(), qsizetype(band_spec.label.size())),
                 band_);
    scale_ = new QComboBox;
    scale_->addItem(tr("Log counts"));
    scale_->addItem(tr("Linear counts"));
    form->addRow(tr("Scale"), scale_);
    auto* channel_row = new QHBoxLayout;
    const char* names[] = {QT_TR_NOOP("Lum"), QT_TR_NOOP("R"), QT_TR_NOOP("G"), QT_TR_NOOP("B")};
    for (int i = 0; i < 4; ++i) {
        channels_[i] = new QCheckBox(tr(names[i]));
        channels_[i]->setChecked(i == 0);
        channel_row->addWidget(channels_[i]);
    }
    form->addRow(tr("Channels"), channel_row);
    bins_ = new QSpinBox;
    bins_->setRange(1, 4096);
    bins_->setValue(ops::kDefaultHistogramBins);
    bins_->setObjectName("histogram_bins");
    form->addRow(tr("Bins"), bins_);
    auto* range_row = new QHBoxLayout;
    range_mode_ = new QComboBox;
    range_mode_->setObjectName("histogram_range_mode");
    range_mode_->addItem(tr("Image min–max"));
    range_mode_->addItem(tr("Line min–max"));
    range_mode_->addItem(tr("Typed"));
    range_mode_->setToolTip(tr("The values the bins span; NaN is never counted"));
    range_lo_ = new QDoubleSpinBox;
    range_hi_ = new QDoubleSpinBox;
    for (QDoubleSpinBox* box : {range_lo_, range_hi_}) {
        box->setRange(-1e12, 1e12);
        box->setDecimals(4);
        box->setEnabled(false);
    }
    range_lo_->setObjectName("histogram_range_lo");
    range_hi_->setObjectName("histogram_range_hi");
    range_hi_->setValue(255);
    range_row->addWidget(range_mode_);
    range_row->addWidget(range_lo_);
    range_row->addWidget(range_hi_);
    form->addRow(tr("Range"), range_row);
    auto* curve_row = new QHBoxLayout;
    mean_ = new QCheckBox(tr("Mean"));
    median_ = new QCheckBox(tr("Median"));
    max_ = new QCheckBox(tr("Max"));
    mean_->setChecked(true);
    median_->setChecked(true);
    for (QCheckBox* box : {mean_, median_, max_}) curve_row->addWidget(box);
    form->addRow(tr("Profile"), curve_row);
    layout->addLayout(form);
    info_ = new QLabel;
    info_->setObjectName("histogram_info");
    info_->setWordWrap(true);
    info_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    layout->addWidget(info_);
    auto* export_row = new QHBoxLayout;
    auto* csv = new QPushButton(tr("Export CSV…"));
    auto* png = new QPushButton(tr("Export PNG…"));
    auto* copy = new QPushButton(tr("Copy"));
    copy->setToolTip(tr("Copy the plot (image) and the profile (text) to the clipboard"));
    auto* scale = new QPushButton(tr("Set Scale…"));
    scale->setObjectName("histogram_set_scale");
    scale->setToolTip(
        tr("Type the real length of the drawn line: distances are then given "
           "in its unit (ImageJ's Set Scale)"));
    for (QPushButton* button : {csv, png, copy, scale}) export_row->addWidget(button);
    layout->addLayout(export_row);
    connect(scale, &QPushButton::clicked, this, &HistogramPanel::ask_scale);
    connect(csv, &QPushButton::clicked, this, &HistogramPanel::export_csv_requested);
    connect(png, &QPushButton::clicked, this, &HistogramPanel::export_png_requested);
    connect(copy, &QPushButton::clicked, this, &HistogramPanel::copy_to_clipboard);
    connect(this, &HistogramPanel::export_csv_requested, this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export Histogram (CSV)"),
                                                          "histogram.csv", tr("CSV (*.csv)"));
        if (!path.isEmpty()) export_csv_reporting(path);
    });
    connect(this, &HistogramPanel::export_png_requested, this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export Histogram (PNG)"),
                                                          "histogram.png", tr("PNG (*.png)"));
        if (!path.isEmpty()) export_png_reporting(path);
    });

    connect(band_, &QSpinBox::valueChanged, this, [this](const int samples) {
        tool_.set_band(samples);
        refresh();
        emit changed();
    });
    connect(scale_, &QComboBox::currentIndexChanged, this, &HistogramPanel::redraw);
    connect(bins_, &QSpinBox::valueChanged, this, [this](const int bins) {
        tool_.set_bins(bins);
        refresh();
    });
    connect(range_mode_, &QComboBox::currentIndexChanged, this, [this](const int mode) {
        const bool typed = mode == 2;
        range_lo_->setEnabled(typed);
        range_hi_->setEnabled(typed);
        if (typed && tool_.result() != nullptr) {
            // Start typing from what is shown.
            const QSignalBlocker block_lo(range_lo_), block_hi(range_hi_);
            range_lo_->setValue(tool_.result()->range_lo);
            range_hi_->setValue(tool_.result()->range_hi);
        }
        apply_range();
    });
    for (QDoubleSpinBox* box : {range_lo_, range_hi_})
        connect(box, &QDoubleSpinBox::editingFinished, this, &HistogramPanel::apply_range);
    for (QCheckBox* box : channels_)
        connect(box, &QCheckBox::toggled, this, [this] {
            tool_.set_channels(shown_channels());
            refresh();
        });
    for (QCheckBox* box : {mean_, median_, max_})
        connect(box, &QCheckBox::toggled, this, &HistogramPanel::redraw);
    connect(plot_, &HistogramPlot::hovered, this, [this](const std::optional<int> position) {
        const ops::LineHistogram* result = tool_.result();
        if (!position || result == nullptr || result->positions < 2) {
            emit hovered_fraction(std::nullopt);
            return;
        }
        emit hovered_fraction(double(*position) / (result->positions - 1));
    });
    // The dock keeps the settings' full width; only their height scrolls.
    scroll->setMinimumWidth(controls->minimumSizeHint().width() +
                            scroll->verticalScrollBar()->sizeHint().width());
}

HistogramPanel::~HistogramPanel() = default;

void HistogramPanel::apply_range() {
    const auto mode = static_cast<session::LineTool::RangeMode>(range_mode_->currentIndex());
    tool_.set_range(mode, {range_lo_->value(), range_hi_->value()});
    refresh();
}

void HistogramPanel::set_measurement(const bool measurement, const QString& unit) {
    unit_ = unit;
    plot_->set_unit(unit);
    for (int i = 1; i < 4; ++i) {
        channels_[i]->setEnabled(!measurement);
        if (measurement) channels_[i]->setChecked(false);
    }
    channels_[0]->setText(measurement ? tr("Value") : tr("Lum"));
    const QString suffix = unit.isEmpty() ? QString() : " " + unit;
    range_lo_->setSuffix(suffix);
    range_hi_->setSuffix(suffix);
}

void HistogramPanel::set_spacing(const PixelSpacing& spacing) {
    spacing_ = spacing;
    plot_->set_spacing(spacing);
}

bool HistogramPanel::set_scale(const double known_length, const QString& unit,
                               const double aspect) {
    const ops::Point2 from = tool_.from(), to = tool_.to();
    if (tool_.result() == nullptr) return false;
    const PixelSpacing spacing = spacing_from_line(to.x - from.x, to.y - from.y, known_length,
                                                   unit.trimmed().toStdString(), aspect);
    if (!spacing.known()) return false;
    set_spacing(spacing);
    emit scale_set(spacing);
    refresh();
    return true;
}

void HistogramPanel::ask_scale() {
    const ops::Point2 from = tool_.from(), to = tool_.to();
    const double pixels = std::hypot(to.x - from.x, to.y - from.y);
    if (tool_.result() == nullptr || !(pixels > 0)) {
        info_->setText(tr("Draw a line of known length first, then Set Scale."));
        return;
    }
    QDialog dialog(this);
    dialog.setWindowTitle(tr("Set Scale"));
    auto* form = new QFormLayout(&dialog);
    auto* length = new QDoubleSpinBox;
    length->setObjectName("scale_length");
    length->setRange(1e-9, 1e12);
    length->setDecimals(6);
    length->setValue(spacing_.known() ? spacing_.length(to.x - from.x, to.y - from.y) : pixels);
    auto* unit = new QLineEdit(spacing_.known() ? QString::fromStdString(spacing_.unit) : "mm");
    unit->setObjectName("scale_unit");
    auto* aspect = new QDoubleSpinBox;
    aspect->setObjectName("scale_aspect");
    aspect->setRange(0.001, 1000);
    aspect->setDecimals(4);
    aspect->setValue(spacing_.known() ? spacing_.y / spacing_.x : 1.0);
    aspect->setToolTip(
        tr("A pixel's height divided by its width (ImageJ's pixel aspect ratio); "
           "the line is measured with it"));
    form->addRow(tr("The line (%1 px) is").arg(pixels, 0, 'f', 1), length);
    form->addRow(tr("Unit"), unit);
    form->addRow(tr("Pixel aspect ratio"), aspect);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    form->addRow(buttons);
    connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    if (dialog.exec() == QDialog::Accepted)
        set_scale(length->value(), unit->text(), aspect->value());
}

int HistogramPanel::band_width() const {
    return band_->value();
}

std::vector<ops::HistogramChannel> HistogramPanel::shown_channels() const {
    const ops::HistogramChannel all[] = {ops::HistogramChannel::Luminance,
                                         ops::HistogramChannel::Red, ops::HistogramChannel::Green,
                                         ops::HistogramChannel::Blue};
    std::vector<ops::HistogramChannel> shown;
    for (int i = 0; i < 4; ++i)
        if (channels_[i]->isChecked()) shown.push_back(all[i]);
    if (shown.empty()) shown.push_back(ops::HistogramChannel::Luminance);
    return shown;
}

void HistogramPanel::refresh() {
    const ops::LineHistogram* result = tool_.result();
    if (result != nullptr && range_mode_->currentIndex() != 2) {
        // Outside typed mode the boxes show the range in use, to start typing from.
        const QSignalBlocker block_lo(range_lo_), block_hi(range_hi_);
        range_lo_->setValue(result->range_lo);
        range_hi_->setValue(result->range_hi);
    }
    if (result != nullptr) {
        const ops::Point2 from = tool_.from(), to = tool_.to();
        const double length = std::hypot(to.x - from.x, to.y - from.y);
        const QString physical =
            spacing_.known() ? tr(" (%1 %2)")
                                   .arg(spacing_.length(to.x - from.x, to.y - from.y), 0, 'g', 6)
                                   .arg(QString::fromStdString(spacing_.unit))
                             : QString();
        info_->setText(tr("Length %1 px%5, %2 positions × %3 samples%4")
                           .arg(length, 0, 'f', 1)
                           .arg(result->positions)
                           .arg(tool_.band())
                           .arg(result->samples_outside > 0
                                    ? tr("; %1 samples outside the image (excluded)")
                                          .arg(result->samples_outside)
                                    : QString())
                           .arg(physical));
    } else {
        // A zero-length line (a click without a drag) or one wholly outside: say so.
        info_->setText(QString::fromStdString(tool_.message()));
    }
    redraw();
}

void HistogramPanel::redraw() {
    plot_->set_data(result(), scale_->currentIndex() == 0,
                    {mean_->isChecked(), median_->isChecked(), max_->isChecked()});
}

void HistogramPanel::show_fraction(const std::optional<double> t) {
    const ops::LineHistogram* result = tool_.result();
    if (!t || result == nullptr || result->positions <= 0) {
        plot_->set_marker(std::nullopt);
        return;
    }
    plot_->set_marker(static_cast<int>(std::lround(*t * (result->positions - 1))));
}

bool HistogramPanel::export_csv(const QString& path) const {
    if (result() == nullptr) return false;
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Text)) return false;
    QTextStream out(&file);
    const ops::LineHistogram& h = *result();
    out << "# lacuna line histogram: from " << h.requested_from.x << "," << h.requested_from.y
        << " to " << h.requested_to.x << "," << h.requested_to.y << "; band " << band_->value()
        << "; bins " << h.bins << " over [" << h.range_lo << ", " << h.range_hi << "]"
        << (unit_.isEmpty() ? QString() : " " + unit_) << "\n";
    const double bin_width = (double(h.range_hi) - double(h.range_lo)) / h.bins;
    out << "# bin lower edges" << (unit_.isEmpty() ? QString() : " (" + unit_ + ")") << ": ";
    for (int b = 0; b < h.bins; ++b)
        out << (b ? "," : "") << QString::number(double(h.range_lo) + b * bin_width, 'g', 9);
    out << "\n";
    if (spacing_.known()) {
        // The columns' distances along the line, in physical space.
        const QString unit = QString::fromStdString(spacing_.unit);
        out << "# pixel spacing: " << QString::fromStdString(spacing_.describe())
            << "\n# position distances (" << unit << "): ";
        const double step = physical_step(h, spacing_);
        for (int p = 0; p < h.positions; ++p)
            out << (p ? "," : "") << QString::number(p * step, 'g', 9);
        out << "\n";
    }
    for (const ops::ChannelHistogram& c : h.channels) {
        out << "# channel " << QString::fromStdString(ops::to_string(c.channel))
            << ": one row per bin (bin 0 first), one column per position\n";
        for (int b = 0; b < h.bins; ++b) {
            for (int p = 0; p < h.positions; ++p) out << (p ? "," : "") << c.count(b, p, h.bins);
            out << "\n";
        }
    }
    return file.error() == QFile::NoError;
}

bool HistogramPanel::export_csv_reporting(const QString& path) {
    if (!export_csv(path)) {
        emit error(tr("Cannot export"), tr("Could not write %1 (draw a line first).").arg(path));
        return false;
    }
    emit message(tr("Exported the line histogram to %1").arg(path), 8000);
    return true;
}

bool HistogramPanel::export_png_reporting(const QString& path) {
    if (!export_png(path)) {
        emit error(tr("Cannot export"), tr("Could not write %1 (draw a line first).").arg(path));
        return false;
    }
    emit message(tr("Exported the plot to %1").arg(path), 8000);
    return true;
}

bool HistogramPanel::export_png(const QString& path) const {
    return result() != nullptr && plot_->grab().save(path, "PNG");
}

void HistogramPanel::show_band_and_bins(const int band, const int bins) {
    band_->setValue(band);
    bins_->setValue(bins);
}

void HistogramPanel::reset_range() {
    const QSignalBlocker block_mode(range_mode_), block_lo(range_lo_), block_hi(range_hi_);
    range_mode_->setCurrentIndex(0);
    range_lo_->setValue(0);
    range_hi_->setValue(255);
    range_lo_->setEnabled(false);
    range_hi_->setEnabled(false);
    tool_.set_range(session::LineTool::RangeMode::Image, {0.0, 255.0});
    plot_->set_marker(std::nullopt);
}

void HistogramPanel::copy_to_clipboard() {
    if (result() == nullptr) return;
    auto* data = new QMimeData;  // the clipboard takes ownership
    data->setImageData(plot_->grab().toImage());
    const QString unit = unit_.isEmpty() ? QString() : " (" + unit_ + ")";
    const bool physical = spacing_.known();
    const double step = physical ? physical_step(*result(), spacing_) : 0.0;
    QString text = physical ? QString("position\tdistance (%2)\tmean%1\tmedian%1\n")
                                  .arg(unit, QString::fromStdString(spacing_.unit))
                            : QString("position\tmean%1\tmedian%1\n").arg(unit);
    const ops::ChannelHistogram& c = result()->channels.front();
    for (int p = 0; p < result()->positions; ++p) {
        const QString values = QString("%1\t%2\n")
                                   .arg(double(c.mean[std::size_t(p)]))
                                   .arg(double(c.median[std::size_t(p)]));
        text += physical ? QString("%1\t%2\t").arg(p).arg(p * step) + values
                         : QString("%1\t").arg(p) + values;
    }
    data->setText(text);
    QApplication::clipboard()->setMimeData(data);
    emit copied(tr("Copied the plot and the profile (%1 positions) to the clipboard")
                    .arg(result()->positions));
}

}  // namespace lacuna::editor
