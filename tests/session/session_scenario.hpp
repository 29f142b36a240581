// Shared by the session tests: a generated photo with an object to remove, and presenting a
// session into a framebuffer at 1:1 to read back exactly what the user would see.
#pragma once

#include <GL/glew.h>

#include <lacuna/render/framebuffer.hpp>

#include <lacuna/render/image_renderer.hpp>

#include <session.hpp>

#include <cmath>
#include <cstdint>

namespace lacuna::test {

/// Smooth gradients and stripes (structure for seams and patches) with a red disc to remove.
inline ImageRgba8 scenario_photo(const int w, const int h) {
    ImageRgba8 image(w, h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const double stripes = 0.5 + 0.5 * std::sin(x * 0.11 + std::sin(y * 0.05) * 3.0);
            image.at(x, y) = Rgba8{std::uint8_t(40 + 150 * stripes), std::uint8_t((x * 255) / w),
                                   std::uint8_t((y * 255) / h), 255};
        }
    const double cx = w * 0.6, cy = h * 0.45, r = std::min(w, h) * 0.08;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            if (std::hypot(x - cx, y - cy) < r) image.at(x, y) = Rgba8{220, 30, 30, 255};
    return image;
}

/// Presents the session and reads the framebuffer back at 1:1 (no overlays: the image and the
/// mask tint, which are what the session decides).
inline ImageRgba8 presented_frame(session::Session& s, render::ImageRenderer& renderer) {
    s.present(renderer);
    const int w = s.shown_width(), h = s.shown_height();
    render::Framebuffer fb(w, h);
    renderer.set_brush(false);
    renderer.set_line_overlay({});
    renderer.render(fb.id(), w, h, render::ViewTransform{});
    return fb.read();
}

}  // namespace lacuna::test
