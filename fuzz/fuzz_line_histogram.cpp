// Harness: the line-histogram parameters as the CLI and the editor pass them. Input: the image
// (photo or measurement, 1..32 pixels a side, its samples from the input: NaN and infinities
// included), then a line's or a direction's parameters as raw numbers (any double or float, any
// int). plan_line / plan_direction must refuse what they cannot serve with lacuna::Error; when a
// plan is made, the reference and the fast histogram run on it and must agree exactly (the
// engine promises identical results), and every count must be accounted for.
#include "fuzz_input.hpp"

#include <lacuna/core/error.hpp>
#include <lacuna/ops/line_histogram.hpp>

#include <cmath>

namespace {

namespace ops = lacuna::ops;

// A valid plan with more bins than this is only planned: the histograms' cost is bins × positions
// of zeroing, which would make every such input slow without reaching new code.
constexpr int kMaxComputedBins = 4096;

ops::HistogramChannel channel_from(const std::uint8_t b) {
    return static_cast<ops::HistogramChannel>(b % 6);
}

lacuna::Sampling sampling_from(const std::uint8_t b) {
    return b % 2 == 0 ? lacuna::Sampling::Nearest : lacuna::Sampling::Bilinear;
}

std::optional<std::pair<float, float>> range_from(lacuna::fuzz::Input& in) {
    const std::uint8_t has = in.byte();
    const auto lo = in.take<float>();
    const auto hi = in.take<float>();
    if (has % 2 == 0) return std::nullopt;
    return std::pair{lo, hi};
}

int int_from(lacuna::fuzz::Input& in) {
    // Mostly small values near the limits, sometimes any int.
    const std::uint8_t how = in.byte();
    const auto raw = in.take<std::int32_t>();
    return how % 4 == 0 ? raw : static_cast<int>(raw % 5000);
}

bool same_channel(const ops::ChannelHistogram& a, const ops::ChannelHistogram& b) {
    return a.channel == b.channel && a.counts == b.counts && a.samples == b.samples;
}

void line(const ops::HistogramSource& source, lacuna::fuzz::Input& in) {
    ops::LineHistogramParams p;
    p.from = {in.take<double>(), in.take<double>()};
    p.to = {in.take<double>(), in.take<double>()};
    p.band_width = int_from(in);
    p.bins = int_from(in);
    p.range = range_from(in);
    p.channel = channel_from(in.byte());
    p.sampling = sampling_from(in.byte());
    ops::LinePlan plan;
    try {
        plan = ops::plan_line(source, p);
    } catch (const lacuna::Error&) {
        return;
    }
    if (plan.geometry.positions < 2)
        lacuna::fuzz::violated("a line plan with fewer than 2 positions");
    if (plan.mapping.bins > kMaxComputedBins) return;
    const ops::LineHistogram ref = ops::line_histogram_reference(source, p);
    const ops::LineHistogram fast = ops::line_histogram_fast(source, p);
    if (ref.positions != fast.positions || ref.channels.size() != fast.channels.size() ||
        ref.samples_outside != fast.samples_outside ||
        ref.samples_out_of_range != fast.samples_out_of_range)
        lacuna::fuzz::violated("reference and fast line histograms differ in shape");
    for (std::size_t c = 0; c < ref.channels.size(); ++c) {
        if (!same_channel(ref.channels[c], fast.channels[c]))
            lacuna::fuzz::violated("reference and fast line histograms differ");
    }
}

void direction(const ops::HistogramSource& source, lacuna::fuzz::Input& in) {
    ops::DirectionHistogramParams p;
    p.angle_degrees = in.take<double>();
    p.bins = int_from(in);
    p.range = range_from(in);
    p.channel = channel_from(in.byte());
    p.sampling = sampling_from(in.byte());
    ops::DirectionPlan plan;
    try {
        plan = ops::plan_direction(source, p);
    } catch (const lacuna::Error&) {
        return;
    }
    if (plan.mapping.bins > kMaxComputedBins) return;
    const ops::DirectionHistogram ref = ops::direction_histogram_reference(source, p);
    const ops::DirectionHistogram fast = ops::direction_histogram_fast(source, p);
    if (ref.counts != fast.counts || ref.samples_outside != fast.samples_outside ||
        ref.samples_out_of_range != fast.samples_out_of_range)
        lacuna::fuzz::violated("reference and fast direction histograms differ");
    // The editor's link from a drawn segment to a direction column.
    const ops::Point2 from{in.take<double>(), in.take<double>()};
    const ops::Point2 to{in.take<double>(), in.take<double>()};
    try {
        (void)ops::direction_column_of(source.width(), source.height(), from, to);
    } catch (const lacuna::Error&) {
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, const std::size_t size) {
    lacuna::fuzz::Input in(data, size);
    const std::uint8_t mode = in.byte();
    const int width = in.in_range(1, 32);
    const int height = in.in_range(1, 32);
    const bool measurement = mode & 1;
    std::optional<ops::HistogramSource> source;
    if (measurement) {
        lacuna::ImageF32 values(width, height);
        for (int y = 0; y < height; ++y)
            for (int x = 0; x < width; ++x) values.row(y)[x] = in.take<float>();
        source.emplace(std::as_const(values).view());
    } else {
        lacuna::ImageRgba8 image(width, height);
        const std::uint8_t seed = in.byte();
        for (int y = 0; y < height; ++y)
            for (int x = 0; x < width; ++x) {
                const auto v = static_cast<std::uint8_t>(seed + x * 7 + y * 13);
                image.row(y)[x] = {v, static_cast<std::uint8_t>(v * 3),
                                   static_cast<std::uint8_t>(x * y), 255};
            }
        source.emplace(std::as_const(image).view());
    }
    if (mode & 2)
        direction(*source, in);
    else
        line(*source, in);
    return 0;
}
