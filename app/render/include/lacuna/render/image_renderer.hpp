// Qt-free OpenGL renderer for the editor's canvas. Runs in whatever GL context is current (the
// widget's, or a headless EGL context in tests). GL is loaded through GLEW inside the .cpp; this
// header exposes no GL types, so Qt OpenGL headers and GLEW never meet in one file.
//
// Lifetime: every call, the destructor included, must happen with the same context current.
// release() frees the GL objects early (from QOpenGLContext::aboutToBeDestroyed).
#pragma once

#include <lacuna/core/device_image.hpp>
#include <lacuna/core/display.hpp>
#include <lacuna/core/native_image.hpp>
#include <lacuna/core/image.hpp>
#include <lacuna/render/display_colour.hpp>
#include <lacuna/render/view.hpp>

#include <cstdint>
#include <memory>
#include <string>

namespace lacuna::render {

struct Rgb {
    float r = 0.16f;
    float g = 0.16f;
    float b = 0.17f;
};

/// The line-histogram overlay, in framebuffer pixels (top-left origin).
struct LineOverlay {
    bool visible = false;
    PointF from;
    PointF to;
    double band_half_width = 0;   ///< 0: no band
    bool marker_visible = false;  ///< the plot's hover position on the line
    double marker_t = 0;          ///< 0 at `from`, 1 at `to`
};

class ImageRenderer {
  public:
    ImageRenderer();
    ~ImageRenderer();
    ImageRenderer(const ImageRenderer&) = delete;
    ImageRenderer& operator=(const ImageRenderer&) = delete;

    /// Loads GL entry points and builds the shaders. Returns false and fills `error` on failure
    /// (no context, GL older than 3.3, shader compile error).
    bool initialize(std::string& error);
    [[nodiscard]] bool initialized() const;

    /// Copies the image into the display texture (host upload path). The texture's capacity only
    /// grows, so a shrinking image reuses it.
    void set_image(ImageView<const Rgba8> image);
    /// The CUDA–GL interop path: the display texture is registered with CUDA (once per
    /// allocation; it only grows) and the device image is copied into it device to device, on
    /// the image's stream — the pixels never pass through the host and GL makes no copy.
    /// Returns false and fills `error` when interop cannot be used (CPU-only build, no device,
    /// a GL context that is not on the CUDA device); the caller then uses the host path.
    bool set_image(const DeviceImage<Rgba8>& image, std::string& error);
    /// A measurement image's samples in their own type (8/16-bit, signed 16-bit, float; 1, 3 or
    /// 4 channels) go to a texture of that type, and the image shader maps them through the
    /// calibration, the window and the LUT (set_sample_mapping). Changing the mapping is a
    /// uniform change: no pass over the image anywhere. Shown until the next set_image.
    void set_samples(const NativeImage& samples);
    /// The interop path: the device samples (raw rows, `format`, width × rows.height()) are
    /// copied into the texture device to device. 1- and 4-channel formats other than signed
    /// 16-bit only (CUDA registers neither 3-channel nor signed-normalised textures); false with
    /// `error` otherwise or when interop is unusable.
    bool set_samples(const DeviceImage<std::uint8_t>& rows, PixelFormat format, int width,
                     std::string& error);
    /// value = slope · sample + intercept; [lo, hi] → the LUT's ends; NaN → kNanColour.
    struct SampleMapping {
        Calibration calibration;
        DisplayWindow window;
        Lut lut = Lut::Grey;
        bool mark_clipped = false;  ///< kBelowColour / kAboveColour outside the window
    };
    void set_sample_mapping(const SampleMapping& mapping);
    /// The 8-bit image set by set_image holds 8-bit samples of a measurement (a retarget
    /// preview made of carving-proxy pixels): with `channels` 1 its red channel, with 3 its
    /// colour, is shown through the sample mapping like set_samples' texture. 0: a photo, shown
    /// as it is (the default; every set_image call resets it).
    void set_image_as_samples(int channels);
    /// Colour management of photos: the image's colours are looked up in `lut` (the image's
    /// profile to the display's, make_display_lut) as the image shader draws them — a 3-D
    /// texture, so it costs one filtered lookup per screen pixel and no pass over the image.
    /// nullptr or an empty table: colours go to the screen as stored. Measurement samples (which
    /// the LUTs of set_sample_mapping colour) are not converted.
    void set_display_lut(const DisplayLut* lut);
    [[nodiscard]] bool colour_managed() const;
    /// True while set_samples' texture is what render() shows.
    [[nodiscard]] bool showing_samples() const;
    /// The object-removal mask (coverage 0..255, the image's size) drawn as a tint over the
    /// image; an empty view hides it.
    void set_mask(ImageView<const std::uint8_t> mask);
    /// The interop path for the mask: a device mask (the device document's) goes to the tint
    /// texture through a registered buffer, never through the host. False (with `error`) when
    /// interop cannot be used.
    bool set_mask(const DeviceImage<std::uint8_t>& mask, std::string& error);
    /// Tint colour and its strength at full coverage (0..1).
    void set_mask_tint(Rgb color, float strength);
    /// The brush cursor: a ring of `radius` framebuffer pixels around `centre` (framebuffer
    /// pixels, top-left origin), drawn over the image.
    void set_brush(bool visible, PointF centre = {}, double radius = 0);
    /// The line with its band (translucent), its two end handles and the hover marker.
    void set_line_overlay(const LineOverlay& overlay);
    /// Maps the interop textures ahead of the next device present, so mapping (which waits for
    /// GL to be idle, ~0.5 ms on an H100) is off the path from the next input to its frame. Call
    /// after a frame has been shown; render() and the host-path setters unmap them again.
    void map_ahead();
    /// Where an interop present's time goes (benchmarks): with profiling on, each stage is waited
    /// for and timed on the host; off (the default), nothing waits.
    struct InteropProfile {
        int presents = 0;
        double map_ms = 0, copy_ms = 0, unmap_ms = 0;  ///< sums
    };
    void set_interop_profiling(bool on);
    [[nodiscard]] InteropProfile interop_profile() const;
    /// True when the texture's current contents came through interop.
    [[nodiscard]] bool last_image_was_interop() const;
    /// The display texture's life so far (tests: it grows only, and is registered with CUDA
    /// once per allocation, so a smaller image reuses both).
    struct TextureStats {
        int capacity_w = 0, capacity_h = 0;
        int allocations = 0;
        int registrations = 0;
    };
    [[nodiscard]] TextureStats texture_stats() const;
    [[nodiscard]] int image_width() const;
    [[nodiscard]] int image_height() const;

    /// Draws into framebuffer object `fbo` (0 for the default framebuffer) of the given size:
    /// background, checkerboard behind transparency, the image at `view`.
    void render(unsigned fbo, int width, int height, const ViewTransform& view) const;

    void set_background(Rgb color);
    /// "vendor / renderer / version" of the current context.
    [[nodiscard]] std::string gl_description() const;

    /// Frees every GL object; safe to call twice. Needs the context current.
    void release();

  private:
    void draw_line_overlay(int width, int height) const;
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace lacuna::render
