#include "video_panel.hpp"

#include "canvas.hpp"

#include <remove_object_tool.hpp>
#include <retarget_tool.hpp>
#include <session.hpp>
#include <video_removal.hpp>

#include <lacuna/core/error.hpp>

#include <algorithm>

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

/// What the strip under the slider marks: key frames, scene cuts and the range processed.
struct Marks {
    std::vector<int> keys, cuts;
    int first = 0, end = 0;  ///< the range [first, end); end 0: none
};

/// A strip under the frame slider, placed where the slider's handle stands on each frame: the
/// range processed as a grey bar, a red triangle at every key frame of the object removal, a
/// blue tick at every scene cut (where the tracked mask stops and the fill starts over).
class KeyMarks final : public QWidget {
  public:
    KeyMarks(QSlider* slider, std::function<Marks()> marks)
        : slider_(slider), marks_(std::move(marks)) {
        setObjectName("video_key_marks");
        setFixedHeight(14);
        setToolTip(
            QObject::tr("Red: key frames; blue: scene cuts (the mask stops there); grey "
                        "bar: the range processed"));
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
        const auto x_of = [&](const int frame) {
            return QStyle::sliderPositionFromValue(slider_->minimum(), slider_->maximum(), frame,
                                                   span) +
                   handle.width() / 2 + slider_->x() - x();
        };
        const Marks m = marks_();
        QPainter painter(this);
        painter.setRenderHint(QPainter::Antialiasing);
        painter.setPen(Qt::NoPen);
        if (m.end > m.first) {
            painter.setBrush(QColor(150, 150, 150));
            const int a = x_of(m.first), b = x_of(std::max(m.first, m.end - 1));
            painter.drawRect(QRect(a - 1, 11, b - a + 3, 3));
        }
        painter.setBrush(QColor(60, 120, 240));
        for (const int frame : m.cuts) {
            // Between the last frame of one shot and the first of the next.
            const int x = (x_of(frame - 1) + x_of(frame)) / 2;
            painter.drawRect(QRect(x - 1, 0, 3, 14));
        }
        painter.setBrush(QColor(230, 60, 60));
        for (const int frame : m.keys) {
            const int x = x_of(frame);
            const QPointF tip(x, 1);
            const QPointF triangle[3] = {tip, {x - 5.0, 9.0}, {x + 5.0, 9.0}};
            painter.drawPolygon(triangle, 3);
        }
    }

