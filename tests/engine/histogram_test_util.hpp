// Helpers shared by the CPU and CUDA line-histogram tests: random inputs and exact comparison.
#pragma once

#include <lacuna/ops/line_histogram.hpp>

#include <QtTest>

#include <cmath>
#include <cstring>
#include <random>

namespace lacuna::test {

inline ImageRgba8 random_photo(const int w, const int h, std::mt19937& rng) {
    ImageRgba8 image(w, h);
    std::uniform_int_distribution<int> byte(0, 255);
    // Smooth gradients plus noise: bilinear samples land on many distinct values.
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            image.at(x, y) =
                Rgba8{std::uint8_t((x * 255 / std::max(w - 1, 1) + byte(rng) / 8) % 256),
                      std::uint8_t(byte(rng)), std::uint8_t((y * 3 + x) % 256), 255};
    return image;
}

inline bool same_float(const float a, const float b) {
    return (std::isnan(a) && std::isnan(b)) || std::memcmp(&a, &b, sizeof a) == 0;
}

/// True if two floats are within `ulps` representable steps of each other (NaN equals NaN).
inline bool within_ulps(const float a, const float b, const int ulps) {
    if (same_float(a, b)) return true;
    if (std::isnan(a) || std::isnan(b)) return false;
    float x = a;
    for (int k = 0; k < ulps; ++k) {
        x = std::nextafter(x, b);
        if (x == b) return true;
    }
    return false;
}

/// Equality of everything two implementations report; names the first difference. Counts,
/// counters, min, max and median must be identical; the mean may differ by `mean_ulps` (the CUDA
/// path sums in a different order).
inline QString compare(const ops::LineHistogram& a, const ops::LineHistogram& b,
                       const int mean_ulps = 0) {
    if (a.bins != b.bins || a.positions != b.positions) return "shape differs";
    if (a.samples_outside != b.samples_outside)
        return QString("outside %1 vs %2").arg(a.samples_outside).arg(b.samples_outside);
    if (a.samples_out_of_range != b.samples_out_of_range)
        return QString("out of range %1 vs %2")
            .arg(a.samples_out_of_range)
            .arg(b.samples_out_of_range);
    if (a.channels.size() != b.channels.size()) return "channel count differs";
    for (std::size_t c = 0; c < a.channels.size(); ++c) {
        const auto& p = a.channels[c];
        const auto& q = b.channels[c];
        if (p.counts != q.counts) {
            for (std::size_t k = 0; k < p.counts.size(); ++k)
                if (p.counts[k] != q.counts[k])
                    return QString("channel %1 position %2 bin %3: %4 vs %5")
                        .arg(c)
                        .arg(k / a.bins)
                        .arg(k % a.bins)
                        .arg(p.counts[k])
                        .arg(q.counts[k]);
        }
        if (p.samples != q.samples) return QString("channel %1 sample counts differ").arg(c);
        for (int i = 0; i < a.positions; ++i) {
            const std::pair<const char*, std::pair<float, float>> stats[] = {
                {"mean", {p.mean[i], q.mean[i]}},
                {"median", {p.median[i], q.median[i]}},
                {"min", {p.min[i], q.min[i]}},
                {"max", {p.max[i], q.max[i]}}};
            for (const auto& [name, v] : stats)
                if (!within_ulps(v.first, v.second, std::strcmp(name, "mean") == 0 ? mean_ulps : 0))
                    return QString("channel %1 position %2 %3: %4 vs %5")
                        .arg(c)
                        .arg(i)
                        .arg(name)
                        .arg(double(v.first), 0, 'g', 9)
                        .arg(double(v.second), 0, 'g', 9);
        }
    }
    return {};
}

inline QString compare(const ops::DirectionHistogram& a, const ops::DirectionHistogram& b) {
    if (a.bins != b.bins || a.positions != b.positions) return "shape differs";
    if (a.samples_outside != b.samples_outside)
        return QString("outside %1 vs %2").arg(a.samples_outside).arg(b.samples_outside);
    if (a.samples_out_of_range != b.samples_out_of_range) return "out of range differs";
    for (std::size_t c = 0; c < a.counts.size(); ++c)
        for (std::size_t k = 0; k < a.counts[c].size(); ++k)
            if (a.counts[c][k] != b.counts[c][k])
                return QString("channel %1 column %2 bin %3: %4 vs %5")
                    .arg(c)
                    .arg(k / a.bins)
                    .arg(k % a.bins)
                    .arg(a.counts[c][k])
                    .arg(b.counts[c][k]);
    return {};
}

}  // namespace lacuna::test
