// The document being edited: its pixels and its three masks, kept in two places that agree at
// rest. The host mirror is what open, save and the CPU path read; with a usable CUDA device the
// device copy is where interactions happen (brush kernels, slider frames, fill steps), and the
// host mirror is brought up to date only by the rectangles an edit changed — exactly the data the
// undo snapshot needs anyway. So no interaction copies the image or a mask between host and
// device; only open, undo snapshots and their restores do.
#pragma once

#include <lacuna/core/device_image.hpp>
#include <lacuna/core/image.hpp>
#include <lacuna/core/mask.hpp>
#include <lacuna/core/native_image.hpp>

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace lacuna::session {

/// The masks a document has: what object removal fills and where it must not copy from, and what
/// seam carving must keep or take first.
enum class MaskLayer { Fill = 0, Protect = 1, CarveRemove = 2, NeverSample = 3 };
inline constexpr int kMaskLayers = 4;

class Document {
  public:
    Document();
    ~Document();
    Document(const Document&) = delete;
    Document& operator=(const Document&) = delete;

    /// A new document: the pixels, all masks cleared. With `device` the pixels and masks are
    /// also put in device memory (the one upload of an open); throws what the device throws.
    void open(ImageRgba8 pixels, bool device);
    /// A measurement document: 16-bit or float samples (or 8-bit with a calibration), kept as
    /// stored with their calibration, plus the masks. pixels() then holds the carving proxy
    /// (ops::carving_proxy: the samples normalised over their own range to 8 bits), which the
    /// retarget tool finds its seams on; the display maps the samples themselves. With `device`
    /// samples, proxy and masks go to device memory too.
    void open_measurement(NativeImage samples, Calibration calibration, bool device);
    /// Leaves the device: from now on everything happens on the host mirror (after a device
    /// error, or in a CPU-only editor). The mirror is complete at rest, so nothing is lost.
    void leave_device();

    [[nodiscard]] bool empty() const { return pixels_.empty() && samples_.empty(); }
    [[nodiscard]] int width() const { return measurement() ? samples_.width() : pixels_.width(); }
    [[nodiscard]] int height() const {
        return measurement() ? samples_.height() : pixels_.height();
    }
    [[nodiscard]] PixelFormat format() const {
        return measurement() ? samples_.format() : PixelFormat{};
    }
    /// True for a document opened by open_measurement: the stored samples are samples().
    [[nodiscard]] bool measurement() const { return !samples_.empty(); }
    [[nodiscard]] const NativeImage& samples() const { return samples_; }
    /// The samples on the device (measurement() and on_device() only): the image's rows as
    /// stored, `samples().row_bytes()` bytes each.
    [[nodiscard]] const DeviceImage<std::uint8_t>& device_samples() const;
    /// The calibration (file's or typed); identity for photos.
    [[nodiscard]] const Calibration& calibration() const { return calibration_; }
    void set_calibration(Calibration calibration) {
        calibration_ = std::move(calibration);
        ++calibration_revision_;
    }
    [[nodiscard]] std::uint64_t calibration_revision() const { return calibration_revision_; }
    /// How large a pixel is (the file's, or set by the user); unknown for photos and files that
    /// state none. Distances along the line are given in its unit where known.
    [[nodiscard]] const PixelSpacing& spacing() const { return spacing_; }
    void set_spacing(PixelSpacing spacing) { spacing_ = std::move(spacing); }
    /// A measurement document's current page changes (a TIFF stack's page slider): same size and
    /// type; masks kept.
    void replace_samples(NativeImage samples);
    /// Writes a rectangle of a measurement document's samples on both sides (a fill, its undo).
    void write_samples(const PixelRect& rect, const NativeImage& region);
    /// A retarget of a measurement document (or its undo): new samples of any size, masks
    /// replaced, the proxy rebuilt, on both sides.
    void replace_measurement(const NativeImage& samples,
                             const std::array<Mask, kMaskLayers>& masks);
    /// The stored samples the proxy's 0 and 255 stand for (measurement documents).
    [[nodiscard]] std::pair<double, double> proxy_range() const { return proxy_range_; }
    /// The calibration that turns the proxy's 8-bit levels into calibrated values: what the
    /// display uses while a retarget preview (made of proxy pixels) is shown.
    [[nodiscard]] Calibration proxy_calibration() const;
    [[nodiscard]] bool on_device() const { return device_ != nullptr; }

    /// The host mirror: current whenever no stroke or fill is under way.
    [[nodiscard]] const ImageRgba8& pixels() const { return pixels_; }
    [[nodiscard]] const Mask& mask(MaskLayer layer) const { return masks_[index(layer)]; }
    /// The device copy (on_device() only); kernels enqueue on stream().
    [[nodiscard]] DeviceImage<Rgba8>& device_pixels();
    [[nodiscard]] DeviceImage<std::uint8_t>& device_mask(MaskLayer layer);
    [[nodiscard]] DeviceStream stream() const;
    /// Device memory the document holds (pixels or samples, and masks), in bytes.
    [[nodiscard]] std::size_t device_bytes() const;
    /// Host memory of the same.
    [[nodiscard]] std::size_t host_bytes() const;

    /// Change counters: listeners (seam maps, histogram planes) rebuild only what changed.
    [[nodiscard]] std::uint64_t pixels_revision() const { return pixels_revision_; }
    [[nodiscard]] std::uint64_t mask_revision(MaskLayer layer) const {
        return mask_revisions_[index(layer)];
    }
    [[nodiscard]] bool mask_painted(MaskLayer layer) const;

    // ---- edits; each keeps the two copies consistent as its comment says ----

    /// Pixels inside `rect` changed on the device (a fill step): the mirror follows later, when
    /// the edit ends, through pull_pixels.
    void device_pixels_changed() { ++pixels_revision_; }
    void device_mask_changed(MaskLayer layer) { ++mask_revisions_[index(layer)]; }
    /// Brings the host mirror's rectangle up to date from the device (the undo snapshot "after"
    /// of a stroke or a fill). No-op on the host path.
    void pull_pixels(const PixelRect& rect);
    void pull_mask(MaskLayer layer, const PixelRect& rect);
    /// Host mask edits (the CPU path's brush) and their revision.
    [[nodiscard]] Mask& host_mask(MaskLayer layer) { return masks_[index(layer)]; }
    void host_mask_changed(MaskLayer layer) { ++mask_revisions_[index(layer)]; }
    [[nodiscard]] ImageRgba8& host_pixels() { return pixels_; }
    void host_pixels_changed() { ++pixels_revision_; }

    /// Writes a rectangle on both sides (undo, redo, a cancelled fill put back).
    void write_pixels(const PixelRect& rect, const ImageRgba8& region);
    void write_mask(MaskLayer layer, const PixelRect& rect, const Mask& region);
    /// Clears a mask rectangle on both sides without a transfer.
    void clear_mask(MaskLayer layer, const PixelRect& rect);
    /// A whole new image (a retarget, its undo): pixels and masks replaced on both sides.
    void replace(const ImageRgba8& pixels, const std::array<Mask, kMaskLayers>& masks);
    /// A retarget applied on the device: `pixels` (device) become the document; the mirror gets
    /// them by one download (the snapshot the undo step keeps); masks cleared at the new size.
    void replace_from_device(const DeviceImage<Rgba8>& pixels);

  private:
    static std::size_t index(MaskLayer layer) { return static_cast<std::size_t>(layer); }
    void clear_masks_to_size();
    struct Device;
    ImageRgba8 pixels_;
    NativeImage samples_;
    Calibration calibration_;
    PixelSpacing spacing_;
    std::uint64_t calibration_revision_ = 0;
    std::pair<double, double> proxy_range_{0, 0};
    void rebuild_proxy();
    /// After samples changed in `rect`: the proxy as carving_proxy(samples) would make it; only
    /// the rectangle is converted when `range_kept` (the finite range is known unchanged).
    void sync_proxy(const PixelRect& rect, bool range_kept);
    /// Makes the device side and mirrors the host side into it (open); on failure the document
    /// stays on the host, complete.
    void put_on_device();
    /// Sizes every device image like the host side and copies pixels, samples and masks.
    void mirror_on_device(bool masks_clear);
    /// A whole new image's common part (after pixels, or samples and proxy, are set): masks,
    /// revisions and the device mirror.
    void replace_rest(const std::array<Mask, kMaskLayers>& masks);
    std::array<Mask, kMaskLayers> masks_;
    std::unique_ptr<Device> device_;
    std::uint64_t pixels_revision_ = 0;
    std::array<std::uint64_t, kMaskLayers> mask_revisions_{};
};

/// Why remove object refuses a measurement document with the Criminisi method: only PatchMatch's
/// fill decides on every bit and names a source for every pixel, which the stored samples follow
/// (then blended in their own values).
std::string measurement_refusal(const Document& document);

}  // namespace lacuna::session
