#include "video_panel.hpp"

#include "canvas.hpp"

#include <remove_object_tool.hpp>
#include <retarget_tool.hpp>
#include <session.hpp>
#include <video_removal.hpp>

#include <lacuna/core/error.hpp>

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QPainter>
#include <QSpinBox>
#include <QStyle>
#include <QStyleOptionSlider>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSlider>
#include <QTimer>
#include <QVBoxLayout>

namespace lacuna::editor {

namespace {

/// A strip under the frame slider with a mark at every key frame of the object removal, placed
/// where the slider's handle stands on that frame.
class KeyMarks final : public QWidget {
  public:
    KeyMarks(QSlider* slider, std::function<std::vector<int>()> keys)
        : slider_(slider), keys_(std::move(keys)) {
        setObjectName("video_key_marks");
        setFixedHeight(10);
    }

  protected:
    void paintEvent(QPaintEvent*) override {
        QStyleOptionSlider option;
        option.initFrom(slider_);
        option.orientation = Qt::Horizontal;
        option.minimum = slider_->minimum();
        option.maximum = slider_->maximum();
        const QRect handle = slider_->style()->subControlRect(QStyle::CC_Slider, &option,
                                                              QStyle::SC_SliderHandle, slider_);
        const int span = std::max(1, slider_->width() - handle.width());
        QPainter painter(this);
        painter.setRenderHint(QPainter::Antialiasing);
        painter.setPen(Qt::NoPen);
        painter.setBrush(QColor(230, 60, 60));
        for (const int frame : keys_()) {
            const int x = QStyle::sliderPositionFromValue(slider_->minimum(), slider_->maximum(),
                                                          frame, span) +
                          handle.width() / 2 + slider_->x() - x_offset();
            const QPointF tip(x, 1);
            const QPointF triangle[3] = {tip, {x - 5.0, 9.0}, {x + 5.0, 9.0}};
            painter.drawPolygon(triangle, 3);
        }
    }

