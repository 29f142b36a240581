#include "regions_panel.hpp"

#include <lacuna/core/error.hpp>

#include <QButtonGroup>
#include <QCheckBox>
#include <QColorDialog>
#include <QFileDialog>
#include <QFileInfo>
#include <QFile>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QMouseEvent>
#include <QListWidget>
#include <QPainter>
#include <QPainterPath>
#include <QPushButton>
#include <QSaveFile>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>

namespace lacuna::editor {
namespace {

QColor colour_of(const ops::ProfileRegion& r) {
    const QColor c(QString::fromStdString(r.color));
    return c.isValid() ? c : QColor(255, 220, 40);
}

QIcon swatch(const QColor& colour) {
    QPixmap pixmap(14, 14);
    pixmap.fill(colour);
    return QIcon(pixmap);
}

/// About five round steps between lo and hi (1, 2 or 5 times a power of ten).
double tick_step(const double lo, const double hi) {
    const double span = hi - lo;
    if (!(span > 0)) return 1;
    const double raw = span / 5;
    const double power = std::pow(10.0, std::floor(std::log10(raw)));
    for (const double m : {1.0, 2.0, 5.0, 10.0})
        if (raw <= m * power) return m * power;
    return 10 * power;
}

}  // namespace

// ---- the plot -------------------------------------------------------------------------------

RegionsPlot::RegionsPlot(const session::RegionsTool& tool, QWidget* parent)
    : QWidget(parent), tool_(tool), value_label_(tr("luminance")) {
    setMinimumHeight(180);
    setObjectName("regions_plot");
    setMouseTracking(true);
}

void RegionsPlot::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    painter.fillRect(rect(), palette().base());
    const QRect plot = rect().adjusted(58, 10, -12, -36);
    x_max_ = 0;  // no hover until the axes are drawn
    double x_max = 0;
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (int i = 0; i < tool_.count(); ++i) {
        const ops::RegionProfile* p = tool_.profile(i);
        if (p == nullptr) continue;
        const std::vector<double> d = tool_.distances(i);
        x_max = std::max(x_max, d.back());
        for (const float v : p->values)
            if (std::isfinite(v)) {
                lo = std::min(lo, double(v));
                hi = std::max(hi, double(v));
            }
    }
    painter.setPen(palette().color(QPalette::Text));
    if (!(lo <= hi) || x_max <= 0) {
        painter.drawText(rect().adjusted(12, 12, -12, -12), Qt::AlignCenter | Qt::TextWordWrap,
                         tr("Draw lines, polylines or rectangles on the image with the Regions "
                            "tool (R), or press T to add the Line tool's line. Their profiles "
                            "appear here."));
        return;
    }
    if (hi == lo) {
        lo -= 0.5;
        hi += 0.5;
    }
    const double pad = (hi - lo) * 0.05;
    lo -= pad;
    hi += pad;
    plot_ = plot;
    x_max_ = x_max;
    const auto sx = [&](const double d) { return plot.left() + d / x_max * plot.width(); };
    const auto sy = [&](const double v) {
        return plot.bottom() - (v - lo) / (hi - lo) * plot.height();
    };
    // Axes, ticks and grid.
    const QColor grid = palette().color(QPalette::Mid);
    painter.setPen(grid);
    painter.drawRect(plot);
    const QFontMetrics fm(font());
    const double ystep = tick_step(lo, hi);
    for (double v = std::ceil(lo / ystep) * ystep; v <= hi; v += ystep) {
        const int y = int(std::lround(sy(v)));
        painter.setPen(QPen(grid, 1, Qt::DotLine));
        painter.drawLine(plot.left(), y, plot.right(), y);
        painter.setPen(palette().color(QPalette::Text));
        painter.drawText(QRect(0, y - 8, plot.left() - 4, 16), Qt::AlignRight | Qt::AlignVCenter,
                         QString::number(std::abs(v) < ystep * 1e-9 ? 0.0 : v, 'g', 5));
    }
    const double xstep = tick_step(0, x_max);
    for (double d = 0; d <= x_max; d += xstep) {
        const int x = int(std::lround(sx(d)));
        painter.setPen(QPen(grid, 1, Qt::DotLine));
        painter.drawLine(x, plot.top(), x, plot.bottom());
        painter.setPen(palette().color(QPalette::Text));
        painter.drawText(QRect(x - 30, plot.bottom() + 2, 60, 16), Qt::AlignCenter,
                         QString::number(d, 'g', 5));
    }
    painter.drawText(
        QRect(plot.left(), plot.bottom() + 17, plot.width(), 16), Qt::AlignCenter,
        tr("distance along the region (%1)").arg(QString::fromStdString(tool_.distance_unit())));
    painter.save();
    painter.translate(12, plot.center().y());
    painter.rotate(-90);
    painter.drawText(QRect(-plot.height() / 2, -10, plot.height(), 16), Qt::AlignCenter,
                     value_label_);
    painter.restore();
    // The curves: a gap where the profile is NaN (off the image).
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setClipRect(plot);
    for (int i = 0; i < tool_.count(); ++i) {
        const ops::RegionProfile* p = tool_.profile(i);
        if (p == nullptr) continue;
        const std::vector<double> distance = tool_.distances(i);
        QPainterPath path;
        bool pen_down = false;
        for (int k = 0; k < p->plan.positions(); ++k) {
            const float v = p->values[std::size_t(k)];
            if (!std::isfinite(v)) {
                pen_down = false;
                continue;
            }
            const QPointF at(sx(distance[std::size_t(k)]), sy(v));
            if (pen_down)
                path.lineTo(at);
            else
                path.moveTo(at);
            pen_down = true;
        }
        painter.setPen(
            QPen(colour_of(tool_.regions()[std::size_t(i)]), i == tool_.selected() ? 2.6 : 1.4));
        painter.drawPath(path);
    }
    painter.setClipping(false);
    draw_legend(painter, plot);
}

