// Remove Object: paint the fill mask (brush or eraser), then fill it in steps that the canvas
// shows growing. On the device path the CUDA filler works from the device document and each step
// copies the filled box into it device to device; the host mirror gets the box once, at the end
// (the undo snapshot).
#pragma once

#include "mask_stroke.hpp"
#include "tool.hpp"

#include <lacuna/ops/inpaint.hpp>
#include <lacuna/ops/inpaint_choice.hpp>
#include <lacuna/ops/patchmatch.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace lacuna::session {

class Session;

class RemoveObjectTool final : public Tool {
  public:
    explicit RemoveObjectTool(Session& session) : session_(session) {}
    ~RemoveObjectTool() override;

    [[nodiscard]] ToolKind kind() const override { return ToolKind::RemoveObject; }
    [[nodiscard]] std::span<const ops::ParamSpec> params() const override;
    bool press(const Pointer& p) override;
    void move(const Pointer& p) override;
    void release(const Pointer& p) override;
    void hover(const Pointer& p) override;
    void deactivate() override;
    [[nodiscard]] Overlay overlay() const override;
    /// A new document or a closing one cancels a running fill (the picture is put back).
    void document_closing() override { cancel_fill(); }
    void device_lost(bool) override { device_lost(); }
    /// Advances a running fill by one step of about 30 ms; true while it runs.
    bool poll() override;
    [[nodiscard]] bool holds_document() const override { return fill_running(); }
    /// The picture before the last fill, while comparing().
    [[nodiscard]] std::optional<PreviewFrame> preview(ToolKind active) const override;
    [[nodiscard]] bool shows_proxy() const override { return fill_running(); }
    /// Brush stamps while active, fill steps while a fill runs.
    [[nodiscard]] bool wants_map_ahead(ToolKind active) const override {
        return active == ToolKind::RemoveObject || fill_running();
    }

    void set_brush(const ops::BrushSettings& brush) { brush_.set_settings(brush); }
    /// Which mask the brush paints: what to remove (Fill), or where the fill must never copy
    /// from (NeverSample, the sampling-area brush).
    void set_layer(MaskLayer layer) { layer_ = layer; }
    [[nodiscard]] MaskLayer layer() const { return layer_; }
    [[nodiscard]] const ops::BrushSettings& brush() const { return brush_.settings(); }
    /// A brush stroke is under way (its mask is complete on the host only when it ends).
    [[nodiscard]] bool stroking() const { return brush_.stroking(); }
    /// Brush or eraser.
    void set_erase(bool erase) { brush_.set_erase(erase); }
    void set_fill_params(const ops::InpaintParams& params) { fill_params_ = params; }
    /// Clears the whole fill mask as one undoable edit (nothing when it is empty).
    void clear_mask();
    /// Grows (pixels > 0) or shrinks (< 0) the painted mask by that many pixels as one undoable
    /// edit ("Grow Mask by 4 px"): the pixels the fill would take (coverage of at least one half)
    /// through grow_mask. False with message() when there is no mask or `pixels` is 0 or beyond
    /// the declared "grow" range.
    bool grow_mask(int pixels);
    /// Box mode: a drag draws a rectangle; its release adds GrabCut's proposal for the object
    /// inside (grabcut_mask) to the painted mask as one undoable edit. Off: the brush paints.
    void set_box_mode(bool on) { box_mode_ = on; }
    [[nodiscard]] bool box_mode() const { return box_mode_; }
    /// Scribble mode: a drag scribbles strokes (the brush's radius) over an object; its release
    /// adds GrabCut's proposal for the object under them (select_scribble). Off: the brush
    /// paints. Box mode, when on as well, wins.
    void set_scribble_mode(bool on) { scribble_mode_ = on; }
    [[nodiscard]] bool scribble_mode() const { return scribble_mode_; }
    /// Adds GrabCut's object under the strokes through `points` (a polyline, image
    /// coordinates, discs of `radius` pixels along it), grown by kBoxMargin, to the painted mask
    /// ("Scribble Select", one undoable edit). False with message() when no stroke pixel lies in
    /// the picture or the strokes cover all of it.
    bool select_scribble(std::span<const ScribblePoint> points, double radius);
    /// Pixels the box selection grows GrabCut's object by: its mask hugs the object and leaves
    /// the anti-aliased rim outside, which a fill would then copy back in as a ghost outline.
    static constexpr int kBoxMargin = 3;
    /// Adds GrabCut's object inside `rect`, grown by kBoxMargin, to the painted mask ("Box
    /// Select"). Where GrabCut finds less than min_box_object_pixels, the box itself is added
    /// and message() says so. False with message() when the box is too small or covers the
    /// whole image.
    bool select_box(const PixelRect& rect);
    /// Fewer object pixels than this (1 % of the box, at least 1) count as no object found.
    static std::int64_t min_box_object_pixels(const PixelRect& box) {
        return std::max<std::int64_t>(1,
                                      static_cast<std::int64_t>(box.width()) * box.height() / 100);
    }
    /// Replaces the painted mask by the one in `path` (white = fill: any non-zero grey or alpha,
    /// as mask_from_image reads it) as one undoable edit. False with a one-line message() when
    /// the file cannot be read or its size differs from the picture's.
    bool load_mask(const std::filesystem::path& path);
    /// Writes the painted mask to `path` (PNG or another 8-bit format: white = fill, black =
    /// keep), atomically. False with message() when it cannot be written.
    bool save_mask(const std::filesystem::path& path);
    /// Replaces the painted mask (layer()) by `mask`, of the document's size, as one undoable
    /// edit labelled `label` over the rectangle where they differ (nothing when equal).
    void replace_mask(const Mask& mask, const std::string& label);