  private:
    QSlider* slider_;
    std::function<Marks()> marks_;
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
        if (removal == nullptr) return Marks{};
        const bool whole = removal->range_first() == 0 && removal->range_end() == removal->frames();
        return Marks{removal->key_frames(), removal->cuts(), removal->range_first(),
                     whole ? 0 : removal->range_end()};
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
           "other frame first: slower. The Retarget panel's preview of a frame follows this "
           "switch, so it shows what the export writes"));
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
    // The range of frames Track, Preview Fill and Fill & Export process (1-based, inclusive,
    // as the time code counts them).
    auto* range_row = new QHBoxLayout;
    range_in_ = new QSpinBox;
    range_in_->setObjectName("video_range_in");
    range_out_ = new QSpinBox;
    range_out_->setObjectName("video_range_out");
    for (QSpinBox* box : {range_in_, range_out_}) {
        box->setRange(1, 1);
        box->setKeyboardTracking(false);
    }
    range_in_->setToolTip(tr("First frame processed"));
    range_out_->setToolTip(tr("Last frame processed"));
    set_in_ = new QPushButton(tr("In"));
    set_in_->setObjectName("video_set_in");
    set_in_->setToolTip(tr("The range starts at the shown frame"));
    set_out_ = new QPushButton(tr("Out"));
    set_out_->setObjectName("video_set_out");
    set_out_->setToolTip(tr("The range ends at the shown frame"));
    whole_clip_ = new QPushButton(tr("All"));
    whole_clip_->setObjectName("video_range_all");
    whole_clip_->setToolTip(tr("Process the whole clip"));
    range_row->addWidget(range_in_);
    range_row->addWidget(new QLabel(tr("to")));
    range_row->addWidget(range_out_);
    range_row->addWidget(set_in_);
    range_row->addWidget(set_out_);
    range_row->addWidget(whole_clip_);
    removal_form->addRow(tr("Frames"), range_row);
    removal_layout->addLayout(removal_form);
    auto* removal_buttons = new QHBoxLayout;
    track_ = new QPushButton(tr("Track"));
    track_->setObjectName("video_track");
    track_->setToolTip(tr("Carry the key masks to every frame along the optical flow"));
    fill_export_ = new QPushButton(tr("Fill && Export…"));
    fill_export_->setObjectName("video_fill_export");
    fill_export_->setToolTip(
        tr("Remove the object from every frame (flow-guided fill) and write the clip"));
    preview_ = new QPushButton(tr("Preview Fill"));
    preview_->setObjectName("video_preview");
    preview_->setToolTip(
        tr("Fill the shown frame's shot (cut to cut, within the range) exactly as Fill & Export "
           "will, and show the filled frames while scrubbing"));
    removal_buttons->addWidget(track_);
    removal_buttons->addWidget(preview_);
    removal_buttons->addWidget(fill_export_);
    removal_layout->addLayout(removal_buttons);
    show_fill_ = new QCheckBox(tr("Show the fill (hold \\ for the original)"));
    show_fill_->setObjectName("video_show_fill");
    show_fill_->setToolTip(
        tr("Show the previewed frames filled; off: the frames with their masks"));
    removal_layout->addWidget(show_fill_);
    fill_state_ = new QLabel;
    fill_state_->setObjectName("video_fill_state");
    fill_state_->setWordWrap(true);
    removal_layout->addWidget(fill_state_);
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
    // The export's settings live in the session, which the Retarget panel's preview of a frame
    // follows (faces: the frame's map is computed again; temporal weight, term and seams: the
    // preview is matched to the exported frame again). The widgets show and set them.
    const session::Session::VideoExportSettings& settings = session_.video_export_settings();
    temporal_->setValue(settings.temporal);
    term_->setCurrentIndex(term_->findData(static_cast<int>(settings.term)));
    seams_->setCurrentIndex(std::max(0, seams_->findData(settings.approximate)));
    faces_->setChecked(settings.faces);
    const auto settings_changed = [this] {
        session::Session::VideoExportSettings s;
        s.temporal = temporal_->value();
        s.approximate = seams_->currentData().toInt();
        s.term = static_cast<ops::TemporalTerm>(term_->currentData().toInt());
        s.faces = faces_->isChecked();
        session_.set_video_export_settings(s);
        emit frame_shown();
    };
    connect(faces_, &QCheckBox::toggled, this, settings_changed);
    connect(temporal_, &QDoubleSpinBox::valueChanged, this, settings_changed);
    connect(term_, &QComboBox::currentIndexChanged, this, settings_changed);
    connect(seams_, &QComboBox::currentIndexChanged, this, settings_changed);
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
    connect(preview_, &QPushButton::clicked, this, &VideoPanel::preview_fill);
    connect(show_fill_, &QCheckBox::toggled, this, [this](const bool on) {
        session_.set_video_fill_shown(on);
        emit frame_shown();
        refresh();
    });
    connect(grow_, &QSpinBox::valueChanged, this, [this] { refresh(); });
    const auto range_from_boxes = [this] {
        set_range(range_in_->value() - 1, std::max(range_in_->value(), range_out_->value()));
    };
    connect(range_in_, &QSpinBox::valueChanged, this, range_from_boxes);
    connect(range_out_, &QSpinBox::valueChanged, this, range_from_boxes);
    connect(set_in_, &QPushButton::clicked, this, [this] {
        const session::VideoRemoval* r = session_.video_removal();
        if (r == nullptr || session_.video() == nullptr) return;
        const int f = session_.video()->current();
        set_range(f, std::max(f + 1, r->range_end()));
    });
    connect(set_out_, &QPushButton::clicked, this, [this] {
        const session::VideoRemoval* r = session_.video_removal();
        if (r == nullptr || session_.video() == nullptr) return;
        const int f = session_.video()->current();
        set_range(std::min(f, r->range_first()), f + 1);
    });
    connect(whole_clip_, &QPushButton::clicked, this, [this] {
        if (const session::VideoRemoval* r = session_.video_removal()) set_range(0, r->frames());
    });
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
        job = session_.prepare_video_export(path.toStdString());
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
    // The fill preview belongs to the mode: leaving it shows the frames as they are.
    if (!on && show_fill_->isChecked()) show_fill_->setChecked(false);
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

video::VideoInpaintParams VideoPanel::fill_params() const {
    video::VideoInpaintParams params;
    // The Object Removal panel's fill settings; the key fills run on the CPU like the CLI's.
    params.fill = static_cast<const session::RemoveObjectTool&>(
                      session_.tool(session::ToolKind::RemoveObject))
                      .fill_params();
    params.fill.mask_grow = grow_->value();
    params.implementation = ops::InpaintImplementation::Fast;
    return params;
}

bool VideoPanel::set_range(const int first, const int end) {
    session::VideoRemoval* r = session_.video_removal();
    if (r == nullptr || r->busy()) return false;
    commit_shown_mask();  // a mask painted on the shown frame is its key, not lost
    try {
        r->set_range(first, end);
    } catch (const Error& e) {
        status_->setText(QString::fromStdString(e.what()));
        refresh();
        return false;
    }
    if (removal_mode()) session_.show_removal_mask();  // tracked masks outside it are not shown
    emit frame_shown();
    refresh();
    return true;
}

