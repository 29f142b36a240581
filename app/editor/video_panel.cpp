#include "video_panel.hpp"

#include <retarget_tool.hpp>
#include <session.hpp>

#include <lacuna/core/error.hpp>

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSlider>
#include <QTimer>
#include <QVBoxLayout>

namespace lacuna::editor {

VideoPanel::VideoPanel(session::Session& session, QWidget* parent)
    : QWidget(parent), session_(session) {
    auto* layout = new QVBoxLayout(this);
    slider_ = new QSlider(Qt::Horizontal);
    slider_->setObjectName("video_frame");
    time_code_ = new QLabel;
    time_code_->setObjectName("video_time_code");
    layout->addWidget(new QLabel(tr("Frame")));
    layout->addWidget(slider_);
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
    connect(cancel_button_, &QPushButton::clicked, this, &VideoPanel::cancel_export);
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
    slider_->setEnabled(clip != nullptr && !exporting());
    export_button_->setEnabled(clip != nullptr && !exporting());
    time_code_->setText(clip ? QString::fromStdString(clip->time_code(clip->current()))
                             : tr("No video open: File ▸ Open a video (MP4, AVI, MKV, MOV) or an "
                                  "image sequence."));
}

void VideoPanel::show_frame(const int index) {
    const session::VideoClip* clip = session_.video();
    if (clip != nullptr && index != clip->current() && may_leave_frame && !may_leave_frame(index)) {
        refresh();  // the slider goes back to the frame that stays
        return;
    }
    try {
        session_.show_video_frame(index);
    } catch (const Error& e) {
        status_->setText(tr("Cannot show frame %1: %2").arg(index + 1).arg(e.what()));
    }
    refresh();
    emit frame_shown();
}

bool VideoPanel::export_to(const QString& path) {
    if (exporting() || session_.video() == nullptr) return false;
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

}  // namespace lacuna::editor