    /// Undoes the last fill and fills the same mask again with the next seed (PatchMatch: another
    /// result to choose from). False with message() when the last edit is not a fill.
    bool fill_again();
    [[nodiscard]] bool can_fill_again() const;
    [[nodiscard]] const ops::InpaintParams& fill_params() const { return fill_params_; }
    /// Starts filling the pixels whose coverage is at least one half. False with message()
    /// when there is nothing to fill or the fill cannot start.
    bool start_fill();
    /// Advances for about `budget_ms` (batches adapt to the device), shows the step, and
    /// finishes when done. Called by Session::poll.
    void step(double budget_ms);
    /// Exactly `iterations` more iterations (tests and the latency benchmark).
    void advance(int iterations);
    /// Stops and puts the picture back as it was.
    void cancel_fill();
    [[nodiscard]] bool fill_running() const { return filler_ != nullptr; }
    [[nodiscard]] ops::InpaintProgress fill_progress() const { return progress_; }
    /// Where the running fill runs ("GPU", "CPU", or the CPU with the GPU's failure).
    [[nodiscard]] const std::string& fill_device() const { return device_; }
    /// The last outcome for the panel ("Filled … in … ms", "Nothing to fill …", an error).
    [[nodiscard]] const std::string& message() const { return message_; }
    [[nodiscard]] PixelRect fill_rect() const { return fill_rect_; }
    /// Before/after: while on, the canvas shows the picture as it was before the last fill
    /// (the fill's rectangle put back), without touching the document or the history. Only
    /// right after a fill of a photo (the last edit is that fill, none running); false
    /// otherwise, with message(). Off shows the result again.
    bool set_comparing(bool on);
    /// Showing the picture before the last fill now (set_comparing, and still right after it).
    [[nodiscard]] bool comparing() const;
    /// What comparing shows: the whole picture with the fill's rectangle as it was before.
    [[nodiscard]] const ImageRgba8& compare_image() const { return compare_image_; }
    /// Changes whenever compare_image() does.
    [[nodiscard]] std::uint64_t compare_serial() const { return compare_serial_; }

    /// The PatchMatch pyramid level the canvas shows while a fill runs (0 = full size; -1 when
    /// none is shown yet, or for Criminisi, or with no fill running).
    [[nodiscard]] int shown_level() const;

    /// The session left the device: a stroke continues on the host; a running fill starts
    /// over on the CPU (the document was not touched on the host yet).
    void device_lost();

  private:
    /// A measurement's fill on its 16-bit decision image, on the device or the CPU. False when
    /// the device failed (the session is on the host now: start over).
    bool start_deep_fill(ops::InpaintProblem problem);
    void show_step();
    void finish();
    /// One write of the fill's result to the document at the end of finish(), landed on the host
    /// should the device fail during it.
    void write_at_end(const std::function<void()>& write);
    void restore_before();