  private:
    [[nodiscard]] int x_offset() const { return x(); }
    QSlider* slider_;
    std::function<std::vector<int>()> keys_;
};

}  // namespace

VideoPanel::VideoPanel(session::Session& session, QWidget* parent)
    : QWidget(parent), session_(session) {
    auto* layout = new QVBoxLayout(this);
    slider_ = new QSlider(Qt::Horizontal);
    slider_->setObjectName("video_frame");
    time_code_ = new QLabel;
    time_code_->setObjectName("video_time_code");
    layout->addWidget(new QLabel(tr("Frame")));
    layout->addWidget(slider_);
    key_marks_ = new KeyMarks(slider_, [this] {
        const session::VideoRemoval* removal = session_.video_removal();
        return removal ? removal->key_frames() : std::vector<int>{};
    });
    layout->addWidget(key_marks_);
    layout->addWidget(time_code_);

    auto* form = new QFormLayout;
    temporal_ = new QDoubleSpinBox;
    temporal_->setObjectName("video_temporal");
    temporal_->setRange(0.0, 50.0);
    temporal_->setSingleStep(0.5);
    temporal_->setValue(1.0);
    temporal_->setToolTip(
        tr("How strongly each frame's seams stay where the previous frame had them: 0 carves "
           "every frame on its own (seams jump, the picture wobbles); higher keeps them still"));
    form->addRow(tr("Temporal weight"), temporal_);
    term_ = new QComboBox;
    term_->setObjectName("video_term");
    term_->addItem(tr("Seam by seam"), static_cast<int>(ops::TemporalTerm::PerSeam));
    term_->addItem(tr("Removed pixels"), static_cast<int>(ops::TemporalTerm::RemovedPixels));
    term_->setToolTip(
        tr("Seam by seam: each seam stays near the same seam of the previous frame (steadiest "
           "with fast seams; with exact seams many frames are carved at once). Removed "
           "pixels: every seam stays near any pixel the previous frame removed"));
    form->addRow(tr("Keep seams"), term_);
    seams_ = new QComboBox;
    seams_->setObjectName("video_seams");
    seams_->addItem(tr("Exact"), 1);
    seams_->addItem(tr("Fast (1/2-size seams)"), 2);
    seams_->addItem(tr("Fastest (1/4-size seams)"), 4);
    seams_->setToolTip(
        tr("Exact seams flicker least; the fast ones find seams on a downscaled "
           "copy, several times faster, and move more between frames"));
    form->addRow(tr("Seams"), seams_);
    faces_ = new QCheckBox(tr("Track and protect faces"));
    faces_->setObjectName("video_faces");
    faces_->setToolTip(
        tr("Find faces over each shot and carve them last, at the Retarget panel's face weight "
           "(its saliency, lines and skin switches always apply). The detector runs on every "
           "other frame first: slower"));
    form->addRow(tr("Faces"), faces_);
    layout->addLayout(form);

    // Object removal: key masks painted with the Remove Object tool, tracked, filled.
    auto* removal = new QGroupBox(tr("Remove an object"));
    auto* removal_layout = new QVBoxLayout(removal);
    removal_mode_ = new QCheckBox(tr("Paint the object's mask on frames"));
    removal_mode_->setObjectName("video_removal_mode");
    removal_mode_->setToolTip(
        tr("The Remove Object tool paints (brush, box or scribble selection) the mask on the "
           "shown frame, which becomes a key frame; every frame then shows its mask"));
    removal_layout->addWidget(removal_mode_);
    // The Remove Object tool's mask tools, here too, so the dock need not change while painting
    // key frames (size and hardness are the Object Removal panel's).
    mask_tools_ = new QWidget;
    auto* tool_row = new QHBoxLayout(mask_tools_);
    tool_row->setContentsMargins(0, 0, 0, 0);
    const struct {
        CanvasTool tool;
        const char* text;
        const char* name;
    } tools[] = {{CanvasTool::Brush, QT_TR_NOOP("Brush"), "video_tool_brush"},
                 {CanvasTool::Eraser, QT_TR_NOOP("Eraser"), "video_tool_eraser"},
                 {CanvasTool::Box, QT_TR_NOOP("Box"), "video_tool_box"},
                 {CanvasTool::Scribble, QT_TR_NOOP("Scribble"), "video_tool_scribble"}};
    for (const auto& t : tools) {
        auto* button = new QPushButton(tr(t.text));
        button->setObjectName(t.name);
        connect(button, &QPushButton::clicked, this,
                [this, tool = t.tool] { emit mask_tool_requested(static_cast<int>(tool)); });
        tool_row->addWidget(button);
    }
    removal_layout->addWidget(mask_tools_);
    still_ = new QCheckBox(tr("Still mask (one mask for every frame, e.g. a logo)"));
    still_->setObjectName("video_still");
    removal_layout->addWidget(still_);
    keys_ = new QLabel;
    keys_->setObjectName("video_keys");
    keys_->setWordWrap(true);
    removal_layout->addWidget(keys_);
    auto* key_buttons = new QHBoxLayout;
    set_key_ = new QPushButton(tr("Set Key"));
    set_key_->setObjectName("video_set_key");
    set_key_->setToolTip(tr("The painted mask of the shown frame is its key mask"));
    remove_key_ = new QPushButton(tr("Remove Key"));
    remove_key_->setObjectName("video_remove_key");
    undo_key_ = new QPushButton(tr("Undo Key"));
    undo_key_->setObjectName("video_undo_key");
    undo_key_->setToolTip(tr("Undo the last key-mask edit (on whichever frame)"));
    key_buttons->addWidget(set_key_);
    key_buttons->addWidget(remove_key_);
    key_buttons->addWidget(undo_key_);
    removal_layout->addLayout(key_buttons);
    auto* removal_form = new QFormLayout;
    grabcut_ = new QCheckBox(tr("Refine with GrabCut"));
    grabcut_->setObjectName("video_grabcut");
    grabcut_->setChecked(video::MaskTrackParams{}.grabcut);
    grabcut_->setToolTip(
        tr("Follow an object whose shape changes (GrabCut on every frame); off: the flow "
           "alone (a patch of sky or leaves is not an object GrabCut finds)"));
    removal_form->addRow(tr("Tracking"), grabcut_);
    grow_ = new QSpinBox;
    grow_->setObjectName("video_grow");
    grow_->setRange(-32, 32);
    grow_->setValue(2);
    grow_->setSuffix(tr(" px"));
    grow_->setToolTip(
        tr("Grow every mask before the fill: tracked masks can miss an object's soft rim, "
           "which the fill would then carry"));
    removal_form->addRow(tr("Grow masks"), grow_);
    removal_layout->addLayout(removal_form);
    auto* removal_buttons = new QHBoxLayout;
    track_ = new QPushButton(tr("Track"));
    track_->setObjectName("video_track");
    track_->setToolTip(tr("Carry the key masks to every frame along the optical flow"));
    fill_export_ = new QPushButton(tr("Fill && Export…"));
    fill_export_->setObjectName("video_fill_export");
    fill_export_->setToolTip(
        tr("Remove the object from every frame (flow-guided fill) and write the clip"));
    removal_buttons->addWidget(track_);
    removal_buttons->addWidget(fill_export_);
    removal_layout->addLayout(removal_buttons);
    layout->addWidget(removal);

    auto* buttons = new QHBoxLayout;
    export_button_ = new QPushButton(tr("Export Video…"));
    export_button_->setObjectName("video_export");
    export_button_->setToolTip(tr("Retarget every frame to the Retarget panel's size"));
    cancel_button_ = new QPushButton(tr("Cancel"));
    cancel_button_->setObjectName("video_cancel");
    cancel_button_->setEnabled(false);
    buttons->addWidget(export_button_);
    buttons->addWidget(cancel_button_);
    layout->addLayout(buttons);
    progress_ = new QProgressBar;
    progress_->setObjectName("video_progress");
    progress_->setVisible(false);
    layout->addWidget(progress_);
    status_ = new QLabel;
    status_->setObjectName("video_status");
    status_->setWordWrap(true);
    layout->addWidget(status_);
    layout->addStretch(1);

    timer_ = new QTimer(this);
    timer_->setInterval(100);
    connect(timer_, &QTimer::timeout, this, &VideoPanel::poll_export);
    connect(slider_, &QSlider::valueChanged, this, &VideoPanel::show_frame);
    connect(cancel_button_, &QPushButton::clicked, this, [this] {
        if (removal_busy())
            session_.video_removal()->cancel();
        else
            cancel_export();
    });
    removal_timer_ = new QTimer(this);
    removal_timer_->setInterval(100);
    connect(removal_timer_, &QTimer::timeout, this, &VideoPanel::poll_removal);
    connect(removal_mode_, &QCheckBox::toggled, this, &VideoPanel::set_removal_mode);
    connect(still_, &QCheckBox::toggled, this, [this](const bool on) {
        if (session::VideoRemoval* r = session_.video_removal()) {
            r->set_still(on);
            if (removal_mode()) session_.show_removal_mask();
            emit frame_shown();
        }
        refresh();
    });
    connect(set_key_, &QPushButton::clicked, this, &VideoPanel::set_key);
    connect(remove_key_, &QPushButton::clicked, this, &VideoPanel::remove_key);
    connect(undo_key_, &QPushButton::clicked, this, &VideoPanel::undo_key);
    connect(track_, &QPushButton::clicked, this, &VideoPanel::track);
    connect(fill_export_, &QPushButton::clicked, this, &VideoPanel::fill_export_requested);
    refresh();
}

// A running export is cancelled and waited for by its job (nothing is left written).
VideoPanel::~VideoPanel() = default;

void VideoPanel::refresh() {
    const session::VideoClip* clip = session_.video();
    slider_->blockSignals(true);
    slider_->setRange(0, clip ? clip->frame_count() - 1 : 0);
    slider_->setValue(clip ? clip->current() : 0);
    slider_->blockSignals(false);
    slider_->setEnabled(clip != nullptr && !exporting() && !removal_busy());
    export_button_->setEnabled(clip != nullptr && !exporting() && !removal_busy());
    refresh_removal();
    time_code_->setText(clip ? QString::fromStdString(clip->time_code(clip->current()))
                             : tr("No video open: File ▸ Open a video (MP4, AVI, MKV, MOV) or an "
                                  "image sequence."));
}

void VideoPanel::show_frame(const int index) {
    const session::VideoClip* clip = session_.video();
    if (clip != nullptr && index != clip->current() && removal_mode()) {
        // The painted mask is the frame's key (kept in the removal model), not an unsaved edit.
        commit_shown_mask();
    } else if (clip != nullptr && index != clip->current() && may_leave_frame &&
               !may_leave_frame(index)) {
        refresh();  // the slider goes back to the frame that stays
        return;
    }
    try {
        session_.show_video_frame(index);
        if (removal_mode()) session_.show_removal_mask();
    } catch (const Error& e) {
        status_->setText(tr("Cannot show frame %1: %2").arg(index + 1).arg(e.what()));
    }
    refresh();
    emit frame_shown();
}

bool VideoPanel::export_to(const QString& path) {
    if (exporting() || removal_busy() || session_.video() == nullptr) return false;
    session::Session::VideoExport job;
    try {
        job = session_.prepare_video_export(
            path.toStdString(), temporal_->value(), seams_->currentData().toInt(),
            static_cast<ops::TemporalTerm>(term_->currentData().toInt()), faces_->isChecked());
    } catch (const Error& e) {
        status_->setText(QString::fromStdString(e.what()));
        return false;
    }
    const int frames = session_.video()->frame_count();
    progress_->setRange(0, frames);
    progress_->setValue(0);
    progress_->setVisible(true);
    cancel_button_->setEnabled(true);
    status_->setText(
        tr("Exporting %1 × %2 …").arg(job.options.params.width).arg(job.options.params.height));
    export_.start([job = std::move(job), frames](session::JobControl& control) {
        control.report(0, frames);
        const video::RetargetVideoResult r =
            video::retarget_video(job.options, [&control](const video::VideoProgress& p) {
                return p.total > 0 ? control.report(p.frame, p.total) : control.report(p.frame);
            });
        QString notes;
        if (!r.importance_terms.empty())
            notes += "\n" + tr("Importance: %1; %2 face track(s).")
                                .arg(QString::fromStdString([&] {
                                    std::string t;
                                    for (const std::string& term : r.importance_terms)
                                        t += (t.empty() ? "" : ", ") + term;
                                    return t;
                                }()))
                                .arg(r.face_tracks);
        for (const std::string& n : r.notices) notes += "\n" + QString::fromStdString(n);
        return tr("Exported %1 frames (%2 × %3, %4 fps, %5) in %6 s: %7 fps, %8 carver.%9")
            .arg(r.frames)
            .arg(r.out_width)
            .arg(r.out_height)
            .arg(r.fps, 0, 'f', 2)
            .arg(QString::fromStdString(r.output_codec))
            .arg(r.seconds, 0, 'f', 1)
            .arg(r.seconds > 0 ? r.frames / r.seconds : 0.0, 0, 'f', 1)
            .arg(QString::fromStdString(r.backend))
            .arg(notes);
    });
    timer_->start();
    refresh();
    return true;
}

void VideoPanel::cancel_export() {
    export_.cancel();
}

void VideoPanel::poll_export() {
    progress_->setMaximum(std::max(1, export_.total()));
    progress_->setValue(export_.done());
    const auto outcome = export_.take();
    if (!outcome) return;
    timer_->stop();
    const QString message =
        outcome->ok()        ? *outcome->value
        : outcome->cancelled ? tr("Export cancelled: nothing was written.")
                             : tr("Export failed: %1").arg(QString::fromStdString(outcome->error));
    progress_->setVisible(false);
    cancel_button_->setEnabled(false);
    status_->setText(message);
    refresh();
    emit export_finished(outcome->ok(), message);
}

QString VideoPanel::status() const {
    return status_->text();
}

bool VideoPanel::removal_mode() const {
    return removal_mode_->isChecked() && session_.video_removal() != nullptr;
}

bool VideoPanel::removal_busy() const {
    const session::VideoRemoval* r = session_.video_removal();
    return r != nullptr && r->busy();
}

void VideoPanel::set_removal_mode(const bool on) {
    if (removal_mode_->isChecked() != on) {
        removal_mode_->setChecked(on);  // comes back here through toggled()
        return;
    }
    if (session::VideoRemoval* r = session_.video_removal(); on && r != nullptr) {
        // A mask painted before the mode was on is the shown frame's first key, not wiped.
        if (r->mask_at(session_.video()->current()) == nullptr && session_.removal_mask_edited())
            commit_shown_mask();
        session_.show_removal_mask();
        emit frame_shown();
    }
    refresh();
    emit removal_mode_changed(on);
}

void VideoPanel::commit_shown_mask() {
    session::VideoRemoval* r = session_.video_removal();
    if (r == nullptr || r->busy() || !session_.removal_mask_edited()) return;
    try {
        session_.take_removal_key();
    } catch (const Error& e) {
        status_->setText(QString::fromStdString(e.what()));
    }
}

void VideoPanel::set_key() {
    session::VideoRemoval* r = session_.video_removal();
    if (r == nullptr || r->busy()) return;
    try {
        session_.take_removal_key();
        status_->setText(r->is_key(session_.video()->current())
                             ? tr("Frame %1 is a key frame.").arg(session_.video()->current() + 1)
                             : tr("Nothing painted: frame %1 is no key frame.")
                                   .arg(session_.video()->current() + 1));
    } catch (const Error& e) {
        status_->setText(QString::fromStdString(e.what()));
    }
    refresh();
}

void VideoPanel::remove_key() {
    session::VideoRemoval* r = session_.video_removal();
    if (r == nullptr || r->busy() || session_.video() == nullptr) return;
    if (r->remove_key(session_.video()->current())) {
        session_.show_removal_mask();
        emit frame_shown();
    }
    refresh();
}

void VideoPanel::undo_key() {
    session::VideoRemoval* r = session_.video_removal();
    if (r == nullptr || r->busy() || !r->undo()) return;
    session_.show_removal_mask();
    emit frame_shown();
    refresh();
}

bool VideoPanel::track() {
    session::VideoRemoval* r = session_.video_removal();
    if (r == nullptr || r->busy() || exporting()) return false;
    commit_shown_mask();
    video::MaskTrackParams params;
    params.grabcut = grabcut_->isChecked();
    try {
        r->start_track(params);
    } catch (const Error& e) {
        status_->setText(QString::fromStdString(e.what()));
        refresh();
        return false;
    }
    mask_revision_at_track_ = session_.document().mask_revision(session::MaskLayer::Fill);
    status_->setText(r->has_flow() ? tr("Tracking …")
                                   : tr("Tracking (decoding and optical flow first, once) …"));
    progress_->setRange(0, std::max(1, r->total()));
    progress_->setValue(0);
    progress_->setVisible(true);
    removal_timer_->start();
    refresh();
    return true;
}

bool VideoPanel::fill_export_to(const QString& path) {
    session::VideoRemoval* r = session_.video_removal();
    if (r == nullptr || r->busy() || exporting()) return false;
    commit_shown_mask();
    video::VideoInpaintParams params;
    // The Object Removal panel's fill settings; the key fills run on the CPU like the CLI's.
    params.fill = static_cast<const session::RemoveObjectTool&>(
                      session_.tool(session::ToolKind::RemoveObject))
                      .fill_params();
    params.fill.mask_grow = grow_->value();
    params.implementation = ops::InpaintImplementation::Fast;
    try {
        r->start_fill(path.toStdString(), params);
    } catch (const Error& e) {
        status_->setText(QString::fromStdString(e.what()));
        refresh();
        return false;
    }
    status_->setText(tr("Filling every frame …"));
    progress_->setRange(0, std::max(1, r->total()));
    progress_->setValue(0);
    progress_->setVisible(true);
    removal_timer_->start();
    refresh();
    return true;
}

void VideoPanel::poll_removal() {
    session::VideoRemoval* r = session_.video_removal();
    if (r == nullptr) {
        removal_timer_->stop();
        progress_->setVisible(false);
        refresh();
        return;
    }
    progress_->setMaximum(std::max(1, r->total()));
    progress_->setValue(r->done());
    const bool was_tracking = r->tracking();
    if (!r->poll()) return;
    removal_timer_->stop();
    progress_->setVisible(false);
    const QString message = QString::fromStdString(r->message());
    status_->setText(message);
    if (was_tracking && removal_mode()) {
        if (session_.document().mask_revision(session::MaskLayer::Fill) !=
            mask_revision_at_track_) {
            // Painted while it tracked: that is a correction, not to be painted over.
            commit_shown_mask();
        } else {
            session_.show_removal_mask();
            emit frame_shown();
        }
    }
    refresh();
    emit removal_finished(
        was_tracking ? !r->tracked().empty() && !r->needs_track() : r->fill_result().has_value(),
        message);
}

void VideoPanel::refresh_removal() {
    const session::VideoRemoval* r = session_.video_removal();
    const bool idle = r != nullptr && !r->busy() && !exporting();
    removal_mode_->setEnabled(r != nullptr);
    still_->setEnabled(idle);
    if (r != nullptr && still_->isChecked() != r->still()) {
        still_->blockSignals(true);
        still_->setChecked(r->still());
        still_->blockSignals(false);
    }
    const bool mode = removal_mode();
    mask_tools_->setEnabled(idle && mode);
    set_key_->setEnabled(idle && mode);
    remove_key_->setEnabled(idle && mode && r->is_key(session_.video()->current()));
    undo_key_->setEnabled(idle && mode && r->can_undo());
    track_->setEnabled(idle && mode && !r->still());
    fill_export_->setEnabled(idle && mode);
    grabcut_->setEnabled(idle && !(r != nullptr && r->still()));
    cancel_button_->setEnabled(exporting() || removal_busy());
    key_marks_->setVisible(r != nullptr);
    key_marks_->update();
    if (r == nullptr) {
        keys_->clear();
        return;
    }
    QStringList frames;
    for (const int f : r->key_frames()) frames << QString::number(f + 1);
    QString text = frames.isEmpty()
                       ? tr("No key frame yet: paint the object on a frame.")
                       : tr("Key frames (marked under the slider): %1.").arg(frames.join(", "));
    if (r->still() && !frames.isEmpty())
        text += " " + tr("Still: frame %1's mask on every frame.").arg(frames.front());
    else if (r->needs_track())
        text += " " + tr("Track to carry them to every frame.");
    else if (!r->tracked().empty())
        text += " " + tr("Tracked: every frame has its mask.");
    keys_->setText(text);
}

}  // namespace lacuna::editor