void RegionsPlot::draw_legend(QPainter& painter, const QRect& plot) const {
    // Measured in bold: the selected region's name is drawn so.
    QFont bold = font();
    bold.setBold(true);
    const QFontMetrics fm(bold);
    int width = 0;
    for (int i = 0; i < tool_.count(); ++i)
        width = std::max(width, fm.horizontalAdvance(legend_text(i)));
    const int row = fm.height() + 2;
    const QRect box(plot.right() - width - 40, plot.top() + 6, width + 34, row * tool_.count() + 6);
    painter.setRenderHint(QPainter::Antialiasing, false);
    QColor back = palette().color(QPalette::Base);
    back.setAlpha(220);
    painter.fillRect(box, back);
    painter.setPen(palette().color(QPalette::Mid));
    painter.drawRect(box);
    for (int i = 0; i < tool_.count(); ++i) {
        const ops::ProfileRegion& r = tool_.regions()[std::size_t(i)];
        const int y = box.top() + 3 + row * i + row / 2;
        painter.setPen(QPen(colour_of(r), i == tool_.selected() ? 3 : 2));
        painter.drawLine(box.left() + 5, y, box.left() + 23, y);
        QFont f = font();
        f.setBold(i == tool_.selected());
        painter.setFont(f);
        painter.setPen(tool_.profile(i) ? palette().color(QPalette::Text)
                                        : palette().color(QPalette::Mid));
        painter.drawText(QRect(box.left() + 28, y - row / 2, width + 4, row), Qt::AlignVCenter,
                         legend_text(i));
    }
    painter.setFont(font());
}

QString RegionsPlot::legend_text(const int index) const {
    const QString name = QString::fromStdString(tool_.regions()[std::size_t(index)].name);
    const ops::RegionProfile* p = tool_.profile(index);
    if (p == nullptr) return name;
    // The length in the data's unit where the pixel size is known, in pixels beside it.
    const QString px = tr("%1 px").arg(p->plan.length(), 0, 'g', 4);
    if (!tool_.spacing().known()) return tr("%1  (%2)").arg(name, px);
    return tr("%1  (%2 %3, %4)")
        .arg(name)
        .arg(tool_.distances(index).back(), 0, 'g', 4)
        .arg(QString::fromStdString(tool_.distance_unit()), px);
}