bool VideoPanel::preview_fill() {
    session::VideoRemoval* r = session_.video_removal();
    if (r == nullptr || r->busy() || exporting() || session_.video() == nullptr) return false;
    commit_shown_mask();
    try {
        r->start_preview(session_.video()->current(), fill_params());
    } catch (const Error& e) {
        status_->setText(QString::fromStdString(e.what()));
        refresh();
        return false;
    }
    status_->setText(
        tr("Filling the shot of frame %1 for the preview …").arg(session_.video()->current() + 1));
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
    const video::VideoInpaintParams params = fill_params();
    try {
        r->start_fill(path.toStdString(), params);
    } catch (const Error& e) {
        status_->setText(QString::fromStdString(e.what()));
        refresh();
        return false;
    }
    status_->setText(
        r->range_first() == 0 && r->range_end() == r->frames()
            ? tr("Filling every frame …")
            : tr("Filling frames %1–%2 …").arg(r->range_first() + 1).arg(r->range_end()));
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
    const bool was_previewing = r->previewing();
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
    if (was_previewing && r->preview_at(session_.video()->current()) != nullptr) {
        // The filled frame is what was asked for: shown (the mask as the model has it).
        session_.show_removal_mask();
        show_fill_->setChecked(true);
        session_.set_video_fill_shown(true);
        emit frame_shown();
    }
    refresh();
    emit removal_finished(was_tracking     ? !r->tracked().empty() && !r->needs_track()
                          : was_previewing ? r->preview_at(session_.video()->current()) != nullptr
                                           : r->fill_result().has_value(),
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
    preview_->setEnabled(idle && mode);
    for (QWidget* w :
         std::initializer_list<QWidget*>{range_in_, range_out_, set_in_, set_out_, whole_clip_})
        w->setEnabled(idle);
    refresh_range();
    if (r != nullptr) {
        // Other fill settings than the preview's: it no longer shows what the export writes.
        session::VideoRemoval* mutable_r = session_.video_removal();
        if (mutable_r->drop_stale_preview(fill_params())) emit frame_shown();
    }
    show_fill_->setEnabled(r != nullptr && mode);
    if (r == nullptr || session_.video() == nullptr) {
        fill_state_->clear();
    } else {
        const int f = session_.video()->current();
        const auto [a, b] = r->preview_shot();
        if (r->preview_at(f) != nullptr)
            fill_state_->setText(
                session_.video_fill_frame() != nullptr
                    ? tr("Showing frame %1 filled (preview of frames %2–%3). Hold \\ for the "
                         "original.")
                          .arg(f + 1)
                          .arg(a + 1)
                          .arg(b)
                    : tr("Frame %1 has a fill preview (frames %2–%3): Show the fill.")
                          .arg(f + 1)
                          .arg(a + 1)
                          .arg(b));
        else if (b > a && r->preview_at(a) != nullptr)
            fill_state_->setText(
                tr("The preview holds frames %1–%2; Preview Fill for this frame's shot.")
                    .arg(a + 1)
                    .arg(b));
        else
            fill_state_->setText(tr("No fill preview: Preview Fill shows the shown frame's."));
    }
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
    const int outside =
        static_cast<int>(r->key_frames().size()) - static_cast<int>(r->keys_in_range().size());
    QString text = frames.isEmpty()
                       ? tr("No key frame yet: paint the object on a frame.")
                       : tr("Key frames (marked under the slider): %1.").arg(frames.join(", "));
    if (r->still() && !frames.isEmpty())
        text += " " + tr("Still: frame %1's mask on every frame.").arg(frames.front());
    else if (r->needs_track())
        text += " " + tr("Track to carry them to every frame.");
    else if (!r->tracked().empty())
        text += " " + (r->track_stats().empty_frames > 0
                           ? tr("Tracked; %1 frame(s) after a scene cut have no mask (no key in "
                                "their shot).")
                                 .arg(r->track_stats().empty_frames)
                           : tr("Tracked: every frame has its mask."));
    if (!r->still() && outside > 0)
        text += " " + tr("%1 key frame(s) outside the range are not used.").arg(outside);
    if (!r->cuts().empty()) {
        QStringList cuts;
        for (const int c : r->cuts()) cuts << QString::number(c + 1);
        text += " " + tr("Scene cuts before frame(s) %1 (blue).").arg(cuts.join(", "));
    }
    keys_->setText(text);
}

void VideoPanel::refresh_range() {
    const session::VideoRemoval* r = session_.video_removal();
    const int n = r != nullptr ? r->frames() : 1;
    for (QSpinBox* box : {range_in_, range_out_}) {
        box->blockSignals(true);
        box->setRange(1, n);
    }
    range_in_->setValue(r != nullptr ? r->range_first() + 1 : 1);
    range_out_->setValue(r != nullptr ? r->range_end() : 1);
    for (QSpinBox* box : {range_in_, range_out_}) box->blockSignals(false);
}

}  // namespace lacuna::editor
