#include "filter_panel.hpp"

#include <lacuna/core/image.hpp>
#include <lacuna/ops/params.hpp>

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QStackedWidget>
#include <QVBoxLayout>

#include <cmath>

namespace lacuna::editor {
namespace {

QString text_of(const std::string_view s) {
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

/// A spin box whose range, step, default and tooltip are the operation's declared parameter.
QDoubleSpinBox* real_box(const ops::ParamSpec& spec, const char* name, const int decimals = 1) {
    auto* box = new QDoubleSpinBox;
    box->setObjectName(name);
    box->setRange(spec.min, spec.max);
    box->setSingleStep(spec.step);
    box->setDecimals(decimals);
    box->setValue(spec.default_value);
    box->setSuffix(" " + text_of(spec.unit));
    box->setToolTip(text_of(spec.help));
    box->setKeyboardTracking(false);  // typed numbers preview when complete, not per digit
    return box;
}

/// The same for a whole-number parameter.
QSpinBox* int_box(const ops::ParamSpec& spec, const char* name) {
    auto* box = new QSpinBox;
    box->setObjectName(name);
    box->setRange(static_cast<int>(spec.min), static_cast<int>(spec.max));
    box->setSingleStep(static_cast<int>(spec.step));
    box->setValue(static_cast<int>(spec.default_value));
    box->setSuffix(" " + text_of(spec.unit));
    box->setToolTip(text_of(spec.help));
    box->setKeyboardTracking(false);
    return box;
}

}  // namespace

FilterPanel::FilterPanel(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    pages_ = new QStackedWidget;

    // ---- Bilateral ----
    const auto specs = ops::bilateral_param_specs();
    auto* bilateral = new QGroupBox(tr("Bilateral (edge-preserving smoothing)"));
    auto* form = new QFormLayout(bilateral);
    sigma_space_ = real_box(ops::param(specs, "sigma-space"), "filter_sigma_space");
    sigma_range_ = real_box(ops::param(specs, "sigma-range"), "filter_sigma_range");
    const ops::ParamSpec& radius = ops::param(specs, "radius");
    radius_ = new QSpinBox;
    radius_->setObjectName("filter_radius");
    radius_->setRange(static_cast<int>(radius.min), static_cast<int>(radius.max));
    radius_->setValue(static_cast<int>(radius.default_value));
    radius_->setSpecialValueText(tr("auto (1.5 × spatial sigma)"));
    radius_->setSuffix(tr(" px"));
    radius_->setToolTip(text_of(radius.help));
    radius_->setKeyboardTracking(false);
    form->addRow(tr("Spatial sigma"), sigma_space_);
    form->addRow(tr("Range sigma"), sigma_range_);
    form->addRow(tr("Radius"), radius_);
    auto* guide_row = new QHBoxLayout;
    auto* choose_guide = new QPushButton(tr("Guide Image…"));
    choose_guide->setToolTip(
        tr("Keep the edges of another picture of the same size (a joint bilateral filter: for "
           "example a colour view for a depth map)"));
    auto* no_guide = new QPushButton(tr("No Guide"));
    guide_row->addWidget(choose_guide);
    guide_row->addWidget(no_guide);
    form->addRow(tr("Guide"), guide_row);
    guide_ = new QLabel(tr("the picture itself"));
    guide_->setWordWrap(true);
    form->addRow(QString(), guide_);
    pages_->addWidget(bilateral);

    // ---- Scale ----
    auto* scale = new QGroupBox(tr("Scale"));
    auto* scale_form = new QFormLayout(scale);
    width_ = new QSpinBox;
    height_ = new QSpinBox;
    width_->setObjectName("filter_width");
    height_->setObjectName("filter_height");
    for (QSpinBox* box : {width_, height_}) {
        box->setRange(1, kMaxImageSide);
        box->setSuffix(tr(" px"));
        box->setKeyboardTracking(false);
    }
    keep_aspect_ = new QCheckBox(tr("Keep aspect ratio"));
    keep_aspect_->setChecked(true);
    method_ = new QComboBox;
    method_->setObjectName("filter_method");
    method_->addItem(tr("Cubic B-spline (sharpest)"), static_cast<int>(ops::ScaleMethod::BSpline));
    method_->addItem(tr("Bicubic"), static_cast<int>(ops::ScaleMethod::Bicubic));
    method_->addItem(tr("Bilinear"), static_cast<int>(ops::ScaleMethod::Bilinear));
    method_->addItem(tr("Nearest neighbour"), static_cast<int>(ops::ScaleMethod::Nearest));
    scale_form->addRow(tr("Width"), width_);
    scale_form->addRow(tr("Height"), height_);
    scale_form->addRow(QString(), keep_aspect_);
    scale_form->addRow(tr("Method"), method_);
    pages_->addWidget(scale);

    // ---- Temporal smoothing (videos) ----
    auto* temporal = new QGroupBox(tr("Temporal smoothing (3-D Gaussian over x, y and frames)"));
    auto* temporal_form = new QFormLayout(temporal);
    const auto temporal_specs = ops::temporal_param_specs();
    const ops::ParamSpec& size = ops::param(temporal_specs, "size");
    const ops::ParamSpec& space = ops::param(temporal_specs, "sigma-space");
    const ops::ParamSpec& time = ops::param(temporal_specs, "sigma-time");
    temporal_size_ = int_box(size, "filter_temporal_size");
    temporal_space_ = real_box(space, "filter_temporal_sigma_space", 2);
    temporal_time_ = real_box(time, "filter_temporal_sigma_time", 2);
    temporal_form->addRow(text_of(size.label), temporal_size_);
    temporal_form->addRow(text_of(space.label), temporal_space_);
    temporal_form->addRow(text_of(time.label), temporal_time_);
    export_ = new QPushButton(tr("Export Smoothed Video…"));
    export_cancel_ = new QPushButton(tr("Cancel Export"));
    export_cancel_->setEnabled(false);
    auto* export_row = new QHBoxLayout;
    export_row->addWidget(export_);
    export_row->addWidget(export_cancel_);
    temporal_form->addRow(export_row);
    export_progress_ = new QProgressBar;
    export_progress_->setVisible(false);
    temporal_form->addRow(export_progress_);
    pages_->addWidget(temporal);

    layout->addWidget(pages_);
    timing_ = new QLabel;
    timing_->setObjectName("filter_timing");
    layout->addWidget(timing_);
    status_ = new QLabel;
    status_->setWordWrap(true);
    layout->addWidget(status_);
    auto* buttons = new QHBoxLayout;
    apply_ = new QPushButton(tr("Apply"));
    cancel_ = new QPushButton(tr("Cancel"));
    apply_->setObjectName("filter_apply");
    buttons->addWidget(apply_);
    buttons->addWidget(cancel_);
    layout->addLayout(buttons);
    layout->addStretch(1);

    for (QDoubleSpinBox* box : {sigma_space_, sigma_range_})
        connect(box, &QDoubleSpinBox::valueChanged, this, &FilterPanel::bilateral_changed);
    connect(radius_, &QSpinBox::valueChanged, this, &FilterPanel::bilateral_changed);
    connect(choose_guide, &QPushButton::clicked, this, &FilterPanel::guide_requested);
    connect(no_guide, &QPushButton::clicked, this, &FilterPanel::guide_cleared);
    connect(width_, &QSpinBox::valueChanged, this, &FilterPanel::width_edited);
    connect(height_, &QSpinBox::valueChanged, this, &FilterPanel::height_edited);
    connect(method_, &QComboBox::currentIndexChanged, this, &FilterPanel::scale_changed);
    connect(apply_, &QPushButton::clicked, this, &FilterPanel::apply_requested);
    connect(temporal_size_, &QSpinBox::valueChanged, this, [this](const int k) {
        if (k % 2 == 0) {  // sizes are odd: step to the next odd one in the direction moved
            temporal_size_->setValue(k + 1 <= temporal_size_->maximum() ? k + 1 : k - 1);
            return;
        }
        emit temporal_changed();
    });
    for (QDoubleSpinBox* box : {temporal_space_, temporal_time_})
        connect(box, &QDoubleSpinBox::valueChanged, this, &FilterPanel::temporal_changed);
    connect(export_, &QPushButton::clicked, this, &FilterPanel::export_requested);
    connect(export_cancel_, &QPushButton::clicked, this, &FilterPanel::export_cancel_requested);
    connect(cancel_, &QPushButton::clicked, this, &FilterPanel::cancel_requested);
}

void FilterPanel::show_page(const Page page) {
    pages_->setCurrentIndex(page);
    // A clip is not changed in place: its page exports instead of applying.
    apply_->setVisible(page != TemporalPage);
}

int FilterPanel::temporal_size() const {
    return temporal_size_->value();
}
double FilterPanel::temporal_sigma_space() const {
    return temporal_space_->value();
}
double FilterPanel::temporal_sigma_time() const {
    return temporal_time_->value();
}

void FilterPanel::show_export_progress(const int done, const int total) {
    const bool running = total >= 0 && done < total;
    export_progress_->setVisible(total >= 0);
    if (total >= 0) {
        export_progress_->setRange(0, std::max(total, 1));
        export_progress_->setValue(done);
    }
    export_->setEnabled(!running);
    export_cancel_->setEnabled(running);
}

FilterPanel::Page FilterPanel::page() const {
    return static_cast<Page>(pages_->currentIndex());
}

void FilterPanel::set_source_size(const int width, const int height) {
    source_width_ = std::max(1, width);
    source_height_ = std::max(1, height);
    syncing_ = true;
    width_->setValue(source_width_);
    height_->setValue(source_height_);
    syncing_ = false;
}

ops::BilateralParams FilterPanel::bilateral() const {
    return {sigma_space_->value(), sigma_range_->value(), radius_->value()};
}

int FilterPanel::scale_width() const {
    return width_->value();
}
int FilterPanel::scale_height() const {
    return height_->value();
}

ops::ScaleMethod FilterPanel::scale_method() const {
    return static_cast<ops::ScaleMethod>(method_->currentData().toInt());
}

void FilterPanel::width_edited() {
    if (syncing_) return;
    if (keep_aspect_->isChecked()) {
        syncing_ = true;
        height_->setValue(std::max(
            1, static_cast<int>(
                   std::lround(double(source_height_) * width_->value() / source_width_))));
        syncing_ = false;
    }
    emit scale_changed();
}

void FilterPanel::height_edited() {
    if (syncing_) return;
    if (keep_aspect_->isChecked()) {
        syncing_ = true;
        width_->setValue(std::max(
            1, static_cast<int>(
                   std::lround(double(source_width_) * height_->value() / source_height_))));
        syncing_ = false;
    }
    emit scale_changed();
}

void FilterPanel::show_guide(const QString& name) {
    guide_->setText(name.isEmpty() ? tr("the picture itself") : name);
}

void FilterPanel::show_timing(const QString& text) {
    timing_->setText(text);
}

void FilterPanel::show_status(const QString& text) {
    status_->setText(text);
}

}  // namespace lacuna::editor
