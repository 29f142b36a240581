#include "object_removal_panel.hpp"

#include "canvas.hpp"

#include <remove_object_tool.hpp>

#include <QButtonGroup>
#include <QFileDialog>
#include <QFileInfo>
#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSlider>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>

#include <lacuna/core/error.hpp>
#include <lacuna/ops/params.hpp>

#include <cmath>

namespace lacuna::editor {
namespace {

constexpr char kSettingsKey[] = "remove_object/settings";

QString text(const std::string_view s) {
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

QSlider* make_slider(const int min, const int max, const int value) {
    auto* slider = new QSlider(Qt::Horizontal);
    slider->setRange(min, max);
    slider->setValue(value);
    return slider;
}

}  // namespace

ObjectRemovalPanel::ObjectRemovalPanel(session::RemoveObjectTool& remove_object, QWidget* parent)
    : QWidget(parent), tool_(remove_object) {
    auto* layout = new QVBoxLayout(this);

    auto* mask_box = new QGroupBox(tr("Mask"));
    auto* mask_layout = new QVBoxLayout(mask_box);
    auto* tool_row = new QHBoxLayout;
    tools_ = new QButtonGroup(this);
    const struct {
        CanvasTool tool;
        const char* text;
        const char* tip;
    } tool_buttons[] = {
        {CanvasTool::Pan, QT_TR_NOOP("Pan"), QT_TR_NOOP("Drag to move the view (H)")},
        {CanvasTool::Brush, QT_TR_NOOP("Brush"), QT_TR_NOOP("Paint over what to remove (B)")},
        {CanvasTool::Eraser, QT_TR_NOOP("Eraser"), QT_TR_NOOP("Take pixels out of the mask (E)")},
        {CanvasTool::Box, QT_TR_NOOP("Box"),
         QT_TR_NOOP("Drag a box around an object: GrabCut proposes its mask, which the brush and "
                    "eraser then refine (M)")},
        {CanvasTool::Scribble, QT_TR_NOOP("Scribble"),
         QT_TR_NOOP("Scribble over an object: GrabCut proposes the object under the strokes, "
                    "which the brush and eraser then refine (G)")},
    };
    for (const auto& b : tool_buttons) {
        auto* button = new QToolButton;
        button->setText(tr(b.text));
        button->setToolTip(tr(b.tip));
        button->setCheckable(true);
        button->setToolButtonStyle(Qt::ToolButtonTextOnly);
        button->setObjectName(QString("tool_%1").arg(QString(b.text).toLower()));
        button->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
        tools_->addButton(button, static_cast<int>(b.tool));
        tool_row->addWidget(button);
    }
    tools_->button(static_cast<int>(CanvasTool::Pan))->setChecked(true);
    mask_layout->addLayout(tool_row);

    auto* form = new QFormLayout;
    // Ranges, defaults and help come from the operations' declared parameters. The size slider
    // sets the diameter, as painters expect; the brush takes the radius.
    const ops::ParamSpec& radius = ops::param(ops::brush_param_specs(), "radius");
    const ops::ParamSpec& hardness = ops::param(ops::brush_param_specs(), "hardness");
    size_ = make_slider(static_cast<int>(2 * radius.min), static_cast<int>(2 * radius.max),
                        static_cast<int>(2 * radius.default_value));
    size_->setObjectName("brush_size");
    size_->setToolTip(text(radius.help));
    size_value_ = new QLabel;
    auto* size_row = new QHBoxLayout;
    size_row->addWidget(size_);
    size_row->addWidget(size_value_);
    form->addRow(tr("Size"), size_row);
    hardness_ =
        make_slider(static_cast<int>(100 * hardness.min), static_cast<int>(100 * hardness.max),
                    static_cast<int>(100 * hardness.default_value));
    hardness_->setToolTip(text(hardness.help));
    hardness_value_ = new QLabel;
    auto* hardness_row = new QHBoxLayout;
    hardness_row->addWidget(hardness_);
    hardness_row->addWidget(hardness_value_);
    form->addRow(tr("Hardness"), hardness_row);
    // The sampling-area brush: the same brush paints either what to remove or where the fill
    // must never copy from (blue).
    target_ = new QComboBox;
    target_->setObjectName("mask_target");
    target_->addItem(tr("What to remove"), static_cast<int>(MaskLayer::Fill));
    target_->addItem(tr("Never copy from here"), static_cast<int>(MaskLayer::NeverSample));
    target_->setToolTip(
        tr("Red: the object to remove. Blue: areas the fill must not copy "
           "from (a person next to the wall, a flag in the sky)."));
    form->addRow(tr("Paint"), target_);
    mask_layout->addLayout(form);
    // Grow / Shrink: the inpaint table's declared "grow" (range, step, unit, help); the buttons
    // give the sign, so the box holds the distance.
    const ops::ParamSpec& grow = ops::param(ops::inpaint_param_specs(), "grow");
    grow_ = new QSpinBox;
    grow_->setObjectName("grow_pixels");
    grow_->setRange(static_cast<int>(grow.step), static_cast<int>(grow.max));
    grow_->setSingleStep(static_cast<int>(grow.step));
    // A brush's margin: enough to take an object's soft edge and shadow.
    grow_->setValue(4);
    grow_->setSuffix(tr(" px"));
    grow_->setToolTip(text(grow.help));
    auto* grow_button = new QPushButton(tr("Grow"));
    grow_button->setObjectName("grow_button");
    grow_button->setToolTip(tr("Widen the mask by this many pixels (one undoable step)"));
    auto* shrink_button = new QPushButton(tr("Shrink"));
    shrink_button->setObjectName("shrink_button");
    shrink_button->setToolTip(tr("Narrow the mask by this many pixels (one undoable step)"));
    auto* grow_row = new QHBoxLayout;
    grow_row->addWidget(grow_);
    grow_row->addWidget(grow_button);
    grow_row->addWidget(shrink_button);
    auto* grow_form = new QFormLayout;
    grow_form->addRow(text(grow.label), grow_row);
    mask_layout->addLayout(grow_form);
    auto* file_row = new QHBoxLayout;
    auto* load = new QPushButton(tr("Load…"));
    load->setObjectName("load_mask_button");
    load->setToolTip(tr("Replace the mask by an image file: white = fill, black = keep"));
    auto* save = new QPushButton(tr("Save…"));
    save->setObjectName("save_mask_button");
    save->setToolTip(tr("Save the mask as an image (PNG): white = fill, black = keep"));
    auto* clear = new QPushButton(tr("Clear Mask"));
    clear->setObjectName("clear_mask_button");
    clear->setToolTip(tr("Clear the mask"));
    file_row->addWidget(load);
    file_row->addWidget(save);
    file_row->addWidget(clear);
    mask_layout->addLayout(file_row);
    layout->addWidget(mask_box);

    auto* fill_box = new QGroupBox(tr("Fill"));
    auto* fill_form = new QFormLayout(fill_box);
    const ops::ParamSpec& method = ops::param(ops::inpaint_param_specs(), "method");
    method_ = new QComboBox;
    method_->setObjectName("fill_method");
    for (std::size_t i = 0; i < method.choices.size(); ++i) {
        const auto value = ops::parse_inpaint_method(std::string(method.choices[i]));
        if (!value) continue;
        method_->addItem(*value == ops::InpaintMethod::PatchMatch
                             ? tr("PatchMatch (whole hole, coarse to fine)")
                             : tr("Criminisi (patch by patch from the border)"),
                         static_cast<int>(*value));
    }
    method_->setCurrentIndex(method_->findData(static_cast<int>(method.default_value)));
    method_->setToolTip(text(method.help));
    fill_form->addRow(text(method.label), method_);
    const ops::ParamSpec& patch = ops::param(ops::inpaint_param_specs(), "patch");
    patch_ = new QSpinBox;
    patch_->setRange(static_cast<int>(patch.min), static_cast<int>(patch.max));
    patch_->setSingleStep(static_cast<int>(patch.step));
    patch_->setValue(static_cast<int>(patch.default_value));
    patch_->setSuffix(tr(" px"));
    patch_->setToolTip(text(patch.help));
    fill_form->addRow(tr("Patch"), patch_);
    search_ = new QComboBox;
    search_->addItem(tr("Near the hole"), 0.5);
    search_->addItem(tr("Wider around the hole"), 1.5);
    search_->addItem(tr("Whole image"), -1.0);
    search_->setToolTip(tr("Where source patches may come from"));
    fill_form->addRow(tr("Search"), search_);
    const ops::ParamSpec& lines = ops::param(ops::inpaint_param_specs(), "lines");
    lines_ = new QCheckBox(text(lines.label));
    lines_->setObjectName("fill_lines");
    lines_->setChecked(lines.default_value != 0);
    lines_->setToolTip(text(lines.help));
    fill_form->addRow(lines_);
    const ops::ParamSpec& colours = ops::param(ops::inpaint_param_specs(), "source-colours");
    source_colours_ = new QCheckBox(text(colours.label));
    source_colours_->setObjectName("fill_source_colours");
    source_colours_->setChecked(colours.default_value != 0);
    source_colours_->setToolTip(text(colours.help));
    fill_form->addRow(source_colours_);
    const ops::ParamSpec& choose = ops::param(ops::inpaint_param_specs(), "choose");
    choose_ = new QCheckBox(text(choose.label));
    choose_->setObjectName("fill_choose");
    choose_->setChecked(choose.default_value != 0);
    choose_->setToolTip(text(choose.help));
    fill_form->addRow(choose_);
    const ops::ParamSpec& refill = ops::param(ops::inpaint_param_specs(), "refill-foreign");
    refill_foreign_ = new QCheckBox(text(refill.label));
    refill_foreign_->setObjectName("fill_refill_foreign");
    refill_foreign_->setChecked(refill.default_value != 0);
    refill_foreign_->setToolTip(text(refill.help));
    fill_form->addRow(refill_foreign_);
    const ops::ParamSpec& keep = ops::param(ops::inpaint_param_specs(), "keep-colours");
    keep_colours_ = new QCheckBox(text(keep.label));
    keep_colours_->setObjectName("fill_keep_colours");
    keep_colours_->setChecked(keep.default_value != 0);
    keep_colours_->setToolTip(text(keep.help));
    fill_form->addRow(keep_colours_);
    fill_ = new QPushButton(tr("Fill"));
    fill_->setObjectName("fill_button");
    fill_->setDefault(true);
    cancel_ = new QPushButton(tr("Cancel"));
    cancel_->setEnabled(false);
    again_ = new QPushButton(tr("Fill Again"));
    again_->setObjectName("fill_again_button");
    again_->setToolTip(tr("Undo the last fill and fill once more with another seed"));
    again_->setEnabled(false);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(fill_);
    buttons->addWidget(again_);
    buttons->addWidget(cancel_);
    fill_form->addRow(buttons);
    progress_ = new QProgressBar;
    progress_->setRange(0, 1000);
    progress_->setValue(0);
    progress_->setTextVisible(true);
    progress_->setFormat(tr("idle"));
    fill_form->addRow(progress_);
    status_ = new QLabel;
    status_->setObjectName("removal_status");
    status_->setWordWrap(true);
    // Wrap inside the dock's width instead of widening the dock when a long message arrives.
    status_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    // Room for a two-line result ("Filled … on the GPU."), so the dock never clips it.
    status_->setMinimumHeight(2 * status_->fontMetrics().lineSpacing() + 2);
    fill_form->addRow(status_);
    layout->addWidget(fill_box);
    layout->addStretch(1);

    // Saved choices win over the declared defaults the widgets start with.
    load_settings();
    const auto emit_brush = [this] {
        size_value_->setText(tr("%1 px").arg(size_->value()));
        hardness_value_->setText(tr("%1 %").arg(hardness_->value()));
        save_settings();
        emit brush_changed(brush());
    };
    connect(patch_, &QSpinBox::valueChanged, this, [this] { save_settings(); });
    connect(search_, &QComboBox::currentIndexChanged, this, [this] { save_settings(); });
    connect(lines_, &QCheckBox::toggled, this, [this] { save_settings(); });
    connect(source_colours_, &QCheckBox::toggled, this, [this] { save_settings(); });
    connect(choose_, &QCheckBox::toggled, this, [this] { save_settings(); });
    connect(refill_foreign_, &QCheckBox::toggled, this, [this] { save_settings(); });
    connect(keep_colours_, &QCheckBox::toggled, this, [this] { save_settings(); });
    connect(method_, &QComboBox::currentIndexChanged, this, [this] { save_settings(); });
    connect(target_, &QComboBox::currentIndexChanged, this, [this] {
        emit layer_changed(layer());
        // Painting either mask needs the brush.
        if (tool() == CanvasTool::Pan) set_tool(CanvasTool::Brush);
    });
    connect(again_, &QPushButton::clicked, this, &ObjectRemovalPanel::fill_again_requested);
    connect(size_, &QSlider::valueChanged, this, emit_brush);
    connect(hardness_, &QSlider::valueChanged, this, emit_brush);
    emit_brush();
    connect(tools_, &QButtonGroup::idClicked, this,
            [this](const int id) { set_tool(static_cast<CanvasTool>(id)); });
    connect(clear, &QPushButton::clicked, this, &ObjectRemovalPanel::clear_mask_requested);
    connect(grow_button, &QPushButton::clicked, this,
            [this] { emit grow_requested(grow_->value()); });
    connect(shrink_button, &QPushButton::clicked, this,
            [this] { emit grow_requested(-grow_->value()); });
    connect(load, &QPushButton::clicked, this, &ObjectRemovalPanel::load_mask_requested);
    connect(save, &QPushButton::clicked, this, &ObjectRemovalPanel::save_mask_requested);
    connect(fill_, &QPushButton::clicked, this, &ObjectRemovalPanel::fill_requested);
    connect(cancel_, &QPushButton::clicked, this, &ObjectRemovalPanel::cancel_requested);
    bind();
}

void ObjectRemovalPanel::bind() {
    const auto set_brush = [this](const ops::BrushSettings& brush) {
        const bool erase = tool_.brush().erase;  // the tool's eraser stays what it was
        tool_.set_brush(brush);
        tool_.set_erase(erase);
    };
    set_brush(brush());
    connect(this, &ObjectRemovalPanel::brush_changed, this, set_brush);
    connect(this, &ObjectRemovalPanel::layer_changed, this,
            [this](const MaskLayer layer) { tool_.set_layer(layer); });
    connect(this, &ObjectRemovalPanel::clear_mask_requested, this, [this] {
        tool_.clear_mask();
        emit mask_changed();
    });
    connect(this, &ObjectRemovalPanel::grow_requested, this, [this](const int pixels) {
        show_message(tool_.grow_mask(pixels) ? QString() : QString::fromStdString(tool_.message()));
        emit mask_changed();
    });
    connect(this, &ObjectRemovalPanel::load_mask_requested, this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Load Mask"), {}, tr("Images (*.png *.tif *.tiff *.bmp *.jpg *.jpeg *.webp)"));
        if (!path.isEmpty()) load_mask(path);
    });
    connect(this, &ObjectRemovalPanel::save_mask_requested, this, [this] {
        const QString path =
            QFileDialog::getSaveFileName(this, tr("Save Mask"), tr("mask.png"), tr("PNG (*.png)"));
        if (!path.isEmpty()) save_mask(path);
    });
    connect(this, &ObjectRemovalPanel::fill_requested, this, &ObjectRemovalPanel::start_fill);
    connect(this, &ObjectRemovalPanel::fill_again_requested, this, &ObjectRemovalPanel::fill_again);
    connect(this, &ObjectRemovalPanel::cancel_requested, this, &ObjectRemovalPanel::cancel_fill);
}

bool ObjectRemovalPanel::fill_running() const {
    return tool_.fill_running();
}

bool ObjectRemovalPanel::start_fill() {
    tool_.set_fill_params(fill_params());
    if (!tool_.start_fill()) {
        const QString message = QString::fromStdString(tool_.message());
        show_fill_idle(message, /*finished=*/false);
        // Nothing painted is a hint in the status line, not an error.
        if (!message.startsWith("Nothing to fill")) emit error(tr("Cannot fill"), message);
        return false;
    }
    fill_started();
    return true;
}

bool ObjectRemovalPanel::fill_again() {
    if (!tool_.fill_again()) {
        show_fill_idle(QString::fromStdString(tool_.message()), /*finished=*/false);
        return false;
    }
    fill_started();
    return true;
}

void ObjectRemovalPanel::fill_started() {
    fill_was_running_ = true;
    show_fill_running(0, tool_.fill_progress().total);
    emit fill_running_changed(true);
}

void ObjectRemovalPanel::cancel_fill() {
    if (!tool_.fill_running()) return;
    tool_.cancel_fill();
    fill_was_running_ = false;
    show_fill_idle(QString::fromStdString(tool_.message()), /*finished=*/false);
    emit fill_running_changed(false);
}

void ObjectRemovalPanel::poll_fill() {
    const ops::InpaintProgress progress = tool_.fill_progress();
    if (tool_.fill_running()) {
        show_fill_running(progress.filled, progress.total);
        return;
    }
    if (!fill_was_running_) return;
    fill_was_running_ = false;
    show_fill_running(progress.filled, progress.total);
    const QString message = QString::fromStdString(tool_.message());
    show_fill_idle(message, /*finished=*/true);
    set_fill_again_enabled(tool_.can_fill_again());
    emit fill_running_changed(false);
    emit fill_finished(message);
}

bool ObjectRemovalPanel::load_mask(const QString& path) {
    const bool ok = tool_.load_mask(path.toStdString());
    show_message(ok ? tr("Mask loaded from %1.").arg(QFileInfo(path).fileName())
                    : QString::fromStdString(tool_.message()));
    emit mask_changed();
    return ok;
}

bool ObjectRemovalPanel::save_mask(const QString& path) {
    const bool ok = tool_.save_mask(path.toStdString());
    show_message(ok ? tr("Mask saved to %1.").arg(QFileInfo(path).fileName())
                    : QString::fromStdString(tool_.message()));
    return ok;
}

CanvasTool ObjectRemovalPanel::tool() const {
    return static_cast<CanvasTool>(tools_->checkedId());
}

void ObjectRemovalPanel::set_tool(const CanvasTool tool) {
    tools_->button(static_cast<int>(tool))->setChecked(true);
    // The brush's size and hardness mean nothing to a box; a scribble's strokes take the size.
    size_->setEnabled(tool != CanvasTool::Box);
    hardness_->setEnabled(tool != CanvasTool::Box && tool != CanvasTool::Scribble);
    emit tool_changed(tool);
}

ops::BrushSettings ObjectRemovalPanel::brush() const {
    ops::BrushSettings brush;
    // The slider sets the diameter, as painters expect.
    brush.radius = size_->value() / 2.0;
    brush.hardness = hardness_->value() / 100.0;
    return brush;
}

MaskLayer ObjectRemovalPanel::layer() const {
    return static_cast<MaskLayer>(target_->currentData().toInt());
}

void ObjectRemovalPanel::set_fill_again_enabled(const bool on) {
    again_->setEnabled(on);
}

ops::InpaintParams ObjectRemovalPanel::fill_params() const {
    ops::InpaintParams params;
    params.method = static_cast<ops::InpaintMethod>(method_->currentData().toInt());
    params.patch = patch_->value() | 1;
    params.lines = lines_->isChecked();
    params.source_colours = source_colours_->isChecked();
    params.choose = choose_->isChecked();
    params.refill_foreign = refill_foreign_->isChecked();
    params.keep_colours = keep_colours_->isChecked();
    const double alpha = search_->currentData().toDouble();
    if (alpha < 0) {
        params.search = ops::InpaintSearch::Full;
    } else {
        params.search = ops::InpaintSearch::Window;
        params.window_factor = alpha;
    }
    return params;
}

void ObjectRemovalPanel::show_fill_running(const std::int64_t filled, const std::int64_t total) {
    fill_->setEnabled(false);
    again_->setEnabled(false);
    cancel_->setEnabled(true);
    progress_->setValue(total > 0 ? static_cast<int>(1000 * filled / total) : 0);
    progress_->setFormat(tr("%1 of %2 pixels").arg(filled).arg(total));
}

void ObjectRemovalPanel::show_fill_idle(const QString& message, const bool finished) {
    fill_->setEnabled(true);
    cancel_->setEnabled(false);
    if (!finished) progress_->setValue(0);
    progress_->setFormat(finished ? tr("done") : tr("idle"));
    status_->setText(message);
}

void ObjectRemovalPanel::save_settings() const {
    std::string text = "version=" + std::to_string(ops::kSettingsVersion) + "\n";
    ops::append_settings(text, "brush.", brush(), ops::brush_param_fields());
    const ops::InpaintParams fill = fill_params();
    ops::append_settings(text, "fill.", fill, ops::inpaint_param_fields());
    text += fill.search == ops::InpaintSearch::Full ? "fill.search=full\n" : "fill.search=window\n";
    QSettings().setValue(kSettingsKey, QString::fromStdString(text));
}

void ObjectRemovalPanel::load_settings() {
    QSettings settings;
    ops::BrushSettings brush = this->brush();
    ops::InpaintParams fill = fill_params();
    const std::string text = settings.value(kSettingsKey).toString().toStdString();
    if (!text.empty()) {
        // A setting this version lacks, or a value it refuses, keeps the widget's default.
        int version = 0;
        std::vector<ops::SettingsLine> lines;
        try {
            lines = ops::split_settings(text, version);
        } catch (const Error&) {
        }
        for (const ops::SettingsLine& line : lines) {
            const std::string_view name = line.name;
            try {
                if (name == "fill.search")
                    fill.search = line.value == "full" ? ops::InpaintSearch::Full
                                                       : ops::InpaintSearch::Window;
                else if (name.substr(0, 6) == "brush.")
                    (void)ops::apply_setting(ops::brush_param_fields(), brush, name.substr(6),
                                             line.value);
                else if (name.substr(0, 5) == "fill.")
                    (void)ops::apply_setting(ops::inpaint_param_fields(), fill, name.substr(5),
                                             line.value);
            } catch (const Error&) {
            }
        }
    } else if (settings.contains("remove_object/brush_size")) {
        // The first versions kept each widget's value under its own key: the slider's diameter
        // and percent, the combo boxes' row numbers.
        brush.radius = settings.value("remove_object/brush_size").toInt() / 2.0;
        brush.hardness =
            settings.value("remove_object/hardness", hardness_->value()).toInt() / 100.0;
        fill.patch = settings.value("remove_object/patch", patch_->value()).toInt();
        const double alpha =
            search_->itemData(settings.value("remove_object/search", 0).toInt()).toDouble();
        fill.search = alpha < 0 ? ops::InpaintSearch::Full : ops::InpaintSearch::Window;
        if (alpha >= 0) fill.window_factor = alpha;
        const QVariant method = method_->itemData(
            settings.value("remove_object/method", method_->currentIndex()).toInt());
        if (method.isValid()) fill.method = static_cast<ops::InpaintMethod>(method.toInt());
        for (const char* key :
             {"remove_object/brush_size", "remove_object/hardness", "remove_object/patch",
              "remove_object/search", "remove_object/method"})
            settings.remove(key);
    }
    show_settings(brush, fill);
}

void ObjectRemovalPanel::show_settings(const ops::BrushSettings& brush,
                                       const ops::InpaintParams& fill) {
    size_->setValue(static_cast<int>(std::lround(2 * brush.radius)));
    hardness_->setValue(static_cast<int>(std::lround(100 * brush.hardness)));
    patch_->setValue(fill.patch);
    if (const int m = method_->findData(static_cast<int>(fill.method)); m >= 0)
        method_->setCurrentIndex(m);
    // The search row: "whole image", or the window whose α is nearest the saved one.
    int best = 0;
    for (int i = 0; i < search_->count(); ++i) {
        const double alpha = search_->itemData(i).toDouble();
        const double best_alpha = search_->itemData(best).toDouble();
        if (fill.search == ops::InpaintSearch::Full) {
            if (alpha < 0) best = i;
        } else if (alpha >= 0 && (best_alpha < 0 || std::abs(alpha - fill.window_factor) <
                                                        std::abs(best_alpha - fill.window_factor)))
            best = i;
    }
    search_->setCurrentIndex(best);
    lines_->setChecked(fill.lines);
    source_colours_->setChecked(fill.source_colours);
    choose_->setChecked(fill.choose);
    refill_foreign_->setChecked(fill.refill_foreign);
    keep_colours_->setChecked(fill.keep_colours);
}

void ObjectRemovalPanel::show_message(const QString& message) {
    status_->setText(message);
}

int ObjectRemovalPanel::grow_pixels() const {
    return grow_->value();
}

void ObjectRemovalPanel::reset() {
    show_fill_idle({}, /*finished=*/false);
    again_->setEnabled(false);
}

}  // namespace lacuna::editor