void RegionsPlot::mouseMoveEvent(QMouseEvent* event) {
    const QPointF at = event->position();
    if (x_max_ <= 0 || !plot_.contains(at.toPoint())) {
        emit hovered(QString());
        return;
    }
    const double distance = (at.x() - plot_.left()) / plot_.width() * x_max_;
    emit hovered(QString::fromStdString(tool_.readout_text(distance)));
}

void RegionsPlot::leaveEvent(QEvent*) {
    emit hovered(QString());
}

// ---- the panel ------------------------------------------------------------------------------

RegionsPanel::RegionsPanel(session::RegionsTool& tool, QWidget* parent)
    : QWidget(parent), tool_(tool) {
    auto* layout = new QVBoxLayout(this);
    auto* draw = new QHBoxLayout;
    draw->addWidget(new QLabel(tr("Draw:"), this));
    shapes_ = new QButtonGroup(this);
    const struct {
        ops::RegionShape shape;
        const char* text;
        const char* name;
    } shapes[] = {{ops::RegionShape::Line, QT_TR_NOOP("Line"), "regions_draw_line"},
                  {ops::RegionShape::Polyline, QT_TR_NOOP("Polyline"), "regions_draw_polyline"},
                  {ops::RegionShape::Rectangle, QT_TR_NOOP("Rectangle"), "regions_draw_rectangle"}};
    for (const auto& s : shapes) {
        auto* b = new QToolButton(this);
        b->setText(tr(s.text));
        b->setCheckable(true);
        b->setObjectName(s.name);
        b->setChecked(s.shape == tool_.draw_shape());
        shapes_->addButton(b, int(s.shape));
        draw->addWidget(b);
    }
    shapes_->button(int(ops::RegionShape::Polyline))
        ->setToolTip(tr("Click a vertex at a time; double-click to end"));
    connect(shapes_, &QButtonGroup::idClicked, this,
            [this](const int id) { tool_.set_draw_shape(ops::RegionShape(id)); });
    draw->addSpacing(8);
    draw->addWidget(new QLabel(tr("Band:"), this));
    band_ = new QSpinBox(this);
    band_->setObjectName("regions_band");
    band_->setRange(1, ops::kMaxBandWidth);
    band_->setToolTip(
        tr("Samples across a line or polyline (averaged), or a rectangle's height: the selected "
           "region's, and new lines'"));
    connect(band_, &QSpinBox::valueChanged, this, [this](const int band) {
        if (refreshing_) return;
        tool_.set_draw_band(band);
        if (tool_.selected() >= 0) tool_.set_band(tool_.selected(), band);
        emit changed();
    });
    draw->addWidget(band_);
    draw->addStretch();
    layout->addLayout(draw);

    list_ = new QListWidget(this);
    list_->setObjectName("regions_list");
    list_->setMaximumHeight(130);
    connect(list_, &QListWidget::currentRowChanged, this, [this](const int row) {
        if (refreshing_) return;
        tool_.select(row);
        emit changed();
    });
    connect(list_, &QListWidget::itemDoubleClicked, this, [this] { rename_selected(); });
    layout->addWidget(list_);

    const auto button = [this](const QString& text, const char* name, auto slot) {
        auto* b = new QPushButton(text, this);
        b->setObjectName(name);
        connect(b, &QPushButton::clicked, this, slot);
        return b;
    };
    auto* edit = new QHBoxLayout;
    edit->addWidget(button(tr("Add [t]"), "regions_add", [this] { emit add_line_requested(); }));
    edit->addWidget(button(tr("Rename…"), "regions_rename", [this] { rename_selected(); }));
    edit->addWidget(button(tr("Colour…"), "regions_colour", [this] { recolour_selected(); }));
    edit->addWidget(button(tr("Delete"), "regions_delete", [this] {
        tool_.remove(tool_.selected());
        emit changed();
    }));
    edit->addWidget(button(tr("Delete All"), "regions_delete_all", [this] {
        tool_.clear();
        emit changed();
    }));
    layout->addLayout(edit);
    auto* files = new QHBoxLayout;
    undo_ = button(tr("Undo"), "regions_undo", [this] {
        tool_.undo();
        emit changed();
    });
    redo_ = button(tr("Redo"), "regions_redo", [this] {
        tool_.redo();
        emit changed();
    });
    files->addWidget(undo_);
    files->addWidget(redo_);
    files->addWidget(button(tr("Open…"), "regions_open", [this] { choose_and_open(); }));
    files->addWidget(button(tr("Save…"), "regions_save", [this] { choose_and_save(); }));
    files->addWidget(button(tr("CSV…"), "regions_csv", [this] { choose_and_export(); }));
    show_all_ = new QCheckBox(tr("Show all"), this);
    show_all_->setObjectName("regions_show_all");
    show_all_->setChecked(true);
    show_all_->setToolTip(tr("Draw the regions while other tools are active"));
    connect(show_all_, &QCheckBox::toggled, this, [this] { emit changed(); });
    files->addWidget(show_all_);
    layout->addLayout(files);
    status_ = new QLabel(this);
    status_->setObjectName("regions_status");
    status_->setWordWrap(true);
    layout->addWidget(status_);
    plot_ = new RegionsPlot(tool_, this);
    layout->addWidget(plot_, 1);
    readout_ = new QLabel(this);
    readout_->setObjectName("regions_readout");
    layout->addWidget(readout_);
    connect(plot_, &RegionsPlot::hovered, readout_, &QLabel::setText);
    refresh();
}

