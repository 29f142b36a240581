// Retarget: drag the width and height and see the picture shrink or grow with its content
// intact. Seam-order maps of the document are computed in the background (vertical on the
// document; horizontal on the image narrowed to the chosen width), approximate first for large
// images, then exact; each slider position is then one compaction pass.
//
// Device path: the maps are carved by the CUDA carver from device snapshots of the document and
// its carving masks and stay on the device; a slider frame is a device compaction straight into
// the frame that is presented — no host image. Host path: the same with the fast CPU carver and
// host compaction. A carve the GPU cannot do is done by the CPU (the notice says why).
//
// Importance: the terms of RetargetMix (faces, saliency, lines, skin) make one map of
// levels per document revision, computed on the first carve's background thread and snapshotted
// with the masks; every carve then takes it as its importance field. The Amount mixes seams with
// uniform scaling per side (the CLI's --amount: round(amount × change) seams, then area
// resampling to the target); Automatic picks each side's amount among 0, 25 … 100 % by the
// CLI's bidirectional dissimilarity (cropping, which the CLI's --auto also weighs, is not offered
// here: each crop would need its own seam map).
//
// A video frame with the Video dock's temporal weight above 0: Export Video carves frame t with
// a term from frame t − 1's seams, chained over the shot, so its seams can differ from those of
// the frame alone. Once the exact preview of the frame is shown, a background job runs the
// export's carver over the shot up to the frame (ExportChain) and the preview settles on the
// exported frame; the live slider frame before it stays the single-frame preview.
#pragma once

#include "clip_importance.hpp"
#include "export_chain.hpp"
#include "mask_stroke.hpp"
#include "tool.hpp"

#include <lacuna/core/backend.hpp>
#include <lacuna/ops/importance.hpp>
#include <lacuna/ops/seam_carve.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace lacuna::session {

class Session;

class RetargetTool final : public Tool {
  public:
    explicit RetargetTool(Session& session);
    ~RetargetTool() override;

    [[nodiscard]] ToolKind kind() const override { return ToolKind::Retarget; }
    [[nodiscard]] std::span<const ops::ParamSpec> params() const override;
    bool press(const Pointer& p) override;
    void move(const Pointer& p) override;
    void release(const Pointer& p) override;
    void hover(const Pointer& p) override;
    void deactivate() override;
    [[nodiscard]] Overlay overlay() const override;
    /// A new document: the carver follows where it lives, and the maps start over.
    void document_opened() override;
    /// After an edit: the maps start over when the pixels or the carving masks changed — at
    /// once while retargeting (or its preview) is in use, else when retargeting is next asked for.
    void document_changed(DocumentChange change) override;
    /// Brings the maps up to date with the document.
    void activate() override;
    void device_lost(bool gpu_still_usable) override;
    /// Joins the seam carves: they enqueue on the document's stream, which goes next.
    void device_copy_ending() override;
    /// The same before another document (or frame) replaces this one's device copy.
    void document_closing() override;
    /// The preview while retargeting or panning (painting or drawing shows the document).
    [[nodiscard]] std::optional<PreviewFrame> preview(ToolKind active) const override;
    [[nodiscard]] bool wants_map_ahead(ToolKind active) const override {
        return active == ToolKind::Retarget;
    }

    /// Which carving mask the brush paints (nullopt: no brush, the canvas pans).
    void set_mask_brush(std::optional<MaskLayer> layer, bool erase = false);
    void set_brush(const ops::BrushSettings& brush) { brush_.set_settings(brush); }
    void set_energy(SeamEnergy energy);
    [[nodiscard]] SeamEnergy energy() const { return energy_; }
    /// The target size; the preview follows (or waits for its maps).
    void set_target(int width, int height);
    [[nodiscard]] int target_width() const { return target_w_; }
    [[nodiscard]] int target_height() const { return target_h_; }
    /// Amount, automatic and the importance terms (their table: retarget_mix_param_fields). New
    /// terms recompute the importance map and the seams; amount and automatic only recompose.
    void set_mix(const ops::RetargetMix& mix);
    [[nodiscard]] const ops::RetargetMix& mix() const { return mix_; }
    /// The current importance map (levels, faces, lines) once computed; null before, or when no
    /// term is on.
    [[nodiscard]] const ops::ImportanceMap* importance() const;
    /// Draw the detected faces and lines over the original (not over a preview).
    void set_show_detections(bool on);
    [[nodiscard]] bool show_detections() const { return show_detections_; }
    /// Adds what the map rates at ops::kCropKeepLevel or more (faces, lines at their weights) to
    /// the protect mask as one undoable edit, to be edited with the protect brush; false (with
    /// status()) when no map is ready or it rates nothing that high.
    bool protect_detections();
    /// The share of seams the preview uses per side: the amount, or automatic's choice.
    [[nodiscard]] double width_amount() const { return amount_w_; }
    [[nodiscard]] double height_amount() const { return amount_h_; }
    /// Show the seams that the target removes (red) or duplicates (green) on the original.
    void set_show_seams(bool on);
    /// Which carver computes the maps when the document is on the host: CUDA when the machine
    /// has it (interop unavailable does not make the GPU slow at carving), else the CPU.
    void set_carve_backend(Backend backend) { carve_on_gpu_ = backend == Backend::Cuda; }
    [[nodiscard]] bool show_seams() const { return show_seams_; }
    /// A carving-mask stroke is under way.
    [[nodiscard]] bool stroking() const { return brush_.stroking(); }

