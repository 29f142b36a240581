// Painting the object-removal mask: round dabs with a hardness falloff, spaced along the pointer's
// path. Qt-free so the arithmetic is testable on its own.
#pragma once

#include <lacuna/core/mask.hpp>

#include <algorithm>

namespace lacuna::editor {

/// An inclusive pixel rectangle; empty when x1 < x0.
struct PixelRect {
    int x0 = 0, y0 = 0, x1 = -1, y1 = -1;
    [[nodiscard]] bool empty() const { return x1 < x0 || y1 < y0; }
    [[nodiscard]] int width() const { return x1 - x0 + 1; }
    [[nodiscard]] int height() const { return y1 - y0 + 1; }
    void unite(const PixelRect& other) {
        if (other.empty()) return;
        if (empty()) {
            *this = other;
            return;
        }
        x0 = std::min(x0, other.x0);
        y0 = std::min(y0, other.y0);
        x1 = std::max(x1, other.x1);
        y1 = std::max(y1, other.y1);
    }
};

struct BrushSettings {
    double radius = 20;     ///< image pixels
    double hardness = 0.8;  ///< 1: full coverage to the edge; 0: falls off from the centre
    bool erase = false;
};

/// Coverage 0..255 of a pixel `distance` from the dab's centre.
std::uint8_t dab_coverage(double distance, const BrushSettings& brush);

/// Paints one dab (max with the coverage; the eraser lowers to 255 − coverage). Returns the
/// pixels it may have changed, clipped to the mask.
PixelRect paint_dab(Mask& mask, double cx, double cy, const BrushSettings& brush);

/// Dabs from (x0, y0) to (x1, y1) every quarter radius, the end included, the start not (it was
/// painted by the previous segment or the press).
PixelRect paint_segment(Mask& mask, double x0, double y0, double x1, double y1,
                        const BrushSettings& brush);

/// A copy of the rectangle's pixels.
template <class T>
Image<T> copy_region(const Image<T>& image, const PixelRect& rect) {
    Image<T> out(rect.width(), rect.height());
    for (int y = 0; y < rect.height(); ++y)
        for (int x = 0; x < rect.width(); ++x) out.at(x, y) = image.at(rect.x0 + x, rect.y0 + y);
    return out;
}

/// Writes `region` back at the rectangle's place.
template <class T>
void paste_region(Image<T>& image, const PixelRect& rect, const Image<T>& region) {
    for (int y = 0; y < rect.height(); ++y)
        for (int x = 0; x < rect.width(); ++x) image.at(rect.x0 + x, rect.y0 + y) = region.at(x, y);
}

}  // namespace lacuna::editor