bool RegionsPanel::show_all() const {
    return show_all_->isChecked();
}

QString RegionsPanel::status() const {
    return status_->text();
}

void RegionsPanel::show_status(const QString& text) {
    status_->setText(text);
}

void RegionsPanel::refresh() {
    refreshing_ = true;
    const auto& regions = tool_.regions();
    if (list_->count() != tool_.count() || shown_revision_ != tool_.revision()) {
        while (list_->count() > tool_.count()) delete list_->takeItem(list_->count() - 1);
        for (int i = 0; i < tool_.count(); ++i) {
            const ops::ProfileRegion& r = regions[std::size_t(i)];
            const ops::RegionProfile* p = tool_.profile(i);
            QString text = QString::fromStdString(r.name) + "  —  " + ops::to_string(r.shape);
            text += p ? tr(", %1 positions").arg(p->plan.positions()) : tr(" (no profile)");
            if (i >= list_->count()) list_->addItem(new QListWidgetItem);
            QListWidgetItem* item = list_->item(i);
            item->setText(text);
            item->setIcon(swatch(colour_of(r)));
            item->setToolTip(p ? QString() : QString::fromStdString(tool_.profile_error(i)));
        }
        shown_revision_ = tool_.revision();
    }
    list_->setCurrentRow(tool_.selected());
    if (const int s = tool_.selected(); s >= 0) {
        const ops::ProfileRegion& r = regions[std::size_t(s)];
        band_->setValue(r.shape == ops::RegionShape::Rectangle ? r.height : r.width);
    } else {
        band_->setValue(tool_.draw_band());
    }
    undo_->setEnabled(tool_.can_undo());
    redo_->setEnabled(tool_.can_redo());
    undo_->setToolTip(tool_.can_undo()
                          ? tr("Undo %1").arg(QString::fromStdString(tool_.undo_label()))
                          : tr("Nothing to undo"));
    redo_->setToolTip(tool_.can_redo()
                          ? tr("Redo %1").arg(QString::fromStdString(tool_.redo_label()))
                          : tr("Nothing to redo"));
    shapes_->button(int(tool_.draw_shape()))->setChecked(true);
    const QString unit = QString::fromStdString(tool_.unit());
    plot_->set_value_label(tool_.channel_name() == "lum" ? tr("luminance")
                           : unit.isEmpty()              ? tr("value")
                                                         : tr("value (%1)").arg(unit));
    plot_->update();
    refreshing_ = false;
}

