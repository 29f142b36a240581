// A tiny binary-PPM (P6, 8-bit) reader for tests that must not link OpenCV's codecs (the GPU test
// binaries travel to the GPU machine with as few libraries as possible).
#pragma once

#include <lacuna/core/image.hpp>

#include <fstream>
#include <string>

namespace lacuna::test {

/// Empty image when the file is missing or not an 8-bit P6 PPM.
inline ImageRgba8 read_ppm(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::string magic;
    int w = 0, h = 0, max = 0;
    if (!(in >> magic >> w >> h >> max) || magic != "P6" || max != 255 || w <= 0 || h <= 0)
        return {};
    in.get();  // the single whitespace after the header
    ImageRgba8 image(w, h);
    for (int y = 0; y < h; ++y) {
        for (int x = 0; x < w; ++x) {
            char rgb[3];
            if (!in.read(rgb, 3)) return {};
            image.at(x, y) =
                Rgba8{std::uint8_t(rgb[0]), std::uint8_t(rgb[1]), std::uint8_t(rgb[2]), 255};
        }
    }
    return image;
}

}  // namespace lacuna::test
