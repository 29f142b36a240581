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

/// A document's samples. The design admits 8-bit, 16-bit and float samples with 1, 3 or 4
/// channels (measurement images); this editor opens 8-bit RGBA, and the other formats are
/// converted on open by the I/O layer until the measurement-images work lands.
enum class SampleType { U8, U16, F32 };
struct PixelFormat {
    SampleType sample = SampleType::U8;
    int channels = 4;
    friend bool operator==(const PixelFormat&, const PixelFormat&) = default;
};

class Document {
  public:
    Document();
    ~Document();
    Document(const Document&) = delete;
    Document& operator=(const Document&) = delete;

    /// A new document: the pixels, all masks cleared. With `device` the pixels and masks are
    /// also put in device memory (the one upload of an open); throws what the device throws.
    void open(ImageRgba8 pixels, bool device);
    /// Leaves the device: from now on everything happens on the host mirror (after a device
    /// error, or in a CPU-only editor). The mirror is complete at rest, so nothing is lost.
    void leave_device();

    [[nodiscard]] bool empty() const { return pixels_.empty(); }
    [[nodiscard]] int width() const { return pixels_.width(); }
    [[nodiscard]] int height() const { return pixels_.height(); }
    [[nodiscard]] PixelFormat format() const { return {}; }
    [[nodiscard]] bool on_device() const { return device_ != nullptr; }

    /// The host mirror: current whenever no stroke or fill is under way.
    [[nodiscard]] const ImageRgba8& pixels() const { return pixels_; }
    [[nodiscard]] const Mask& mask(MaskLayer layer) const { return masks_[index(layer)]; }
    /// The device copy (on_device() only); kernels enqueue on stream().
    [[nodiscard]] DeviceImage<Rgba8>& device_pixels();
    [[nodiscard]] DeviceImage<std::uint8_t>& device_mask(MaskLayer layer);
    [[nodiscard]] DeviceStream stream() const;

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
    std::array<Mask, kMaskLayers> masks_;
    std::unique_ptr<Device> device_;
    std::uint64_t pixels_revision_ = 0;
    std::array<std::uint64_t, kMaskLayers> mask_revisions_{};
};

}  // namespace lacuna::session
