#include "retarget_session.hpp"

#include "canvas.hpp"
#include "retarget_panel.hpp"

#include <lacuna/core/error.hpp>
#include <lacuna/core/mask.hpp>

#include <QStringList>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <cstdlib>

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
    int width = 0;   ///< horizontal jobs: the target width they belong to
    int factor = 1;  ///< > 1: the approximate order of the image downscaled by this factor
    bool cuda = false;
    std::uint64_t generation = 0;  ///< horizontal jobs: the vertical map they started from
    std::atomic<int> done{0};
    std::atomic<int> total{0};  ///< from the carver; coarse seams for an approximate job
    std::atomic<bool> cancelled{false};
    bool handled = false;  ///< its result was taken (a finished signal is acted on once)
    std::optional<ops::SeamOrder> result;
    QString error;
    QString fallback;  ///< why CUDA failed (the CPU carved instead)

    [[nodiscard]] bool approximate() const { return factor > 1; }
    [[nodiscard]] double fraction() const {
        const int t = total.load();
        const int expected = t > 0 ? t : seams / factor;
        return expected > 0 ? std::min(1.0, double(done.load()) / expected) : 0.0;
    }

    ops::SeamOrder carve(const ops::CarveImplementation implementation) {
        // Unpainted layers are left out: without masks the carvers use 32-bit costs (faster, and
        // on CUDA half the staged bytes per column).
        const ops::CarveInput input{image.view(),
                                    count_selected(protect.view()) > 0 ? &protect : nullptr,
                                    count_selected(remove.view()) > 0 ? &remove : nullptr, energy};
        const ops::CarveProgress progress = [this](const int d, const int t) {
            done.store(d);
            total.store(t);
            return !cancelled.load();
        };
        if (approximate())
            return ops::seam_order_approximate(input, direction, seams, factor, implementation,
                                               progress);
        return ops::seam_order(input, direction, seams, implementation, progress);
    }

    void run() {
        try {
            if (cuda) {
                try {
                    result = carve(ops::CarveImplementation::Cuda);
                    return;
                } catch (const Error& e) {
                    if (e.code() == ErrorCode::Cancelled) return;
                    fallback = QString::fromStdString(e.what());
                } catch (const std::exception& e) {
                    fallback = QString::fromStdString(e.what());
                }
                done.store(0);
                total.store(0);
            }
            result = carve(ops::CarveImplementation::Fast);
        } catch (const Error& e) {
            if (e.code() != ErrorCode::Cancelled) error = QString::fromStdString(e.what());
        } catch (const std::exception& e) {
            error = QString::fromStdString(e.what());
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
    connect(&vertical_watcher_, &QFutureWatcher<void>::finished, this,
            &RetargetSession::vertical_finished);
    connect(&horizontal_watcher_, &QFutureWatcher<void>::finished, this,
            &RetargetSession::horizontal_finished);
}

RetargetSession::~RetargetSession() {
    for (const auto& job : {vertical_job_, horizontal_job_})
        if (job) job->cancelled = true;
    vertical_watcher_.waitForFinished();
    horizontal_watcher_.waitForFinished();
}

void RetargetSession::set_backend(const Backend backend) {
    backend_ = backend;
    cuda_failed_ = false;
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
    vertical_exact_ = false;
    ++vertical_generation_;
    drop_horizontal();
    notice_.clear();
    status_.clear();
    preview_approximate_ = false;
    // Mask or energy edits keep the size and the chosen targets; a new size resets them.
    if (panel_source_w_ != source_.width() || panel_source_h_ != source_.height()) {
        panel_->set_source_size(source_.width(), source_.height());
        panel_source_w_ = source_.width();
        panel_source_h_ = source_.height();
    }
    show_status();
    if (!source_.empty()) start_vertical(false);
}

void RetargetSession::drop_horizontal() {
    if (horizontal_job_) horizontal_job_->cancelled = true;
    horizontal_watcher_.waitForFinished();
    horizontal_job_.reset();
    horizontal_.reset();
    horizontal_exact_ = false;
    horizontal_width_ = -1;
}

void RetargetSession::plan_approximate(Job& job) const {
    const int w = job.image.width(), h = job.image.height();
    const int factor = ops::approximate_factor(w, h);
    if (factor < 2) return;
    // The downscaled image allows fewer seams: (its extent − 1) × factor at most.
    const int extent = job.direction == ops::SeamDirection::Vertical ? w : h;
    const int seams = std::min(job.seams, (extent / factor - 1) * factor) / factor * factor;
    if (seams < factor) return;
    job.factor = factor;
    job.seams = seams;
}

void RetargetSession::start_vertical(const bool exact) {
    if (vertical_job_) vertical_job_->cancelled = true;
    vertical_watcher_.waitForFinished();
    auto job = std::make_shared<Job>();
    job->image = clone(source_.view());
    job->protect = clone(protect_.view());
    job->remove = clone(remove_.view());
    job->energy = panel_->energy();
    job->direction = ops::SeamDirection::Vertical;
    job->seams = seams_for(source_.width());
    job->cuda = use_cuda();
    if (!exact) plan_approximate(*job);
    vertical_job_ = job;
    vertical_watcher_.setFuture(QtConcurrent::run([job] { job->run(); }));
    progress_timer_.start();
    report_progress();
}

void RetargetSession::note_fallback(const Job& job) {
    if (job.fallback.isEmpty() || cuda_failed_) return;
    cuda_failed_ = true;
    add_notice(tr("The GPU could not carve (%1); the CPU carves instead.").arg(job.fallback));
}

void RetargetSession::add_notice(const QString& text) {
    if (text.isEmpty() || notice_.contains(text)) return;
    notice_ += (notice_.isEmpty() ? QString() : QString('\n')) + text;
}

void RetargetSession::hold_exact_maps(const bool held) {
    hold_exact_ = held;
    if (held) return;
    // Whatever finished while held is published now (each at most once: `handled`).
    vertical_finished();
    horizontal_finished();
}

void RetargetSession::vertical_finished() {
    const std::shared_ptr<Job> job = vertical_job_;
    if (!job || job->cancelled || job->handled || !vertical_watcher_.isFinished()) return;
    if (hold_exact_ && !job->approximate()) return;
    job->handled = true;
    note_fallback(*job);
    add_notice(job->error);
    if (job->result) {
        vertical_ = std::move(job->result);
        vertical_exact_ = !job->approximate();
        vertical_factor_ = job->factor;
        ++vertical_generation_;
        // Horizontal maps belong to the image the previous vertical map narrowed.
        drop_horizontal();
        emit map_published(true, vertical_exact_);
    }
    // The approximate map is up: now the exact one.
    if (job->approximate()) start_vertical(true);
    report_progress();
    update_preview();
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
    const int change = vertical_change(width);
    if (change < 0) {
        job->protect = ops::remove_seams<std::uint8_t>(protect_.view(), *vertical_, -change);
        job->remove = ops::remove_seams<std::uint8_t>(remove_.view(), *vertical_, -change);
    } else {
        job->protect = ops::insert_seams_nearest<std::uint8_t>(protect_.view(), *vertical_, change);
        job->remove = ops::insert_seams_nearest<std::uint8_t>(remove_.view(), *vertical_, change);
    }
    job->energy = panel_->energy();
    job->direction = ops::SeamDirection::Horizontal;
    job->seams = seams_for(narrowed_image.height());
    job->width = width;
    plan_approximate(*job);
    launch_horizontal(std::move(job));
}

void RetargetSession::launch_horizontal(std::shared_ptr<Job> job) {
    job->generation = vertical_generation_;
    job->cuda = use_cuda();
    horizontal_job_ = job;
    horizontal_watcher_.setFuture(QtConcurrent::run([job] { job->run(); }));
    progress_timer_.start();
    report_progress();
}

void RetargetSession::horizontal_finished() {
    const std::shared_ptr<Job> job = horizontal_job_;
    if (!job || job->cancelled || job->handled || !horizontal_watcher_.isFinished() ||
        job->generation != vertical_generation_ || (hold_exact_ && !job->approximate()))
        return;
    job->handled = true;
    note_fallback(*job);
    add_notice(job->error);
    if (job->result) {
        horizontal_ = std::move(job->result);
        horizontal_exact_ = !job->approximate();
        horizontal_factor_ = job->factor;
        horizontal_width_ = job->width;
        emit map_published(false, horizontal_exact_);
    }
    // The exact map for the same narrowed image, unless the width has moved on meanwhile (the
    // preview then starts over for the new width).
    if (job->approximate() && job->width == panel_->target_width()) {
        auto exact = std::make_shared<Job>();
        exact->image = std::move(job->image);
        exact->protect = std::move(job->protect);
        exact->remove = std::move(job->remove);
        exact->energy = job->energy;
        exact->direction = job->direction;
        exact->seams = seams_for(exact->image.height());
        exact->width = job->width;
        launch_horizontal(std::move(exact));
    }
    report_progress();
    update_preview();
}

void RetargetSession::report_progress() {
    const auto phase = [this](const Job& job, const QString& exact, const QString& quick) {
        panel_->show_progress(job.approximate() ? quick : exact, job.done,
                              job.total > 0 ? job.total.load() : job.seams / job.factor);
    };
    if (vertical_watcher_.isRunning() && vertical_job_) {
        phase(*vertical_job_, tr("Vertical seams"), tr("Vertical seams (quick preview)"));
    } else if (horizontal_watcher_.isRunning() && horizontal_job_) {
        phase(*horizontal_job_, tr("Horizontal seams"), tr("Horizontal seams (quick preview)"));
    } else {
        progress_timer_.stop();
        panel_->show_progress(tr("Seams"), 1, 1);
    }
    show_status();
}

void RetargetSession::show_status() {
    QStringList parts;
    if (!notice_.isEmpty()) parts << notice_;
    if (!status_.isEmpty()) parts << status_;
    if (preview_approximate_) {
        // The exact map being computed for what is shown: vertical first, then horizontal.
        const Job* exact = nullptr;
        if (!vertical_exact_) {
            if (vertical_job_ && !vertical_job_->approximate() && vertical_watcher_.isRunning())
                exact = vertical_job_.get();
        } else if (horizontal_job_ && !horizontal_job_->approximate() &&
                   horizontal_watcher_.isRunning()) {
            exact = horizontal_job_.get();
        }
        const QString quick = tr("Approximate preview (1/%1 size)").arg(preview_factor_);
        parts << (exact ? tr("%1 — exact map %2 %")
                              .arg(quick)
                              .arg(static_cast<int>(100 * exact->fraction()))
                        : quick);
    }
    panel_->show_status(parts.join('\n'));
}

int RetargetSession::vertical_change(const int width) const {
    const int change = width - source_.width();
    // An approximate map holds fewer seams than the target may need: it serves what it can.
    return change < 0 ? -std::min(-change, vertical_->seams) : std::min(change, vertical_->seams);
}

ImageRgba8 RetargetSession::narrowed(const int width) const {
    const int change = vertical_change(width);
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
    preview_approximate_ = false;
    status_.clear();
    if (width == source_.width() && height == source_.height()) {
        canvas_->clear_preview();
        show_status();
        return;
    }
    if (!vertical_) {
        status_ = tr("Computing the seams… the preview follows when they are ready.");
        show_status();
        return;
    }
    if (panel_->seams_overlay()) {
        canvas_->set_preview(seams_overlay(width).view());
        status_ = tr("Red: seams removed; green: seams duplicated.");
        preview_approximate_ = !vertical_exact_;
        preview_factor_ = vertical_factor_;
        show_status();
        return;
    }
    ImageRgba8 frame = narrowed(width);
    preview_approximate_ = !vertical_exact_;
    preview_factor_ = vertical_exact_ ? 1 : vertical_factor_;
    if (height != source_.height()) {
        if (horizontal_ready_for(width)) {
            const int change = height - frame.height();
            const int count = std::min(std::abs(change), horizontal_->seams);
            frame = change < 0 ? ops::remove_seams<Rgba8>(frame.view(), *horizontal_, count)
                               : ops::insert_seams(frame.view(), *horizontal_, count);
            preview_approximate_ = preview_approximate_ || !horizontal_exact_;
            if (!horizontal_exact_) preview_factor_ = std::max(preview_factor_, horizontal_factor_);
        } else {
            // Horizontal seams belong to the narrowed image: compute them once the width
            // settles (debounced while the slider moves).
            if (!horizontal_debounce_.isActive() && !horizontal_watcher_.isRunning())
                start_horizontal(frame, width);
            else
                horizontal_debounce_.start();
            status_ = tr("Computing horizontal seams for this width…");
        }
    }
    if (status_.isEmpty() && (frame.width() != width || frame.height() != height))
        status_ = (preview_approximate_
                       ? tr("The quick preview reaches only %1 × %2 px; the exact map will reach "
                            "the target.")
                       : tr("The seams reach only %1 × %2 px."))
                      .arg(frame.width())
                      .arg(frame.height());
    canvas_->set_preview(frame.view());
    show_status();
}

std::optional<ImageRgba8> RetargetSession::frame() const {
    if (!canvas_->previewing() || panel_->seams_overlay()) return std::nullopt;
    return clone(canvas_->preview().view());
}

}  // namespace lacuna::editor
