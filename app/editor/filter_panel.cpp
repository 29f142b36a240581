#include "filter_panel.hpp"

#include "document_actions.hpp"

#include <filter_tool.hpp>
#include <session.hpp>

#include <lacuna/core/error.hpp>
#include <lacuna/core/image.hpp>
#include <lacuna/io/image_io.hpp>
#include <lacuna/ops/params.hpp>
#include <lacuna/video/smooth_video.hpp>

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QFileInfo>
#include <QSettings>
#include <QSignalBlocker>
#include <QTimer>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QStackedWidget>
#include <QVBoxLayout>

#include <algorithm>
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

FilterPanel::FilterPanel(session::Session& session, QWidget* parent)
    : QWidget(parent), session_(session) {
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
    applies_to_ = new QLabel;
    applies_to_->setObjectName("filter_applies_to");
    applies_to_->setWordWrap(true);
    form->addRow(tr("Filters"), applies_to_);
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
    bind();
}

void FilterPanel::bind() {
    session::FilterTool& tool = session_.filter();
    connect(this, &FilterPanel::bilateral_changed, this, [this] {
        session::FilterTool& f = session_.filter();
        try {
            f.set_bilateral(bilateral());
        } catch (const Error& e) {
            show_status(QString::fromUtf8(e.what()));
            return;
        }
        if (f.filter_kind() == session::FilterKind::Bilateral) show_previewed();
    });
    connect(this, &FilterPanel::scale_changed, this, [this] {
        session::FilterTool& f = session_.filter();
        f.set_scale(scale_width(), scale_height(), scale_method());
        if (f.filter_kind() == session::FilterKind::Scale) show_previewed();
    });
    connect(this, &FilterPanel::guide_requested, this, &FilterPanel::choose_guide);
    connect(this, &FilterPanel::guide_cleared, this, [this] {
        session_.filter().clear_guide();
        show_guide({});
        show_previewed();
    });
    connect(this, &FilterPanel::apply_requested, this, &FilterPanel::apply);
    connect(this, &FilterPanel::cancel_requested, this, &FilterPanel::cancel);
    connect(this, &FilterPanel::temporal_changed, this, [this] {
        session::FilterTool& f = session_.filter();
        try {
            f.set_temporal(temporal_size(), temporal_sigma_space(), temporal_sigma_time());
        } catch (const Error& e) {
            show_status(QString::fromUtf8(e.what()));
            return;
        }
        if (f.filter_kind() == session::FilterKind::Temporal) show_previewed();
    });
    connect(this, &FilterPanel::export_requested, this, [this] {
        const QString path = QFileDialog::getSaveFileName(
            this, tr("Export Smoothed Video"),
            QSettings().value("paths/last_dir").toString() + "/smoothed.mp4", tr(kVideoFilter));
        if (!path.isEmpty()) export_to(path);
    });
    connect(this, &FilterPanel::export_cancel_requested, this, [this] { export_job_.cancel(); });
    export_timer_ = new QTimer(this);
    export_timer_->setInterval(100);
    connect(export_timer_, &QTimer::timeout, this, &FilterPanel::poll_export);
    tool.set_bilateral(bilateral());
}

void FilterPanel::choose_guide() {
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Guide Image"), QSettings().value("paths/last_dir").toString(), tr(kImageFilter));
    if (path.isEmpty()) return;
    try {
        io::LoadedImage guide = io::read_image(path.toStdString());
        if (!session_.filter().set_guide(std::move(guide.image))) {
            show_status(QString::fromStdString(session_.filter().status()));
            return;
        }
        show_guide(QFileInfo(path).fileName());
        show_previewed();
    } catch (const Error& e) {
        emit error(tr("Guide Image"), QString::fromUtf8(e.what()));
    }
}

void FilterPanel::apply() {
    session::FilterTool& f = session_.filter();
    QElapsedTimer timer;
    timer.start();
    if (!f.apply()) {
        show_status(QString::fromStdString(f.status()));
        return;
    }
    show_timing({});
    show_status(
        tr("Applied (%1 ms). Undo with Ctrl+Z.").arg(timer.nsecsElapsed() / 1e6, 0, 'f', 1));
    emit view_changed();
    emit applied();
}

void FilterPanel::cancel() {
    session_.filter().cancel();
    show_timing({});
    show_status({});
    emit view_changed();
}

void FilterPanel::show_applies_to() {
    const session::FilterTool& f = session_.filter();
    if (!f.on_samples()) {
        applies_to_->setText(tr("the whole picture"));
        return;
    }
    const int pages = session_.page_count();
    const QString type =
        QString::fromUtf8(to_string(session_.document().samples().sample_type()).data());
    applies_to_->setText(pages > 1 ? tr("the stored %1 samples of page %2 of %3 (the page shown)")
                                         .arg(type)
                                         .arg(session_.page() + 1)
                                         .arg(pages)
                                   : tr("the stored %1 samples").arg(type));
}

void FilterPanel::refresh_document(const bool new_document) {
    if (new_document) {
        range_unit_.clear();  // the next refresh suggests a range sigma for the new data
        return;
    }
    if (!fit_range_box()) return;
    try {
        session_.filter().set_bilateral(bilateral());
    } catch (const Error& e) {
        show_status(QString::fromUtf8(e.what()));
    }
}

