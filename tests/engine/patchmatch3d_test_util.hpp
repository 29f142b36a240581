// Synthetic volumes for the spatio-temporal PatchMatch's tests: a texture that moves `speed` px a
// frame to the right, and a hole that moves with it (so what it hides is shown by no frame).
#pragma once

#include <lacuna/core/image.hpp>
#include <lacuna/core/mask.hpp>

#include <cmath>
#include <cstdint>
#include <vector>

namespace lacuna::test {

/// Deterministic texture value at scene position (x, y): stripes, blobs and a hashed grain.
inline Rgba8 scene_pixel(const int x, const int y) {
    std::uint32_t h =
        static_cast<std::uint32_t>(x) * 73856093U ^ static_cast<std::uint32_t>(y) * 19349663U;
    h ^= h >> 13;
    h *= 0x5bd1e995U;
    h ^= h >> 15;
    const double stripes = 60 * std::sin(x * 0.45 + y * 0.2);
    const double blobs = 40 * std::cos(x * 0.13) * std::sin(y * 0.17);
    const int grain = static_cast<int>(h % 21) - 10;
    const auto c = [](const double v) {
        return static_cast<std::uint8_t>(std::lround(std::fmin(255.0, std::fmax(0.0, v))));
    };
    const double base = 128 + stripes + blobs + grain;
    return Rgba8{c(base), c(0.6 * base + 40), c(255 - base), 255};
}

struct MovingScene {
    std::vector<ImageRgba8> frames;
    std::vector<Mask> holes;
};

/// w × h × n frames of the texture moving `speed` px a frame; a hw × hh hole at (hx + speed · t,
/// hy) on frame t.
inline MovingScene moving_scene(const int w, const int h, const int n, const int hx, const int hy,
                                const int hw, const int hh, const int speed) {
    MovingScene s;
    for (int t = 0; t < n; ++t) {
        ImageRgba8 f(w, h);
        Mask m(w, h, std::uint8_t{0});
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                f.at(x, y) = scene_pixel(x - speed * t, y);
                const int mx = x - speed * t;
                if (mx >= hx && mx < hx + hw && y >= hy && y < hy + hh) m.at(x, y) = 255;
            }
        s.frames.push_back(std::move(f));
        s.holes.push_back(std::move(m));
    }
    return s;
}

}  // namespace lacuna::test
