#include "retarget_session.hpp"

#include "canvas.hpp"
#include "retarget_panel.hpp"

#include <lacuna/core/error.hpp>

#include <QtConcurrent/QtConcurrentRun>

namespace lacuna::editor {

/// One background computation: its inputs (owned, so the GUI may change meanwhile), progress,
/// a cancel flag, and the result.
struct RetargetSession::Job {
    ImageRgba8 image;
    Mask protect;
    Mask remove;
    SeamEnergy energy = SeamEnergy::Forward;
    ops::SeamDirection direction = ops::SeamDirection::Vertical;
    int seams = 0;
    int width = 0;  ///< horizontal jobs: the narrowed width they belong to
    std::atomic<int> done{0};
    std::atomic<bool> cancelled{false};
    std::optional<ops::SeamOrder> result;
    QString error;

    void run() {
        try {
            const ops::CarveInput input{image.view(), &protect, &remove, energy};
            result = ops::seam_order_fast(input, direction, seams, [this](const int d, int) {
                done.store(d);
                return !cancelled.load();
            });
        } catch (const Error& e) {
            if (e.code() != ErrorCode::Cancelled) error = QString::fromStdString(e.what());
        }
    }
};

namespace {

/// Seams to compute in one direction: enough to reach 10 % of the extent.
int seams_for(const int extent) {
    return std::max(0, std::min(extent - 1, extent - std::max(1, extent / 10)));
}

}  // namespace

RetargetSession::RetargetSession(Canvas* canvas, RetargetPanel* panel, QObject* parent)
    : QObject(parent), canvas_(canvas), panel_(panel) {
    progress_timer_.setInterval(100);
    connect(&progress_timer_, &QTimer::timeout, this, &RetargetSession::report_progress);
    horizontal_debounce_.setSingleShot(true);
    horizontal_debounce_.setInterval(250);
    connect(&horizontal_debounce_, &QTimer::timeout, this, &RetargetSession::update_preview);
    connect(&vertical_watcher_, &QFutureWatcher<void>::finished, this, [this] {
        if (!vertical_job_ || vertical_job_->cancelled) return;
        if (!vertical_job_->error.isEmpty()) panel_->show_status(vertical_job_->error);
        vertical_ = std::move(vertical_job_->result);
        report_progress();
        update_preview();
    });
    connect(&horizontal_watcher_, &QFutureWatcher<void>::finished, this, [this] {
        if (!horizontal_job_ || horizontal_job_->cancelled) return;
        horizontal_ = std::move(horizontal_job_->result);
        horizontal_width_ = horizontal_job_->width;
        report_progress();
        update_preview();
    });
}

RetargetSession::~RetargetSession() {
    for (const auto& job : {vertical_job_, horizontal_job_})
        if (job) job->cancelled = true;
    vertical_watcher_.waitForFinished();
    horizontal_watcher_.waitForFinished();
}

bool RetargetSession::busy() const {
    return vertical_watcher_.isRunning() || horizontal_watcher_.isRunning();
}

bool RetargetSession::horizontal_ready_for(const int width) const {
    return horizontal_.has_value() && horizontal_width_ == width;
}

void RetargetSession::refresh() {
    if (canvas_->image_revision() == source_revision_ &&
        canvas_->mask_revision(MaskLayer::Protect) == protect_revision_ &&
        canvas_->mask_revision(MaskLayer::CarveRemove) == remove_revision_)
        return;
    restart();
}

void RetargetSession::restart() {
    source_revision_ = canvas_->image_revision();
    protect_revision_ = canvas_->mask_revision(MaskLayer::Protect);
    remove_revision_ = canvas_->mask_revision(MaskLayer::CarveRemove);
    canvas_->clear_preview();
    source_ = clone(canvas_->image().view());
    protect_ = clone(canvas_->mask(MaskLayer::Protect).view());
    remove_ = clone(canvas_->mask(MaskLayer::CarveRemove).view());
    vertical_.reset();
    horizontal_.reset();
    horizontal_width_ = -1;
    // Mask or energy edits keep the size and the chosen targets; a new size resets them.
    if (panel_source_w_ != source_.width() || panel_source_h_ != source_.height()) {
        panel_->set_source_size(source_.width(), source_.height());
        panel_source_w_ = source_.width();
        panel_source_h_ = source_.height();
    }
    if (!source_.empty()) start_vertical();
}

void RetargetSession::start_vertical() {
    if (vertical_job_) vertical_job_->cancelled = true;
    vertical_watcher_.waitForFinished();
    auto job = std::make_shared<Job>();
    job->image = clone(source_.view());
    job->protect = clone(protect_.view());
    job->remove = clone(remove_.view());
    job->energy = panel_->energy();
    job->direction = ops::SeamDirection::Vertical;
    job->seams = seams_for(source_.width());
    vertical_job_ = job;
    vertical_watcher_.setFuture(QtConcurrent::run([job] { job->run(); }));
    progress_timer_.start();
    report_progress();
}

void RetargetSession::start_horizontal(const ImageRgba8& narrowed_image, const int width) {
    if (horizontal_job_) {
        if (horizontal_job_->width == width && horizontal_watcher_.isRunning()) return;
        horizontal_job_->cancelled = true;
    }
    horizontal_watcher_.waitForFinished();
    auto job = std::make_shared<Job>();
    job->image = clone(narrowed_image.view());
    // The masks follow the pixels the vertical seams keep.
    const int removed = source_.width() - width;
    if (removed > 0) {
        job->protect = ops::remove_seams<std::uint8_t>(protect_.view(), *vertical_, removed);
        job->remove = ops::remove_seams<std::uint8_t>(remove_.view(), *vertical_, removed);
    } else {
        job->protect =
            ops::insert_seams_nearest<std::uint8_t>(protect_.view(), *vertical_, -removed);
        job->remove = ops::insert_seams_nearest<std::uint8_t>(remove_.view(), *vertical_, -removed);
    }
    job->energy = panel_->energy();
    job->direction = ops::SeamDirection::Horizontal;
    job->seams = seams_for(narrowed_image.height());
    job->width = width;
    horizontal_job_ = job;
    horizontal_watcher_.setFuture(QtConcurrent::run([job] { job->run(); }));
    progress_timer_.start();
    report_progress();
}

void RetargetSession::report_progress() {
    if (vertical_watcher_.isRunning() && vertical_job_) {
        panel_->show_progress(tr("Vertical seams"), vertical_job_->done, vertical_job_->seams);
    } else if (horizontal_watcher_.isRunning() && horizontal_job_) {
        panel_->show_progress(tr("Horizontal seams"), horizontal_job_->done,
                              horizontal_job_->seams);
    } else {
        progress_timer_.stop();
        panel_->show_progress(tr("Seams"), 1, 1);
    }
}

ImageRgba8 RetargetSession::narrowed(const int width) const {
    const int change = width - source_.width();
    if (change == 0) return clone(source_.view());
    if (change < 0) return ops::remove_seams<Rgba8>(source_.view(), *vertical_, -change);
    return ops::insert_seams(source_.view(), *vertical_, change);
}

ImageRgba8 RetargetSession::seams_overlay(const int width) const {
    ImageRgba8 overlay = clone(source_.view());
    const int removed = std::abs(source_.width() - width);
    for (int y = 0; y < overlay.height(); ++y)
        for (int x = 0; x < overlay.width(); ++x)
            if (vertical_->order.at(x, y) < removed)
                overlay.at(x, y) =
                    width < source_.width() ? Rgba8{255, 40, 40, 255} : Rgba8{40, 220, 60, 255};
    return overlay;
}

void RetargetSession::update_preview() {
    if (source_.empty()) return;
    const int width = panel_->target_width();
    const int height = panel_->target_height();
    if (width == source_.width() && height == source_.height()) {
        canvas_->clear_preview();
        panel_->show_status(QString());
        return;
    }
    if (!vertical_) {
        panel_->show_status(tr("Computing the seams… the preview follows when they are ready."));
        return;
    }
    if (panel_->seams_overlay()) {
        canvas_->set_preview(seams_overlay(width).view());
        panel_->show_status(tr("Red: seams removed; green: seams duplicated."));
        return;
    }
    ImageRgba8 frame = narrowed(width);
    if (height != source_.height()) {
        if (horizontal_ready_for(width)) {
            const int change = height - frame.height();
            frame = change < 0 ? ops::remove_seams<Rgba8>(frame.view(), *horizontal_, -change)
                               : ops::insert_seams(frame.view(), *horizontal_, change);
            panel_->show_status(QString());
        } else {
            // Horizontal seams belong to the narrowed image: compute them once the width
            // settles (debounced while the slider moves).
            if (!horizontal_debounce_.isActive() && !horizontal_watcher_.isRunning())
                start_horizontal(frame, width);
            else
                horizontal_debounce_.start();
            panel_->show_status(tr("Computing horizontal seams for this width…"));
        }
    } else {
        panel_->show_status(QString());
    }
    canvas_->set_preview(frame.view());
}

std::optional<ImageRgba8> RetargetSession::frame() const {
    if (!canvas_->previewing() || panel_->seams_overlay()) return std::nullopt;
    return clone(canvas_->preview().view());
}

}  // namespace lacuna::editor
