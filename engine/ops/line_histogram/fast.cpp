// Multi-threaded CPU: positions (or columns) split across threads; per-thread scratch and
// counters; the median by selection instead of a full sort; direction columns skip the padding
// analytically. Same sampling code, so the same counts as the reference.
#include <lacuna/core/parallel.hpp>
#include <lacuna/ops/line_histogram.hpp>

#include <algorithm>
#include <cmath>

namespace lacuna::ops {
namespace {

struct Counters {
    std::int64_t outside = 0;
    std::int64_t out_of_range = 0;
};

// The profile from this position's valid values (band order), with min and max found while
// sampling; only the median needs the values reordered, and only partially.
void profile_position(std::vector<float>& values, const double sum, const float lo, const float hi,
                      ChannelHistogram& h, const int i) {
    const std::size_t n = values.size();
    h.samples[i] = static_cast<std::uint32_t>(n);
    if (n == 0) {
        h.mean[i] = h.median[i] = h.min[i] = h.max[i] = NAN;
        return;
    }
    h.mean[i] = static_cast<float>(sum / static_cast<double>(n));
    h.min[i] = lo;
    h.max[i] = hi;
    const auto mid = values.begin() + static_cast<std::ptrdiff_t>(n / 2);
    std::nth_element(values.begin(), mid, values.end());
    const float upper = *mid;
    if (n % 2 == 1) {
        h.median[i] = upper;
    } else {
        const float lower = *std::max_element(values.begin(), mid);
        h.median[i] = static_cast<float>((static_cast<double>(lower) + upper) / 2.0);
    }
}

// The band's sample points at position i: the same expressions as line_sample_point, with the
// per-position parts hoisted out of the band loop.
struct BandWalk {
    double sx, ex, step_x, sy, ey, step_y;
    BandWalk(const LineGeometry& g, const int i) {
        const double cx = linspace_at(g.x0, g.x1, g.step_x, i, g.positions);
        const double cy = linspace_at(g.y0, g.y1, g.step_y, i, g.positions);
        if (g.band == 1) {
            sx = ex = cx;
            sy = ey = cy;
            step_x = step_y = 0;
            return;
        }
        sx = cx - g.half_x;
        ex = cx + g.half_x;
        sy = cy - g.half_y;
        ey = cy + g.half_y;
        const double div = static_cast<double>(g.band - 1);
        step_x = (ex - sx) / div;
        step_y = (ey - sy) / div;
    }
    void point(const int j, const int band, double& x, double& y) const {
        x = linspace_at(sx, ex, step_x, j, band);
        y = linspace_at(sy, ey, step_y, j, band);
    }
};

}  // namespace

LineHistogram line_histogram_fast(const HistogramSource& source,
                                  const LineHistogramParams& params) {
    const LinePlan plan = plan_line(source, params);
    const LineGeometry& g = plan.geometry;
    LineHistogram result = empty_result(plan, params);
    result.channels.resize(plan.planes.size());
    for (std::size_t c = 0; c < plan.planes.size(); ++c) {
        ChannelHistogram& h = result.channels[c];
        h.channel = plan.planes[c];
        h.counts.assign(static_cast<std::size_t>(g.positions) * result.bins, 0);
        for (auto* column : {&h.mean, &h.median, &h.min, &h.max}) column->resize(g.positions);
        h.samples.resize(g.positions);
    }
    std::vector<Counters> counters(worker_count());
    parallel_chunks(g.positions, [&](const int begin, const int end, const int worker) {
        std::vector<float> values;
        values.reserve(g.band);
        Counters& count = counters[worker];
        for (std::size_t c = 0; c < plan.planes.size(); ++c) {
            const ImageView<const float> plane = source.plane(plan.planes[c]).view();
            ChannelHistogram& h = result.channels[c];
            for (int i = begin; i < end; ++i) {
                std::uint32_t* bins = h.counts.data() + static_cast<std::size_t>(i) * result.bins;
                values.clear();
                double sum = 0;
                float lo = INFINITY, hi = -INFINITY;
                const BandWalk walk(g, i);
                for (int j = 0; j < g.band; ++j) {
                    double x = 0, y = 0;
                    walk.point(j, g.band, x, y);
                    float v = 0;
                    if (!sample_plane(plane, params.sampling, x, y, v)) {
                        count.outside += c == 0;
                        continue;
                    }
                    const int bin = value_to_bin(plan.mapping, v);
                    if (bin < 0)
                        ++count.out_of_range;
                    else
                        ++bins[bin];
                    if (!std::isnan(v)) {
                        values.push_back(v);
                        sum += v;
                        lo = std::min(lo, v);
                        hi = std::max(hi, v);
                    }
                }
                profile_position(values, sum, lo, hi, h, i);
            }
        }
    });
    for (const Counters& c : counters) {
        result.samples_outside += c.outside;
        result.samples_out_of_range += c.out_of_range;
    }
    return result;
}

DirectionHistogram direction_histogram_fast(const HistogramSource& source,
                                            const DirectionHistogramParams& params) {
    const DirectionPlan plan = plan_direction(source, params);
    const DirectionGeometry& g = plan.geometry;
    DirectionHistogram result = empty_result(plan);
    result.counts.assign(
        plan.planes.size(),
        std::vector<std::uint32_t>(static_cast<std::size_t>(g.extent) * result.bins, 0));
    std::vector<Counters> counters(worker_count());
    parallel_chunks(g.extent, [&](const int begin, const int end, const int worker) {
        Counters& count = counters[worker];
        for (std::size_t c = 0; c < plan.planes.size(); ++c) {
            const ImageView<const float> plane = source.plane(plan.planes[c]).view();
            for (int column = begin; column < end; ++column) {
                std::uint32_t* bins =
                    result.counts[c].data() + static_cast<std::size_t>(column) * result.bins;
                int first = 0, last = -1;
                direction_row_range(g, column, source.width(), source.height(), first, last);
                std::int64_t inside = 0;
                for (int row = first; row <= last; ++row) {
                    double x = 0, y = 0;
                    direction_sample_point(g, column, row, x, y);
                    float v = 0;
                    if (!sample_plane(plane, params.sampling, x, y, v)) continue;
                    ++inside;
                    const int bin = value_to_bin(plan.mapping, v);
                    if (bin < 0)
                        ++count.out_of_range;
                    else
                        ++bins[bin];
                }
                if (c == 0) count.outside += g.extent - inside;
            }
        }
    });
    for (const Counters& c : counters) {
        result.samples_outside += c.outside;
        result.samples_out_of_range += c.out_of_range;
    }
    return result;
}

LineHistogram line_histogram(const HistogramSource& source, const LineHistogramParams& params,
                             const Backend backend) {
    if (backend == Backend::Cuda) return CudaLineHistogrammer(source).line(params);
    return line_histogram_fast(source, params);
}

DirectionHistogram direction_histogram(const HistogramSource& source,
                                       const DirectionHistogramParams& params,
                                       const Backend backend) {
    if (backend == Backend::Cuda) return CudaLineHistogrammer(source).direction(params);
    return direction_histogram_fast(source, params);
}

}  // namespace lacuna::ops
