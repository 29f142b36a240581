#include "retarget_panel.hpp"

#include "canvas.hpp"

#include <retarget_tool.hpp>
#include <session.hpp>

#include <QButtonGroup>
#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

#include <lacuna/ops/params.hpp>

namespace lacuna::editor {
namespace {

/// Sliders run in tenths of a percent of the source size, 10 % … 150 % (enlarging goes at most
/// 50 % in one step, like `lacuna retarget`).
constexpr int kMinPermille = 100;
constexpr int kMaxPermille = 1500;

QSlider* permille_slider(const char* name) {
    auto* slider = new QSlider(Qt::Horizontal);
    slider->setRange(kMinPermille, kMaxPermille);
    slider->setValue(1000);
    slider->setObjectName(name);
    return slider;
}

QString text(const std::string_view v) {
    return QString::fromUtf8(v.data(), static_cast<qsizetype>(v.size()));
}

int to_pixels(const int permille, const int source) {
    return std::max(1, static_cast<int>(std::lround(source * permille / 1000.0)));
}

}  // namespace

RetargetPanel::RetargetPanel(session::Session& session, QWidget* parent)
    : QWidget(parent), session_(session) {
    auto* layout = new QVBoxLayout(this);
    auto* size_box = new QGroupBox(tr("Size"));
    auto* form = new QFormLayout(size_box);
    width_slider_ = permille_slider("retarget_width");
    height_slider_ = permille_slider("retarget_height");
    width_spin_ = new QSpinBox;
    height_spin_ = new QSpinBox;
    width_spin_->setSuffix(tr(" px"));
    height_spin_->setSuffix(tr(" px"));
    for (QSpinBox* spin : {width_spin_, height_spin_}) {
        // A typed size counts when it is complete (Enter or leaving the box): typing 50 must
        // not pass through 5, which the limits would clamp.
        spin->setKeyboardTracking(false);
        spin->setToolTip(tr("10 % to 150 % of the image's size; a size outside is clamped"));
    }
    width_spin_->setObjectName("retarget_width_px");
    height_spin_->setObjectName("retarget_height_px");
    width_percent_ = new QLabel;
    height_percent_ = new QLabel;
    for (auto [label, slider, spin, percent] :
         {std::tuple{tr("Width"), width_slider_, width_spin_, width_percent_},
          std::tuple{tr("Height"), height_slider_, height_spin_, height_percent_}}) {
        auto* row = new QHBoxLayout;
        row->addWidget(spin);
        row->addWidget(percent);
        form->addRow(label, slider);
        form->addRow(QString(), row);
    }
    // The choices and the default are the operation's declared parameter; the panel only words
    // them for people.
    const ops::ParamSpec& energy = ops::param(ops::seam_param_specs(), "energy");
    energy_ = new QComboBox;
    energy_->setObjectName("retarget_energy");
    for (const std::string_view name : energy.choices) {
        const std::optional<SeamEnergy> value = ops::parse_seam_energy(std::string(name));
        if (!value) continue;
        const QString label = *value == SeamEnergy::Forward       ? tr("Forward (structure)")
                              : *value == SeamEnergy::L1          ? tr("Gradient (L1)")
                              : *value == SeamEnergy::Sobel       ? tr("Sobel")
                              : *value == SeamEnergy::Transversal ? tr("Transversal (as liblqr)")
                                                                  : tr("Prewitt");
        energy_->addItem(label, static_cast<int>(*value));
    }
    energy_->setCurrentIndex(static_cast<int>(energy.default_value));
    energy_->setToolTip(QString::fromUtf8(energy.help.data(), qsizetype(energy.help.size())));
    form->addRow(QString::fromUtf8(energy.label.data(), qsizetype(energy.label.size())), energy_);
    seams_ = new QCheckBox(tr("Show seams on the original"));
    seams_->setObjectName("retarget_show_seams");
    form->addRow(seams_);
    limit_ = new QLabel;
    limit_->setObjectName("retarget_limit");
    limit_->setWordWrap(true);
    limit_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    limit_->setStyleSheet("color: #d08000;");
    limit_->hide();
    form->addRow(limit_);
    layout->addWidget(size_box);

    auto* mix_box = new QGroupBox(tr("Content"));
    auto* mix_form = new QFormLayout(mix_box);
    build_mix(mix_form);
    layout->addWidget(mix_box);

    auto* mask_box = new QGroupBox(tr("Masks"));
    auto* mask_row = new QHBoxLayout(mask_box);
    tools_ = new QButtonGroup(this);
    const struct {
        int id;
        const char* text;
        const char* tip;
    } buttons[] = {
        {0, QT_TR_NOOP("Pan"), QT_TR_NOOP("Drag to move the view")},
        {1, QT_TR_NOOP("Protect"), QT_TR_NOOP("Paint what seams must avoid (green)")},
        {2, QT_TR_NOOP("Remove"), QT_TR_NOOP("Paint what seams take first (red)")},
        {3, QT_TR_NOOP("Eraser"), QT_TR_NOOP("Erase from the mask shown")},
    };
    for (const auto& b : buttons) {
        auto* button = new QToolButton;
        button->setText(tr(b.text));
        button->setToolTip(tr(b.tip));
        button->setCheckable(true);
        button->setObjectName(QString("retarget_tool_%1").arg(QString(b.text).toLower()));
        button->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
        tools_->addButton(button, b.id);
        mask_row->addWidget(button);
    }
    tools_->button(0)->setChecked(true);
    layout->addWidget(mask_box);

    progress_ = new QProgressBar;
    progress_->setRange(0, 1000);
    progress_->setTextVisible(true);
    progress_->setObjectName("retarget_progress");
    layout->addWidget(progress_);
    status_ = new QLabel;
    status_->setObjectName("retarget_status");
    status_->setWordWrap(true);
    status_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    layout->addWidget(status_);
    auto* buttons_row = new QHBoxLayout;
    apply_ = new QPushButton(tr("Apply"));
    apply_->setObjectName("retarget_apply");
    auto* reset = new QPushButton(tr("Reset"));
    buttons_row->addWidget(apply_);
    buttons_row->addWidget(reset);
    layout->addLayout(buttons_row);
    layout->addStretch(1);

    connect(width_slider_, &QSlider::valueChanged, this, &RetargetPanel::sync_from_sliders);
    connect(height_slider_, &QSlider::valueChanged, this, &RetargetPanel::sync_from_sliders);
    connect(width_spin_, &QSpinBox::valueChanged, this, &RetargetPanel::sync_from_spins);
    connect(height_spin_, &QSpinBox::valueChanged, this, &RetargetPanel::sync_from_spins);
    connect(energy_, &QComboBox::currentIndexChanged, this, &RetargetPanel::energy_changed);
    connect(seams_, &QCheckBox::toggled, this, &RetargetPanel::seams_overlay_toggled);
    connect(apply_, &QPushButton::clicked, this, &RetargetPanel::apply_requested);
    connect(reset, &QPushButton::clicked, this, &RetargetPanel::reset_requested);
    connect(tools_, &QButtonGroup::idClicked, this, [this](const int id) {
        const CanvasTool tool =
            id == 0 ? CanvasTool::Pan : (id == 3 ? CanvasTool::Eraser : CanvasTool::Brush);
        const MaskLayer layer = id == 1 ? MaskLayer::Protect : MaskLayer::CarveRemove;
        emit tool_changed(tool, layer);
    });
    set_source_size(1, 1);
    bind();
}

void RetargetPanel::bind() {
    session::RetargetTool& tool = session_.retarget();
    tool.on_map_published = [this](const bool vertical, const bool exact) {
        emit map_published(vertical, exact);
    };
    tool.on_preview_changed = [this] {
        show_tool_status();
        emit view_changed();
    };
    connect(this, &RetargetPanel::target_changed, this, [this](const int width, const int height) {
        // A preview the user asks for is shown: a tool that shows the document instead (the
        // line, the fill brush) gives way to the retarget tool.
        const session::Document& document = session_.document();
        const bool resized = width != document.width() || height != document.height();
        const session::ToolKind active = session_.active_kind();
        if (resized && active != session::ToolKind::Pan && active != session::ToolKind::Retarget)
            activate_tool();
        session_.retarget().set_target(width, height);
        emit view_changed();
        show_tool_status();
    });
    connect(this, &RetargetPanel::seams_overlay_toggled, this, [this](const bool on) {
        session_.retarget().set_show_seams(on);
        emit view_changed();
    });
    connect(this, &RetargetPanel::energy_changed, this, [this] {
        session_.retarget().set_energy(energy());
        emit view_changed();
    });
    tool.set_energy(energy());
    tool.set_mix(mix());
    connect(this, &RetargetPanel::mix_changed, this, [this] {
        session_.retarget().set_mix(mix());
        emit view_changed();
    });
    connect(this, &RetargetPanel::detections_toggled, this, [this](const bool on) {
        // The overlay is the retarget tool's: asking for it selects the tool.
        if (on && session_.active_kind() != session::ToolKind::Retarget) activate_tool();
        session_.retarget().set_show_detections(on);
        emit view_changed();
    });
    connect(this, &RetargetPanel::protect_detections_requested, this, [this] {
        if (session_.retarget().protect_detections()) emit edited();
        show_tool_status();
        emit view_changed();
    });
    connect(this, &RetargetPanel::apply_requested, this, &RetargetPanel::apply);
    connect(this, &RetargetPanel::reset_requested, this, [this] {
        set_target_width(session_.document().width());
        set_target_height(session_.document().height());
    });
    // Before the window's own handler, which sets the canvas's tool.
    connect(this, &RetargetPanel::tool_changed, this,
            [this](const CanvasTool canvas_tool, const MaskLayer layer) {
                session_.select(session::ToolKind::Retarget);
                // Masks are painted on the original, not on a preview.
                if (canvas_tool == CanvasTool::Pan)
                    session_.retarget().set_mask_brush(std::nullopt);
                else
                    session_.retarget().set_mask_brush(layer, canvas_tool == CanvasTool::Eraser);
            });
}

void RetargetPanel::activate_tool() {
    set_pan_tool();
    session_.retarget().set_mask_brush(std::nullopt);
    session_.select(session::ToolKind::Retarget);
    emit activated();
}

void RetargetPanel::dock_visibility_changed(const bool visible) {
    // Hidden: nothing to do, and the session may be gone (the window's destructor hides it).
    if (!visible) return;
    // Maps set aside while the document changed under another tab (an edit, a video frame
    // step) start again for what is shown now: the tab shows that frame's progress.
    session_.retarget().refresh();
    // The Remove Object tool's brush, eraser, box or scribble left active behind this tab would
    // paint a removal mask under a panel whose own mask buttons say Pan: the tab takes over.
    const session::ToolKind active = session_.active_kind();
    const bool removal_mask_tool = active == session::ToolKind::RemoveObject;
    const bool preview_hidden = session_.retarget().previewing() &&
                                active != session::ToolKind::Pan &&
                                active != session::ToolKind::Retarget;
    if (removal_mask_tool || preview_hidden) activate_tool();
}

bool RetargetPanel::apply() {
    session::RetargetTool& tool = session_.retarget();
    if (!tool.apply()) {
        show_tool_status();
        return false;
    }
    emit message(QString::fromStdString(session_.history().undo_label()), 6000);
    emit edited();
    return true;
}

void RetargetPanel::poll() {
    const session::RetargetTool::Progress progress = session_.retarget().progress();
    show_progress(QString::fromStdString(progress.what), progress.done, progress.total,
                  QString::fromStdString(progress.unit));
    show_tool_status();
}

void RetargetPanel::show_tool_status() {
    show_status(QString::fromStdString(session_.retarget().status()));
}

void RetargetPanel::show_energy_and_seams(const SeamEnergy energy, const bool seams) {
    // The controls' signals hand both to the tool, as a user's choice would.
    energy_->setCurrentIndex(energy_->findData(static_cast<int>(energy)));
    seams_->setChecked(seams);
}

void RetargetPanel::show_mix(const ops::RetargetMix& mix) {
    mix_ = mix;
    showing_mix_ = true;
    for (const ops::ParamField<ops::RetargetMix>& f : ops::retarget_mix_param_fields()) {
        QWidget* widget = mix_control(f.spec.name);
        const double v = f.get(mix_);
        if (auto* slider = qobject_cast<QSlider*>(widget))
            slider->setValue(static_cast<int>(std::lround((v - f.spec.min) / f.spec.step)));
        else if (auto* box = qobject_cast<QCheckBox*>(widget))
            box->setChecked(v != 0);
        else if (auto* spin = qobject_cast<QSpinBox*>(widget))
            spin->setValue(static_cast<int>(v));
    }
    showing_mix_ = false;
    // The controls' steps round a value between them: the mix is what they show now.
    emit mix_changed();
}

void RetargetPanel::build_mix(QFormLayout* form) {
    // One control per declared parameter (retarget_mix_param_fields): a slider for a Real (the
    // Amount), a check box for a switch, a spin box for a weight, which shares its switch's row
    // (the table lists each weight right after its switch) and is enabled with it.
    QHBoxLayout* row = nullptr;
    QCheckBox* last_switch = nullptr;
    for (const ops::ParamField<ops::RetargetMix>& f : ops::retarget_mix_param_fields()) {
        const ops::ParamSpec& spec = f.spec;
        const QString tip = text(spec.help);
        const QString name = QString("retarget_mix_%1").arg(text(spec.name));
        MixControl control{spec.name};
        if (spec.kind == ops::ParamKind::Real) {
            auto* slider = new QSlider(Qt::Horizontal);
            const int steps = static_cast<int>(std::lround((spec.max - spec.min) / spec.step));
            slider->setRange(0, steps);
            slider->setValue(static_cast<int>(std::lround((f.get(mix_) - spec.min) / spec.step)));
            slider->setObjectName(name);
            slider->setToolTip(tip);
            auto* value = new QLabel;
            const auto show = [value, spec](const double v) {
                value->setText(QString("%1 %2").arg(v, 0, 'f', 0).arg(text(spec.unit)));
            };
            show(f.get(mix_));
            connect(slider, &QSlider::valueChanged, this, [this, f, show](const int step) {
                const double v = f.spec.min + step * f.spec.step;
                f.set(mix_, v);
                show(v);
                if (!showing_mix_) emit mix_changed();
            });
            auto* line = new QHBoxLayout;
            line->addWidget(slider, 1);
            line->addWidget(value);
            form->addRow(text(spec.label), line);
            control.widget = slider;
            last_switch = nullptr;
        } else if (spec.kind == ops::ParamKind::Bool) {
            auto* box = new QCheckBox(text(spec.label));
            box->setChecked(f.get(mix_) != 0);
            box->setObjectName(name);
            box->setToolTip(tip);
            connect(box, &QCheckBox::toggled, this, [this, f](const bool on) {
                f.set(mix_, on ? 1 : 0);
                for (const MixControl& c : mix_controls_)
                    if (c.follows)
                        c.widget->setEnabled(static_cast<QCheckBox*>(c.follows)->isChecked());
                if (!showing_mix_) emit mix_changed();
            });
            row = new QHBoxLayout;
            row->addWidget(box, 1);
            form->addRow(row);
            control.widget = box;
            last_switch = box;
        } else {
            auto* spin = new QSpinBox;
            spin->setRange(static_cast<int>(spec.min), static_cast<int>(spec.max));
            spin->setValue(static_cast<int>(f.get(mix_)));
            spin->setObjectName(name);
            spin->setToolTip(text(spec.label) + ": " + tip);
            spin->setKeyboardTracking(false);
            connect(spin, &QSpinBox::valueChanged, this, [this, f](const int v) {
                f.set(mix_, v);
                if (!showing_mix_) emit mix_changed();
            });
            if (last_switch && row) {
                row->addWidget(spin);
                control.follows = last_switch;
                spin->setEnabled(last_switch->isChecked());
            } else {
                form->addRow(text(spec.label), spin);
            }
            control.widget = spin;
            last_switch = nullptr;
        }
        mix_controls_.push_back(control);
    }
    // Automatic chooses the amount itself.
    if (auto* automatic = qobject_cast<QCheckBox*>(mix_control("auto")))
        if (QWidget* amount = mix_control("amount")) {
            connect(automatic, &QCheckBox::toggled, amount, &QWidget::setDisabled);
            amount->setDisabled(automatic->isChecked());
        }
    auto* detections = new QCheckBox(tr("Show detections"));
    detections->setObjectName("retarget_show_detections");
    detections->setToolTip(tr("Draw the detected faces and straight lines over the original"));
    auto* protect = new QPushButton(tr("Protect detections"));
    protect->setObjectName("retarget_protect_detections");
    protect->setToolTip(
        tr("Add the detected faces and lines to the protect mask; edit it with the Protect "
           "brush and the Eraser"));
    auto* line = new QHBoxLayout;
    line->addWidget(detections, 1);
    line->addWidget(protect);
    form->addRow(line);
    connect(detections, &QCheckBox::toggled, this, &RetargetPanel::detections_toggled);
    connect(protect, &QPushButton::clicked, this, &RetargetPanel::protect_detections_requested);
}

QWidget* RetargetPanel::mix_control(const std::string_view name) const {
    for (const MixControl& c : mix_controls_)
        if (c.name == name) return c.widget;
    return nullptr;
}

void RetargetPanel::set_source_size(const int width, const int height) {
    source_width_ = std::max(1, width);
    source_height_ = std::max(1, height);
    syncing_ = true;
    // The boxes take any size so that one outside the limits is clamped with a word
    // (clamp_typed), not silently reverted by the box.
    width_spin_->setRange(1, std::max(100000, 10 * source_width_));
    height_spin_->setRange(1, std::max(100000, 10 * source_height_));
    limit_->clear();
    limit_->hide();
    {
        // One target for the new size, not one per box: setting the width first would announce
        // the new width with the old height (a resize nobody asked for).
        const QSignalBlocker quiet(this);
        width_slider_->setValue(1000);
        height_slider_->setValue(1000);
        width_spin_->setValue(source_width_);
        height_spin_->setValue(source_height_);
    }
    syncing_ = false;
    width_percent_->setText("100 %");
    height_percent_->setText("100 %");
    emit target_changed(source_width_, source_height_);
}

int RetargetPanel::target_width() const {
    return width_spin_->value();
}
int RetargetPanel::target_height() const {
    return height_spin_->value();
}
void RetargetPanel::set_target_width(const int width) {
    width_spin_->setValue(width);
}
void RetargetPanel::set_target_height(const int height) {
    height_spin_->setValue(height);
}

SeamEnergy RetargetPanel::energy() const {
    return static_cast<SeamEnergy>(energy_->currentData().toInt());
}

bool RetargetPanel::seams_overlay() const {
    return seams_->isChecked();
}

void RetargetPanel::sync_from_sliders() {
    if (syncing_) return;
    syncing_ = true;
    width_spin_->setValue(to_pixels(width_slider_->value(), source_width_));
    height_spin_->setValue(to_pixels(height_slider_->value(), source_height_));
    syncing_ = false;
    sync_from_spins();
}

bool RetargetPanel::clamp_typed(QSpinBox* spin, const int source, const QString& what) {
    const int lo = to_pixels(kMinPermille, source);
    const int hi = to_pixels(kMaxPermille, source);
    const int typed = spin->value();
    if (typed >= lo && typed <= hi) return false;
    const int clamped = std::clamp(typed, lo, hi);
    {
        const QSignalBlocker block(spin);
        spin->setValue(clamped);
    }
    const QString message =
        tr("%1 %2 px is outside the limits of 10 % to 150 % of the image (%3 to %4 px): set to "
           "%5 px.")
            .arg(what)
            .arg(typed)
            .arg(lo)
            .arg(hi)
            .arg(clamped);
    limit_->setText(message);
    limit_->show();
    emit limit_reached(message);
    return true;
}

QString RetargetPanel::limit_message() const {
    return limit_->isVisible() ? limit_->text() : QString();
}

void RetargetPanel::set_pan_tool() {
    tools_->button(0)->setChecked(true);
}

void RetargetPanel::sync_from_spins() {
    if (!syncing_) {
        const bool clamped = clamp_typed(width_spin_, source_width_, tr("Width")) |
                             clamp_typed(height_spin_, source_height_, tr("Height"));
        if (!clamped) limit_->hide();
    }
    const auto percent = [](const int px, const int source) {
        return QString("%1 %").arg(100.0 * px / source, 0, 'f', 1);
    };
    width_percent_->setText(percent(width_spin_->value(), source_width_));
    height_percent_->setText(percent(height_spin_->value(), source_height_));
    if (!syncing_) {
        syncing_ = true;
        width_slider_->setValue(
            static_cast<int>(std::lround(1000.0 * width_spin_->value() / source_width_)));
        height_slider_->setValue(
            static_cast<int>(std::lround(1000.0 * height_spin_->value() / source_height_)));
        syncing_ = false;
    }
    emit target_changed(width_spin_->value(), height_spin_->value());
}

void RetargetPanel::show_progress(const QString& what, const int done, const int total,
                                  const QString& unit) {
    if (total == 0) {  // nothing to count: the phase says it all
        progress_->setValue(0);
        progress_->setFormat(what);
        return;
    }
    progress_->setValue(total > 0 ? static_cast<int>(1000LL * done / total) : 1000);
    progress_->setFormat(done >= total ? tr("%1: ready").arg(what)
                         : unit.isEmpty()
                             ? tr("%1: %2 of %3 seams").arg(what).arg(done).arg(total)
                             : tr("%1: %2 of %3 %4").arg(what).arg(done).arg(total).arg(unit));
}

void RetargetPanel::show_status(const QString& text) {
    status_->setText(text);
}

}  // namespace lacuna::editor
