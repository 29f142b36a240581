// The retarget tool's engine side: seam-order maps of the document computed in the background
// (vertical on the document; horizontal on the image narrowed to the chosen width), so that the
// slider's preview is one compaction pass per frame; rebuilt after mask or energy edits.
#pragma once

#include <lacuna/ops/seam_carve.hpp>

#include <QFutureWatcher>
#include <QObject>
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
    [[nodiscard]] bool vertical_ready() const { return vertical_.has_value(); }
    [[nodiscard]] bool horizontal_ready_for(int width) const;
    [[nodiscard]] bool busy() const;

  private:
    struct Job;
    void start_vertical();
    void start_horizontal(const ImageRgba8& narrowed, int width);
    void report_progress();
    [[nodiscard]] ImageRgba8 narrowed(int width) const;
    [[nodiscard]] ImageRgba8 seams_overlay(int width) const;

    Canvas* canvas_;
    RetargetPanel* panel_;
    ImageRgba8 source_;
    Mask protect_;
    Mask remove_;
    std::optional<ops::SeamOrder> vertical_;
    std::optional<ops::SeamOrder> horizontal_;
    int horizontal_width_ = -1;
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
