#include "heatmap.hpp"

#include <lacuna/core/colormap.hpp>

#include <algorithm>
#include <array>
#include <cmath>

namespace lacuna::cli {
namespace {

constexpr int kPlotHeight = 256;
constexpr int kMargin = 12;
constexpr int kMinPlotWidth = 512;
constexpr Rgba8 kBackground{24, 24, 28, 255};

void blend(Rgba8& p, const Rgba8 c, const double alpha) {
    p.r = static_cast<std::uint8_t>(std::lround(p.r * (1 - alpha) + c.r * alpha));
    p.g = static_cast<std::uint8_t>(std::lround(p.g * (1 - alpha) + c.g * alpha));
    p.b = static_cast<std::uint8_t>(std::lround(p.b * (1 - alpha) + c.b * alpha));
}

// Draws one channel's matrix into `out` at (x0, y0), `plot_w` wide; bin 0 at the bottom.
void draw_matrix(ImageRgba8& out, const int x0, const int y0, const int plot_w,
                 const std::uint32_t* counts, const int positions, const int bins) {
    std::uint32_t peak = 0;
    for (std::size_t k = 0; k < static_cast<std::size_t>(positions) * bins; ++k)
        peak = std::max(peak, counts[k]);
    const double norm = peak > 0 ? 1.0 / std::log1p(static_cast<double>(peak)) : 0.0;
    for (int px = 0; px < plot_w; ++px) {
        const int pos = std::min(positions - 1, px * positions / plot_w);
        for (int py = 0; py < kPlotHeight; ++py) {
            // Rows may cover several bins (bins > height): show the largest count among them.
            const int b0 = (kPlotHeight - 1 - py) * bins / kPlotHeight;
            const int b1 = std::max(b0 + 1, (kPlotHeight - py) * bins / kPlotHeight);
            std::uint32_t c = 0;
            for (int b = b0; b < b1 && b < bins; ++b)
                c = std::max(c, counts[static_cast<std::size_t>(pos) * bins + b]);
            out.at(x0 + px, y0 + py) =
                c == 0 ? kHeatmapEmpty : inferno(0.15 + 0.85 * std::log1p(c) * norm);
        }
    }
}

void draw_curve(ImageRgba8& out, const int x0, const int y0, const int plot_w,
                const std::vector<float>& values, const float lo, const float hi,
                const Rgba8 colour, const double alpha) {
    const int positions = static_cast<int>(values.size());
    int last_y = -1;
    for (int px = 0; px < plot_w; ++px) {
        const float v =
            values[static_cast<std::size_t>(std::min(positions - 1, px * positions / plot_w))];
        if (std::isnan(v)) {
            last_y = -1;
            continue;
        }
        const double t =
            std::clamp((static_cast<double>(v) - lo) / (static_cast<double>(hi) - lo), 0.0, 1.0);
        const int y = static_cast<int>(std::lround((1.0 - t) * (kPlotHeight - 1)));
        const int from = last_y < 0 ? y : std::min(y, last_y);
        const int to = last_y < 0 ? y : std::max(y, last_y);
        for (int yy = from; yy <= to; ++yy) {
            for (int dy = 0; dy <= 1; ++dy) {  // two pixels thick
                const int row = std::clamp(yy + dy, 0, kPlotHeight - 1);
                blend(out.at(x0 + px, y0 + row), colour, alpha);
            }
        }
        last_y = y;
    }
}

int plot_width(const int positions) {
    return positions >= kMinPlotWidth ? positions
                                      : positions * ((kMinPlotWidth + positions - 1) / positions);
}

}  // namespace

ImageRgba8 render_heatmap(const ops::LineHistogram& h) {
    const int plot_w = plot_width(h.positions);
    const int panels = static_cast<int>(h.channels.size());
    ImageRgba8 out(plot_w + 2 * kMargin, panels * (kPlotHeight + kMargin) + kMargin, kBackground);
    for (int c = 0; c < panels; ++c) {
        const ops::ChannelHistogram& ch = h.channels[static_cast<std::size_t>(c)];
        const int y0 = kMargin + c * (kPlotHeight + kMargin);
        draw_matrix(out, kMargin, y0, plot_w, ch.counts.data(), h.positions, h.bins);
        // Min–max envelope faint, median cyan, mean white: the profile over the distribution.
        draw_curve(out, kMargin, y0, plot_w, ch.min, h.range_lo, h.range_hi, {160, 160, 160, 255},
                   0.45);
        draw_curve(out, kMargin, y0, plot_w, ch.max, h.range_lo, h.range_hi, {160, 160, 160, 255},
                   0.45);
        draw_curve(out, kMargin, y0, plot_w, ch.median, h.range_lo, h.range_hi, {64, 224, 255, 255},
                   0.9);
        draw_curve(out, kMargin, y0, plot_w, ch.mean, h.range_lo, h.range_hi, {255, 255, 255, 255},
                   0.95);
    }
    return out;
}

ImageRgba8 render_heatmap(const ops::DirectionHistogram& h) {
    const int plot_w = plot_width(h.positions);
    const int panels = static_cast<int>(h.counts.size());
    ImageRgba8 out(plot_w + 2 * kMargin, panels * (kPlotHeight + kMargin) + kMargin, kBackground);
    for (int c = 0; c < panels; ++c) {
        draw_matrix(out, kMargin, kMargin + c * (kPlotHeight + kMargin), plot_w,
                    h.counts[static_cast<std::size_t>(c)].data(), h.positions, h.bins);
    }
    return out;
}

}  // namespace lacuna::cli
