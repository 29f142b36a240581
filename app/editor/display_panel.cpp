#include "display_panel.hpp"

#include <session.hpp>

#include <lacuna/core/display.hpp>

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSlider>
#include <QVBoxLayout>

namespace lacuna::editor {

namespace {
QDoubleSpinBox* value_box(const char* name) {
    auto* box = new QDoubleSpinBox;
    box->setObjectName(name);
    box->setRange(-1e12, 1e12);
    box->setDecimals(4);
    box->setKeyboardTracking(false);
    return box;
}
}  // namespace

DisplayPanel::DisplayPanel(session::Session& session, QWidget* parent)
    : QWidget(parent), session_(session) {
    auto* layout = new QVBoxLayout(this);
    type_ = new QLabel;
    type_->setWordWrap(true);
    type_->setObjectName("display_type");
    layout->addWidget(type_);
    auto* form = new QFormLayout;
    lut_ = new QComboBox;
    lut_->setObjectName("display_lut");
    for (const Lut lut : all_luts()) {
        const std::string_view name = to_string(lut);
        lut_->addItem(QString::fromUtf8(name.data(), qsizetype(name.size())));
    }
    lut_->setToolTip(tr("Lookup table for single-channel data; NaN shows magenta"));
    form->addRow(tr("LUT"), lut_);
    mark_clipped_ = new QCheckBox(tr("Mark values outside the window"));
    mark_clipped_->setObjectName("display_mark_clipped");
    mark_clipped_->setToolTip(
        tr("Below the window in blue, above it in green (grey data and "
           "every LUT); NaN is always magenta"));
    form->addRow(QString(), mark_clipped_);
    lo_ = value_box("display_window_lo");
    hi_ = value_box("display_window_hi");
    lo_->setToolTip(tr("Value shown as the LUT's first colour (calibrated units)"));
    hi_->setToolTip(tr("Value shown as the LUT's last colour (calibrated units)"));
    form->addRow(tr("Window low"), lo_);
    form->addRow(tr("Window high"), hi_);
    auto* auto_row = new QHBoxLayout;
    auto_ = new QPushButton(tr("Auto"));
    auto_->setObjectName("display_auto");
    auto_->setToolTip(
        tr("Auto-contrast: the window leaves this share of the values beyond each "
           "end (as ImageJ does)"));
    saturated_ = new QDoubleSpinBox;
    saturated_->setRange(0.0, 10.0);
    saturated_->setDecimals(2);
    saturated_->setValue(0.35);
    saturated_->setSuffix(tr(" % saturated"));
    auto_row->addWidget(auto_);
    auto_row->addWidget(saturated_);
    form->addRow(QString(), auto_row);
    auto* page_row = new QHBoxLayout;
    page_ = new QSlider(Qt::Horizontal);
    page_->setObjectName("display_page");
    page_label_ = new QLabel;
    page_row->addWidget(page_, 1);
    page_row->addWidget(page_label_);
    page_title_ = new QLabel(tr("Page"));
    form->addRow(page_title_, page_row);
    slope_ = value_box("calibration_slope");
    slope_->setDecimals(6);
    intercept_ = value_box("calibration_intercept");
    unit_ = new QLineEdit;
    unit_->setObjectName("calibration_unit");
    unit_->setPlaceholderText(tr("unit, e.g. K or HU"));
    apply_calibration_ = new QPushButton(tr("Apply Calibration"));
    apply_calibration_->setToolTip(tr("value = slope × sample + intercept, in the unit"));
    form->addRow(tr("Slope"), slope_);
    form->addRow(tr("Intercept"), intercept_);
    form->addRow(tr("Unit"), unit_);
    form->addRow(QString(), apply_calibration_);
    layout->addLayout(form);
    layout->addStretch(1);

    connect(lut_, &QComboBox::currentIndexChanged, this, [this](const int index) {
        if (index < 0) return;
        session_.set_lut(all_luts()[static_cast<std::size_t>(index)]);
        emit changed();
    });
    connect(mark_clipped_, &QCheckBox::toggled, this, [this](const bool on) {
        session_.set_mark_clipped(on);
        emit changed();
    });
    connect(lo_, &QDoubleSpinBox::valueChanged, this, &DisplayPanel::apply_window);
    connect(hi_, &QDoubleSpinBox::valueChanged, this, &DisplayPanel::apply_window);
    connect(auto_, &QPushButton::clicked, this, [this] {
        session_.auto_contrast(saturated_->value() / 100.0);
        refresh();
        emit changed();
    });
    connect(page_, &QSlider::valueChanged, this, [this](const int page) {
        session_.show_page(page);
        page_label_->setText(tr("%1 / %2").arg(page + 1).arg(session_.page_count()));
        emit changed();
        emit calibration_changed();  // the histogram follows the page
    });
    connect(apply_calibration_, &QPushButton::clicked, this, &DisplayPanel::apply_calibration);
    refresh();
}

void DisplayPanel::apply_window() {
    session_.set_window({lo_->value(), hi_->value()});
    emit changed();
}

void DisplayPanel::apply_calibration() {
    if (slope_->value() == 0.0) {
        type_->setText(tr("The slope must not be zero."));
        return;
    }
    session_.set_calibration({slope_->value(), intercept_->value(), unit_->text().toStdString()});
    refresh();
    emit changed();
    emit calibration_changed();
}

void DisplayPanel::refresh() {
    const session::Document& document = session_.document();
    const bool measurement = document.measurement();
    setEnabled(!document.empty());
    const Calibration& cal = document.calibration();
    type_->setText(
        measurement
            ? tr("%1, %2 × %3; calibration: %4")
                  .arg(QString::fromStdString(describe(document.format())))
                  .arg(document.width())
                  .arg(document.height())
                  .arg(QString::fromStdString(cal.describe()))
            : tr("An 8-bit photo: shown as stored. Window and LUT apply to 16-bit and float "
                 "images."));
    for (QWidget* w :
         std::initializer_list<QWidget*>{lut_, mark_clipped_, lo_, hi_, auto_, saturated_, slope_,
                                         intercept_, unit_, apply_calibration_})
        w->setEnabled(measurement);
    const QSignalBlocker b1(lut_), b2(lo_), b3(hi_), b4(page_), b5(mark_clipped_);
    mark_clipped_->setChecked(session_.display().mark_clipped);
    const session::Session::Display& display = session_.display();
    const auto luts = all_luts();
    lut_->setCurrentIndex(
        static_cast<int>(std::find(luts.begin(), luts.end(), display.lut) - luts.begin()));
    const QString unit = cal.unit.empty() ? QString() : " " + QString::fromStdString(cal.unit);
    lo_->setSuffix(unit);
    hi_->setSuffix(unit);
    lo_->setValue(display.window.lo);
    hi_->setValue(display.window.hi);
    slope_->setValue(cal.slope);
    intercept_->setValue(cal.intercept);
    unit_->setText(QString::fromStdString(cal.unit));
    const bool stack = session_.page_count() > 1;
    page_->setVisible(stack);
    page_label_->setVisible(stack);
    page_title_->setVisible(stack);
    page_->setRange(0, std::max(0, session_.page_count() - 1));
    page_->setValue(session_.page());
    page_label_->setText(tr("%1 / %2").arg(session_.page() + 1).arg(session_.page_count()));
}

}  // namespace lacuna::editor
