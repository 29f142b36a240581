// The retarget tool's engine side: seam-order maps of the document computed in the background
// (vertical on the document; horizontal on the image narrowed to the chosen width), so that the
// slider's preview is one compaction pass per frame; rebuilt after mask or energy edits.
//
// Maps are carved on the GPU when the editor runs on CUDA (the fast CPU carver otherwise, and
// for the rest of the session after a GPU failure, whose reason the panel shows). Approximate
// first: for an image larger than ops::approximate_factor allows, each map is first carved on a
// box-downscaled copy and upsampled (ops::seam_order_approximate), so the slider works within a
// fraction of the time; the exact map replaces it when ready. The panel says which one is shown.
#pragma once

#include <lacuna/core/backend.hpp>
#include <lacuna/ops/seam_carve.hpp>

#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <QTimer>

#include <atomic>
#include <memory>
#include <optional>

namespace lacuna::editor {

class Canvas;
class RetargetPanel;

class RetargetSession : public QObject {
    Q_OBJECT
  public:
    RetargetSession(Canvas* canvas, RetargetPanel* panel, QObject* parent = nullptr);
    ~RetargetSession() override;

    /// Starts over from the document's pixels and carving masks (a new energy, a new document).
    void restart();
    /// Restarts only if the pixels or the carving masks changed since the maps were started:
    /// called after every edit, most of which (fill-mask strokes) leave them alone.
    void refresh();
    /// Shows the frame for the panel's target (or the document when it equals the source size).
    void update_preview();
    /// The frame Apply commits: exactly what the preview shows. Empty when no preview is up.
    [[nodiscard]] std::optional<ImageRgba8> frame() const;
    /// A vertical map (approximate or exact) is there: the width slider previews.
    [[nodiscard]] bool vertical_ready() const { return vertical_.has_value(); }
    /// The vertical map shown is the exact one (not the approximate first one).
    [[nodiscard]] bool vertical_exact() const { return vertical_.has_value() && vertical_exact_; }
    [[nodiscard]] bool horizontal_ready_for(int width) const;
    [[nodiscard]] bool horizontal_exact() const {
        return horizontal_.has_value() && horizontal_exact_;
    }
    [[nodiscard]] bool busy() const;
    /// Which device carves: CUDA when the editor runs on it (the CPU after a GPU failure).
    void set_backend(Backend backend);
    /// While held, finished exact maps wait instead of replacing the approximate ones; releasing
    /// publishes them. How long an approximate map stays up then depends on the caller, not on
    /// how fast the machine carves (the GUI tests look at the approximate state this way).
    void hold_exact_maps(bool held);

  signals:
    /// A new map is in use for the preview: approximate first (exact == false), then exact.
    void map_published(bool vertical, bool exact);

  private:
    struct Job;
    void start_vertical(bool exact);
    void start_horizontal(const ImageRgba8& narrowed, int width);
    void launch_horizontal(std::shared_ptr<Job> job);
    void vertical_finished();
    void horizontal_finished();
    void drop_horizontal();
    /// Chooses the approximate factor (and the seams it can reach) for a job, or keeps it exact.
    void plan_approximate(Job& job) const;
    void note_fallback(const Job& job);
    /// Adds a line to the notice (errors, the GPU fallback) unless it is there already.
    void add_notice(const QString& text);
    void report_progress();
    /// Shows the notice, the preview's sentence and, for an approximate preview, the exact map's
    /// progress.
    void show_status();
    /// Width change (negative: seams removed) the vertical map can serve towards `width`.
    [[nodiscard]] int vertical_change(int width) const;
    [[nodiscard]] ImageRgba8 narrowed(int width) const;
    [[nodiscard]] ImageRgba8 seams_overlay(int width) const;
    [[nodiscard]] bool use_cuda() const { return backend_ == Backend::Cuda && !cuda_failed_; }

    Canvas* canvas_;
    RetargetPanel* panel_;
    ImageRgba8 source_;
    Mask protect_;
    Mask remove_;
    std::optional<ops::SeamOrder> vertical_;
    std::optional<ops::SeamOrder> horizontal_;
    bool vertical_exact_ = false;
    bool horizontal_exact_ = false;
    bool hold_exact_ = false;
    int horizontal_width_ = -1;
    /// Counts vertical maps published: a horizontal job belongs to the one it started from.
    std::uint64_t vertical_generation_ = 0;
    Backend backend_ = Backend::Cpu;
    bool cuda_failed_ = false;
    QString notice_;  ///< errors and why the GPU is not carving; shown until the next restart
    QString status_;  ///< what the preview shows, from update_preview
    bool preview_approximate_ = false;
    int vertical_factor_ = 1;  ///< the downscale factor of the map in use (1: exact)
    int horizontal_factor_ = 1;
    int preview_factor_ = 1;  ///< the largest factor behind the preview shown
    std::uint64_t source_revision_ = ~0ull;
    std::uint64_t protect_revision_ = ~0ull;
    std::uint64_t remove_revision_ = ~0ull;
    int panel_source_w_ = -1;
    int panel_source_h_ = -1;
    std::shared_ptr<Job> vertical_job_;
    std::shared_ptr<Job> horizontal_job_;
    QFutureWatcher<void> vertical_watcher_;
    QFutureWatcher<void> horizontal_watcher_;
    QTimer progress_timer_;
    QTimer horizontal_debounce_;
};

}  // namespace lacuna::editor
