#include "inpaint_quality_cases.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace lacuna::cli {
namespace {

std::uint32_t hash2(const int x, const int y, const std::uint32_t seed) {
    std::uint32_t h = static_cast<std::uint32_t>(x) * 0x8da6b343u ^
                      static_cast<std::uint32_t>(y) * 0xd8163841u ^ seed * 0xcb1ab31fu;
    h ^= h >> 16;
    h *= 0x7feb352du;
    h ^= h >> 15;
    h *= 0x846ca68bu;
    h ^= h >> 16;
    return h;
}

/// In [0, 1).
double lattice(const int x, const int y, const std::uint32_t seed) {
    return static_cast<double>(hash2(x, y, seed) >> 8) / static_cast<double>(1u << 24);
}

/// Per-pixel grain in [-1, 1).
double grain(const int x, const int y, const std::uint32_t seed) {
    return 2.0 * lattice(x, y, seed) - 1.0;
}

/// Value noise in [0, 1): lattice values every `scale` px, smoothstep-interpolated.
double value_noise(const double x, const double y, const double scale, const std::uint32_t seed) {
    const double fx = x / scale, fy = y / scale;
    const int ix = static_cast<int>(std::floor(fx)), iy = static_cast<int>(std::floor(fy));
    const double tx = fx - ix, ty = fy - iy;
    const double sx = tx * tx * (3 - 2 * tx), sy = ty * ty * (3 - 2 * ty);
    const double a = lattice(ix, iy, seed), b = lattice(ix + 1, iy, seed);
    const double c = lattice(ix, iy + 1, seed), d = lattice(ix + 1, iy + 1, seed);
    return (a + (b - a) * sx) + ((c + (d - c) * sx) - (a + (b - a) * sx)) * sy;
}

/// Octaves from `scale` down, each half the size and half the weight; in about [-1, 1].
double fbm(const double x, const double y, double scale, const int octaves,
           const std::uint32_t seed) {
    double sum = 0, weight = 1, total = 0;
    for (int o = 0; o < octaves; ++o) {
        sum += weight * (2 * value_noise(x, y, scale, seed + 101u * o) - 1);
        total += weight;
        weight *= 0.5;
        scale *= 0.5;
    }
    return sum / total;
}

std::uint8_t to_u8(const double v) {
    return static_cast<std::uint8_t>(std::clamp(std::lround(v), 0L, 255L));
}

struct Colour {
    double r, g, b;
};

Colour mix(const Colour a, const Colour b, const double t) {
    return {a.r + (b.r - a.r) * t, a.g + (b.g - a.g) * t, a.b + (b.b - a.b) * t};
}

Colour shade(const Colour c, const double offset) {
    return {c.r + offset, c.g + offset, c.b + offset};
}

Rgba8 pixel(const Colour c) {
    return Rgba8{to_u8(c.r), to_u8(c.g), to_u8(c.b), 255};
}

/// Plaster: broad blotches, finer mottling and per-pixel grain, ± about `amplitude` levels.
double plaster(const int x, const int y, const double amplitude, const std::uint32_t seed) {
    return amplitude * (0.55 * fbm(x, y, 48, 3, seed) + 0.3 * fbm(x, y, 6, 2, seed + 7u) +
                        0.15 * grain(x, y, seed + 13u));
}

}  // namespace

ImageRgba8 generate_sky_over_tree_line(const int width, const int height) {
    ImageRgba8 image(width, height);
    const Colour sky_top{70, 125, 200}, sky_horizon{178, 206, 234};
    const Colour leaf{38, 72, 32};
    for (int x = 0; x < width; ++x) {
        // Crowns: rounded bumps of two sizes over a slow swell.
        const double top = 0.55 * height - 34 * value_noise(x, 0, 70, 11u) -
                           16 * value_noise(x, 0, 23, 12u) + 14 * std::sin(x * 0.0041);
        for (int y = 0; y < height; ++y) {
            const double t = std::clamp(y / std::max(top, 1.0), 0.0, 1.0);
            const Colour sky = shade(mix(sky_top, sky_horizon, t), 0.5 * grain(x, y, 1u));
            // Leaves: clumps (24 px) with leaves inside (6, 3 px), darker further down.
            const double n =
                0.5 * fbm(x, y, 24, 2, 21u) + 0.35 * fbm(x, y, 6, 2, 22u) + 0.15 * grain(x, y, 23u);
            const double depth = std::clamp((y - top) / (height - top), 0.0, 1.0);
            const Colour foliage{leaf.r * (1 + 0.9 * n) * (1 - 0.35 * depth),
                                 leaf.g * (1 + 0.8 * n) * (1 - 0.35 * depth),
                                 leaf.b * (1 + 0.9 * n) * (1 - 0.35 * depth)};
            // The tree line is anti-aliased over one pixel.
            const double a = std::clamp(y - top + 0.5, 0.0, 1.0);
            image.at(x, y) = pixel(mix(sky, foliage, a));
        }
    }
    return image;
}

ImageRgba8 generate_wall_with_cable(const int width, const int height) {
    ImageRgba8 image(width, height);
    const Colour light{206, 192, 168}, dark{150, 136, 118}, cable{38, 38, 42};
    const double cx = width / 2.0, cy = height / 2.0;
    // The cable: through (cx − 140, cy + 60), slope 0.3 (it meets the wall's edge below right
    // of the centre, outside the bench's hole).
    const double slope = 0.3, norm = std::sqrt(1 + slope * slope);
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            // Signed distance to the 45° edge y − cy = x − cx; positive below left.
            const double edge = ((y - cy) - (x - cx)) / std::sqrt(2.0);
            const double a = std::clamp(edge + 0.5, 0.0, 1.0);
            Colour c = mix(light, dark, a);
            c = shade(c, plaster(x, y, 14, a < 0.5 ? 31u : 41u));
            const double d = std::abs((y - (cy + 60)) - slope * (x - (cx - 140))) / norm;
            const double cover = std::clamp(1.5 - d, 0.0, 1.0);  // 2 px wide, soft sides
            image.at(x, y) = pixel(mix(c, cable, cover));
        }
    return image;
}

ImageRgba8 generate_facade_grid(const int width, const int height) {
    ImageRgba8 image(width, height);
    const Colour wall{196, 178, 156}, frame{232, 228, 220}, glass_top{40, 52, 70},
        glass_bottom{70, 86, 104}, ledge{220, 210, 194}, shadow{118, 104, 90};
    constexpr int cell_w = 120, cell_h = 160, ox = 30, oy = 20;
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            const int lx = ((x - ox) % cell_w + cell_w) % cell_w;
            const int ly = ((y - oy) % cell_h + cell_h) % cell_h;
            Colour c = shade(wall, plaster(x, y, 10, 51u));
            if (lx >= 30 && lx < 90 && ly >= 25 && ly < 115) {
                const bool glass = lx >= 35 && lx < 85 && ly >= 30 && ly < 110;
                const bool muntin = lx >= 59 && lx < 62;
                if (glass && !muntin)
                    c = shade(mix(glass_top, glass_bottom, (ly - 30) / 80.0), 2 * grain(x, y, 52u));
                else
                    c = shade(frame, 2 * grain(x, y, 53u));
            } else if (ly >= 128 && ly < 138) {
                c = shade(ledge, 3 * grain(x, y, 54u));
            } else if (ly >= 138 && ly < 142) {
                c = shade(shadow, 3 * grain(x, y, 55u));
            }
            image.at(x, y) = pixel(c);
        }
    return image;
}

}  // namespace lacuna::cli