bool FilterPanel::fit_range_box() {
    const session::FilterTool& f = session_.filter();
    const QString unit = QString::fromStdString(f.range_unit());
    show_applies_to();
    if (unit == range_unit_) return false;
    range_unit_ = unit;
    const QSignalBlocker block(sigma_range_);
    const auto specs =
        f.on_samples() ? ops::bilateral_measurement_param_specs() : ops::bilateral_param_specs();
    const ops::ParamSpec& spec = ops::param(specs, "sigma-range");
    if (f.on_samples()) {
        // Enough decimals for two significant digits of the suggestion (0.0012 K, 59 HU).
        const double start = f.suggested_sigma_range();
        const int decimals = std::clamp(1 - static_cast<int>(std::floor(std::log10(start))), 0, 6);
        sigma_range_->setDecimals(decimals);
        sigma_range_->setRange(std::pow(10.0, -decimals), 1e9);
        sigma_range_->setSingleStep(std::max(std::pow(10.0, -decimals), start / 10));
        sigma_range_->setValue(start);
        sigma_range_->setSuffix(" " + unit);
        sigma_range_->setToolTip(text_of(spec.help) + tr(", in %1").arg(unit));
    } else {
        sigma_range_->setDecimals(1);
        sigma_range_->setRange(spec.min, spec.max);
        sigma_range_->setSingleStep(spec.step);
        sigma_range_->setValue(spec.default_value);
        sigma_range_->setSuffix(" " + text_of(spec.unit));
        sigma_range_->setToolTip(text_of(spec.help));
    }
    return true;
}

void FilterPanel::open(const Page page) {
    show_page(page);
    session::FilterTool& f = session_.filter();
    fit_range_box();
    f.set_bilateral(bilateral());
    if (page == TemporalPage)
        f.set_temporal(temporal_size(), temporal_sigma_space(), temporal_sigma_time());
    if (page == ScalePage) {
        if (scale_width() <= 1 && scale_height() <= 1)
            set_source_size(session_.document().width(), session_.document().height());
        f.set_scale(scale_width(), scale_height(), scale_method());
    }
    const session::FilterKind kind = page == ScalePage      ? session::FilterKind::Scale
                                     : page == TemporalPage ? session::FilterKind::Temporal
                                                            : session::FilterKind::Bilateral;
    bool started = false;
    try {
        started = f.begin(kind);
    } catch (const Error& e) {
        show_status(QString::fromUtf8(e.what()));
        return;
    }
    if (!started) {
        show_status(QString::fromStdString(f.status()));
        return;
    }
    show_status({});
    show_previewed();
}

void FilterPanel::show_previewed() {
    const session::FilterTool& f = session_.filter();
    if (!f.previewing()) return;
    show_applies_to();  // a stack's page slider may have moved
    const QString timing = tr("Preview %1 × %2: %3 ms (%4)")
                               .arg(f.frame_width())
                               .arg(f.frame_height())
                               .arg(f.last_ms(), 0, 'f', f.last_ms() < 10 ? 2 : 0)
                               .arg(QString::fromStdString(f.ran_on()));
    show_timing(timing);
    emit previewed(f.last_ms());
    emit view_changed();
}

bool FilterPanel::export_to(const QString& path) {
    if (export_job_.started()) return false;
    video::SmoothVideoOptions options;
    try {
        session_.filter().set_temporal(temporal_size(), temporal_sigma_space(),
                                       temporal_sigma_time());
        options = session_.filter().prepare_temporal_export(path.toStdString());
        if (io::same_file(options.input, options.output))
            throw Error(ErrorCode::InvalidArgument, "refusing to overwrite the clip itself");
    } catch (const Error& e) {
        show_status(QString::fromUtf8(e.what()));
        return false;
    }
    const int frames = session_.video()->frame_count();
    show_status(tr("Smoothing %1 frames…").arg(frames));
    export_job_.start([options, frames](session::JobControl& control) {
        control.report(0, frames);
        const video::SmoothVideoResult r =
            video::smooth_video(options, [&control](const video::VideoProgress& p) {
                return p.total > 0 ? control.report(p.frame, p.total) : control.report(p.frame);
            });
        return tr("Exported %1 smoothed frames (%2) in %3 s on the %4.")
            .arg(r.frames)
            .arg(QString::fromStdString(r.output_codec))
            .arg(r.seconds, 0, 'f', 1)
            .arg(r.backend == "cuda" ? tr("GPU") : tr("CPU"));
    });
    export_timer_->start();
    return true;
}

void FilterPanel::poll_export() {
    show_export_progress(export_job_.done(), std::max(export_job_.total(), 1));
    const auto outcome = export_job_.take();
    if (!outcome) return;
    export_message_ = outcome->ok() ? *outcome->value
                      : outcome->cancelled
                          ? tr("Export cancelled: nothing was written.")
                          : tr("Export failed: %1").arg(QString::fromStdString(outcome->error));
    export_timer_->stop();
    show_export_progress(0, -1);
    show_status(export_message_);
    emit message(export_message_);
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
