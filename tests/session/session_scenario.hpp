// Shared by the session tests: a generated photo with an object to remove, and presenting a
// session into a framebuffer at 1:1 to read back exactly what the user would see.
#pragma once

#include <GL/glew.h>

#include <lacuna/render/framebuffer.hpp>

#include <lacuna/render/image_renderer.hpp>

#include <session.hpp>

#include <lacuna/core/mask.hpp>
#include <lacuna/core/native_image.hpp>

#include <cmath>
#include <cstdint>
#include <random>

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

/// Signed distance below the bar's upper edge, the line y = 0.25 x + 60 (the bar is 8 px thick).
inline double bar_distance(const int x, const int y) {
    return y - 0.25 * x - 60;
}

/// A picture of the same dark bar across a noisy wall (8-bit RGB, 190 ± 5 and 50 ± 5): straight
/// edges the fill's line stage continues, and wall where no edge is.
inline ImageRgba8 bar_picture(const int w, const int h) {
    std::mt19937 rng(5);
    std::uniform_int_distribution<int> noise(-5, 5);
    ImageRgba8 wall(w, h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const double d = bar_distance(x, y);
            const int v = (d >= 0 && d < 8 ? 50 : 190) + noise(rng);
            wall.at(x, y) = Rgba8{std::uint8_t(v), std::uint8_t(v - 5), std::uint8_t(v - 10), 255};
        }
    return wall;
}

/// A 16-bit RGB measurement of a dark bar across a noisy wall, 1000 + 200 × level plus a part
/// finer than a proxy level (so that only a sample's own position reproduces it): the straight
/// edges the fill's line stage continues.
inline NativeImage bar_measurement(const int w, const int h) {
    std::mt19937 rng(5);
    std::uniform_int_distribution<int> noise(-5, 5);
    NativeImage samples(w, h, {SampleType::U16, 3});
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const double d = bar_distance(x, y);
            const int v = (d >= 0 && d < 8 ? 50 : 190) + noise(rng);
            const double fine = (7 * x + 13 * y) % 199;
            for (int c = 0; c < 3; ++c)
                samples.set_sample(x, y, c, 1000 + 200.0 * (v - 5 * c) + fine);
        }
    return samples;
}

/// A round hole of radius 20 over the bar's middle, (150, 97).
inline Mask bar_hole(const int w, const int h) {
    Mask hole(w, h, 0);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            if (std::hypot(x - 150, y - 97) <= 20) hole.at(x, y) = 255;
    return hole;
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