    /// Starts over from the document's pixels and carving masks.
    void restart();
    /// What a video frame's importance is made from changed (the Video dock's face switch):
    /// the map is computed again — at once while retargeting, else when next asked for.
    void importance_inputs_changed();
    /// The Video dock's other export settings changed (temporal weight, term, seams): the
    /// preview's match to the exported frame starts over.
    void export_settings_changed();
    /// A video frame's preview is being matched to the exported frame (the export's carver over
    /// the shot up to it: its temporal term follows the earlier frames' seams).
    [[nodiscard]] bool matching_export() const;
    /// The preview shows the exported frame (or the frame starts its shot with exact seams, so
    /// the single-frame preview is the exported frame).
    [[nodiscard]] bool matches_export() const;
    /// The chain that matches the export (for tests: its counters); null before the first match.
    [[nodiscard]] const ExportChain* export_chain() const { return chain_.get(); }
    /// Restarts only when the pixels or the carving masks changed since the maps were started.
    void refresh();
    /// Publishes finished maps and updates the preview; true while work is running.
    bool poll() override;
    /// Blocks until no map is being computed (tests, the benchmark, closing).
    void wait();

    /// A frame other than the document is shown (the target differs from the source).
    [[nodiscard]] bool previewing() const { return previewing_; }
    /// What is shown is the previous video frame's preview, kept while this frame's maps are
    /// computed (a frame step); apply() refuses it.
    [[nodiscard]] bool preview_held() const { return preview_held_; }
    /// The preview frame: device path (on the document's stream) / host path.
    [[nodiscard]] const DeviceImage<Rgba8>* device_frame() const;
    [[nodiscard]] const ImageRgba8* host_frame() const;
    [[nodiscard]] int frame_width() const { return frame_w_; }
    [[nodiscard]] int frame_height() const { return frame_h_; }
    /// Commits the preview as an undoable edit; false (with status()) when none is ready.
    bool apply();

    [[nodiscard]] bool vertical_ready() const { return vertical_.has_value(); }
    [[nodiscard]] bool vertical_exact() const { return vertical_ && vertical_exact_; }
    [[nodiscard]] bool horizontal_ready_for(int width) const;
    [[nodiscard]] bool horizontal_exact() const { return horizontal_ && horizontal_exact_; }
    [[nodiscard]] bool busy() const;
    /// While held, finished exact maps wait instead of replacing the approximate ones.
    void hold_exact_maps(bool held);

    /// For the panel: the notice, what the preview shows, and progress of the running map.
    [[nodiscard]] std::string status() const;
    struct Progress {
        std::string what;
        int done = 1;
        int total = 1;
        std::string unit;  ///< what done and total count: empty for seams, or "frames"
    };
    [[nodiscard]] Progress progress() const;
    /// Changes whenever the preview frame changes (the presenter re-uploads only then).
    [[nodiscard]] std::uint64_t preview_serial() const { return preview_serial_; }
    /// Called after the preview or its status changed (a panel shows status() and progress()).
    std::function<void()> on_preview_changed;
    /// Called when a map is published (vertical or horizontal, approximate or exact).
    std::function<void(bool vertical, bool exact)> on_map_published;
    /// Counts published maps (approximate and exact), for listeners.
    [[nodiscard]] std::uint64_t maps_published() const { return maps_published_; }

    void device_lost();

