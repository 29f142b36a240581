// Filters ▸ Bilateral and Filters ▸ Scale: a live preview of the whole picture while the
// parameters change, then Apply as one undoable edit (or Cancel). On the device path the filter
// runs on the document's device pixels into a device frame that present() shows through
// interop, so no pixel crosses the bus until Apply; on the host path the fast CPU filters run.
// Logic only; the Filters panel binds to it.
#pragma once

#include "tool.hpp"

#include <lacuna/core/device_image.hpp>
#include <lacuna/core/image.hpp>
#include <lacuna/ops/bilateral.hpp>
#include <lacuna/ops/scale.hpp>
#include <lacuna/video/smooth_video.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace lacuna::session {

class Session;

/// Temporal: smoothing over (x, y, t) of a video document, previewed on the frame shown and
/// written with export_temporal() (the whole clip; there is nothing to apply to one frame).
enum class FilterKind { Bilateral, Scale, Temporal };

/// A tool without pointer input: never the active tool, its preview shows while previewing()
/// whatever tool is active (the Filters panel is open).
class FilterTool final : public Tool {
  public:
    explicit FilterTool(Session& session);
    ~FilterTool() override;
    FilterTool(const FilterTool&) = delete;
    FilterTool& operator=(const FilterTool&) = delete;

    [[nodiscard]] ToolKind kind() const override { return ToolKind::Filter; }
    /// The preview while previewing(), with any tool active.
    [[nodiscard]] std::optional<PreviewFrame> preview(ToolKind active) const override;
    /// An edit, an undo or another video frame ends the preview (document_changed()).
    void document_changed(DocumentChange change) override;
    void device_lost(bool gpu_still_usable) override;

    /// Starts previewing `kind` with its current parameters. False (and a status) while a fill
    /// runs, and for Scale or Temporal on a measurement document. Bilateral on a measurement
    /// filters its stored samples (ops::bilateral_native, on the CPU): the page shown of a
    /// stack, σr in the data's calibrated unit; the preview is those samples through the
    /// document's proxy (its window and LUT).
    bool begin(FilterKind kind);
    /// Ends the preview; the document is unchanged.
    void cancel();
    /// Replaces the document with the preview as one undoable edit ("Bilateral Filter",
    /// "Scale to W × H"). A bilateral filter keeps the masks; a scale clears them (as a
    /// retarget does). False with a status when there is nothing to apply.
    bool apply();

    /// σs and the radius as the photo table declares; σr as bilateral_param_specs for photos,
    /// any value above 0 in the data's unit for measurement documents (refused with Error).
    void set_bilateral(const ops::BilateralParams& params);
    /// True when the document is a measurement: the bilateral filter works on its samples.
    [[nodiscard]] bool on_samples() const;
    /// The unit σr is in for this document: its calibration's unit, "stored samples" when it has
    /// none, "levels" for a photo.
    [[nodiscard]] std::string range_unit() const;
    /// A σr to start from on a measurement document: 5% of its finite calibrated range, to two
    /// significant digits (1 when the document is constant).
    [[nodiscard]] double suggested_sigma_range() const;
    /// A guide image (the joint bilateral filter): it must have the document's size; false and
    /// a status otherwise. clear_guide() goes back to the image guiding itself.
    bool set_guide(ImageRgba8 guide);
    void clear_guide();
    [[nodiscard]] bool has_guide() const { return guide_.has_value(); }
    void set_scale(int width, int height, ops::ScaleMethod method);
    /// The 3-D Gaussian of Temporal (k odd, sigmas > 0; refused with Error otherwise).
    void set_temporal(int size, double sigma_space, double sigma_time);
    [[nodiscard]] const video::SmoothVideoOptions& temporal() const { return temporal_; }
    /// The whole open clip smoothed into `output` (call it on a worker thread: it only reads the
    /// clip's file); `progress` may cancel. Throws as video::smooth_video does.
    [[nodiscard]] video::SmoothVideoOptions prepare_temporal_export(
        const std::filesystem::path& output) const;

    [[nodiscard]] bool previewing() const { return kind_.has_value(); }
    [[nodiscard]] std::optional<FilterKind> filter_kind() const { return kind_; }
    [[nodiscard]] const ops::BilateralParams& bilateral() const { return bilateral_; }
    [[nodiscard]] int scale_width() const { return scale_w_; }
    [[nodiscard]] int scale_height() const { return scale_h_; }
    [[nodiscard]] ops::ScaleMethod scale_method() const { return method_; }

    /// The preview: on the device path a device frame (host_frame() is null), else the host one.
    [[nodiscard]] const DeviceImage<Rgba8>* device_frame() const;
    [[nodiscard]] const ImageRgba8* host_frame() const;
    [[nodiscard]] int frame_width() const;
    [[nodiscard]] int frame_height() const;
    /// Changes whenever the preview's pixels do.
    [[nodiscard]] std::uint64_t preview_serial() const { return serial_; }
    /// Milliseconds the last preview took (the device's work included: it is waited for) and
    /// where it ran ("GPU" or "CPU, N threads").
    [[nodiscard]] double last_ms() const { return last_ms_; }
    [[nodiscard]] const std::string& ran_on() const { return ran_on_; }
    [[nodiscard]] const std::string& status() const { return status_; }

    /// The session left the device: drop device state; the preview is made again on the host.
    void device_lost();
    /// The document changed under the preview (undo, a new file): the preview ends.
    void document_changed();

  private:
    void update();
    void run_device();
    void run_host();
    void run_samples();

    Session& session_;
    std::optional<FilterKind> kind_;
    ops::BilateralParams bilateral_;
    std::optional<ImageRgba8> guide_;
    std::optional<NativeImage> guide_samples_;  ///< guide_ as the measurement filter reads it
    NativeImage filtered_samples_;              ///< the measurement preview's stored samples
    int scale_w_ = 0, scale_h_ = 0;
    ops::ScaleMethod method_ = ops::ScaleMethod::BSpline;
    video::SmoothVideoOptions temporal_;
    std::uint64_t serial_ = 0;
    double last_ms_ = 0;
    std::string ran_on_;
    std::string status_;
    ImageRgba8 host_frame_;
    struct Device;
    std::unique_ptr<Device> device_;
};

}  // namespace lacuna::session
