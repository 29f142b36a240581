// Generated clips whose true object mask is known on every frame, for the mask tracker's
// tests (engine) and the Video dock's object removal (session): a textured object over a
// textured background (so the flow has something to match everywhere), drawn by a rule.
#pragma once

#include <lacuna/core/image.hpp>
#include <lacuna/core/mask.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

namespace lacuna::test_clips {

constexpr int kW = 160, kH = 120;

/// A fixed pseudo-random value per pixel and seed (no generator state between calls).
inline std::uint8_t noise(const int x, const int y, const int seed) {
    std::uint32_t v = static_cast<std::uint32_t>(x) * 73856093u ^
                      static_cast<std::uint32_t>(y) * 19349663u ^
                      static_cast<std::uint32_t>(seed) * 83492791u;
    v ^= v >> 13;
    v *= 0x5bd1e995u;
    v ^= v >> 15;
    return static_cast<std::uint8_t>(v & 0xff);
}

/// Greenish-grey background texture: smooth waves plus fine noise, so the flow has something to
/// match everywhere.
inline Rgba8 background(const int x, const int y) {
    const double wave =
        40 * std::sin(x * 0.21) * std::cos(y * 0.17) + 25 * std::sin((x + y) * 0.07);
    const int n = noise(x, y, 1) / 8;
    const auto g = static_cast<std::uint8_t>(std::clamp(120 + wave + n, 0.0, 255.0));
    return Rgba8{static_cast<std::uint8_t>(g * 3 / 4), g, static_cast<std::uint8_t>(g * 7 / 8),
                 255};
}

/// The object's texture, in its own coordinates (u, v): red and orange checks with noise.
inline Rgba8 object_texture(const int u, const int v) {
    const bool check = ((u / 4) + (v / 4)) % 2 == 0;
    const int n = noise(u, v, 2) / 6;
    return Rgba8{static_cast<std::uint8_t>(200 + n / 2),
                 static_cast<std::uint8_t>(check ? 40 + n : 110 + n),
                 static_cast<std::uint8_t>(30 + n / 2), 255};
}

struct Clip {
    std::vector<ImageRgba8> frames;
    std::vector<Mask> truth;
};

/// `inside(f, x, y)` says whether (x, y) is the object on frame f; `origin(f)` is where the
/// object's texture starts (it moves with the object).
inline Clip make_clip(const int frames, const std::function<bool(int, int, int)>& inside,
                      const std::function<std::pair<int, int>(int)>& origin) {
    Clip c;
    for (int f = 0; f < frames; ++f) {
        ImageRgba8 img(kW, kH);
        Mask m(kW, kH, std::uint8_t{0});
        const auto [ox, oy] = origin(f);
        for (int y = 0; y < kH; ++y)
            for (int x = 0; x < kW; ++x) {
                const bool in = inside(f, x, y);
                img.at(x, y) = in ? object_texture(x - ox + 64, y - oy + 64) : background(x, y);
                m.at(x, y) = in ? 255 : 0;
            }
        c.frames.push_back(std::move(img));
        c.truth.push_back(std::move(m));
    }
    return c;
}

/// A 30 × 30 textured square moving 2 px a frame to the right (and 1 px down every other frame).
inline Clip moving_square(const int frames) {
    const auto at = [](const int f) { return std::pair<int, int>{20 + 2 * f, 40 + f / 2}; };
    return make_clip(
        frames,
        [at](const int f, const int x, const int y) {
            const auto [x0, y0] = at(f);
            return x >= x0 && x < x0 + 30 && y >= y0 && y < y0 + 30;
        },
        at);
}

/// The moving square, with a scene cut before frame `cut`: from there the background is
/// another, brighter scene.
inline Clip square_with_cut(const int frames, const int cut) {
    Clip clip = moving_square(frames);
    for (int f = cut; f < frames; ++f)
        for (int y = 0; y < kH; ++y)
            for (int x = 0; x < kW; ++x)
                if (clip.truth[f].at(x, y) == 0) {
                    const Rgba8 b = background(x + 53, y + 71);
                    clip.frames[f].at(x, y) =
                        Rgba8{static_cast<std::uint8_t>(std::min(255, b.r + 70)),
                              static_cast<std::uint8_t>(std::min(255, b.g + 60)),
                              static_cast<std::uint8_t>(std::min(255, b.b + 90)), 255};
                }
    return clip;
}

}  // namespace lacuna::test_clips