void RegionsPanel::rename_selected() {
    const int s = tool_.selected();
    if (s < 0) return;
    bool ok = false;
    const QString name =
        QInputDialog::getText(this, tr("Rename Region"), tr("Name:"), QLineEdit::Normal,
                              QString::fromStdString(tool_.regions()[std::size_t(s)].name), &ok);
    if (!ok) return;
    try {
        tool_.rename(s, name.trimmed().toStdString());
    } catch (const Error& e) {
        show_status(QString::fromStdString(e.what()));
    }
    emit changed();
}

void RegionsPanel::recolour_selected() {
    const int s = tool_.selected();
    if (s < 0) return;
    const QColor c = QColorDialog::getColor(colour_of(tool_.regions()[std::size_t(s)]), this,
                                            tr("Region Colour"));
    if (!c.isValid()) return;
    tool_.set_color(s, c.name().toStdString());
    emit changed();
}

bool RegionsPanel::save_to(const QString& path) {
    try {
        tool_.save(path.toStdString());
    } catch (const Error& e) {
        emit error(tr("Save Regions"), QString::fromStdString(e.what()));
        show_status(QString::fromStdString(e.what()));
        return false;
    }
    show_status(tr("%1 regions saved to %2").arg(tool_.count()).arg(path));
    emit message(status(), 5000);
    return true;
}

bool RegionsPanel::open_from(const QString& path) {
    int n = 0;
    try {
        n = tool_.load(path.toStdString());
    } catch (const Error& e) {
        emit error(tr("Open Regions"), QString::fromStdString(e.what()));
        show_status(QString::fromStdString(e.what()));
        return false;
    }
    show_status(tr("%1 regions from %2").arg(n).arg(path));
    emit message(status(), 5000);
    emit changed();
    return true;
}

bool RegionsPanel::export_csv(const QString& path, const QString& source) {
    const std::string csv = tool_.profiles_csv(source.toStdString());
    // QSaveFile: written beside, then renamed; nothing is left half-written.
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) ||
        file.write(csv.data(), qint64(csv.size())) != qint64(csv.size()) || !file.commit()) {
        const QString why = tr("Cannot write '%1': %2").arg(path, file.errorString());
        emit error(tr("Export Profiles"), why);
        show_status(why);
        return false;
    }
    show_status(tr("%1 profiles written to %2").arg(tool_.count()).arg(path));
    emit message(status(), 5000);
    return true;
}

void RegionsPanel::choose_and_save() {
    const QString start =
        document_path_.isEmpty()
            ? QStringLiteral("regions.json")
            : QString::fromStdString(
                  session::RegionsTool::sidecar(document_path_.toStdString()).string());
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Save Regions"), start, tr("Regions (*.json)"));
    if (!path.isEmpty()) save_to(path);
}

void RegionsPanel::choose_and_open() {
    const QString start = document_path_.isEmpty() ? QString() : QFileInfo(document_path_).path();
    const QString path = QFileDialog::getOpenFileName(this, tr("Open Regions"), start,
                                                      tr("Regions (*.json);;All files (*)"));
    if (!path.isEmpty()) open_from(path);
}

void RegionsPanel::choose_and_export() {
    QString start = QStringLiteral("profiles.csv");
    if (!document_path_.isEmpty()) {
        const QFileInfo info(document_path_);
        start = info.path() + "/" + info.completeBaseName() + "-profiles.csv";
    }
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Export Profiles (CSV)"), start, tr("CSV (*.csv)"));
    if (!path.isEmpty())
        export_csv(path, document_path_.isEmpty() ? tr("the image") : document_path_);
}

}  // namespace lacuna::editor