    Session& session_;
    MaskBrush brush_;
    MaskLayer layer_ = MaskLayer::Fill;
    ops::InpaintParams fill_params_;
    std::size_t last_fill_index_ = 0;  ///< history index just after the last fill (0: none)
    // Before/after: the last fill's rectangle before it, the picture shown while comparing.
    ImageRgba8 last_before_;
    PixelRect last_rect_;
    bool comparing_ = false;
    ImageRgba8 compare_image_;
    std::uint64_t compare_serial_ = 0;
    bool box_mode_ = false;
    std::optional<PixelRect> box_;  ///< the rectangle being dragged in box mode
    double box_x_ = 0, box_y_ = 0;  ///< where the drag started
    bool scribble_mode_ = false;
    std::vector<ScribblePoint> scribble_;  ///< the strokes being scribbled (scribble mode)
    /// Adds a GrabCut proposal to the painted mask as one edit labelled `label`.
    void add_proposal(Mask proposal, const std::string& label);
    /// finish()'s last step for a small 8-bit PatchMatch fill (ops::choose_fill).
    void choose_between_fills();
    /// finish()'s step after the choice when the refill-foreign parameter is on
    /// (ops::refill_foreign).
    void refill_foreign_blobs();
    /// The same for a measurement, before its samples are written: the choice made on the
    /// proxy (ops::choose_sources) from the fill's `sources`, applied to `filled` (the fill's
    /// rectangle of samples, moved and blended) as ops::inpaint of samples applies it.
    /// Returns the choice (empty when it did not run), which the refill looks at after it.
    ops::FillChoice choose_between_sources(const ops::FillSources& sources, NativeImage& filled);
    /// The refill for a measurement, after its choice: decided on the proxy from the fill's
    /// `sources` and `choice` (ops::refill_sources), the kept blobs' samples moved from the
    /// refill's sources into `filled` as ops::inpaint of samples moves them.
    void refill_between_sources(const ops::FillSources& sources, const ops::FillChoice& choice,
                                NativeImage& filled);
    /// The picture before the fill (the proxy, for a measurement): the document with the
    /// fill's rectangle put back as it was.
    ImageRgba8 picture_before() const;
    /// The fill's parameters with the document's never-sample area.
    ops::InpaintParams params_with_never_sample() const;
    /// What the choice compares with: the picture (the proxy, for a measurement) before the
    /// fill, the fill's parameters with the document's never-sample area, and the whole hole.
    struct ChoiceInput {
        ImageRgba8 before;
        ops::InpaintParams params;
        Mask hole;
    };
    ChoiceInput take_choice_input();

    std::unique_ptr<ops::Inpainter> filler_;
    ops::DeviceInpainter* device_filler_ = nullptr;  ///< filler_ when it works on the device
    ops::InpaintProgress progress_;
    PixelRect fill_rect_;
    ImageRgba8 before_pixels_;
    Mask before_mask_;
    // Measurement documents: the hole and patch radius the fill ran with (its final vote's
    // sources are recomputed from them), and the stored samples of the box before.
    Mask hole_;
    // Measurement documents with lines: the line stage's bands (ops::continue_lines of the
    // problem, decided on the proxy), whose copies move the samples before the fill decides and
    // at its end; an empty box when no line was continued.
    ops::FillSources bands_;
    [[nodiscard]] bool banded() const { return !bands_.empty(); }
    // A PatchMatch fill of a hole small enough for the per-region choice (ops::choose_fill;
    // ops::choose_sources for a measurement): the whole hole, so finish() compares with
    // Criminisi as ops::inpaint does; empty otherwise.
    std::optional<Mask> choice_hole_;
    // What the last choice did, for the fill's message: regions that took Criminisi's fill, of all.
    int criminisi_regions_ = 0;
    int choice_regions_ = 0;
    // Set by fill_again for its fill: the user asks for another PatchMatch result, which the
    // choice (Criminisi's fill does not depend on the seed) could otherwise hide.
    bool skip_choice_ = false;
    // A PatchMatch fill with the foreign-blob refill on: the whole hole, for
    // ops::refill_foreign after the choice (ops::refill_sources for a measurement); empty
    // otherwise. And how many blobs it refilled.
    std::optional<Mask> refill_hole_;
    int refilled_blobs_ = 0;
    // A PatchMatch fill with keep-colours on: the whole hole, for ops::keep_ring_colours at the
    // end of finish() (after the refill, as ops::inpaint; a measurement's on its samples, decided
    // on the proxy); empty otherwise.
    std::optional<Mask> keep_hole_;
    int radius_ = 4;
    std::optional<NativeImage> before_samples_;
    int iterations_per_batch_ = 8;
    std::chrono::steady_clock::time_point started_;
    std::string device_;
    // Hole pixels the line stage filled before the fill started: the fill's progress counts only
    // the rest, so the end message adds them (a hole the bands took whole is not "0 pixels").
    std::int64_t band_pixels_ = 0;
    // The fill problem's notes (lines continued, …), shown one a line in the end message.
    std::vector<std::string> fill_notes_;
    std::string message_;
};

}  // namespace lacuna::session
