// The gold standard: every position, every band sample, one at a time, in the plainest form.
#include <lacuna/ops/line_histogram.hpp>

#include <algorithm>
#include <cmath>

namespace lacuna::ops {

LineHistogram line_histogram_reference(const HistogramSource& source,
                                       const LineHistogramParams& params) {
    const LinePlan plan = plan_line(source, params);
    const LineGeometry& g = plan.geometry;
    LineHistogram result = empty_result(plan, params);

    for (std::size_t c = 0; c < plan.planes.size(); ++c) {
        const ImageView<const float> plane = source.plane(plan.planes[c]).view();
        ChannelHistogram h;
        h.channel = plan.planes[c];
        h.counts.assign(static_cast<std::size_t>(g.positions) * result.bins, 0);
        for (int i = 0; i < g.positions; ++i) {
            std::vector<float> values;
            for (int j = 0; j < g.band; ++j) {
                double x = 0, y = 0;
                line_sample_point(g, i, j, x, y);
                float v = 0;
                if (!sample_plane(plane, params.sampling, x, y, v)) {
                    if (c == 0) ++result.samples_outside;
                    continue;
                }
                const int bin = value_to_bin(plan.mapping, v);
                if (bin < 0) {
                    ++result.samples_out_of_range;
                } else {
                    ++h.counts[static_cast<std::size_t>(i) * result.bins + bin];
                }
                if (!std::isnan(v)) values.push_back(v);
            }
            h.samples.push_back(static_cast<std::uint32_t>(values.size()));
            if (values.empty()) {
                for (auto* column : {&h.mean, &h.median, &h.min, &h.max}) column->push_back(NAN);
                continue;
            }
            double sum = 0;
            for (const float v : values) sum += v;
            std::sort(values.begin(), values.end());
            const std::size_t n = values.size();
            h.mean.push_back(static_cast<float>(sum / static_cast<double>(n)));
            h.median.push_back(
                n % 2 == 1 ? values[n / 2]
                           : static_cast<float>(
                                 (static_cast<double>(values[n / 2 - 1]) + values[n / 2]) / 2.0));
            h.min.push_back(values.front());
            h.max.push_back(values.back());
        }
        result.channels.push_back(std::move(h));
    }
    return result;
}

DirectionHistogram direction_histogram_reference(const HistogramSource& source,
                                                 const DirectionHistogramParams& params) {
    const DirectionPlan plan = plan_direction(source, params);
    const DirectionGeometry& g = plan.geometry;
    DirectionHistogram result = empty_result(plan);
    for (std::size_t c = 0; c < plan.planes.size(); ++c) {
        const ImageView<const float> plane = source.plane(plan.planes[c]).view();
        std::vector<std::uint32_t> counts(static_cast<std::size_t>(g.extent) * result.bins, 0);
        for (int column = 0; column < g.extent; ++column) {
            for (int row = 0; row < g.extent; ++row) {
                double x = 0, y = 0;
                direction_sample_point(g, column, row, x, y);
                float v = 0;
                if (!sample_plane(plane, params.sampling, x, y, v)) {
                    if (c == 0) ++result.samples_outside;
                    continue;
                }
                const int bin = value_to_bin(plan.mapping, v);
                if (bin < 0) {
                    ++result.samples_out_of_range;
                } else {
                    ++counts[static_cast<std::size_t>(column) * result.bins + bin];
                }
            }
        }
        result.counts.push_back(std::move(counts));
    }
    return result;
}

}  // namespace lacuna::ops
