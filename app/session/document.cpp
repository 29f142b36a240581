#include "document.hpp"

#include <lacuna/core/error.hpp>
#include <lacuna/ops/seam_carve.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <utility>

namespace lacuna::session {

/// The device side: one stream for everything the editor presents, so a frame's kernels run in
/// the order they were enqueued without host waits.
struct Document::Device {
    OwnedStream stream;
    DeviceImage<Rgba8> pixels;
    // A measurement document's samples as raw rows (row_bytes wide), whatever their type.
    DeviceImage<std::uint8_t> samples;
    std::array<DeviceImage<std::uint8_t>, kMaskLayers> masks;

    Device() {
        pixels.set_stream(stream.get());
        samples.set_stream(stream.get());
        for (auto& m : masks) m.set_stream(stream.get());
    }
};

Document::Document() = default;
Document::~Document() = default;

void Document::clear_masks_to_size() {
    for (int layer = 0; layer < kMaskLayers; ++layer) {
        masks_[static_cast<std::size_t>(layer)] = Mask(width(), height(), 0);
        ++mask_revisions_[static_cast<std::size_t>(layer)];
    }
}

namespace {

// Raw rows as a byte image: a NativeImage row is row_bytes() bytes whatever its type.
ImageView<const std::uint8_t> raw_rows(const NativeImage& samples) {
    return {reinterpret_cast<const std::uint8_t*>(samples.row(0)),
            static_cast<int>(samples.row_bytes()), samples.height(), samples.pitch()};
}

/// The finite extent of the colour channels (the first three, as carving_proxy ranges them) of
/// `rect` of `samples`; `any` is false where the rectangle holds no finite colour sample.
struct FiniteExtent {
    bool any = false;
    double lo = 0, hi = 0;
};

FiniteExtent finite_extent(const NativeImage& samples, const PixelRect& rect) {
    return visit_sample_type(samples.sample_type(), [&](auto s) {
        using S = decltype(s);
        const int channels = samples.channels();
        const int colours = std::min(channels, 3);
        double lo = INFINITY, hi = -INFINITY;
        for (int y = rect.y0; y <= rect.y1; ++y) {
            const S* row = samples.samples<S>(y);
            for (int x = rect.x0; x <= rect.x1; ++x)
                for (int c = 0; c < colours; ++c) {
                    const auto v = static_cast<double>(row[x * channels + c]);
                    if (!std::isfinite(v)) continue;
                    lo = std::min(lo, v);
                    hi = std::max(hi, v);
                }
        }
        return lo <= hi ? FiniteExtent{true, lo, hi} : FiniteExtent{};
    });
}

}  // namespace

void Document::open(ImageRgba8 pixels, const bool device) {
    samples_ = NativeImage();
    calibration_ = {};
    spacing_ = {};
    ++calibration_revision_;
    pixels_ = std::move(pixels);
    ++pixels_revision_;
    clear_masks_to_size();
    device_.reset();
    if (device && !empty()) put_on_device();
}

void Document::put_on_device() {
    device_ = std::make_unique<Device>();
    try {
        mirror_on_device(/*masks_clear=*/true);
        device_->stream.synchronize();
    } catch (...) {
        device_.reset();  // the host side is complete: nothing is lost
        throw;
    }
}

void Document::mirror_on_device(const bool masks_clear) {
    Device& d = *device_;
    d.pixels.resize(pixels_.width(), pixels_.height());
    d.pixels.upload(pixels_.view());
    if (measurement()) {
        d.samples.resize(static_cast<int>(samples_.row_bytes()), samples_.height());
        d.samples.upload(raw_rows(samples_));
    }
    for (int layer = 0; layer < kMaskLayers; ++layer) {
        auto& m = d.masks[static_cast<std::size_t>(layer)];
        m.resize(width(), height());
        // Masks known to be clear (a new document) are cleared there, with no transfer.
        if (masks_clear)
            m.fill_bytes(0);
        else
            m.upload(masks_[static_cast<std::size_t>(layer)].view());
    }
}

void Document::rebuild_proxy() {
    ops::CarvingProxy proxy = ops::carving_proxy(samples_);
    pixels_ = std::move(proxy.image);
    proxy_range_ = {proxy.raw_lo, proxy.raw_hi};
}

void Document::sync_proxy(const PixelRect& rect, const bool range_kept) {
    // The proxy must stay what a rebuild from the samples gives (retarget, and undo or redo of a
    // whole-image edit, rebuild it), or later carves and fills decide on other pixels: a fill
    // left its 8-bit vote here, and a fill that removed the extreme sample changed the range
    // (found by the monkey test). Over an unchanged range only the rectangle is redone.
    if (range_kept) {
        const auto [lo, hi] = proxy_range_;
        const NativeImage region = copy_region(samples_, rect);
        write_pixels(rect, ops::carving_proxy(region, lo, hi).image);
        return;
    }
    rebuild_proxy();
    ++pixels_revision_;
    if (device_) device_->pixels.upload(pixels_.view());
}

Calibration Document::proxy_calibration() const {
    // level → raw = lo + level · (hi − lo) / 255 → value = slope · raw + intercept.
    const auto [lo, hi] = proxy_range_;
    return {calibration_.slope * (hi - lo) / 255.0,
            calibration_.slope * lo + calibration_.intercept, calibration_.unit};
}

void Document::open_measurement(NativeImage samples, Calibration calibration, const bool device) {
    samples_ = std::move(samples);
    calibration_ = std::move(calibration);
    spacing_ = {};  // the opener sets the file's (set_spacing)
    ++calibration_revision_;
    ++pixels_revision_;
    rebuild_proxy();
    clear_masks_to_size();
    device_.reset();
    if (device && !empty()) put_on_device();
}

void Document::replace_samples(NativeImage samples) {
    if (!measurement() || samples.width() != samples_.width() ||
        samples.height() != samples_.height() || !(samples.format() == samples_.format()))
        throw Error(ErrorCode::InvalidArgument, "a page must have the document's size and type");
    samples_ = std::move(samples);
    rebuild_proxy();
    ++pixels_revision_;
    if (!device_) return;
    device_->samples.upload(raw_rows(samples_));
    device_->pixels.upload(pixels_.view());
}

void Document::write_samples(const PixelRect& rect, const NativeImage& region) {
    // Whether the finite range stays [lo, hi] follows from the rectangle alone: it does when the
    // new samples lie inside it and the replaced ones held neither end (both ends are then
    // attained outside the rectangle). Only otherwise are all samples ranged again: before,
    // every write (a fill's end, its undo) ranged and converted the whole image, 0.5 to 1 s of
    // host time for a 4096² float document whatever the hole's size.
    const auto [lo, hi] = proxy_range_;
    const FiniteExtent replaced = finite_extent(samples_, rect);
    const FiniteExtent written =
        finite_extent(region, {0, 0, region.width() - 1, region.height() - 1});
    const bool range_kept = (!written.any || (written.lo >= lo && written.hi <= hi)) &&
                            (!replaced.any || (replaced.lo > lo && replaced.hi < hi));
    paste_region(samples_, rect, region);
    ++pixels_revision_;
    sync_proxy(rect, range_kept);
    if (!device_) return;
    // The device rows are raw bytes: the rectangle in bytes.
    const std::size_t bpp = samples_.format().bytes_per_pixel();
    const PixelRect bytes{rect.x0 * static_cast<int>(bpp), rect.y0,
                          (rect.x1 + 1) * static_cast<int>(bpp) - 1, rect.y1};
    device_->samples.upload_region(bytes, raw_rows(region));
}

void Document::replace_measurement(const NativeImage& samples,
                                   const std::array<Mask, kMaskLayers>& masks) {
    samples_ = samples;
    rebuild_proxy();
    replace_rest(masks);
}

const DeviceImage<std::uint8_t>& Document::device_samples() const {
    if (!device_ || !measurement())
        throw Error(ErrorCode::CudaUnavailable, "the document's samples are not on the device");
    return device_->samples;
}

void Document::leave_device() {
    device_.reset();
}

DeviceImage<Rgba8>& Document::device_pixels() {
    if (!device_) throw Error(ErrorCode::CudaUnavailable, "the document is not on the device");
    return device_->pixels;
}

DeviceImage<std::uint8_t>& Document::device_mask(const MaskLayer layer) {
    if (!device_) throw Error(ErrorCode::CudaUnavailable, "the document is not on the device");
    return device_->masks[index(layer)];
}

std::size_t Document::device_bytes() const {
    if (!device_) return 0;
    const auto bytes = [](const auto& image) {
        return image.pitch() * std::size_t(image.height());
    };
    std::size_t total = bytes(device_->pixels) + bytes(device_->samples);
    for (const auto& m : device_->masks) total += bytes(m);
    return total;
}

std::size_t Document::host_bytes() const {
    std::size_t total = pixels_.pitch() * std::size_t(pixels_.height()) +
                        samples_.pitch() * std::size_t(samples_.height());
    for (const Mask& m : masks_) total += m.pitch() * std::size_t(m.height());
    return total;
}

DeviceStream Document::stream() const {
    return device_ ? device_->stream.get() : nullptr;
}

bool Document::mask_painted(const MaskLayer layer) const {
    const Mask& m = masks_[index(layer)];
    if (m.empty()) return false;
    // Any non-zero byte, stopping at the first: a fill asks this of the never-sample mask each
    // time, and counting a 4096² mask's bytes would cost more than a small hole's fill start.
    const auto width = static_cast<std::size_t>(m.width());
    for (int y = 0; y < m.height(); ++y) {
        const std::uint8_t* row = m.row(y);
        std::size_t x = 0;
        for (; x + 8 <= width; x += 8) {
            std::uint64_t word = 0;
            std::memcpy(&word, row + x, sizeof word);
            if (word != 0) return true;
        }
        for (; x < width; ++x)
            if (row[x] != 0) return true;
    }
    return false;
}

void Document::pull_pixels(const PixelRect& rect) {
    if (!device_ || rect.empty()) return;
    paste_region(pixels_, rect, device_->pixels.download_region(rect));
}

void Document::pull_mask(const MaskLayer layer, const PixelRect& rect) {
    if (!device_ || rect.empty()) return;
    paste_region(masks_[index(layer)], rect, device_->masks[index(layer)].download_region(rect));
}

void Document::write_pixels(const PixelRect& rect, const ImageRgba8& region) {
    paste_region(pixels_, rect, region);
    ++pixels_revision_;
    if (device_) device_->pixels.upload_region(rect, region.view());
}

void Document::write_mask(const MaskLayer layer, const PixelRect& rect, const Mask& region) {
    paste_region(masks_[index(layer)], rect, region);
    ++mask_revisions_[index(layer)];
    if (device_) device_->masks[index(layer)].upload_region(rect, region.view());
}

void Document::clear_mask(const MaskLayer layer, const PixelRect& rect) {
    if (rect.empty()) return;
    Mask& m = masks_[index(layer)];
    for (int y = rect.y0; y <= rect.y1; ++y)
        for (int x = rect.x0; x <= rect.x1; ++x) m.at(x, y) = 0;
    ++mask_revisions_[index(layer)];
    if (device_) device_->masks[index(layer)].fill_bytes(0, rect);
}

void Document::replace(const ImageRgba8& pixels, const std::array<Mask, kMaskLayers>& masks) {
    pixels_ = clone(pixels.view());
    replace_rest(masks);
}

void Document::replace_rest(const std::array<Mask, kMaskLayers>& masks) {
    ++pixels_revision_;
    for (int layer = 0; layer < kMaskLayers; ++layer) {
        masks_[static_cast<std::size_t>(layer)] =
            clone(masks[static_cast<std::size_t>(layer)].view());
        ++mask_revisions_[static_cast<std::size_t>(layer)];
    }
    if (device_) mirror_on_device(/*masks_clear=*/false);
}

void Document::replace_from_device(const DeviceImage<Rgba8>& pixels) {
    if (!device_) throw Error(ErrorCode::CudaUnavailable, "the document is not on the device");
    device_->pixels.copy_from(pixels);
    pixels_ = ImageRgba8(pixels.width(), pixels.height());
    device_->pixels.download(pixels_.view());
    ++pixels_revision_;
    clear_masks_to_size();
    for (auto& m : device_->masks) {
        m.resize(pixels_.width(), pixels_.height());
        m.fill_bytes(0);
    }
}

std::string measurement_refusal(const Document& document) {
    return "This document holds " + describe(document.format()) +
           " samples: object removal fills them by PatchMatch, which decides on every bit of "
           "them (Criminisi alone would decide on the 8-bit view; PatchMatch's fill still takes "
           "Criminisi's per region where it wins). Choose PatchMatch, or Image ▸ Convert to "
           "8-bit Photo to fill a copy by Criminisi.";
}

}  // namespace lacuna::session