  private:
    struct Job;
    struct Map;
    struct Importance;
    struct ChainJob;
    /// The exported frame of the shown video frame at a target (image: nullopt when the frame
    /// alone is the export's: a shot's first frame with exact seams).
    struct Exported {
        int frame = -1, width = 0, height = 0;
        std::optional<ImageRgba8> image;
        bool failed = false;  ///< the match failed (the notice says why): not tried again
    };
    /// The exported frame for what is shown now, when it is known.
    [[nodiscard]] const Exported* exported() const;
    /// Starts matching the shown frame to the export when the exact single-frame preview is
    /// up and the export's frame may differ from it.
    void match_export();
    void cancel_match();
    void collect_match();
    /// Shows `frame` (host) as the preview, uploaded on the device path; false when the device
    /// failed (device_lost() restarted on the host).
    bool show_host_frame(ImageRgba8 frame);
    void start_vertical(bool exact);
    void start_horizontal(int width, bool exact);
    void launch(std::shared_ptr<Job> job, bool vertical);
    void collect(std::shared_ptr<Job>& job, bool vertical);
    void publish(Job& job, bool vertical);
    void plan_approximate(Job& job) const;
    /// Cancels the running maps and drops both maps and the preview.
    void drop_maps();
    void drop_horizontal();
    void add_notice(const std::string& text);
    void update_preview();
    void clear_preview();
    /// Retargeting (or its preview on the pan tool) is what the user works with now.
    [[nodiscard]] bool in_use() const;
    /// The document changed since the maps were started.
    [[nodiscard]] bool stale() const;
    /// Drops out-of-date maps and preview without starting new ones.
    void set_aside();
    [[nodiscard]] int vertical_change(int width) const;
    /// Amount < 100 or automatic: seams and scaling together, every frame reaching the target.
    [[nodiscard]] bool mixing() const;
    /// Signed vertical seams the preview takes for `width` at `amount` (all of the change at 100,
    /// as far as the map reaches).
    [[nodiscard]] int vertical_seams(int width, double amount) const;
    [[nodiscard]] int horizontal_seams(int height, double amount) const;
    /// The image the horizontal map of `width` is carved on: the vertical seams, then (mixing)
    /// scaled to `width`; with the masks and importance levels that follow its pixels (host).
    struct Narrowed {
        ImageRgba8 image;
        Mask protect, remove, levels;
    };
    [[nodiscard]] Narrowed narrowed_host(int width, bool protect, bool remove,
                                         bool image = true) const;
    [[nodiscard]] const ops::SeamOrder& host_order(const Map& map) const;
    /// Automatic: the amount among 0, 25 … 100 % whose preview is most like the original.
    [[nodiscard]] double choose_amount(const ImageRgba8& image, const ops::SeamOrder& order,
                                       int available, int target, const Mask* levels) const;
    [[nodiscard]] double choose_width_amount(int width) const;
    [[nodiscard]] int importance_unit() const { return ops::importance_unit(energy_); }
    /// A measurement document's samples carved as the current preview shows its proxy.
    [[nodiscard]] NativeImage carve_samples(const NativeImage& samples) const;
    [[nodiscard]] bool use_device() const;

    Session& session_;
    MaskBrush brush_;
    std::optional<MaskLayer> brush_layer_;
    SeamEnergy energy_ = SeamEnergy::Forward;
    int target_w_ = 0, target_h_ = 0;
    bool show_seams_ = false;
    int source_w_ = 0, source_h_ = 0;
    std::uint64_t source_revision_ = ~0ull, protect_revision_ = ~0ull, remove_revision_ = ~0ull;

    std::unique_ptr<Map> vertical_holder_;
    std::unique_ptr<Map> horizontal_holder_;
    std::optional<int> vertical_;    ///< set when a vertical map is published (its seams)
    std::optional<int> horizontal_;  ///< the same for the horizontal map
    bool vertical_exact_ = false, horizontal_exact_ = false;
    int vertical_factor_ = 1, horizontal_factor_ = 1, preview_factor_ = 1;
    int horizontal_width_ = -1;
    std::uint64_t generation_ = 0;
    std::uint64_t maps_published_ = 0;
    bool hold_exact_ = false;
    bool cpu_only_ = false;
    bool carve_on_gpu_ = false;  ///< after a GPU carve failed: the CPU carves the rest
    std::shared_ptr<Job> vertical_job_, horizontal_job_;
    int pending_horizontal_width_ = -1;

    ops::RetargetMix mix_;
    std::shared_ptr<Importance> importance_;  ///< the map of source_revision_ (null: no term on)
    bool show_detections_ = false;
    double amount_w_ = 100, amount_h_ = 100;
    int horizontal_vseams_ = 0;  ///< the vertical seams the horizontal map's image had

    bool previewing_ = false;
    /// The preview is the previous video frame's, shown until this frame's maps are up (not
    /// applied, no overlay on it).
    bool preview_held_ = false;
    std::uint64_t preview_serial_ = 0;
    bool preview_approximate_ = false;
    std::string notice_, status_;
    int frame_w_ = 0, frame_h_ = 0;
    std::unique_ptr<DeviceImage<Rgba8>> device_narrowed_, device_frame_;
    ImageRgba8 host_frame_;

    std::shared_ptr<ExportChain> chain_;  ///< the open clip's (its state outlives jobs)
    std::unique_ptr<ChainJob> chain_job_;
    /// Cancelled matches still finishing their frame (the carver is not interruptible within
    /// a frame): dropped once finished, so the GUI thread never waits for them.
    std::vector<std::unique_ptr<ChainJob>> retired_;
    std::optional<Exported> exported_;
};

}  // namespace lacuna::session
